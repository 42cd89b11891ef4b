//! Cursor's turn end: its `stop` event carries no text, but `afterAgentResponse` (sent after
//! each assistant message) carries the message's `text`. The Stop entry, wired to both, keeps
//! the latest message per conversation in the state dir and judges it at `stop`, whose answer
//! `followup_message` sends the agent back to work (Cursor caps that with `loop_limit`).

use std::path::{Path, PathBuf};

use crate::support::hash::fnv1a;

/// Where the latest message of `conversation` is kept.
pub fn response_path(state_dir: &Path, conversation: &str) -> PathBuf {
    state_dir
        .join("cursor-responses")
        .join(format!("{:016x}.txt", fnv1a(conversation.as_bytes())))
}

/// Keeps `text` as the latest message of `conversation` (replacing the one before).
pub fn record(
    state_dir: &Path,
    conversation: &str,
    text: &str,
) -> Result<(), crate::support::statefile::Error> {
    crate::support::statefile::write(&response_path(state_dir, conversation), text)
}

/// The latest message of `conversation`, taken (a later `stop` without a new message judges
/// nothing).
pub fn take(state_dir: &Path, conversation: &str) -> Option<String> {
    let path = response_path(state_dir, conversation);
    let text = std::fs::read_to_string(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_message_per_conversation_is_taken_once() {
        let state = tempfile::tempdir().unwrap();
        record(state.path(), "a", "first").unwrap();
        record(state.path(), "a", "second").unwrap();
        record(state.path(), "b", "other").unwrap();
        assert_eq!(take(state.path(), "a").as_deref(), Some("second"));
        assert_eq!(take(state.path(), "a"), None);
        assert_eq!(take(state.path(), "b").as_deref(), Some("other"));
    }
}
