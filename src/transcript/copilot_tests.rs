//! Lines in the shape the real Copilot CLI 1.0.102 writes them (tests/e2e, `--keep`), cut to
//! the fields that matter and a few beside them.

use super::*;
use serde_json::json;

fn events(line: Value) -> Vec<Event> {
    super::super::events_both_ways(&line, small, |b| giant(b))
}

fn line(kind: &str, data: Value) -> Value {
    json!({"type": kind, "data": data, "id": format!("e-{kind}"),
           "timestamp": "2026-12-03T13:13:00.265Z", "parentId": "p"})
}

fn said(id: &str, content: &str, calls: Value) -> Value {
    line(
        "assistant.message",
        json!({"messageId": id, "originatingMessageId": "u1", "model": "fake", "content": content,
               "toolRequests": calls, "interactionId": "i1", "turnId": "0", "rte": false,
               "apiCallId": "chatcmpl-1"}),
    )
}

fn user(id: &str, content: &str) -> Value {
    line(
        "user.message",
        json!({"content": content,
               "transformedContent": format!("<current_datetime>2026-12-03T13:13:00.085+00:00</current_datetime>\n\n{content}"),
               "messageId": id, "supportedNativeDocumentMimeTypes": [], "delivery": "idle",
               "interactionId": "i1", "turnId": "0"}),
    )
}

fn start(id: &str, tool: &str, arguments: Value) -> Value {
    line(
        "tool.execution_start",
        json!({"toolCallId": id, "toolName": tool, "arguments": arguments, "turnId": "0",
               "model": "fake", "toolTitle": "Running command",
               "shellToolInfo": {"possiblePaths": ["test"], "hasWriteFileRedirection": false}}),
    )
}

fn ran(id: &str, code: i32, output: &str) -> Value {
    line(
        "tool.execution_complete",
        json!({"toolCallId": id, "model": "fake", "interactionId": "i1", "turnId": "0", "rte": false,
               // As Copilot CLI 1.0.102 writes it: a command that ran "succeeded", whatever its
               // exit code.
               "shellExecution": {"exitCode": code}, "success": true,
               "result": {"content": format!("{output}\n<shellId: 0 completed with exit code {code}>")},
               "toolTelemetry": {"properties": {"executionMode": "sync"}}}),
    )
}

const REFUSED: &str = "Denied by preToolUse hook: hookjudge gate [push]: `git push origin main` would publish 1 commit";

fn denied(id: &str) -> Value {
    line(
        "tool.execution_complete",
        json!({"toolCallId": id, "model": "fake", "interactionId": "i1", "turnId": "1", "rte": false,
               "success": false, "error": {"message": REFUSED, "code": "denied"}}),
    )
}

#[test]
fn tool_calls_are_named_as_claude_codes() {
    let run = start(
        "call_1",
        "bash",
        json!({"command": "make test", "description": "run"}),
    );
    assert_eq!(
        events(run),
        [Event::ToolCall {
            id: "call_1".into(),
            tool: "Bash".into(),
            command: Some("make test".into()),
            files: vec![]
        }]
    );
    let create = start("c2", "create", json!({"path": "/p/a.py", "file_text": "x"}));
    assert!(
        matches!(&events(create)[..], [Event::ToolCall { tool, files, .. }] if tool == "Write" && files == &["/p/a.py"])
    );
    let edit = start(
        "c3",
        "edit",
        json!({"path": "/p/b.py", "old_str": "a", "new_str": "b"}),
    );
    assert!(
        matches!(&events(edit)[..], [Event::ToolCall { tool, files, .. }] if tool == "Edit" && files == &["/p/b.py"])
    );
    let view = start("c4", "view", json!({"path": "/p/a.py"}));
    assert!(
        matches!(&events(view)[..], [Event::ToolCall { tool, files, .. }] if tool == "view" && files.is_empty())
    );
}

/// A patch as Copilot CLI 1.0.102 writes its `apply_patch` call (offered to GPT-5 models in
/// place of `create` and `edit`): a freeform tool, its `arguments` the patch itself, a string.
const PATCH: &str = "*** Begin Patch\n*** Update File: /p/app.py\n@@ def add(a, b):\n-    return a + b\n+    return b + a\n*** Add File: /p/new.py\n+x = 1\n*** End Patch\n";

#[test]
fn an_apply_patch_call_is_an_edit_of_the_files_its_patch_names() {
    let patch = line(
        "tool.execution_start",
        json!({"toolCallId": "call_eca6d9cc3247", "toolName": "apply_patch", "arguments": PATCH,
               "turnId": "0", "model": "fake", "toolTitle": "Applying patch"}),
    );
    assert_eq!(
        events(patch),
        [Event::ToolCall {
            id: "call_eca6d9cc3247".into(),
            tool: "apply_patch".into(),
            command: None,
            files: vec!["/p/app.py".into(), "/p/new.py".into()]
        }]
    );
    // The patch in an object, as Copilot CLI's own display of a call also reads it.
    for key in ["input", "patch"] {
        let wrapped = start("c5", "apply_patch", json!({ key: PATCH }));
        assert!(
            matches!(&events(wrapped)[..], [Event::ToolCall { tool, files, command: None, .. }]
                if tool == "apply_patch" && files == &["/p/app.py", "/p/new.py"]),
            "{key}"
        );
    }
    // Its result, with the files Copilot CLI says it changed.
    let done = line(
        "tool.execution_complete",
        json!({"toolCallId": "call_eca6d9cc3247", "model": "fake", "turnId": "0", "rte": false,
               "fileEdits": [{"path": "/p/app.py", "kind": "edit"}], "success": true,
               "result": {"content": "Modified 1 file(s): /p/app.py", "detailedContent": "diff"}}),
    );
    assert!(
        matches!(
            &events(done)[..],
            [Event::ToolResult {
                failed: false,
                exit: None,
                ..
            }]
        ),
        "a patch applied"
    );
}

#[test]
fn str_replace_editor_edits_but_for_view_and_runs_no_command() {
    let call = |id: &str, arguments: Value| events(start(id, "str_replace_editor", arguments));
    for command in ["create", "str_replace", "insert"] {
        assert_eq!(
            call(
                "s1",
                json!({"command": command, "path": "/p/a.py", "old_str": "a", "new_str": "b"})
            ),
            [Event::ToolCall {
                id: "s1".into(),
                tool: "Edit".into(),
                command: None,
                files: vec!["/p/a.py".into()]
            }],
            "{command}"
        );
    }
    assert_eq!(
        call("s2", json!({"command": "view", "path": "/p/a.py"})),
        [Event::ToolCall {
            id: "s2".into(),
            tool: "view".into(),
            command: None,
            files: vec![]
        }]
    );
    let replace = start(
        "s3",
        "str_replace",
        json!({"path": "/p/b.py", "old_str": "a", "new_str": "b"}),
    );
    assert!(
        matches!(&events(replace)[..], [Event::ToolCall { tool, files, .. }] if tool == "Edit" && files == &["/p/b.py"])
    );
}

#[test]
fn a_commands_status_is_its_exit_code() {
    let found = events(ran("call_1", 0, "3 passed, 0 failed"));
    assert!(
        matches!(&found[..], [Event::ToolResult { id, failed: false, exit: Some(0), output }]
            if id == "call_1" && output.starts_with("3 passed")),
        "{found:?}"
    );
    let found = events(ran("call_2", 2, "1 failed"));
    assert!(
        matches!(
            &found[..],
            [Event::ToolResult {
                failed: true,
                exit: Some(2),
                ..
            }]
        ),
        "{found:?}"
    );
    // A command a hook refused did not run: failed, with no status.
    let found = events(denied("call_3"));
    assert!(
        matches!(&found[..], [Event::ToolResult { failed: true, exit: None, output, .. }] if output == REFUSED),
        "{found:?}"
    );
}

#[test]
fn text_prompts_and_what_is_not_a_prompt() {
    let found = events(said("m1", "Tests: 42 passed.", json!([])));
    assert_eq!(
        found,
        [Event::AssistantText {
            text: "Tests: 42 passed.".into(),
            message: Some("m1".into())
        }]
    );
    // The text beside a tool call is empty; the call is read from its `tool.execution_start`.
    let calls = json!([{"toolCallId": "call_1", "name": "bash",
                        "arguments": {"command": "make test"}, "type": "function"}]);
    assert_eq!(events(said("m2", "", calls)), []);
    assert_eq!(
        events(user("u1", "continue")),
        [Event::UserTurn {
            text: "continue".into()
        }]
    );
    assert_eq!(
        events(user("u2", "hookjudge [commit]: report the tests first.")),
        []
    );
    assert_eq!(
        events(line(
            "session.compaction_complete",
            json!({"success": true})
        )),
        [Event::Compaction]
    );
    for other in [
        line("assistant.turn_start", json!({"turnId": "0"})),
        line(
            "hook.start",
            json!({"hookType": "agentStop", "input": {"sessionId": "s"}}),
        ),
        line(
            "session.start",
            json!({"sessionId": "s", "copilotVersion": "1.0.102"}),
        ),
    ] {
        assert_eq!(events(other), []);
    }
}

fn session(lines: &[Value], extra: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(extra);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn a_turn() -> Vec<Value> {
    vec![
        line(
            "session.start",
            json!({"sessionId": "s1", "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102"}),
        ),
        user("u1", "continue"),
        line(
            "system.message",
            json!({"role": "system", "content": "You are the GitHub Copilot CLI"}),
        ),
        line("assistant.turn_start", json!({"turnId": "0"})),
        said(
            "m1",
            "",
            json!([{"toolCallId": "call_1", "name": "bash", "arguments": {"command": "make test"}}]),
        ),
        start("call_1", "bash", json!({"command": "make test"})),
        line(
            "hook.start",
            json!({"hookType": "preToolUse", "input": {"sessionId": "s1"}}),
        ),
        line(
            "hook.end",
            json!({"hookType": "preToolUse", "success": true}),
        ),
        ran("call_1", 0, "3 passed, 0 failed"),
        line("assistant.turn_end", json!({"turnId": "0"})),
        said("m2", "All done. I'll commit and push now.", json!([])),
        line(
            "hook.start",
            json!({"hookType": "agentStop", "input": {"sessionId": "s1", "stopReason": "end_turn", "stop_hook_active": false}}),
        ),
    ]
}

#[test]
fn the_session_reader_knows_the_file_by_its_lines() {
    let (_dir, path) = session(&a_turn(), r#"{"type":"hook.end","data":{"hookT"#);
    let (seen, bad_lines) = crate::transcript::described_backwards(&path);
    assert_eq!(
        seen,
        [
            "said All done. I'll commit and push now.",
            "result false Some(0)",
            "call Bash make test",
            "user continue"
        ]
    );
    assert_eq!(bad_lines, 1, "the torn line");
}

#[test]
fn the_final_text_is_the_last_assistant_text() {
    let (_dir, path) = session(&a_turn(), "not json\n");
    assert_eq!(
        final_text(&path).as_deref(),
        Some("All done. I'll commit and push now.")
    );
    let mut lines = a_turn();
    lines.truncate(10);
    let (_dir, path) = session(&lines, "");
    assert_eq!(final_text(&path), None, "no text yet");
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(final_text(&dir.path().join("none.jsonl")), None);
    assert_eq!(final_text(dir.path()), None);
}

#[test]
fn the_prompt_key_is_the_humans_last_message_not_a_blocks_reason() {
    let mut lines = a_turn();
    let (_dir, path) = session(&lines, "");
    assert_eq!(prompt_key(&path).as_deref(), Some("copilot-u1"));
    lines.push(user("u2", "hookjudge [commit]: you said you would push"));
    lines.push(said("m3", "Tests: 42 passed.", json!([])));
    let (_dir, path) = session(&lines, "");
    assert_eq!(prompt_key(&path).as_deref(), Some("copilot-u1"));
    lines.push(user("u3", "now fix the loader"));
    let (_dir, path) = session(&lines, "");
    assert_eq!(prompt_key(&path).as_deref(), Some("copilot-u3"));
}

#[test]
fn the_session_file_is_found_from_the_session_id() {
    let id = "fc05dfb1-044a-405d-9339-dc5612e484e7";
    assert_eq!(
        session_file(id, None, Some(Path::new("/home/u"))),
        Some(PathBuf::from(format!(
            "/home/u/.copilot/session-state/{id}/events.jsonl"
        )))
    );
    assert_eq!(
        session_file(id, Some(Path::new("/c")), Some(Path::new("/home/u"))),
        Some(PathBuf::from(format!("/c/session-state/{id}/events.jsonl")))
    );
    for bad in ["", "../x", "a/b", ".."] {
        assert_eq!(
            session_file(bad, None, Some(Path::new("/h"))),
            None,
            "{bad}"
        );
    }
    assert_eq!(session_file(id, None, None), None);
}

#[test]
fn the_wait_ends_once_the_hooks_own_line_is_written() {
    let hook = |ts: &str| {
        json!({"type": "hook.start", "data": {"hookType": "agentStop", "input": {"sessionId": "s1"}},
               "id": "h", "timestamp": ts, "parentId": "p"})
    };
    // 2026-12-03T13:13:00.449Z
    let since = Some(1_796_303_580_449);
    let (_dir, path) = session(&[hook("2026-12-03T13:13:00.449Z")], "");
    assert!(wait_for_hook(&path, "agentStop", since));
    assert!(
        wait_for_hook(&path, "preToolUse", None),
        "nothing to wait for"
    );
    // An earlier hook's line is not this one's: the wait gives up (after its bound).
    let (_dir, path) = session(&[hook("2026-12-03T13:12:59.000Z")], "");
    let started = std::time::Instant::now();
    assert!(!wait_for_hook(&path, "agentStop", since));
    assert!(started.elapsed() >= std::time::Duration::from_secs(1));
    // A line written while waiting ends it.
    let (_dir, path) = session(&[], "");
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            std::fs::write(&path, format!("{}\n", hook("2026-12-03T13:13:00.450Z"))).unwrap();
        })
    };
    assert!(wait_for_hook(&path, "agentStop", since));
    writer.join().unwrap();
}
