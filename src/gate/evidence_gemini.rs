//! Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, the hook input's
//! `transcript_path`), read newest first as evidence events.
//!
//! The file is a log of records, not of messages: a message record (`id`, `type` `user` or
//! `gemini`) is written again whenever it changes, the last copy winning (a model message is
//! first written without its `toolCalls`, then again with each call's `status` and `result`);
//! `{"$set": {"messages": [...]}}` replaces every message before it; `{"$rewindTo": id}` drops
//! that message and the ones after it. Read backwards, that means: the first copy of an id met is
//! the one that counts, a rewind hides the lines back to its message, and a `$set` of messages
//! is the start of the history.
//!
//! A shell call's `status` is `success` even when the command failed: the exit code is only in
//! the text the model was sent, as trailer lines after the output (`Exit Code: 2`, `Signal: 9`).

use std::collections::HashSet;

use serde_json::Value;

use super::evidence::Event;

/// Gemini's tool names, as the names the evidence rules use (Claude Code's).
const TOOL_NAMES: [(&str, &str); 3] = [
    ("run_shell_command", "Bash"),
    ("write_file", "Write"),
    ("replace", "Edit"),
];

/// User texts Gemini itself puts in the history (its loader ignores the same prefixes), and the
/// reasons of hookjudge's own AfterAgent blocks, which Gemini sends on as the next prompt.
const NOT_A_PROMPT: [&str; 5] = [
    "/",
    "?",
    "<session_context>",
    "<hook_context>",
    "hookjudge [",
];

/// The trailer lines Gemini's shell tool appends after a command's output; those that mean the
/// command did not succeed.
const TRAILERS: [(&str, bool); 5] = [
    ("Error: ", true),
    ("Exit Code: ", true),
    ("Signal: ", true),
    ("Background PIDs: ", false),
    ("Process Group PGID: ", false),
];

/// Whether a session line is a Gemini CLI record (Claude Code lines carry `message`, Codex
/// lines `payload`; Gemini messages carry `content` at the top).
pub(super) fn is_record(line: &Value) -> bool {
    line.get("$set").is_some()
        || line.get("$rewindTo").is_some()
        || line.get("projectHash").is_some()
        || (line["id"].is_string()
            && line.get("content").is_some()
            && line.get("message").is_none()
            && line.get("payload").is_none())
}

/// The state of a backward read: which messages were already met and which are hidden.
#[derive(Debug, Default)]
pub(super) struct Records {
    seen: HashSet<String>,
    /// Messages named by `$rewindTo` records not reached yet: lines are hidden until then.
    rewinds: Vec<String>,
    /// A record that replaced all earlier messages was read: nothing before it counts.
    ended: bool,
}

impl Records {
    /// The events of one record, oldest first; `None` once earlier lines no longer count.
    pub(super) fn events(&mut self, record: &Value) -> Option<Vec<Event>> {
        if self.ended {
            return None;
        }
        if let Some(id) = record["$rewindTo"].as_str() {
            self.rewinds.push(id.to_owned());
            return Some(Vec::new());
        }
        let replaced = record["$set"]["messages"]
            .as_array()
            .or_else(|| record["messages"].as_array());
        if let Some(messages) = replaced {
            self.ended = true;
            // The list is oldest first, so a pending rewind cuts it at its message.
            let mut out = Vec::new();
            for message in messages {
                if let Some(id) = message["id"].as_str()
                    && self.rewinds.iter().any(|r| r == id)
                {
                    break;
                }
                out.extend(self.message(message));
            }
            return Some(out);
        }
        let Some(id) = record["id"].as_str() else {
            return Some(Vec::new());
        };
        if let Some(at) = self.rewinds.iter().position(|r| r == id) {
            self.rewinds.remove(at);
            self.seen.insert(id.to_owned());
            return Some(Vec::new());
        }
        if !self.rewinds.is_empty() {
            self.seen.insert(id.to_owned());
            return Some(Vec::new());
        }
        Some(self.message(record))
    }

    /// The events of the newest copy of a message; nothing for older copies.
    fn message(&mut self, message: &Value) -> Vec<Event> {
        let Some(id) = message["id"].as_str() else {
            return Vec::new();
        };
        if !self.seen.insert(id.to_owned()) {
            return Vec::new();
        }
        match message["type"].as_str() {
            Some("user") => user_events(&message["content"]),
            Some("gemini") => model_events(message),
            _ => Vec::new(),
        }
    }
}

/// A user message: a prompt, or the tool results Gemini echoes (already read from the calls).
fn user_events(content: &Value) -> Vec<Event> {
    let echo = content
        .as_array()
        .is_some_and(|parts| parts.iter().any(|p| p.get("functionResponse").is_some()));
    if echo {
        return Vec::new();
    }
    let text = text_of(content);
    let text = text.trim();
    if text.is_empty() || NOT_A_PROMPT.iter().any(|p| text.starts_with(p)) {
        return Vec::new();
    }
    vec![Event::Prompt(text.to_owned())]
}

/// A model message: its text, then each tool call and, once it finished, its result.
fn model_events(message: &Value) -> Vec<Event> {
    let mut out = Vec::new();
    let text = text_of(&message["content"]);
    if !text.trim().is_empty() {
        out.push(Event::Said(text.trim().to_owned()));
    }
    for call in message["toolCalls"].as_array().into_iter().flatten() {
        let id = call["id"].as_str().unwrap_or("").to_owned();
        let name = call["name"].as_str().unwrap_or("");
        let tool = TOOL_NAMES
            .iter()
            .find(|(gemini, _)| *gemini == name)
            .map_or(name, |(_, ours)| ours);
        out.push(Event::Call {
            id: id.clone(),
            tool: tool.to_owned(),
            command: call["args"]["command"].as_str().map(str::to_owned),
            files: call["args"]["file_path"]
                .as_str()
                .map(|f| vec![f.to_owned()])
                .unwrap_or_default(),
        });
        let failed = match call["status"].as_str() {
            Some("success") => tool == "Bash" && !shell_succeeded(&call["result"]),
            Some("error" | "cancelled") => true,
            // Still scheduled or running: no result yet.
            _ => continue,
        };
        out.push(Event::Result { id, failed });
    }
    out
}

/// The text of `content` (Gemini writes a string or an array of parts, some `{text}`).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// Whether a finished shell call's result shows a command that exited 0: its output text
/// starts as Gemini formats a completed command and no trailer line reports a failure.
/// Anything else (cancelled, moved to the background, an unknown shape) is not a success.
fn shell_succeeded(result: &Value) -> bool {
    let Some(response) = result
        .as_array()
        .and_then(|parts| parts.iter().find_map(|p| p.get("functionResponse")))
        .map(|f| &f["response"])
    else {
        return false;
    };
    if response.get("error").is_some() {
        return false;
    }
    let Some(output) = response["output"].as_str() else {
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
    use serde_json::json;

    fn shell_result(output: &str) -> Value {
        json!([{"functionResponse": {"id": "c", "name": "run_shell_command", "response": {"output": output}}}])
    }

    #[test]
    fn exit_codes_and_signals_are_read_from_the_trailers() {
        let ok =
            "<untrusted_context>\nOutput: 3 passed\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(shell_succeeded(&shell_result(ok)));
        let exit = "<untrusted_context>\nOutput: 3 passed\nExit Code: 2\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(!shell_succeeded(&shell_result(exit)));
        let signal = "<untrusted_context>\nOutput: (empty)\nSignal: 9\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(!shell_succeeded(&shell_result(signal)));
        let background = "<untrusted_context>\nOutput: bg\nBackground PIDs: 9\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(shell_succeeded(&shell_result(background)));
        let cancelled = "Command was cancelled by user before it could complete.";
        assert!(!shell_succeeded(&shell_result(cancelled)));
        let blocked =
            json!([{"functionResponse": {"response": {"error": "Tool execution blocked: no"}}}]);
        assert!(!shell_succeeded(&blocked));
        assert!(!shell_succeeded(&Value::Null));
    }

    #[test]
    fn output_that_only_mentions_an_exit_code_is_not_a_trailer() {
        let quoted = "<untrusted_context>\nOutput: Exit Code: 2 was expected\n3 passed\nProcess Group PGID: 7\n</untrusted_context>";
        assert!(shell_succeeded(&shell_result(quoted)));
    }

    #[test]
    fn truncated_output_keeps_its_trailers() {
        let cut = |trailer: &str| {
            format!(
                "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /tmp/x.txt\n<untrusted_context>\nOutput: 1\n2\n\n... [9 characters omitted] ...\n\n3 passed\n{trailer}Process Group PGID: 7\n</untrusted_context>"
            )
        };
        assert!(shell_succeeded(&shell_result(&cut(""))));
        assert!(!shell_succeeded(&shell_result(&cut("Exit Code: 1\n"))));
    }

    fn model(id: &str, text: &str, calls: Value) -> Value {
        json!({"id": id, "type": "gemini", "content": text, "toolCalls": calls})
    }

    fn user(id: &str, text: &str) -> Value {
        json!({"id": id, "type": "user", "content": [{"text": text}]})
    }

    fn describe(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Event::Call { tool, command, .. } => {
                    format!("call {tool} {}", command.as_deref().unwrap_or(""))
                }
                Event::Result { failed, .. } => format!("result failed={failed}"),
                Event::Said(t) => format!("said {t}"),
                Event::Prompt(t) => format!("prompt {t}"),
            })
            .collect()
    }

    #[test]
    fn the_newest_copy_of_a_message_counts_and_tool_names_are_mapped() {
        let mut records = Records::default();
        let done = model(
            "m",
            "Writing it.",
            json!([{"id": "w", "name": "write_file", "args": {"file_path": "a.py"}, "status": "success", "result": []},
                   {"id": "t", "name": "run_shell_command", "args": {"command": "make test"}, "status": "success",
                    "result": shell_result("Output: ok\nProcess Group PGID: 1")}]),
        );
        assert_eq!(
            describe(&records.events(&done).unwrap()),
            [
                "said Writing it.",
                "call Write ",
                "result failed=false",
                "call Bash make test",
                "result failed=false"
            ]
        );
        let first_copy = model("m", "Writing it.", json!(null));
        assert!(records.events(&first_copy).unwrap().is_empty());
    }

    #[test]
    fn a_call_still_running_has_no_result() {
        let mut records = Records::default();
        let running = model(
            "m",
            "",
            json!([{"id": "t", "name": "run_shell_command", "args": {"command": "make test"}, "status": "executing"}]),
        );
        assert_eq!(
            describe(&records.events(&running).unwrap()),
            ["call Bash make test"]
        );
    }

    #[test]
    fn prompts_skip_gemini_context_tool_echoes_and_hookjudge_feedback() {
        let mut records = Records::default();
        let mut prompts = |record: Value| describe(&records.events(&record).unwrap());
        assert_eq!(
            prompts(user("1", "Fix the loader")),
            ["prompt Fix the loader"]
        );
        assert!(prompts(user("2", "<session_context>\nThis is the Gemini CLI.")).is_empty());
        assert!(prompts(user("3", "hookjudge [commit]: you said you would push")).is_empty());
        assert_eq!(
            prompts(user("3b", "hookjudge stops my push, why?")),
            ["prompt hookjudge stops my push, why?"]
        );
        let echo = json!({"id": "4", "type": "user", "content": [{"functionResponse": {"id": "t", "response": {"output": "x"}}}]});
        assert!(prompts(echo).is_empty());
        assert!(prompts(json!({"id": "5", "type": "info", "content": "Saved."})).is_empty());
    }

    #[test]
    fn a_set_of_messages_is_the_start_of_the_history() {
        let mut records = Records::default();
        let set = json!({"$set": {"messages": [user("1", "old prompt"), model("2", "old answer", json!(null))]}});
        assert_eq!(
            describe(&records.events(&set).unwrap()),
            ["prompt old prompt", "said old answer"]
        );
        assert!(records.events(&user("0", "before the set")).is_none());
    }

    #[test]
    fn a_rewind_hides_the_messages_back_to_the_one_it_names() {
        let mut records = Records::default();
        let lines = [
            json!({"$rewindTo": "2"}),
            model("3", "rewound away", json!(null)),
            user("2", "rewound prompt"),
            model("1", "kept", json!(null)),
        ];
        let said: Vec<String> = lines
            .iter()
            .flat_map(|l| describe(&records.events(l).unwrap()))
            .collect();
        assert_eq!(said, ["said kept"]);

        let mut records = Records::default();
        records.events(&json!({"$rewindTo": "2"}));
        let set = json!({"$set": {"messages": [model("1", "kept", json!(null)), user("2", "gone"), model("3", "gone", json!(null))]}});
        assert_eq!(describe(&records.events(&set).unwrap()), ["said kept"]);
    }

    /// A session written by the real Gemini CLI 0.61.0 as it stood when the BeforeTool hook for
    /// the final `git push` ran: prompt, `write_file`, `make test` (passed), `replace`,
    /// `make test; exit 2` (failed), `make test` (passed), then the push, not yet in the file.
    const REAL_SESSION: &str = include_str!("../../fixtures/gemini-0.61-session-at-push.jsonl");

    fn session_prefix(lines_containing_cut: &str) -> tempfile::NamedTempFile {
        let end = REAL_SESSION
            .find(lines_containing_cut)
            .expect("cut point in the fixture");
        let end = REAL_SESSION[..end].rfind('\n').map_or(0, |n| n + 1);
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), &REAL_SESSION[..end]).unwrap();
        f
    }

    fn finding(path: &std::path::Path) -> super::super::evidence::Finding {
        let tests = regex::Regex::new(super::super::evidence::DEFAULT_TEST_COMMANDS).unwrap();
        super::super::evidence::transcript_tests(path, &tests, Default::default())
    }

    #[test]
    fn a_real_session_shows_the_passing_run_after_the_last_edit() {
        use super::super::evidence::Finding;
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), REAL_SESSION).unwrap();
        assert_eq!(
            finding(f.path()),
            Finding::TestRunAfterChange {
                command: "make test".into()
            }
        );
        // Before the last run: the failed run (its status says `success`) is no evidence.
        let before_last_run =
            session_prefix(r#""id":"run_shell_command__run_shell_command_1796117456948_0"#);
        assert_eq!(
            finding(before_last_run.path()),
            Finding::ChangeAfterTests {
                tool: "Edit".into(),
                last_test: Some("`make test; exit 2` failed".into())
            }
        );
        // Right after the edit: the first passing run predates it.
        let after_edit = session_prefix(r#""command":"make test; exit 2""#);
        assert!(
            matches!(finding(after_edit.path()), Finding::ChangeAfterTests { ref tool, last_test: None } if tool == "Edit"),
            "{:?}",
            finding(after_edit.path())
        );
    }

    #[test]
    fn a_real_session_gives_the_judge_an_account_of_the_turn() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), REAL_SESSION).unwrap();
        let account = super::super::evidence::recent_activity(f.path(), 4000, Default::default());
        assert_eq!(
            account,
            "User: Fix the loader and push\n\
             Assistant: I will write the module.\n\
             [Write : succeeded]\n\
             [Bash make test: succeeded]\n\
             [Edit : succeeded]\n\
             [Bash make test; exit 2: failed]\n\
             [Bash make test: succeeded]"
        );
    }

    #[test]
    fn records_are_told_apart_from_claude_and_codex_lines() {
        assert!(is_record(&user("1", "hi")));
        assert!(is_record(&json!({"$set": {"lastUpdated": "x"}})));
        assert!(is_record(
            &json!({"sessionId": "s", "projectHash": "h", "kind": "main"})
        ));
        assert!(!is_record(
            &json!({"type": "user", "uuid": "u", "message": {"content": "hi"}})
        ));
        assert!(!is_record(
            &json!({"type": "response_item", "payload": {"type": "message"}})
        ));
    }
}
