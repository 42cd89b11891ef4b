//! The agents' session files (Claude Code transcripts, Codex CLI rollouts, Gemini CLI, Factory
//! Droid, Copilot CLI and Cline CLI sessions), read from the end as typed events: assistant text, tool calls, tool results, real user turns
//! and compactions.
//!
//! One reader serves every consumer: the Stop hook's "what the assistant said since the last
//! real user turn" ([`turn_text`]), and the gate's test evidence and account of recent activity.
//! So there is one definition of a real user turn (harness-injected text such as Stop-hook
//! feedback is not one, whichever agent wrote it) and one rule for giant lines.
//!
//! Session files reach gigabytes and single lines reach megabytes, so a file is read from the
//! end in chunks (`reverse`), within a byte budget, and never slurped. A line longer than the
//! line cap is not held in memory: it is streamed through the parser, which keeps its structure
//! (line kinds, flags, ids, tool names, commands, paths), only the first bytes of a prompt and
//! the ends of a tool's output, and none of the assistant text or tool input it carries. A torn
//! or unparseable line is skipped. Each format lives in its own module (`claude`, `codex`,
//! `gemini`, `droid`, `copilot`, `cline`); `session` keeps what was read, so that one hook call reads
//! each line once, and a wait for a line being written reads only what was appended. Cline's
//! file is one JSON document rewritten whole, not lines: it is read from its end a message at a
//! time (each message a line, found by the line that starts it), and from its end again when
//! it changed.

mod claude;
pub mod cline;
mod codex;
pub mod copilot;
pub mod droid;
pub mod facts;
mod gemini;
mod reverse;
mod session;
mod text;
mod turn;

use std::fs::File;
use std::io;
use std::path::Path;

pub use session::{Stats, Transcript};
pub use turn::{Boundary, TurnText, judged_text, turn_text};

/// Limits on how much of a transcript one hook call reads.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Bytes read from the end at most. By default, 32 MiB.
    pub max_scan_bytes: u64,
    /// Lines longer than this are streamed through the parser, and their free text is not
    /// collected. By default, 1 MiB.
    pub max_line_bytes: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_scan_bytes: 32 << 20,
            max_line_bytes: 1 << 20,
        }
    }
}

/// What a session file says happened, in terms common to every agent. Tool names are Claude
/// Code's (`Bash`, `Edit`, `Write`, …) whichever agent wrote the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Text the assistant wrote. `message` groups the pieces of one message written on
    /// several lines (Claude Code writes one content block per line).
    AssistantText {
        text: String,
        message: Option<String>,
    },
    /// A tool call: its id, tool name, shell command (for shell calls) and the files it
    /// changes (for edit tools).
    ToolCall {
        id: String,
        tool: String,
        command: Option<String>,
        files: Vec<String>,
    },
    /// A tool call's result: whether it failed, the exit status of a shell command when the
    /// result shows it (`None`: not shown, killed, or not a command), and the last
    /// [`RESULT_TAIL_BYTES`] of its output (where test runners print their summary).
    ToolResult {
        id: String,
        failed: bool,
        exit: Option<i32>,
        output: String,
    },
    /// A prompt the human wrote: where the current turn starts. `text` is cut to its first
    /// bytes on giant lines.
    UserTurn { text: String },
    /// The conversation was compacted here: what came before is summarised away.
    Compaction,
}

/// One line of a session file, as the rules of history see it (see `session::History`).
#[derive(Debug)]
enum Line {
    /// The events of one message, oldest first. `key` names the message when copies of it can
    /// appear again (a re-serialised Claude Code line, a Gemini message written anew whenever
    /// it changes): the newest copy is the one that counts.
    Message {
        key: Option<String>,
        events: Vec<Event>,
    },
    /// Replaces every message before it (a Gemini `$set` of the messages), oldest first.
    History(Vec<(Option<String>, Vec<Event>)>),
    /// Drops the named message and every message after it (Gemini `$rewindTo`).
    RewindTo(String),
    /// A line that did not parse (a torn last line, for instance).
    Bad,
}

impl Line {
    fn events(key: Option<String>, events: Vec<Event>) -> Line {
        Line::Message { key, events }
    }

    /// Bytes of assistant text the line holds.
    fn text_bytes(&self) -> usize {
        let text = |events: &[Event]| -> usize {
            events
                .iter()
                .map(|e| match e {
                    Event::AssistantText { text, .. } => text.len(),
                    _ => 0,
                })
                .sum()
        };
        match self {
            Line::Message { events, .. } => text(events),
            Line::History(messages) => messages.iter().map(|(_, e)| text(e)).sum(),
            Line::RewindTo(_) | Line::Bad => 0,
        }
    }

    /// Forgets the line's assistant text, keeping the rest of its events.
    fn drop_text(&mut self) {
        let keep = |e: &Event| !matches!(e, Event::AssistantText { .. });
        match self {
            Line::Message { events, .. } => events.retain(keep),
            Line::History(messages) => messages.iter_mut().for_each(|(_, e)| e.retain(keep)),
            Line::RewindTo(_) | Line::Bad => {}
        }
    }
}

/// Bytes of a tool result's output kept in its event: the end, where runners print their
/// summary (`3 passed`, `no tests ran`, `test result: ok. 0 passed`).
pub const RESULT_TAIL_BYTES: usize = 1024;

/// The number after `marker` at the start of a line of `text` (`Exit code 2`, `Process exited
/// with code 0`, `Exit Code: 1`), the last such line winning.
fn code_after(text: &str, marker: &str) -> Option<i32> {
    text.lines()
        .rev()
        .filter_map(|l| l.trim_start().strip_prefix(marker))
        .find_map(|rest| {
            let digits: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            digits.parse().ok()
        })
}

/// User text that the harness or hookjudge wrote, not the human, in every agent's files: the
/// Stop-hook feedback Claude Code records, the continuation Codex writes for a Stop block, the
/// reasons of hookjudge's own blocks that Gemini and Droid send on as the next prompt.
const HARNESS_PROMPTS: [&str; 3] = ["Stop hook feedback:", "<hook_prompt", "hookjudge ["];

/// Whether a user's text is a prompt the human wrote: not empty, and starting with none of
/// [`HARNESS_PROMPTS`] nor with the agent's own markers (`agent_markers`).
fn is_human_prompt(text: &str, agent_markers: &[&str]) -> bool {
    let text = text.trim_start();
    !text.is_empty()
        && !HARNESS_PROMPTS
            .iter()
            .chain(agent_markers)
            .any(|p| text.starts_with(p))
}

/// Opens a transcript, refusing at once anything but a regular file: opening a FIFO blocks
/// until a writer comes, and a device never ends.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{}` is not a regular file", path.display()),
        ));
    }
    File::open(path)
}

/// The last `max_bytes` of the file at `path` (a regular file), from the first whole line
/// there; `None` when it cannot be read.
pub(crate) fn tail_text(path: &Path, max_bytes: u64) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = open_regular(path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(max_bytes);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.take(max_bytes).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // A read that starts inside the file starts inside a line: that piece is not a line.
    Some(match text.find('\n') {
        Some(end) if start > 0 => text[end + 1..].to_owned(),
        None if start > 0 => String::new(),
        _ => text,
    })
}

/// The first `max_bytes` bytes of `text`, cut back to a character boundary.
pub fn head(text: &str, max_bytes: usize) -> &str {
    let mut end = max_bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The last `max_bytes` bytes of `text`, cut forward to a character boundary.
pub fn tail(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// A line's events as a format reads it whole (`small`) and as a giant line (`giant`), for
/// tests: the giant reading keeps everything but the assistant's text, which is checked here.
#[cfg(test)]
fn events_both_ways(
    line: &serde_json::Value,
    small: fn(&[u8]) -> Line,
    giant: fn(&[u8]) -> Line,
) -> Vec<Event> {
    let text = line.to_string();
    let (Line::Message { events, .. }, Line::Message { events: shape, .. }) =
        (small(text.as_bytes()), giant(text.as_bytes()))
    else {
        panic!("{line}")
    };
    let said = |e: &Event| matches!(e, Event::AssistantText { .. });
    assert_eq!(
        events.iter().filter(|e| !said(e)).collect::<Vec<_>>(),
        shape.iter().collect::<Vec<_>>()
    );
    events
}

/// The events of the session file at `path`, newest first, as short strings, and how many of
/// its lines were bad, for tests of the formats' readers.
#[cfg(test)]
fn described_backwards(path: &Path) -> (Vec<String>, u32) {
    let mut transcript = Transcript::open(path, Options::default()).unwrap();
    let mut seen = Vec::new();
    transcript
        .visit_backwards(|e| {
            seen.push(match e {
                Event::AssistantText { text, .. } => format!("said {text}"),
                Event::ToolCall { tool, command, .. } => {
                    format!("call {tool} {}", command.as_deref().unwrap_or(""))
                }
                Event::ToolResult { failed, exit, .. } => format!("result {failed} {exit:?}"),
                Event::UserTurn { text } => format!("user {text}"),
                Event::Compaction => "compaction".into(),
            });
            true
        })
        .unwrap();
    (seen, transcript.stats().bad_lines)
}

/// A FIFO made in `dir`, for tests: opening it for reading would block until a writer came.
#[cfg(all(test, unix))]
pub(crate) fn fifo_in(dir: &Path) -> std::path::PathBuf {
    let fifo = dir.join("t.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    fifo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_text_is_not_a_human_prompt_in_any_agent() {
        for harness in [
            "Stop hook feedback:\nrun the tests",
            "  Stop hook feedback: x",
            "<hook_prompt hook_run_id=\"stop:1\">Verify first.</hook_prompt>",
            "hookjudge [commit]: you said you would push",
            "",
            "   ",
        ] {
            assert!(!is_human_prompt(harness, &[]), "{harness:?}");
        }
        assert!(!is_human_prompt(
            "<local-command-stdout>",
            &["<local-command-"]
        ));
        assert!(is_human_prompt("hookjudge stops my push, why?", &[]));
        assert!(is_human_prompt("Fix the Stop hook feedback text", &[]));
    }

    #[test]
    fn exit_codes_are_read_from_status_lines_only() {
        assert_eq!(code_after("Exit code 101\nboom", "Exit code "), Some(101));
        assert_eq!(
            code_after(
                "Output: 3 passed\nExit Code: 2\nProcess Group PGID: 7",
                "Exit Code: "
            ),
            Some(2)
        );
        assert_eq!(
            code_after("Output: the Exit Code: 2 was expected", "Exit Code: "),
            None
        );
        assert_eq!(
            code_after(
                "Chunk ID: 1\nProcess exited with code 0\n",
                "Process exited with code "
            ),
            Some(0)
        );
    }

    #[test]
    fn tail_cuts_on_a_char_boundary() {
        assert_eq!(tail("abc", 10), "abc");
        assert_eq!(tail("abcdef", 3), "def");
        let cut = tail("コミット", 4);
        assert!("コミット".ends_with(cut) && cut.len() <= 4 && !cut.is_empty());
    }
}
