//! Factory Droid session files (`~/.factory/sessions/<project>/<session>.jsonl`, the hook
//! input's `transcript_path`), as the real Droid 0.215 writes them (tests/e2e): one JSON object
//! a line, a `session_start` line first, then one `message` line per message,
//! `{"type": "message", "id": ID, "parentId": …, "message": {"role": …, "content": [block, …]}}`,
//! with content blocks in Claude Code's shapes:
//!
//! - the assistant's `text` and `tool_use` blocks (`{"id", "name", "input"}`; the shell tool is
//!   `Execute`, `Create` writes a file, `Edit` changes one, both naming it in `file_path`);
//! - a tool's result as a user message's `tool_result` block (`tool_use_id`, `is_error`, and
//!   `content`, a string; a command's ends with the line `[Process exited with code N]`);
//! - the user's prompt as a user message's `text` block. Droid's own context comes as user
//!   messages of `<system-reminder>` blocks, a hook's run as a user message with no content
//!   (and `hookEventName`), and a `Stop` block's reason as a user message of its text.
//!
//! `agent_turn_outcome` lines close a turn; `compaction_state` lines (the client's session
//! loader reads the messages after the newest one) mark a compaction.
//!
//! Droid's `Stop` input carries no message text, only `transcript_path` and `message_id`:
//! [`final_text`] reads that message from the file's last [`TAIL_BYTES`]. A torn or
//! unparseable line is skipped, as in the other readers.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::text::{Head, LooseStr, Output, Text, TextOr};
use super::{Event, Line, RESULT_TAIL_BYTES, code_after, is_human_prompt, tail};

/// The `type` of every line Droid writes to a session file that hookjudge knows of.
pub(super) const LINE_TYPES: [&str; 4] = [
    "session_start",
    "message",
    "compaction_state",
    "agent_turn_outcome",
];

/// Droid's tool names, as the names the events use (Claude Code's). `ApplyPatch` (offered to
/// some models only) carries a patch in Codex's format in `input`: its files are read from it.
const TOOL_NAMES: [(&str, &str); 3] = [
    ("Execute", "Bash"),
    ("Create", "Write"),
    ("ApplyPatch", "apply_patch"),
];

/// User text Droid writes itself (context for the model).
const MARKERS: [&str; 1] = ["<system-reminder>"];

/// The line that ends a command's result.
const EXIT_LINE: &str = "[Process exited with code ";

pub(super) fn small(bytes: &[u8]) -> Line {
    serde_json::from_slice::<Entry<String>>(bytes).map_or(Line::Bad, Entry::line)
}

pub(super) fn giant(reader: impl Read) -> Line {
    serde_json::from_reader::<_, Entry<Head>>(reader).map_or(Line::Bad, Entry::line)
}

#[derive(Debug, Deserialize)]
#[serde(bound = "T: Text")]
struct Entry<T> {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    id: LooseStr,
    message: Option<Message<T>>,
}

#[derive(Debug, Deserialize)]
#[serde(bound = "T: Text")]
struct Message<T> {
    role: Option<String>,
    content: Option<TextOr<T, Block<T>>>,
}

/// A content block: text, a tool call or a tool result.
#[derive(Debug, Deserialize)]
#[serde(bound = "T: Text")]
struct Block<T> {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<T>,
    id: Option<String>,
    name: Option<String>,
    #[serde(default)]
    input: ToolInput,
    tool_use_id: Option<String>,
    is_error: Option<bool>,
    /// A tool result's output: a string, or text blocks.
    content: Option<TextOr<Output, ResultText>>,
}

/// A text block of a tool result's output.
#[derive(Debug, Deserialize)]
struct ResultText {
    text: Option<Output>,
}

/// A tool call's input: its command and the file it names (the rest is skipped unread).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ToolInput {
    command: LooseStr,
    file_path: LooseStr,
    /// `ApplyPatch`'s patch, in Codex's `apply_patch` format.
    input: LooseStr,
}

impl<T: Text> Entry<T> {
    fn line(self) -> Line {
        let key = self.id.0;
        let events = match (self.kind.as_deref(), self.message) {
            (Some("compaction_state"), _) => vec![Event::Compaction],
            (Some("message"), Some(message)) => message.events(key.as_deref()),
            _ => Vec::new(),
        };
        Line::events(key, events)
    }
}

impl<T: Text> Message<T> {
    fn events(&self, id: Option<&str>) -> Vec<Event> {
        let blocks = match &self.content {
            Some(TextOr::Items(blocks)) => blocks.as_slice(),
            Some(TextOr::Text(text)) if self.role.as_deref() == Some("user") => {
                return prompt([text.as_str()].into_iter());
            }
            _ => &[],
        };
        let texts = blocks
            .iter()
            .filter(|b| b.kind.as_deref() == Some("text"))
            .filter_map(|b| b.text.as_ref().map(Text::as_str));
        match self.role.as_deref() {
            Some("assistant") => {
                let mut events = Vec::new();
                let said: Vec<&str> = texts
                    .filter(|_| T::WHOLE)
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .collect();
                if !said.is_empty() {
                    events.push(Event::AssistantText {
                        text: said.join("\n"),
                        message: id.map(str::to_owned),
                    });
                }
                let calls = blocks
                    .iter()
                    .filter(|b| b.kind.as_deref() == Some("tool_use"));
                events.extend(calls.map(Block::call));
                events
            }
            Some("user") => {
                let results = blocks
                    .iter()
                    .filter(|b| b.kind.as_deref() == Some("tool_result"));
                let mut events: Vec<Event> = results.map(Block::result).collect();
                events.extend(prompt(texts));
                events
            }
            _ => Vec::new(),
        }
    }
}

/// The user's prompt in a user message's text blocks (Droid's own blocks left out).
fn prompt<'t>(texts: impl Iterator<Item = &'t str>) -> Vec<Event> {
    let own = |t: &&str| MARKERS.iter().any(|m| t.trim_start().starts_with(m));
    let text: Vec<&str> = texts.filter(|t| !own(t)).collect();
    let text = text.join("\n");
    if !is_human_prompt(&text, &MARKERS) {
        return Vec::new();
    }
    vec![Event::UserTurn {
        text: text.trim().to_owned(),
    }]
}

impl<T> Block<T> {
    fn call(&self) -> Event {
        let name = self.name.as_deref().unwrap_or("");
        let tool = TOOL_NAMES
            .iter()
            .find(|(droid, _)| *droid == name)
            .map_or(name, |(_, ours)| ours);
        Event::ToolCall {
            id: self.id.clone().unwrap_or_default(),
            tool: tool.to_owned(),
            command: self.input.command.get().map(str::to_owned),
            files: match self.input.input.get() {
                Some(patch) if name == "ApplyPatch" => super::codex::patch_files(patch),
                _ => self
                    .input
                    .file_path
                    .get()
                    .map(str::to_owned)
                    .into_iter()
                    .collect(),
            },
        }
    }

    /// A tool's result: a command's exit status is its last line's (none shown: `None`).
    fn result(&self) -> Event {
        let output = match &self.content {
            Some(TextOr::Text(Output(text))) => text.clone(),
            Some(TextOr::Items(parts)) => parts
                .iter()
                .filter_map(|p| p.text.as_ref().map(|t| t.0.as_str()))
                .collect::<Vec<_>>()
                .join("\n"),
            None => String::new(),
        };
        let exit = code_after(&output, EXIT_LINE);
        Event::ToolResult {
            id: self.tool_use_id.clone().unwrap_or_default(),
            failed: self.is_error == Some(true) || exit.is_some_and(|c| c != 0),
            exit,
            output: tail(&output, RESULT_TAIL_BYTES).to_owned(),
        }
    }
}

/// How much of the file's end is read.
pub const TAIL_BYTES: u64 = 4 * 1024 * 1024;

/// The text of assistant message `message_id` (the last assistant message with text when
/// `None`), its text blocks joined by blank lines; `None` when the file has no such message.
pub fn final_text(path: &Path, message_id: Option<&str>) -> Option<String> {
    let tail = super::tail_text(path, TAIL_BYTES)?;
    tail.lines().rev().find_map(|line| {
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
    use serde_json::json;

    fn events(line: Value) -> Vec<Event> {
        super::super::events_both_ways(&line, small, |b| giant(b))
    }

    fn message(id: &str, role: &str, content: Value) -> Value {
        json!({"type": "message", "id": id, "parentId": "p", "timestamp": "t",
               "message": {"role": role, "content": content}})
    }

    fn call(id: &str, name: &str, input: Value) -> Value {
        message(
            &format!("a-{id}"),
            "assistant",
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
        )
    }

    fn result(id: &str, is_error: bool, content: &str) -> Value {
        message(
            &format!("r-{id}"),
            "user",
            json!([{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": content}]),
        )
    }

    #[test]
    fn tool_calls_are_named_as_claude_codes() {
        let run = call(
            "c1",
            "Execute",
            json!({"command": "make test", "riskLevelReason": "r", "riskLevel": "low"}),
        );
        assert_eq!(
            events(run),
            [Event::ToolCall {
                id: "c1".into(),
                tool: "Bash".into(),
                command: Some("make test".into()),
                files: vec![]
            }]
        );
        let create = call(
            "c2",
            "Create",
            json!({"file_path": "/p/a.py", "content": "x"}),
        );
        assert!(
            matches!(&events(create)[..], [Event::ToolCall { tool, files, .. }] if tool == "Write" && files == &["/p/a.py"])
        );
        let edit = call(
            "c3",
            "Edit",
            json!({"file_path": "/p/b.py", "old_str": "a", "new_str": "b"}),
        );
        assert!(
            matches!(&events(edit)[..], [Event::ToolCall { tool, files, .. }] if tool == "Edit" && files == &["/p/b.py"])
        );
        let patch = call(
            "c4",
            "ApplyPatch",
            json!({"input": "*** Begin Patch\n*** Update File: /p/c.py\n@@\n-a\n+b\n*** End Patch"}),
        );
        assert!(
            matches!(&events(patch)[..], [Event::ToolCall { tool, files, .. }] if tool == "apply_patch" && files == &["/p/c.py"])
        );
        let read = call("c5", "Read", json!({"file_path": "/p/a.py"}));
        assert!(matches!(&events(read)[..], [Event::ToolCall { tool, .. }] if tool == "Read"));
    }

    #[test]
    fn a_commands_status_is_its_last_line() {
        for (content, is_error, failed, exit) in [
            (
                "3 passed\n\n\n[Process exited with code 0]",
                false,
                false,
                Some(0),
            ),
            (
                "Error: Command failed (exit code: 2)\n1 failed\n\n\n[Process exited with code 2]",
                true,
                true,
                Some(2),
            ),
            // A status printed by the command itself is not the last one.
            (
                "[Process exited with code 0]\n\n[Process exited with code 1]",
                false,
                true,
                Some(1),
            ),
            ("Command completed successfully", false, false, None),
            ("Error: hookjudge gate [push]: refused", true, true, None),
            (
                "{\"success\":true,\"file_path\":\"/p/a.py\"}",
                false,
                false,
                None,
            ),
        ] {
            let found = events(result("c1", is_error, content));
            assert!(
                matches!(&found[..], [Event::ToolResult { id, failed: f, exit: e, output }]
                    if id == "c1" && *f == failed && *e == exit && output == content),
                "{content}: {found:?}"
            );
        }
    }

    #[test]
    fn text_prompts_and_what_is_not_a_prompt() {
        let said = message(
            "m1",
            "assistant",
            json!([{"type": "text", "text": "Running the tests."},
                   {"type": "tool_use", "id": "c1", "name": "Execute", "input": {"command": "make test"}}]),
        );
        let found = events(said);
        assert_eq!(
            found[0],
            Event::AssistantText {
                text: "Running the tests.".into(),
                message: Some("m1".into())
            }
        );
        assert!(matches!(&found[1], Event::ToolCall { tool, .. } if tool == "Bash"));
        let prompt = message(
            "u1",
            "user",
            json!([{"type": "text", "text": "fix the loader"}]),
        );
        assert_eq!(
            events(prompt),
            [Event::UserTurn {
                text: "fix the loader".into()
            }]
        );
        let context = message(
            "context-u1",
            "user",
            json!([{"type": "text", "text": "<system-reminder>\ntools\n</system-reminder>"},
                   {"type": "text", "text": "<system-reminder>\nskills\n</system-reminder>"}]),
        );
        assert_eq!(events(context), []);
        let reason = message(
            "u2",
            "user",
            json!([{"type": "text", "text": "hookjudge [commit]: report the tests first."}]),
        );
        assert_eq!(events(reason), []);
        let mut hook = message("h1", "user", json!([]));
        hook["message"]["hookEventName"] = json!("PreToolUse");
        hook["message"]["hookResults"] = json!([{"exitCode": 0, "stdout": "", "stderr": ""}]);
        assert_eq!(events(hook), []);
        let compaction = json!({"type": "compaction_state", "id": "k1", "summaryText": "earlier", "removedCount": 9});
        assert_eq!(events(compaction), [Event::Compaction]);
        for other in [
            json!({"type": "session_start", "id": "s1", "title": "t", "version": 2, "cwd": "/p"}),
            json!({"type": "agent_turn_outcome", "turnId": "u1", "reason": "completed", "resultKind": "text"}),
        ] {
            assert_eq!(events(other), []);
        }
    }

    #[test]
    fn the_session_reader_knows_the_file_by_its_lines() {
        let lines = [
            json!({"type": "session_start", "id": "s1", "title": "t", "version": 2, "cwd": "/p"}),
            message(
                "u1",
                "user",
                json!([{"type": "text", "text": "run the tests"}]),
            ),
            call("c1", "Execute", json!({"command": "make test"})),
            result("c1", false, "3 passed\n\n[Process exited with code 0]"),
            message(
                "a1",
                "assistant",
                json!([{"type": "text", "text": "3 passed."}]),
            ),
            json!({"type": "agent_turn_outcome", "turnId": "u1", "reason": "completed", "resultKind": "text"}),
        ];
        let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        text.push_str(r#"{"type":"message","id":"torn"#);
        let (_dir, path) = session(&text);
        let (seen, bad_lines) = crate::transcript::described_backwards(&path);
        assert_eq!(
            seen,
            [
                "said 3 passed.",
                "result false Some(0)",
                "call Bash make test",
                "user run the tests"
            ]
        );
        assert_eq!(bad_lines, 1, "the torn line");
    }

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
