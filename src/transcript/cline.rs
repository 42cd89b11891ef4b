//! Cline CLI 3 sessions, as the real Cline CLI 3.0.65 writes them (tests/e2e): a session's
//! folder `<sessions>/<id>/` holds its manifest `<id>.json` and its messages
//! `<id>.messages.json`, where `<sessions>` is `$CLINE_SESSION_DATA_DIR`, else
//! `$CLINE_DATA_DIR/sessions`, else `$CLINE_DIR/data/sessions`, else
//! `~/.cline/data/sessions`. The messages file is one JSON document, not JSON Lines, rewritten
//! whole (two-space indent) after each message:
//!
//! ```text
//! {"version": 1, "sessionId", "agent": "lead", …, "messages": [MESSAGE, …], "system_prompt"}
//! MESSAGE: {"id", "role": "user"|"assistant", "content": [BLOCK, …], "ts"}
//! BLOCK:   {"type": "text", "text"}      the human's prompt is `<user_input mode="act">…`
//!          {"type": "tool_use", "id", "name", "input"}
//!          {"type": "tool_result", "tool_use_id", "name", "content"}
//! ```
//!
//! A `run_commands` call takes `input.commands`, a list of whole commands run one by one; its
//! result's `content` is a list with one `{"query", "result", "success", "error"?}` per command,
//! where a command that exits non-zero has `success` false and `error` `Command exited with
//! code N`. An `editor` call takes `input.path`; its result's `content` is that object as a JSON
//! string. Each command is one call here, the first with the call's id (the hook's
//! `tool_call.id`), the next ones with `#1`, `#2` after it.
//!
//! The `PreToolUse` hook input names no file: its `sessionContext.rootSessionId` is the
//! session's id ([`session_file`]; its `taskId` names a conversation, not a session). At the
//! hook, the file already holds the call asked about and every result before it. A subagent's
//! messages (`spawn_agent`; its hooks send `parent_agent_id`) go to `<agent_id>.messages.json`
//! in the same folder, but only once it ends: while it runs the file holds none, so its hooks
//! read no file (the root session's does not show what the subagent did).
//!
//! The document is read from its end, message by message ([`Backward`]), as far as the walks
//! over it need and within the byte budget, keeping only what the events need (the two ends of
//! a command's output).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::text::{LooseStr, Output, TextOr};
use super::{Event, Line, Options, RESULT_TAIL_BYTES, code_after, tail};

/// Where the sessions folder is, first match winning: an environment variable and the path
/// under it; else `~/.cline/data/sessions`.
const SESSION_DIRS: [(&str, &str); 3] = [
    ("CLINE_SESSION_DATA_DIR", ""),
    ("CLINE_DATA_DIR", "sessions"),
    ("CLINE_DIR", "data/sessions"),
];

/// The messages file's name after the session id.
const MESSAGES_SUFFIX: &str = ".messages.json";

/// Cline's tool names, as the names the events use (Claude Code's).
const TOOL_NAMES: [(&str, &str); 3] = [
    ("run_commands", "Bash"),
    ("execute_command", "Bash"),
    ("editor", "Edit"),
];

/// What starts the human's prompt in a user text block (other user text is Cline's own).
const PROMPT_MARKER: &str = "<user_input";

/// The line that starts a message in the document: messages are the items of the top object's
/// `messages`, so they start at four spaces (`JSON.stringify(…, null, 2)`), and no string holds
/// a newline unescaped.
const MESSAGE_START: &[u8] = b"\n    {\n";

/// The messages file of session `id`, the folder found from `env` (a variable's value) and
/// `home`. `None` for an id that is no plain name.
pub fn session_file(
    id: &str,
    env: impl Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    if !plain {
        return None;
    }
    let sessions = SESSION_DIRS
        .iter()
        .find_map(|(var, under)| {
            let dir = PathBuf::from(env(var).filter(|v| !v.is_empty())?);
            Some(if under.is_empty() {
                dir
            } else {
                dir.join(under)
            })
        })
        .or_else(|| Some(home?.join(".cline/data/sessions")))?;
    Some(sessions.join(id).join(format!("{id}{MESSAGES_SUFFIX}")))
}

/// Whether `path` is a Cline messages file (a JSON document, read by [`Backward`]).
pub(super) fn is_messages_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.len() > MESSAGES_SUFFIX.len() && n.ends_with(MESSAGES_SUFFIX))
}

/// Bytes scanned at a time for the lines that start messages.
const CHUNK: u64 = 64 * 1024;

/// The messages of a document from the last, found by the line that starts each (so only as
/// far back as the walks over it need), within the byte budget. Each message is parsed on its
/// own, from its start to the next one's (what follows the message is not read): one that
/// does not parse (cut off by a rewrite, of another shape) is a bad line and loses nothing else.
pub(super) struct Backward {
    len: u64,
    /// The budget's start: no message starting before it is read.
    floor: u64,
    /// Starts at or after this offset were found.
    scanned_from: u64,
    /// Starts found and not yet read, oldest first.
    starts: Vec<u64>,
    /// The end of the next message to read: the start of the one after it.
    end: u64,
    /// Larger messages are streamed through the parser, not held.
    max_message_bytes: u64,
}

impl Backward {
    pub(super) fn new(len: u64, options: Options) -> Backward {
        Backward {
            len,
            floor: len.saturating_sub(options.max_scan_bytes),
            scanned_from: len,
            starts: Vec::new(),
            end: len,
            max_message_bytes: options.max_line_bytes as u64,
        }
    }

    /// Bytes scanned so far.
    pub(super) fn scanned(&self) -> u64 {
        self.len - self.scanned_from
    }

    /// Whether the budget ended the read before the document's start.
    pub(super) fn exhausted_budget(&self) -> bool {
        self.floor > 0 && self.scanned_from <= self.floor && self.starts.is_empty()
    }

    /// The next older message, as a line; `None` at the first message or the budget's start.
    pub(super) fn next(&mut self, file: &mut File) -> io::Result<Option<Line>> {
        loop {
            if let Some(start) = self.starts.pop() {
                let end = std::mem::replace(&mut self.end, start);
                file.seek(SeekFrom::Start(start))?;
                let message = if end - start <= self.max_message_bytes {
                    // Parsed from memory (faster), up to its end: what follows is not read.
                    let mut bytes = Vec::with_capacity((end - start) as usize);
                    (&*file).take(end - start).read_to_end(&mut bytes)?;
                    Message::deserialize(&mut serde_json::Deserializer::from_slice(&bytes))
                } else {
                    let reader = BufReader::with_capacity(64 * 1024, (&*file).take(end - start));
                    Message::deserialize(&mut serde_json::Deserializer::from_reader(reader))
                };
                return Ok(Some(message.map_or(Line::Bad, Message::line)));
            }
            if self.scanned_from <= self.floor {
                return Ok(None);
            }
            // A start across the chunk's end is found in this chunk, by reading a little past it.
            let from = self.scanned_from.saturating_sub(CHUNK).max(self.floor);
            let to = (self.scanned_from + MESSAGE_START.len() as u64 - 1).min(self.len);
            let mut chunk = Vec::with_capacity((to - from) as usize);
            file.seek(SeekFrom::Start(from))?;
            (&*file).take(to - from).read_to_end(&mut chunk)?;
            self.starts = memchr::memmem::find_iter(&chunk, MESSAGE_START)
                .map(|at| from + at as u64 + 1)
                .filter(|&start| start <= self.scanned_from)
                .collect();
            self.scanned_from = from;
        }
    }
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    id: LooseStr,
    #[serde(default)]
    role: LooseStr,
    content: Option<TextOr<Output, Block>>,
}

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type", default)]
    kind: LooseStr,
    #[serde(default)]
    text: Output,
    #[serde(default)]
    id: LooseStr,
    #[serde(default)]
    name: LooseStr,
    #[serde(default)]
    input: Input,
    #[serde(default)]
    tool_use_id: LooseStr,
    content: Option<TextOr<Output, CommandResult>>,
}

/// A call's input: its commands and the file it names (the rest is skipped unread).
#[derive(Default, Deserialize)]
#[serde(default)]
struct Input {
    /// A list of strings (a string in some inputs).
    commands: Value,
    command: LooseStr,
    path: LooseStr,
    /// `editor`: text to replace, or a line to insert at. With neither, the call writes the
    /// whole file (it creates it): Claude Code's `Write`, not `Edit`.
    old_text: Option<serde::de::IgnoredAny>,
    insert_line: Option<serde::de::IgnoredAny>,
}

/// One command's result in a `run_commands` result, or an `editor` result.
#[derive(Default, Deserialize)]
#[serde(default)]
struct CommandResult {
    result: Output,
    error: Output,
    success: Option<Value>,
}

impl Message {
    fn line(self) -> Line {
        let blocks = match self.content {
            Some(TextOr::Items(blocks)) => blocks,
            Some(TextOr::Text(text)) => vec![Block::text(text)],
            None => Vec::new(),
        };
        let role = self.role.get().unwrap_or("");
        let message = self.id.0.clone();
        let events = blocks
            .into_iter()
            .flat_map(|b| b.events(role, &message))
            .collect();
        Line::events(self.id.0, events)
    }
}

impl Block {
    fn text(text: Output) -> Block {
        Block {
            kind: LooseStr(Some("text".into())),
            text,
            id: LooseStr::default(),
            name: LooseStr::default(),
            input: Input::default(),
            tool_use_id: LooseStr::default(),
            content: None,
        }
    }

    fn events(self, role: &str, message: &Option<String>) -> Vec<Event> {
        let text = self.text.0.trim();
        match (self.kind.get().unwrap_or(""), role) {
            ("text", "assistant") if !text.is_empty() => vec![Event::AssistantText {
                text: text.to_owned(),
                message: message.clone(),
            }],
            ("text", "user") if text.starts_with(PROMPT_MARKER) => vec![Event::UserTurn {
                text: text.to_owned(),
            }],
            ("tool_use", _) => self.calls(),
            ("tool_result", _) => self.results(),
            _ => Vec::new(),
        }
    }

    /// A call: one per command of a `run_commands` call.
    fn calls(self) -> Vec<Event> {
        let name = self.name.get().unwrap_or("");
        let writes_whole =
            name == "editor" && self.input.old_text.is_none() && self.input.insert_line.is_none();
        let tool = TOOL_NAMES
            .iter()
            .find(|(cline, _)| *cline == name)
            .map_or(name, |(_, ours)| if writes_whole { "Write" } else { ours });
        let id = self.id.0.unwrap_or_default();
        let commands: Vec<Option<String>> = match self.input.commands {
            Value::Array(list) => list.iter().map(|c| c.as_str().map(str::to_owned)).collect(),
            Value::String(one) => vec![Some(one)],
            _ => vec![self.input.command.0],
        };
        let files: Vec<String> = self
            .input
            .path
            .0
            .filter(|_| tool == "Edit" || tool == "Write")
            .into_iter()
            .collect();
        commands
            .into_iter()
            .enumerate()
            .map(|(i, command)| Event::ToolCall {
                id: nth(&id, i),
                tool: tool.to_owned(),
                command,
                files: files.clone(),
            })
            .collect()
    }

    /// A result: one per command, each with its own exit status (`error` says it when not 0).
    fn results(self) -> Vec<Event> {
        let id = self.tool_use_id.0.unwrap_or_default();
        let results = match self.content {
            Some(TextOr::Items(results)) => results,
            // An `editor` result: the object as a JSON string.
            Some(TextOr::Text(text)) => {
                vec![
                    serde_json::from_str(&text.0).unwrap_or_else(|_| CommandResult {
                        result: text,
                        ..CommandResult::default()
                    }),
                ]
            }
            None => Vec::new(),
        };
        results
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let failed = r.success.and_then(|s| s.as_bool()) != Some(true);
                let exit = code_after(&r.error.0, "Command exited with code ")
                    .or_else(|| code_after(&r.result.0, "[Command exited with code "))
                    .or((!failed).then_some(0));
                let output = if r.result.0.is_empty() {
                    r.error.0
                } else {
                    r.result.0
                };
                Event::ToolResult {
                    id: nth(&id, i),
                    failed,
                    exit,
                    output: tail(&output, RESULT_TAIL_BYTES).to_owned(),
                }
            })
            .collect()
    }
}

/// The id of a call's `i`-th command.
fn nth(id: &str, i: usize) -> String {
    if i == 0 {
        id.to_owned()
    } else {
        format!("{id}#{i}")
    }
}

#[cfg(test)]
#[path = "cline_tests.rs"]
mod tests;
