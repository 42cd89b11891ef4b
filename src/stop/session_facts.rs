//! The session's facts for the judges that use them: read from the agent's session file
//! only when such a judge wakes, and, for Claude Code, only once its transcript holds the
//! turn's last message.

use std::io;
use std::path::Path;

use crate::config::Settings;
use crate::gate::evidence::facts::{self, TurnFacts};

/// The turn's facts from the session file `file`, where the agent's shell runs in `cwd`, read
/// the same way by the Stop hook and by `hookjudge judge --transcript`.
pub fn read(file: &Path, settings: &Settings, cwd: &Path) -> io::Result<TurnFacts> {
    facts::of_file(file, settings.transcript, &settings.gate.test_commands, cwd)
}

/// Where the turn's facts are read: the agent's session file, and the directory its shell
/// runs in.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    pub file: Option<&'a Path>,
    pub cwd: Option<&'a Path>,
    /// Claude Code's last message, which its transcript holds once every line of the turn
    /// before it is written.
    pub last_message: Option<&'a str>,
}

/// Claude Code writes its transcript through a queue: when the Stop hook starts, the turn's
/// last lines (a test run and its result) may not be in the file yet. They are written before
/// the final message, so the facts wait, briefly, until the file's end holds that message.
fn wait_for_last_message(file: &Path, message: &str) {
    // The message's end as the transcript's JSON spells it (escaped, without the quotes).
    let tail: String = message
        .trim_end()
        .chars()
        .rev()
        .take(40)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let Ok(quoted) = serde_json::to_string(&tail) else {
        return;
    };
    let needle = quoted.trim_matches('"').as_bytes().to_vec();
    if needle.len() < 8 {
        return;
    }
    let holds = || -> bool {
        use std::io::{Read, Seek, SeekFrom};
        let Ok(mut f) = std::fs::File::open(file) else {
            return true;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let start = len.saturating_sub(256 << 10);
        let mut buf = Vec::new();
        if f.seek(SeekFrom::Start(start)).is_err() || f.read_to_end(&mut buf).is_err() {
            return true;
        }
        buf.windows(needle.len()).any(|w| w == needle.as_slice())
    };
    for _ in 0..LAST_MESSAGE_POLLS {
        if holds() {
            return;
        }
        std::thread::sleep(LAST_MESSAGE_POLL);
    }
}

/// How long the facts wait for Claude Code's transcript to catch up (a second in all).
const LAST_MESSAGE_POLL: std::time::Duration = std::time::Duration::from_millis(50);
const LAST_MESSAGE_POLLS: u32 = 20;

impl Session<'_> {
    /// The session's facts, once the transcript has caught up; none without a session file
    /// or when it cannot be read (the judges then go without them).
    pub fn facts(self, settings: &Settings) -> Option<TurnFacts> {
        let cwd = self.cwd.unwrap_or(Path::new("/"));
        let file = self.file?;
        if let Some(message) = self.last_message {
            wait_for_last_message(file, message);
        }
        read(file, settings, cwd).ok()
    }
}
