//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`): one line per
//! content block, tool results as `user` lines. The rules for what counts as a real user turn
//! follow the protocol reference, §4.1.

use std::fmt;
use std::io::Read;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::text::{Head, LooseStr, Output, Text, TextOr};
use super::{Event, Line, RESULT_TAIL_BYTES, code_after, is_human_prompt, tail};

/// Markers of user text that Claude Code writes itself (local commands' output).
const MARKERS: [&str; 3] = [
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<local-command-stderr>",
];

/// The keys of a tool's input that name the file it changes.
const FILE_KEYS: [&str; 3] = ["file_path", "notebook_path", "path"];

pub(super) fn small(bytes: &[u8]) -> Line {
    serde_json::from_slice::<Entry<String>>(bytes).map_or(Line::Bad, Entry::line)
}

pub(super) fn giant(reader: impl Read) -> Line {
    serde_json::from_reader::<_, Entry<Head>>(reader).map_or(Line::Bad, Entry::line)
}

/// The fields of a transcript line that the reader needs; `T` keeps free text.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry<T> {
    #[serde(rename = "type")]
    kind: Option<String>,
    subtype: Option<String>,
    uuid: Option<String>,
    is_meta: Option<bool>,
    is_sidechain: Option<bool>,
    is_compact_summary: Option<bool>,
    is_visible_in_transcript_only: Option<bool>,
    is_api_error_message: Option<bool>,
    tool_use_result: Option<ToolUseResult>,
    #[serde(rename = "sourceToolAssistantUUID")]
    source_tool_assistant_uuid: Option<IgnoredAny>,
    origin: Option<Origin>,
    message: Option<Message<T>>,
}

#[derive(Debug, Deserialize)]
struct Origin {
    kind: Option<String>,
}

/// The `toolUseResult` of a tool result line: only whether the call was interrupted.
#[derive(Debug, Default)]
struct ToolUseResult {
    interrupted: bool,
}

impl<'de> Deserialize<'de> for ToolUseResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // An object for most tools, a string for some: only an object can say `interrupted`.
        // Its other fields (a command's whole output) are skipped unread.
        struct ResultVisitor;
        impl<'de> Visitor<'de> for ResultVisitor {
            type Value = ToolUseResult;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool result")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut interrupted = false;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "interrupted" {
                        interrupted = map.next_value::<Option<bool>>()? == Some(true);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(ToolUseResult { interrupted })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ToolUseResult::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ToolUseResult::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ToolUseResult::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ToolUseResult::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ToolUseResult::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ToolUseResult::default())
            }
        }
        deserializer.deserialize_any(ResultVisitor)
    }
}

#[derive(Debug, Deserialize)]
struct Message<T> {
    model: Option<String>,
    id: Option<String>,
    content: Option<Content<T>>,
}

/// A plain string (user prompts) or content blocks.
type Content<T> = TextOr<T, Block<T>>;

/// A content block: text, a tool call or a tool result.
#[derive(Debug, Deserialize)]
struct Block<T> {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<T>,
    id: Option<String>,
    name: Option<String>,
    input: Option<ToolInput>,
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

impl<T> Block<T> {
    /// A tool result's output text (its two ends when long).
    fn output(&self) -> String {
        match &self.content {
            Some(TextOr::Text(Output(text))) => text.clone(),
            Some(TextOr::Items(parts)) => parts
                .iter()
                .filter_map(|p| p.text.as_ref().map(|t| t.0.as_str()))
                .collect::<Vec<_>>()
                .join("\n"),
            None => String::new(),
        }
    }
}

/// A tool call's input: its command and the files it names (the rest is skipped unread).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ToolInput {
    command: LooseStr,
    file_path: LooseStr,
    notebook_path: LooseStr,
    path: LooseStr,
}

impl ToolInput {
    fn file(&self, key: &str) -> Option<&str> {
        match key {
            "file_path" => self.file_path.get(),
            "notebook_path" => self.notebook_path.get(),
            _ => self.path.get(),
        }
    }
}

impl<T: Text> Entry<T> {
    fn line(self) -> Line {
        let flag = |f: Option<bool>| f == Some(true);
        let content = self.message.as_ref().and_then(|m| m.content.as_ref());
        let mut events = Vec::new();
        match self.kind.as_deref() {
            Some("system") if self.subtype.as_deref() == Some("compact_boundary") => {
                events.push(Event::Compaction);
            }
            Some("assistant") => {
                let synthetic =
                    self.message.as_ref().and_then(|m| m.model.as_deref()) == Some("<synthetic>");
                // A subagent's or an API error's words are not the assistant's; a subagent's
                // tool calls are still work done in the session.
                let speaks = T::WHOLE
                    && !(flag(self.is_sidechain) || flag(self.is_api_error_message) || synthetic);
                let blocks = match content {
                    Some(Content::Items(blocks)) => blocks.as_slice(),
                    _ => &[],
                };
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter(|b| speaks && b.kind.as_deref() == Some("text"))
                    .filter_map(|b| b.text.as_ref().map(|t| t.as_str().trim()))
                    .filter(|t| !t.is_empty())
                    .collect();
                if !texts.is_empty() {
                    events.push(Event::AssistantText {
                        text: texts.join("\n"),
                        message: self.message.as_ref().and_then(|m| m.id.clone()),
                    });
                }
                for block in blocks
                    .iter()
                    .filter(|b| b.kind.as_deref() == Some("tool_use"))
                {
                    let input = block.input.as_ref();
                    events.push(Event::ToolCall {
                        id: block.id.clone().unwrap_or_default(),
                        tool: block.name.clone().unwrap_or_default(),
                        command: input.and_then(|i| i.command.get()).map(str::to_owned),
                        files: FILE_KEYS
                            .iter()
                            .filter_map(|k| input.and_then(|i| i.file(k)))
                            .map(str::to_owned)
                            .collect(),
                    });
                }
            }
            Some("user") => {
                if let Some(Content::Items(blocks)) = content {
                    let interrupted = self.tool_use_result.as_ref().is_some_and(|r| r.interrupted);
                    for block in blocks {
                        if block.kind.as_deref() == Some("tool_result") {
                            let output = block.output();
                            let failed = flag(block.is_error) || interrupted;
                            // A failed Bash call's output starts `Exit code N`; a call that
                            // was refused or interrupted shows no status.
                            let exit = match (failed, interrupted) {
                                (false, _) => Some(0),
                                (true, false) => code_after(&output, "Exit code "),
                                (true, true) => None,
                            };
                            events.push(Event::ToolResult {
                                id: block.tool_use_id.clone().unwrap_or_default(),
                                failed,
                                exit,
                                output: tail(&output, RESULT_TAIL_BYTES).to_owned(),
                            });
                        }
                    }
                }
                if let Some(text) = self.user_turn() {
                    events.push(Event::UserTurn { text });
                }
            }
            // summary, attachment, progress, file-history-snapshot, api-request*, unknown types.
            _ => {}
        }
        Line::events(self.uuid, events)
    }

    /// The prompt's text when this `user` line is a real user turn.
    fn user_turn(&self) -> Option<String> {
        let flag = |f: Option<bool>| f == Some(true);
        if flag(self.is_sidechain)
            || flag(self.is_meta)
            || flag(self.is_compact_summary)
            || flag(self.is_visible_in_transcript_only)
            || self.tool_use_result.is_some()
            || self.source_tool_assistant_uuid.is_some()
            || self
                .origin
                .as_ref()
                .is_some_and(|o| o.kind.as_deref().is_some_and(|k| k != "human"))
        {
            return None;
        }
        match self.message.as_ref()?.content.as_ref()? {
            Content::Text(text) => {
                is_human_prompt(text.as_str(), &MARKERS).then(|| text.as_str().to_owned())
            }
            Content::Items(blocks)
                if blocks.is_empty()
                    || blocks
                        .iter()
                        .any(|b| b.kind.as_deref() != Some("tool_result")) =>
            {
                let text: Vec<&str> = blocks
                    .iter()
                    .filter(|b| b.kind.as_deref() == Some("text"))
                    .filter_map(|b| b.text.as_ref().map(Text::as_str))
                    .collect();
                Some(text.join("\n"))
            }
            Content::Items(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::text::HEAD_BYTES;
    use super::*;
    use serde_json::json;

    fn events(line: serde_json::Value) -> (Option<String>, Vec<Event>) {
        let bytes = line.to_string();
        let small = small(bytes.as_bytes());
        let giant = giant(bytes.as_bytes());
        // Structure is the same on giant lines; only free text differs.
        let shape = |l: &Line| match l {
            Line::Message { events, .. } => events
                .iter()
                .map(|e| match e {
                    Event::AssistantText { .. } => "text",
                    Event::UserTurn { .. } => "user",
                    Event::ToolCall { .. } => "call",
                    Event::ToolResult { .. } => "result",
                    Event::Compaction => "compaction",
                })
                .filter(|k| *k != "text")
                .collect::<Vec<_>>(),
            _ => panic!("{l:?}"),
        };
        assert_eq!(shape(&small), shape(&giant), "{line}");
        match small {
            Line::Message { key, events } => (key, events),
            other => panic!("{other:?}"),
        }
    }

    fn user(text: &str) -> serde_json::Value {
        json!({"type": "user", "uuid": "u", "message": {"role": "user", "content": text}})
    }

    #[test]
    fn a_prompt_is_a_user_turn_and_harness_text_is_not() {
        assert_eq!(
            events(user("fix it")).1,
            [Event::UserTurn {
                text: "fix it".into()
            }]
        );
        for harness in [
            json!({"type": "user", "isMeta": true, "message": {"content": "expanded command"}}),
            user("Stop hook feedback:\nrun the tests first"),
            user("<local-command-stdout>ok</local-command-stdout>"),
            json!({"type": "user", "origin": {"kind": "task-notification"}, "message": {"content": "bg done"}}),
            json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true, "message": {"content": "This session is being continued"}}),
            json!({"type": "user", "isSidechain": true, "message": {"content": "subagent task"}}),
        ] {
            assert_eq!(events(harness.clone()).1, [], "{harness}");
        }
        let with_image = json!({"type": "user", "message": {"content": [{"type": "text", "text": "see this"}, {"type": "image"}]}});
        assert_eq!(
            events(with_image).1,
            [Event::UserTurn {
                text: "see this".into()
            }]
        );
    }

    #[test]
    fn tool_calls_and_results_are_typed() {
        let call = json!({"type": "assistant", "uuid": "a1", "message": {"id": "m1", "model": "m", "content": [
            {"type": "text", "text": " Running. "},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cargo test", "description": "x"}},
            {"type": "tool_use", "id": "t2", "name": "Edit", "input": {"file_path": "/w/a.rs", "old_string": "a"}},
            {"type": "tool_use", "id": "t3", "name": "mcp__x", "input": {"command": ["not", "a", "string"]}}]}});
        let (key, got) = events(call);
        assert_eq!(key.as_deref(), Some("a1"));
        assert_eq!(
            got,
            [
                Event::AssistantText {
                    text: "Running.".into(),
                    message: Some("m1".into())
                },
                Event::ToolCall {
                    id: "t1".into(),
                    tool: "Bash".into(),
                    command: Some("cargo test".into()),
                    files: vec![]
                },
                Event::ToolCall {
                    id: "t2".into(),
                    tool: "Edit".into(),
                    command: None,
                    files: vec!["/w/a.rs".into()]
                },
                Event::ToolCall {
                    id: "t3".into(),
                    tool: "mcp__x".into(),
                    command: None,
                    files: vec![]
                },
            ]
        );
        let result = |is_error: bool, extra: serde_json::Value| {
            let mut line = json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": is_error, "content": "out"}]}, "sourceToolAssistantUUID": "a1"});
            line["toolUseResult"] = extra;
            events(line).1
        };
        assert_eq!(
            result(false, json!({"stdout": "ok"})),
            [Event::ToolResult {
                id: "t1".into(),
                failed: false,
                exit: Some(0),
                output: "out".into()
            }]
        );
        assert_eq!(
            result(true, json!("Error: exit 1")),
            [Event::ToolResult {
                id: "t1".into(),
                failed: true,
                exit: None,
                output: "out".into()
            }]
        );
        assert_eq!(
            result(false, json!({"interrupted": true})),
            [Event::ToolResult {
                id: "t1".into(),
                failed: true,
                exit: None,
                output: "out".into()
            }]
        );
        // A failed Bash call: its status is the first line of its output, in a string or in
        // text blocks.
        for content in [
            json!("Exit code 101\ntest result: FAILED. 1 passed; 1 failed"),
            json!([{"type": "text", "text": "Exit code 101\ntest result: FAILED. 1 passed; 1 failed"}]),
        ] {
            let line = json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": content}]}, "toolUseResult": "Error: Exit code 101"});
            assert!(
                matches!(&events(line).1[..], [Event::ToolResult { exit: Some(101), output, .. }] if output.ends_with("1 failed")),
                "{content}"
            );
        }
    }

    #[test]
    fn synthetic_and_api_error_lines_say_nothing_and_compaction_is_an_event() {
        let synthetic = json!({"type": "assistant", "message": {"model": "<synthetic>", "content": [{"type": "text", "text": "No response requested."}]}});
        assert_eq!(events(synthetic).1, []);
        let api_error = json!({"type": "assistant", "isApiErrorMessage": true, "message": {"content": [{"type": "text", "text": "API Error"}]}});
        assert_eq!(events(api_error).1, []);
        let boundary = json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"});
        assert_eq!(events(boundary).1, [Event::Compaction]);
    }

    #[test]
    fn a_giant_line_keeps_its_structure_and_a_prompt_head_only() {
        let big = "x".repeat(5000);
        let line = json!({"type": "assistant", "message": {"content": [{"type": "text", "text": big},
            {"type": "tool_use", "id": "w", "name": "Write", "input": {"file_path": "a.rs", "content": big}}]}});
        let Line::Message { events, .. } = giant(line.to_string().as_bytes()) else {
            panic!()
        };
        assert_eq!(
            events,
            [Event::ToolCall {
                id: "w".into(),
                tool: "Write".into(),
                command: None,
                files: vec!["a.rs".into()]
            }]
        );
        let Line::Message { events, .. } = giant(user(&big).to_string().as_bytes()) else {
            panic!()
        };
        assert!(
            matches!(&events[..], [Event::UserTurn { text }] if text.len() == HEAD_BYTES),
            "{events:?}"
        );
        let feedback = format!("Stop hook feedback:\n{big}");
        let Line::Message { events, .. } = giant(user(&feedback).to_string().as_bytes()) else {
            panic!()
        };
        assert_eq!(events, []);
    }
}
