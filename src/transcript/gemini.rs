//! Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, the hook input's
//! `transcript_path`).
//!
//! The file is a log of records, not of messages: a message record (`id`, `type` `user` or
//! `gemini`) is written again whenever it changes, the last copy winning (a model message is
//! first written without its `toolCalls`, then again with each call's `status` and `result`);
//! `{"$set": {"messages": [...]}}` replaces every message before it; `{"$rewindTo": id}` drops
//! that message and the ones after it. Each record becomes a [`Line`] that says so, and the
//! rules of history (`session::History`) apply them.
//!
//! A shell call's `status` is `success` even when the command failed: the exit code is only in
//! the text the model was sent, as trailer lines after the output (`Exit Code: 2`, `Signal: 9`).

use std::io::Read;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::text::{Head, LooseStr, Output, Text, TextOr};
use super::{Event, Line, RESULT_TAIL_BYTES, code_after, is_human_prompt, tail};

/// Gemini's tool names, as the names the events use (Claude Code's).
const TOOL_NAMES: [(&str, &str); 3] = [
    ("run_shell_command", "Bash"),
    ("write_file", "Write"),
    ("replace", "Edit"),
];

/// User texts Gemini itself puts in the history (its loader ignores the same prefixes).
const MARKERS: [&str; 4] = ["/", "?", "<session_context>", "<hook_context>"];

/// The trailer lines Gemini's shell tool appends after a command's output; those that mean the
/// command did not succeed.
const TRAILERS: [(&str, bool); 5] = [
    ("Error: ", true),
    ("Exit Code: ", true),
    ("Signal: ", true),
    ("Background PIDs: ", false),
    ("Process Group PGID: ", false),
];

pub(super) fn small(bytes: &[u8]) -> Line {
    serde_json::from_slice::<Record<String>>(bytes).map_or(Line::Bad, Record::line)
}

pub(super) fn giant(reader: impl Read) -> Line {
    serde_json::from_reader::<_, Record<Head>>(reader).map_or(Line::Bad, Record::line)
}

/// A record's top-level keys, as far as telling the formats apart needs them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Keys {
    #[serde(rename = "$set")]
    set: Option<IgnoredAny>,
    #[serde(rename = "$rewindTo")]
    rewind_to: Option<IgnoredAny>,
    #[serde(rename = "projectHash")]
    project_hash: Option<IgnoredAny>,
    id: LooseStr,
    #[serde(rename = "type")]
    kind: LooseStr,
    content: Option<IgnoredAny>,
    message: Option<IgnoredAny>,
    payload: Option<IgnoredAny>,
    data: Option<IgnoredAny>,
}

impl Keys {
    /// Whether a line is a Gemini CLI record (Claude Code lines carry `message`, Codex lines
    /// `payload`; Gemini messages carry `content` at the top).
    pub(super) fn is_record(&self) -> bool {
        self.set.is_some()
            || self.rewind_to.is_some()
            || self.project_hash.is_some()
            || (self.id.get().is_some()
                && self.content.is_some()
                && self.message.is_none()
                && self.payload.is_none())
    }

    /// Whether a line is a Codex rollout line.
    pub(super) fn is_rollout(&self) -> bool {
        self.payload.is_some()
    }

    /// Whether a line is a Copilot CLI session line: a dotted `type` of Copilot's and `data`.
    pub(super) fn is_copilot(&self) -> bool {
        self.data.is_some() && self.kind.get().is_some_and(super::copilot::is_kind)
    }

    /// Whether a line is a Factory Droid session line: its `type` is one only Droid writes
    /// (Claude Code's are `user`, `assistant`, `system`, …; Gemini's `user`, `gemini`, …).
    pub(super) fn is_droid(&self) -> bool {
        self.kind
            .get()
            .is_some_and(|kind| super::droid::LINE_TYPES.contains(&kind))
    }
}

#[derive(Debug, Deserialize)]
#[serde(bound = "T: Text")]
struct Record<T> {
    #[serde(default)]
    id: LooseStr,
    #[serde(rename = "type")]
    kind: Option<String>,
    content: Option<Content<T>>,
    #[serde(rename = "toolCalls")]
    tool_calls: Option<Vec<Call>>,
    #[serde(rename = "$set")]
    set: Option<Set<T>>,
    #[serde(rename = "$rewindTo")]
    rewind_to: Option<String>,
    messages: Option<Vec<Record<T>>>,
}

#[derive(Debug, Deserialize)]
#[serde(bound = "T: Text")]
struct Set<T> {
    messages: Option<Vec<Record<T>>>,
}

/// A string, or an array of parts (some `{text}`, some tool echoes).
type Content<T> = TextOr<T, Part<T>>;

#[derive(Debug, Deserialize)]
#[serde(bound = "T: Text")]
struct Part<T> {
    text: Option<T>,
    #[serde(rename = "functionResponse")]
    function_response: Option<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
struct Call {
    #[serde(default)]
    id: LooseStr,
    #[serde(default)]
    name: LooseStr,
    #[serde(default)]
    args: Args,
    status: Option<String>,
    result: Option<Vec<ResultPart>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Args {
    command: LooseStr,
    file_path: LooseStr,
}

#[derive(Debug, Deserialize)]
struct ResultPart {
    #[serde(rename = "functionResponse")]
    function_response: Option<FunctionResponse>,
}

#[derive(Debug, Deserialize)]
struct FunctionResponse {
    response: Option<Response>,
}

#[derive(Debug, Deserialize)]
struct Response {
    output: Option<Output>,
    error: Option<IgnoredAny>,
}

impl<T: Text> Record<T> {
    fn line(mut self) -> Line {
        if let Some(id) = self.rewind_to.take() {
            return Line::RewindTo(id);
        }
        let replaced = (self.set.take().and_then(|s| s.messages)).or(self.messages.take());
        if let Some(messages) = replaced {
            return Line::History(
                messages
                    .into_iter()
                    .map(|m| (m.id.0.clone(), m.events()))
                    .collect(),
            );
        }
        let key = self.id.0.clone();
        Line::events(key, self.events())
    }

    /// The events of a message (none for a record that is not one: it has no id).
    fn events(&self) -> Vec<Event> {
        if self.id.get().is_none() {
            return Vec::new();
        }
        match self.kind.as_deref() {
            Some("user") => self.user_events(),
            Some("gemini") => self.model_events(),
            _ => Vec::new(),
        }
    }

    /// A user message: a prompt, or the tool results Gemini echoes (already read from the calls).
    fn user_events(&self) -> Vec<Event> {
        if let Some(Content::Items(parts)) = &self.content
            && parts.iter().any(|p| p.function_response.is_some())
        {
            return Vec::new();
        }
        let text = self.text();
        let text = text.trim();
        if !is_human_prompt(text, &MARKERS) {
            return Vec::new();
        }
        vec![Event::UserTurn {
            text: text.to_owned(),
        }]
    }

    /// A model message: its text, then each tool call and, once it finished, its result.
    fn model_events(&self) -> Vec<Event> {
        let mut out = Vec::new();
        let text = self.text();
        if T::WHOLE && !text.trim().is_empty() {
            out.push(Event::AssistantText {
                text: text.trim().to_owned(),
                message: None,
            });
        }
        for call in self.tool_calls.iter().flatten() {
            let id = call.id.get().unwrap_or("").to_owned();
            let name = call.name.get().unwrap_or("");
            let tool = TOOL_NAMES
                .iter()
                .find(|(gemini, _)| *gemini == name)
                .map_or(name, |(_, ours)| ours);
            out.push(Event::ToolCall {
                id: id.clone(),
                tool: tool.to_owned(),
                command: call.args.command.get().map(str::to_owned),
                files: call
                    .args
                    .file_path
                    .get()
                    .map(str::to_owned)
                    .into_iter()
                    .collect(),
            });
            let output = result_output(call.result.as_deref());
            let failed = match call.status.as_deref() {
                Some("success") => tool == "Bash" && !shell_succeeded(call.result.as_deref()),
                Some("error" | "cancelled") => true,
                // Still scheduled or running: no result yet.
                _ => continue,
            };
            let exit = match (failed, tool == "Bash") {
                (false, _) => Some(0),
                (true, true) => code_after(output, "Exit Code: "),
                (true, false) => None,
            };
            out.push(Event::ToolResult {
                id,
                failed,
                exit,
                output: tail(output, RESULT_TAIL_BYTES).to_owned(),
            });
        }
        out
    }

    fn text(&self) -> String {
        match &self.content {
            Some(Content::Text(text)) => text.as_str().to_owned(),
            Some(Content::Items(parts)) => parts
                .iter()
                .filter_map(|p| p.text.as_ref().map(Text::as_str))
                .collect(),
            None => String::new(),
        }
    }
}

/// A finished call's output text (empty when it has none).
fn result_output(result: Option<&[ResultPart]>) -> &str {
    result
        .into_iter()
        .flatten()
        .find_map(|p| p.function_response.as_ref())
        .and_then(|f| f.response.as_ref())
        .and_then(|r| r.output.as_ref())
        .map_or("", |o| o.0.as_str())
}

/// Whether a finished shell call's result shows a command that exited 0: its output text
/// starts as Gemini formats a completed command and no trailer line reports a failure.
/// Anything else (cancelled, moved to the background, an unknown shape) is not a success.
fn shell_succeeded(result: Option<&[ResultPart]>) -> bool {
    let Some(response) = result
        .into_iter()
        .flatten()
        .find_map(|p| p.function_response.as_ref())
        .and_then(|f| f.response.as_ref())
    else {
        return false;
    };
    if response.error.is_some() {
        return false;
    }
    let Some(Output(output)) = &response.output else {
        return false;
    };
    // Long outputs are cut to a head and a tail behind a one-line notice; the tail keeps the
    // trailers. The wrapper's closing tag cannot occur inside (Gemini escapes it).
    let body = match output.strip_prefix("Output too large.") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, body)| body),
        None => output,
    };
    let body = body.trim();
    let body = body.strip_prefix("<untrusted_context>").unwrap_or(body);
    let body = body.strip_suffix("</untrusted_context>").unwrap_or(body);
    let body = body.trim();
    if !body.starts_with("Output: ") {
        return false;
    }
    let mut failed = false;
    for line in body.lines().rev() {
        let Some((_, fails)) = TRAILERS.iter().find(|(p, _)| line.starts_with(p)) else {
            break;
        };
        failed |= fails;
    }
    !failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn shell_result(output: &str) -> Value {
        json!([{"functionResponse": {"id": "c", "name": "run_shell_command", "response": {"output": output}}}])
    }

    fn succeeded(result: Value) -> bool {
        let parts: Option<Vec<ResultPart>> = serde_json::from_value(result).ok();
        shell_succeeded(parts.as_deref())
    }

    #[test]
    fn exit_codes_and_signals_are_read_from_the_trailers() {
        let ok =
            "<untrusted_context>\nOutput: 3 passed\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(succeeded(shell_result(ok)));
        let exit = "<untrusted_context>\nOutput: 3 passed\nExit Code: 2\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(!succeeded(shell_result(exit)));
        let signal = "<untrusted_context>\nOutput: (empty)\nSignal: 9\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(!succeeded(shell_result(signal)));
        let background = "<untrusted_context>\nOutput: bg\nBackground PIDs: 9\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(succeeded(shell_result(background)));
        let cancelled = "Command was cancelled by user before it could complete.";
        assert!(!succeeded(shell_result(cancelled)));
        let blocked =
            json!([{"functionResponse": {"response": {"error": "Tool execution blocked: no"}}}]);
        assert!(!succeeded(blocked));
        assert!(!succeeded(Value::Null));
    }

    #[test]
    fn output_that_only_mentions_an_exit_code_is_not_a_trailer() {
        let quoted = "<untrusted_context>\nOutput: Exit Code: 2 was expected\n3 passed\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(succeeded(shell_result(quoted)));
    }

    #[test]
    fn truncated_output_keeps_its_trailers() {
        let cut = |trailer: &str| {
            format!(
                "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /tmp/x.txt\n<untrusted_context>\nOutput: 1\n{}\n\n... [9 characters omitted] ...\n\n3 passed\n{trailer}Process Group PGID: 7\n</untrusted_context>",
                "2\n".repeat(10_000)
            )
        };
        assert!(succeeded(shell_result(&cut(""))));
        assert!(!succeeded(shell_result(&cut("Exit Code: 1\n"))));
    }

    fn model(id: &str, text: &str, calls: Value) -> Value {
        json!({"id": id, "type": "gemini", "content": text, "toolCalls": calls})
    }

    fn user(id: &str, text: &str) -> Value {
        json!({"id": id, "type": "user", "content": [{"text": text}]})
    }

    fn line(record: &Value) -> Line {
        small(record.to_string().as_bytes())
    }

    fn events(record: &Value) -> Vec<Event> {
        match line(record) {
            Line::Message { events, .. } => events,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_model_message_yields_its_text_calls_and_results() {
        let done = model(
            "m",
            "Writing it.",
            json!([{"id": "w", "name": "write_file", "args": {"file_path": "a.py"}, "status": "success", "result": []},
                   {"id": "t", "name": "run_shell_command", "args": {"command": "make test"}, "status": "success",
                    "result": shell_result("Output: ok\nProcess Group PGID: 1")},
                   {"id": "r", "name": "run_shell_command", "args": {"command": "make lint"}, "status": "executing"}]),
        );
        let call = |id: &str, tool: &str, command: Option<&str>, files: &[&str]| Event::ToolCall {
            id: id.into(),
            tool: tool.into(),
            command: command.map(Into::into),
            files: files.iter().map(|f| f.to_string()).collect(),
        };
        assert_eq!(
            events(&done),
            [
                Event::AssistantText {
                    text: "Writing it.".into(),
                    message: None
                },
                call("w", "Write", None, &["a.py"]),
                Event::ToolResult {
                    id: "w".into(),
                    failed: false,
                    exit: Some(0),
                    output: String::new()
                },
                call("t", "Bash", Some("make test"), &[]),
                Event::ToolResult {
                    id: "t".into(),
                    failed: false,
                    exit: Some(0),
                    output: shell_result("Output: ok\nProcess Group PGID: 1")[0]["functionResponse"]["response"]["output"]
                        .as_str()
                        .unwrap()
                        .into()
                },
                call("r", "Bash", Some("make lint"), &[]),
            ]
        );
        assert!(matches!(line(&done), Line::Message { key: Some(k), .. } if k == "m"));
    }

    #[test]
    fn prompts_skip_gemini_context_tool_echoes_and_hookjudge_feedback() {
        assert_eq!(
            events(&user("1", "Fix the loader")),
            [Event::UserTurn {
                text: "Fix the loader".into()
            }]
        );
        assert!(events(&user("2", "<session_context>\nThis is the Gemini CLI.")).is_empty());
        assert!(events(&user("3", "hookjudge [commit]: you said you would push")).is_empty());
        assert_eq!(
            events(&user("3b", "hookjudge stops my push, why?")).len(),
            1
        );
        let echo = json!({"id": "4", "type": "user", "content": [{"functionResponse": {"id": "t", "response": {"output": "x"}}}]});
        assert!(events(&echo).is_empty());
        assert!(events(&json!({"id": "5", "type": "info", "content": "Saved."})).is_empty());
    }

    #[test]
    fn sets_and_rewinds_are_lines_of_their_own() {
        let set = json!({"$set": {"messages": [user("1", "old prompt"), model("2", "old answer", json!(null))]}});
        let Line::History(messages) = line(&set) else {
            panic!()
        };
        let keys: Vec<_> = messages
            .iter()
            .map(|(k, e)| (k.as_deref(), e.len()))
            .collect();
        assert_eq!(keys, [(Some("1"), 1), (Some("2"), 1)]);
        assert!(matches!(line(&json!({"$rewindTo": "2"})), Line::RewindTo(id) if id == "2"));
        assert!(matches!(
            line(&json!({"$set": {"lastUpdated": "x"}})),
            Line::Message { key: None, ref events } if events.is_empty()
        ));
    }

    #[test]
    fn a_giant_record_keeps_its_calls_and_not_its_text() {
        let big = "x".repeat(3000);
        let record = model(
            "m",
            &big,
            json!([{"id": "t", "name": "run_shell_command", "args": {"command": "make test"}, "status": "success",
                    "result": shell_result(&format!("Output: {big}\nProcess Group PGID: 1"))}]),
        );
        let Line::Message { events, .. } = giant(record.to_string().as_bytes()) else {
            panic!()
        };
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(matches!(
            &events[1],
            Event::ToolResult { failed: false, .. }
        ));
    }

    #[test]
    fn records_are_told_apart_from_claude_and_codex_lines() {
        let keys = |v: Value| serde_json::from_value::<Keys>(v).unwrap();
        assert!(keys(user("1", "hi")).is_record());
        assert!(keys(json!({"$set": {"lastUpdated": "x"}})).is_record());
        assert!(keys(json!({"sessionId": "s", "projectHash": "h", "kind": "main"})).is_record());
        assert!(
            !keys(json!({"type": "user", "uuid": "u", "message": {"content": "hi"}})).is_record()
        );
        let rollout = keys(json!({"type": "response_item", "payload": {"type": "message"}}));
        assert!(!rollout.is_record() && rollout.is_rollout());
    }
}
