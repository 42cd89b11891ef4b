//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): `response_item` lines
//! carry the model's messages, its function calls and their outputs. A Stop block's reason comes
//! back as a user message wrapped in `<hook_prompt …>`; Codex's own context (environment,
//! instructions) as user messages in other tags.

use std::io::Read;

use serde::Deserialize;
use serde_json::Value;

use super::text::{Head, LooseStr, Output, Text};
use super::{Event, Line, RESULT_TAIL_BYTES, code_after, is_human_prompt, tail};

/// User messages Codex writes itself start with a tag (`<environment_context>`, …).
const MARKERS: [&str; 1] = ["<"];

/// Codex's shell tools, which the events call `Bash`.
const SHELL_TOOLS: [&str; 3] = ["exec_command", "shell", "local_shell"];

/// What a shell call's output says when the command exited 0 (the exec tool's text, the older
/// shell tool's JSON).
const EXIT_0: [&str; 2] = ["Process exited with code 0", "\"exit_code\":0"];

pub(super) fn small(bytes: &[u8]) -> Line {
    serde_json::from_slice::<Rollout<String>>(bytes).map_or(Line::Bad, Rollout::line)
}

pub(super) fn giant(reader: impl Read) -> Line {
    serde_json::from_reader::<_, Rollout<Head>>(reader).map_or(Line::Bad, Rollout::line)
}

#[derive(Debug, Deserialize)]
struct Rollout<T> {
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Option<Payload<T>>,
}

#[derive(Debug, Deserialize)]
struct Payload<T> {
    #[serde(rename = "type")]
    kind: Option<String>,
    role: Option<String>,
    name: Option<String>,
    call_id: Option<String>,
    /// A function call's arguments, as JSON text.
    #[serde(default)]
    arguments: LooseStr,
    /// A custom tool call's input (the patch of `apply_patch`).
    #[serde(default)]
    input: LooseStr,
    #[serde(default)]
    output: Output,
    content: Option<Vec<Part<T>>>,
}

#[derive(Debug, Deserialize)]
struct Part<T> {
    text: Option<T>,
}

impl<T: Text> Rollout<T> {
    fn line(self) -> Line {
        let mut events = Vec::new();
        if let (Some("response_item"), Some(p)) = (self.kind.as_deref(), self.payload) {
            match p.kind.as_deref() {
                Some("function_call" | "custom_tool_call") => events.push(call(&p)),
                Some("function_call_output" | "custom_tool_call_output") => {
                    let output = &p.output.0;
                    let exit = code_after(output, "Process exited with code ")
                        .or_else(|| json_exit_code(output));
                    events.push(Event::ToolResult {
                        id: p.call_id.unwrap_or_default(),
                        failed: !EXIT_0.iter().any(|m| output.contains(m)),
                        exit,
                        output: tail(output, RESULT_TAIL_BYTES).to_owned(),
                    })
                }
                Some("message") if p.role.as_deref() == Some("assistant") => {
                    let parts = p.content.iter().flatten();
                    let text: Vec<&str> = parts
                        .filter(|_| T::WHOLE)
                        .filter_map(|c| c.text.as_ref().map(|t| t.as_str().trim()))
                        .filter(|t| !t.is_empty())
                        .collect();
                    if !text.is_empty() {
                        events.push(Event::AssistantText {
                            text: text.join("\n"),
                            message: None,
                        });
                    }
                }
                Some("message") if p.role.as_deref() == Some("user") => {
                    let text: String = p
                        .content
                        .iter()
                        .flatten()
                        .filter_map(|c| c.text.as_ref().map(Text::as_str))
                        .collect();
                    if is_human_prompt(&text, &MARKERS) {
                        events.push(Event::UserTurn { text });
                    }
                }
                _ => {}
            }
        }
        Line::events(None, events)
    }
}

/// The `exit_code` of the older shell tool's JSON output (`{"output":…,"metadata":{"exit_code":1}}`).
fn json_exit_code(output: &str) -> Option<i32> {
    let at = output.rfind("\"exit_code\":")? + "\"exit_code\":".len();
    let digits: String = output[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// A function call or custom tool call.
fn call<T>(p: &Payload<T>) -> Event {
    let args: Value = p
        .arguments
        .get()
        .and_then(|a| serde_json::from_str(a).ok())
        .unwrap_or(Value::Null);
    let command = match (&args["cmd"], &args["command"]) {
        (Value::String(c), _) | (_, Value::String(c)) => Some(c.clone()),
        (_, Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    };
    let name = p.name.as_deref().unwrap_or("");
    let tool = if SHELL_TOOLS.contains(&name) {
        "Bash"
    } else {
        name
    };
    Event::ToolCall {
        id: p.call_id.clone().unwrap_or_default(),
        tool: tool.to_owned(),
        command,
        files: patch_files(p.input.get().unwrap_or("")),
    }
}

/// The files an `apply_patch` body changes.
pub(super) fn patch_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| {
            l.strip_prefix("*** Update File: ")
                .or_else(|| l.strip_prefix("*** Add File: "))
                .or_else(|| l.strip_prefix("*** Delete File: "))
                .or_else(|| l.strip_prefix("*** Move to: "))
        })
        .map(|p| p.trim().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events(line: Value) -> Vec<Event> {
        super::super::events_both_ways(&line, small, |b| giant(b))
    }

    fn item(payload: Value) -> Value {
        json!({"timestamp": "t", "type": "response_item", "payload": payload})
    }

    #[test]
    fn calls_and_outputs_are_typed() {
        let exec = item(
            json!({"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": json!({"cmd": "make test"}).to_string()}),
        );
        assert_eq!(
            events(exec),
            [Event::ToolCall {
                id: "c1".into(),
                tool: "Bash".into(),
                command: Some("make test".into()),
                files: vec![]
            }]
        );
        let shell = item(
            json!({"type": "function_call", "name": "shell", "call_id": "c2", "arguments": json!({"command": ["bash", "-lc", "ls"]}).to_string()}),
        );
        assert!(
            matches!(&events(shell)[..], [Event::ToolCall { command: Some(c), .. }] if c == "bash -lc ls")
        );
        let patch = item(
            json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": "p", "input": "*** Begin Patch\n*** Update File: src/a.rs\n*** Add File: b.rs\n"}),
        );
        assert!(
            matches!(&events(patch)[..], [Event::ToolCall { tool, files, .. }] if tool == "apply_patch" && files == &["src/a.rs", "b.rs"])
        );
        for (output, failed, exit) in [
            (
                json!("Chunk ID: 1\nProcess exited with code 0\nOutput:\nok"),
                false,
                Some(0),
            ),
            (
                json!("Process exited with code 2\nOutput:\nboom"),
                true,
                Some(2),
            ),
            (
                json!(format!(
                    "{{\"output\":\"{}\",\"metadata\":{{\"exit_code\":0}}}}",
                    "x".repeat(20_000)
                )),
                false,
                Some(0),
            ),
            (json!({"content": "not text"}), true, None),
        ] {
            let out = item(
                json!({"type": "function_call_output", "call_id": "c1", "output": output.clone()}),
            );
            assert!(
                matches!(&events(out)[..], [Event::ToolResult { id, failed: f, exit: e, .. }] if id == "c1" && *f == failed && *e == exit),
                "{output}"
            );
        }
    }

    #[test]
    fn messages_and_what_is_not_a_user_turn() {
        let said = item(
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Pushing now."}]}),
        );
        assert_eq!(
            events(said),
            [Event::AssistantText {
                text: "Pushing now.".into(),
                message: None
            }]
        );
        let prompt = item(
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the loader"}]}),
        );
        assert_eq!(
            events(prompt),
            [Event::UserTurn {
                text: "fix the loader".into()
            }]
        );
        for harness in [
            "<environment_context>cwd</environment_context>",
            "<hook_prompt hook_run_id=\"stop:1:/h/hooks.json\">Verify first: run the tests.</hook_prompt>",
            "hookjudge [commit]: you said you would push",
        ] {
            let line = item(
                json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": harness}]}),
            );
            assert_eq!(events(line), [], "{harness}");
        }
        assert_eq!(
            events(json!({"type": "event_msg", "payload": {"type": "agent_message"}})),
            []
        );
    }
}
