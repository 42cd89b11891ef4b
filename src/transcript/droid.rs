//! Factory Droid's session file, for the one thing its `Stop` hook needs from it: the text of
//! the message that ended the turn. Droid's `Stop` input carries no message text, only
//! `transcript_path` and `message_id` (seen with the real Droid 0.215, tests/e2e); the file
//! holds one JSON object a line, the turn's assistant messages as
//! `{"type": "message", "id": ID, "message": {"role": "assistant", "content": [{"type": "text",
//! "text": …}, …]}}`.
//!
//! Only the file's last [`TAIL_BYTES`] are read: the message that ended the turn was just
//! written. A torn or unparseable line is skipped, as in the other readers.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

/// How much of the file's end is read.
pub const TAIL_BYTES: u64 = 4 * 1024 * 1024;

/// The text of assistant message `message_id` (the last assistant message with text when
/// `None`), its text blocks joined by blank lines; `None` when the file has no such message.
pub fn final_text(path: &Path, message_id: Option<&str>) -> Option<String> {
    let mut file = super::open_regular(path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut tail).ok()?;
    let tail = String::from_utf8_lossy(&tail);
    // A read that starts inside the file starts inside a line: that piece is not a line.
    let lines = tail.lines().skip(usize::from(start > 0));
    lines
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .find_map(|line| {
            let entry: Value = serde_json::from_str(line).ok()?;
            let message = &entry["message"];
            if entry["type"] != "message" || message["role"] != "assistant" {
                return None;
            }
            if message_id.is_some_and(|id| entry["id"].as_str() != Some(id)) {
                return None;
            }
            let texts: Vec<&str> = message["content"]
                .as_array()?
                .iter()
                .filter(|block| block["type"] == "text")
                .filter_map(|block| block["text"].as_str())
                .filter(|text| !text.trim().is_empty())
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n\n"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = r#"{"type":"session_start","id":"s1","cwd":"/p"}
{"type":"message","id":"u1","message":{"role":"user","content":[{"type":"text","text":"go on"}]}}
{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Execute","input":{"command":"ls"}}]}}
{"type":"message","id":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"a.txt"}]}}
{"type":"message","id":"a2","message":{"role":"assistant","content":[{"type":"text","text":"All done."},{"type":"text","text":"I'll push now."}]}}
{"type":"message","id":"h1","message":{"role":"user","content":[],"hookEventName":"Stop"}}
not json
"#;

    fn session(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s1.jsonl");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn the_message_named_by_the_stop_input_is_read() {
        let (_dir, path) = session(SESSION);
        assert_eq!(
            final_text(&path, Some("a2")).as_deref(),
            Some("All done.\n\nI'll push now.")
        );
        assert_eq!(final_text(&path, Some("a1")), None, "no text in it");
        assert_eq!(final_text(&path, Some("u1")), None, "not the assistant's");
    }

    #[test]
    fn without_an_id_the_last_assistant_text_is_read() {
        let (_dir, path) = session(SESSION);
        assert_eq!(
            final_text(&path, None).as_deref(),
            Some("All done.\n\nI'll push now.")
        );
    }

    #[test]
    fn a_missing_file_or_a_folder_has_no_text() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(final_text(&dir.path().join("none.jsonl"), None), None);
        assert_eq!(final_text(dir.path(), None), None);
    }
}
