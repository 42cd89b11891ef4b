//! GitHub Copilot CLI session files (`~/.copilot/session-state/<session>/events.jsonl`, or
//! under `$COPILOT_HOME`), as the real Copilot CLI 1.0.102 writes them (tests/e2e): one event a
//! line, `{"type": KIND, "data": {…}, "id", "timestamp", "parentId"}`, its kinds dotted:
//!
//! - `user.message`: `data.content` is the prompt as sent (`transformedContent` adds Copilot's
//!   own context before it); a `{"decision":"block"}` reason of an `agentStop` hook comes back
//!   as one;
//! - `assistant.message`: `data.content` is the text (empty beside tool calls), `messageId`
//!   names it, and `toolRequests` the calls it makes;
//! - `tool.execution_start`: one call, `toolCallId`, `toolName` (`bash`, `create`, `edit`,
//!   `apply_patch`, …) and `arguments` (`command`; `path` for the file tools; for
//!   `apply_patch`, a freeform tool, the patch itself, a string in Codex's patch format);
//! - `tool.execution_complete`: its result, `success` (true for a command that ran, whatever
//!   its exit code), `shellExecution.exitCode` for a command that ran, `result.content` (a command's output, ending with `<shellId: N completed with
//!   exit code C>`) or `error.message` (a hook's refusal); `fileEdits` lists what a file tool
//!   changed (the call's own arguments name the same files, and are what is read);
//! - `session.compaction_complete` marks a compaction; `session.*`, `hook.*`,
//!   `assistant.turn_*`, `system.message` and the rest say nothing the readers need.
//!
//! Copilot's `agentStop` input names the file in `transcriptPath` and carries no text:
//! [`final_text`] reads the last assistant text from the file's end; its `preToolUse` input
//! names no file, which [`session_file`] finds from the session id.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::text::{Head, LooseStr, Output, Text};
use super::{Event, Line, RESULT_TAIL_BYTES, is_human_prompt, tail};

/// Copilot's tool names, as the names the events use (Claude Code's; `apply_patch` as Codex's).
/// Copilot CLI 1.0.102 offers `create` and `edit` to most models, and `apply_patch` in their
/// place to GPT-5 ones (tests/e2e); it also knows `str_replace` (as `edit`) and
/// `str_replace_editor` (its `command` says which: `view` reads, the others write).
const TOOL_NAMES: [(&str, &str); 6] = [
    ("bash", "Bash"),
    ("create", "Write"),
    ("edit", "Edit"),
    ("str_replace", "Edit"),
    ("str_replace_editor", "Edit"),
    ("apply_patch", "apply_patch"),
];

/// Whether a line's `type` is one Copilot CLI writes: dotted, with a known first part.
pub(super) fn is_kind(kind: &str) -> bool {
    kind.split_once('.').is_some_and(|(head, _)| {
        [
            "session",
            "user",
            "assistant",
            "tool",
            "hook",
            "system",
            "subagent",
        ]
        .contains(&head)
    })
}

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
    data: Option<Data<T>>,
}

#[derive(Debug, Deserialize)]
#[serde(bound = "T: Text")]
struct Data<T> {
    content: Option<T>,
    #[serde(rename = "messageId", default)]
    message_id: LooseStr,
    #[serde(rename = "toolCallId")]
    tool_call_id: Option<String>,
    #[serde(rename = "toolName")]
    tool_name: Option<String>,
    #[serde(default)]
    arguments: Arguments,
    success: Option<bool>,
    #[serde(rename = "shellExecution")]
    shell_execution: Option<ShellExecution>,
    result: Option<ResultContent>,
    error: Option<ErrorContent>,
}

/// A tool call's arguments: an object, of which its command and the file it names are kept (the
/// rest is skipped unread); or a string, the patch of `apply_patch` (a freeform tool), of which
/// only the files it changes are kept. Any other value is skipped.
#[derive(Debug, Default)]
struct Arguments {
    command: LooseStr,
    path: LooseStr,
    patched: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Fields {
    command: LooseStr,
    path: LooseStr,
    /// `apply_patch`'s patch, should it come as an object (Copilot CLI's own display of the
    /// call reads `input`, then `patch`).
    input: LooseStr,
    patch: LooseStr,
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Arguments, D::Error> {
        struct ArgumentsVisitor;
        impl<'de> Visitor<'de> for ArgumentsVisitor {
            type Value = Arguments;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool call's arguments")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Arguments, E> {
                Ok(Arguments {
                    patched: super::codex::patch_files(v),
                    ..Arguments::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Arguments, A::Error> {
                let fields = Fields::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let patch = fields.input.get().or(fields.patch.get());
                Ok(Arguments {
                    patched: patch.map(super::codex::patch_files).unwrap_or_default(),
                    command: fields.command,
                    path: fields.path,
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Arguments, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Arguments::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Arguments, E> {
                Ok(Arguments::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Arguments, E> {
                Ok(Arguments::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Arguments, E> {
                Ok(Arguments::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Arguments, E> {
                Ok(Arguments::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Arguments, E> {
                Ok(Arguments::default())
            }
        }
        deserializer.deserialize_any(ArgumentsVisitor)
    }
}

#[derive(Debug, Deserialize)]
struct ShellExecution {
    #[serde(rename = "exitCode")]
    exit_code: Option<i32>,
}

#[derive(Debug, Deserialize)]
struct ResultContent {
    content: Option<Output>,
}

#[derive(Debug, Deserialize)]
struct ErrorContent {
    message: Option<Output>,
}

impl<T: Text> Entry<T> {
    fn line(self) -> Line {
        let key = self.id.0;
        let Some(data) = self.data else {
            return Line::events(key, Vec::new());
        };
        let events = match self.kind.as_deref() {
            Some("session.compaction_complete") => vec![Event::Compaction],
            Some("assistant.message") => data.said(),
            Some("user.message") => data.prompt(),
            Some("tool.execution_start") => vec![data.call()],
            Some("tool.execution_complete") => vec![data.result()],
            _ => Vec::new(),
        };
        Line::events(key, events)
    }
}

impl<T: Text> Data<T> {
    fn said(&self) -> Vec<Event> {
        let text = self.content.as_ref().map_or("", |t| t.as_str()).trim();
        if !T::WHOLE || text.is_empty() {
            return Vec::new();
        }
        vec![Event::AssistantText {
            text: text.to_owned(),
            message: self.message_id.get().map(str::to_owned),
        }]
    }

    fn prompt(&self) -> Vec<Event> {
        let text = self.content.as_ref().map_or("", |t| t.as_str());
        if !is_human_prompt(text, &[]) {
            return Vec::new();
        }
        vec![Event::UserTurn {
            text: text.trim().to_owned(),
        }]
    }

    fn call(&self) -> Event {
        let name = self.tool_name.as_deref().unwrap_or("");
        let args = &self.arguments;
        // `str_replace_editor`'s `command` is what it does to the file, not a shell command.
        let editor = name == "str_replace_editor";
        let tool = match TOOL_NAMES.iter().find(|(copilot, _)| *copilot == name) {
            _ if editor && args.command.get() == Some("view") => "view",
            Some((_, ours)) => ours,
            None => name,
        };
        let files = match tool {
            "apply_patch" => args.patched.clone(),
            "Write" | "Edit" => args.path.get().map(str::to_owned).into_iter().collect(),
            _ => Vec::new(),
        };
        Event::ToolCall {
            id: self.tool_call_id.clone().unwrap_or_default(),
            tool: tool.to_owned(),
            command: args.command.get().filter(|_| !editor).map(str::to_owned),
            files,
        }
    }

    /// A tool's result: a command's exit status is `shellExecution.exitCode` (none when the
    /// command did not run, as when a hook refused it).
    fn result(&self) -> Event {
        let output = match (&self.result, &self.error) {
            (Some(ResultContent { content: Some(o) }), _) => o.0.as_str(),
            (_, Some(ErrorContent { message: Some(o) })) => o.0.as_str(),
            _ => "",
        };
        let exit = self.shell_execution.as_ref().and_then(|s| s.exit_code);
        Event::ToolResult {
            id: self.tool_call_id.clone().unwrap_or_default(),
            failed: self.success != Some(true) || exit.is_some_and(|c| c != 0),
            exit,
            output: tail(output, RESULT_TAIL_BYTES).to_owned(),
        }
    }
}

/// How much of the file's end is read.
pub const TAIL_BYTES: u64 = 4 * 1024 * 1024;

/// The session file of session `id`: `events.jsonl` in its folder under `session-state` in
/// Copilot's home (`$COPILOT_HOME`, else `~/.copilot`). `None` for an id that is no plain name.
pub fn session_file(id: &str, copilot_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let plain = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !plain {
        return None;
    }
    let base = match copilot_home.filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => dir.to_path_buf(),
        None => home?.join(".copilot"),
    };
    Some(base.join("session-state").join(id).join("events.jsonl"))
}

/// The newest line of the file's end that `pick` finds something in.
fn newest<R>(path: &Path, pick: impl Fn(&str, &Value) -> Option<R>) -> Option<R> {
    let text = super::tail_text(path, TAIL_BYTES)?;
    text.lines().rev().find_map(|line| {
        let entry: Value = serde_json::from_str(line).ok()?;
        pick(entry["type"].as_str()?, &entry["data"])
    })
}

/// How long the file may lag behind the hook call: Copilot CLI 1.0.102 writes its events in
/// batches, so a hook can start before the lines that led to it are in the file (seen in
/// tests/e2e: at an `agentStop`, the last tool result, the final message and the hook's own
/// `hook.start` were not written yet). Checked this often, this many times (two seconds).
const HOOK_POLL: std::time::Duration = std::time::Duration::from_millis(50);
const HOOK_POLLS: u32 = 40;

/// Bytes of the file's end searched for the hook's line.
const HOOK_TAIL_BYTES: u64 = 256 * 1024;

/// Waits until the file holds the `hook.start` line of this hook call: of `hook_type`
/// (`agentStop`, `preToolUse`), written at `since_ms` (the input's `timestamp`, milliseconds
/// since the epoch, which Copilot CLI writes as the line's `timestamp`) or later. Every event
/// before the hook is written before that line. Whether it came (at once when `since_ms` is
/// unknown: nothing to wait for).
pub fn wait_for_hook(path: &Path, hook_type: &str, since_ms: Option<i64>) -> bool {
    let Some(since) = since_ms else {
        return true;
    };
    let written = || {
        super::tail_text(path, HOOK_TAIL_BYTES).is_some_and(|text| {
            // Only the hook lines are parsed: the poll reads up to 256 KiB forty times.
            text.lines()
                .rev()
                .filter(|l| l.contains("hook.start"))
                .any(|line| {
                    let Ok(entry) = serde_json::from_str::<Value>(line) else {
                        return false;
                    };
                    entry["type"] == "hook.start"
                        && entry["data"]["hookType"] == hook_type
                        && entry["timestamp"]
                            .as_str()
                            .and_then(crate::support::time::Timestamp::parse)
                            .is_some_and(|t| t.millis >= since)
                })
        })
    };
    for _ in 0..HOOK_POLLS {
        if written() {
            return true;
        }
        std::thread::sleep(HOOK_POLL);
    }
    written()
}

/// The text of the last assistant message that has text; `None` when the file has none.
pub fn final_text(path: &Path) -> Option<String> {
    newest(path, |kind, data| {
        let text = data["content"].as_str()?.trim();
        (kind == "assistant.message" && !text.is_empty()).then(|| text.to_owned())
    })
}

/// What names the human's prompt the turn answers, for the loop breaker (Copilot sends no
/// prompt id, and `stop_hook_active` false after a block): the id of the last `user.message`
/// the human wrote (a block's reason sent on as a message is not one).
pub fn prompt_key(path: &Path) -> Option<String> {
    newest(path, |kind, data| {
        let text = data["content"].as_str()?;
        if kind != "user.message" || !is_human_prompt(text, &[]) {
            return None;
        }
        let id = data["messageId"].as_str()?;
        Some(format!("copilot-{id}"))
    })
}

#[cfg(test)]
#[path = "copilot_tests.rs"]
mod tests;
