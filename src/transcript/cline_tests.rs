//! Messages files in the shape the real Cline CLI 3.0.65 writes them (tests/e2e, `--keep`):
//! `JSON.stringify(…, null, 2)`, which `to_string_pretty` matches, cut to the fields that
//! matter and a few beside them.

use super::*;
use crate::transcript::{Transcript, described_backwards};
use serde_json::json;

const REPO: &str = "/w/proj";

fn user(id: &str, content: Value) -> Value {
    json!({"id": id, "role": "user", "content": content, "ts": 1796308957793_u64})
}

fn prompt(id: &str, text: &str) -> Value {
    user(
        id,
        json!([{"type": "text", "text": format!("<user_input mode=\"act\">{text}</user_input>")}]),
    )
}

fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"id": format!("msg_{id}"), "role": "assistant",
           "content": [{"type": "tool_use", "id": id, "name": name, "input": input}],
           "ts": 1796308958189_u64, "modelInfo": {"id": "fake", "provider": "openai-compatible"},
           "metrics": {"inputTokens": 5444, "outputTokens": 10, "cacheReadTokens": 0, "cacheWriteTokens": 0}})
}

fn commands(id: &str, list: &[&str]) -> Value {
    call(id, "run_commands", json!({ "commands": list }))
}

/// A command's result as Cline writes it: `success` false and the code in `error` when it
/// exits non-zero.
fn ran(query: &str, code: i32, output: &str) -> Value {
    if code == 0 {
        json!({"query": query, "result": output, "success": true})
    } else {
        json!({"query": query, "result": format!("[Command exited with code {code}]\n{output}"),
               "error": format!("Command exited with code {code}"), "success": false})
    }
}

fn results(id: &str, name: &str, content: Value) -> Value {
    user(
        &format!("res_{id}"),
        json!([{"type": "tool_result", "tool_use_id": id, "name": name, "content": content}]),
    )
}

fn edit(id: &str) -> [Value; 2] {
    let path = format!("{REPO}/app.py");
    let outcome = json!({"query": format!("edit:{path}"), "result": format!("Edited {path}"), "success": true});
    [
        call(
            id,
            "editor",
            json!({"path": path, "old_text": "a + b", "new_text": "b + a"}),
        ),
        results(id, "editor", json!(outcome.to_string())),
    ]
}

fn document(messages: &[Value]) -> String {
    let doc = json!({"version": 1, "updated_at": "2026-12-03T14:41:40.428Z", "agent": "lead",
                     "sessionId": "1796308898385_msq1t",
                     "origin": {"source": "cli", "mode": "user", "sessionId": "1796308898385_msq1t", "version": "3.0.65"},
                     "messages": messages, "system_prompt": "You are Cline, an AI coding agent."});
    serde_json::to_string_pretty(&doc).unwrap() + "\n"
}

/// A session folder as Cline makes it, with the messages file of `messages`.
fn session(messages: &[Value]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let env = |_: &str| None;
    let path = session_file("1796308898385_msq1t", env, Some(dir.path())).unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, document(messages)).unwrap();
    (dir, path)
}

/// An edit, a failing run, a passing run of two commands, and the push asked about.
fn a_task() -> Vec<Value> {
    let mut messages = vec![prompt("u1", "Fix the loader and push")];
    messages.extend(edit("call_e"));
    messages.push(commands("call_f", &["make test; exit 2"]));
    messages.push(results(
        "call_f",
        "run_commands",
        json!([ran("make test; exit 2", 2, "3 passed, 0 failed\n")]),
    ));
    messages.push(commands("call_t", &["make test", "false"]));
    messages.push(results(
        "call_t",
        "run_commands",
        json!([
            ran("make test", 0, "3 passed, 0 failed\n"),
            ran("false", 1, "")
        ]),
    ));
    messages.push(commands("call_p", &["git push origin main"]));
    messages
}

#[test]
fn each_command_is_a_call_with_its_own_exit_status() {
    let (_dir, path) = session(&a_task());
    let (seen, bad_lines) = described_backwards(&path);
    assert_eq!(
        seen,
        [
            "call Bash git push origin main",
            "result true Some(1)",
            "result false Some(0)",
            "call Bash false",
            "call Bash make test",
            "result true Some(2)",
            "call Bash make test; exit 2",
            "result false Some(0)",
            "call Edit ",
            "user <user_input mode=\"act\">Fix the loader and push</user_input>",
        ]
    );
    assert_eq!(bad_lines, 0);
    let mut transcript = Transcript::open(&path, Options::default()).unwrap();
    let mut ids = Vec::new();
    transcript
        .visit_backwards(|e| {
            match e {
                Event::ToolCall { id, files, .. } => ids.push(format!("{id} {files:?}")),
                Event::ToolResult { id, output, .. } => ids.push(format!("{id} {output:?}")),
                _ => {}
            }
            true
        })
        .unwrap();
    assert_eq!(
        ids[..3],
        [
            "call_p []",
            "call_t#1 \"[Command exited with code 1]\\n\"",
            "call_t \"3 passed, 0 failed\\n\""
        ]
    );
    assert_eq!(ids[ids.len() - 1], format!("call_e [\"{REPO}/app.py\"]"));
}

#[test]
fn the_session_file_is_found_from_the_root_session_id() {
    let home = Path::new("/home/u");
    let none = |_: &str| None;
    assert_eq!(
        session_file("1796308898385_msq1t", none, Some(home)),
        Some(PathBuf::from(
            "/home/u/.cline/data/sessions/1796308898385_msq1t/1796308898385_msq1t.messages.json"
        ))
    );
    let set = |vars: &'static [(&'static str, &'static str)]| {
        move |var: &str| {
            vars.iter()
                .find(|(v, _)| *v == var)
                .map(|(_, value)| OsString::from(value))
        }
    };
    for (vars, dir) in [
        (&[("CLINE_DIR", "/c")][..], "/c/data/sessions"),
        (
            &[("CLINE_DIR", "/c"), ("CLINE_DATA_DIR", "/d")],
            "/d/sessions",
        ),
        (
            &[("CLINE_DATA_DIR", "/d"), ("CLINE_SESSION_DATA_DIR", "/s")],
            "/s",
        ),
        (&[("CLINE_DIR", "")], "/home/u/.cline/data/sessions"),
    ] {
        assert_eq!(
            session_file("s1", set(vars), Some(home)),
            Some(Path::new(dir).join("s1/s1.messages.json")),
            "{vars:?}"
        );
    }
    for bad in ["", "../x", "a/b", ".."] {
        assert_eq!(session_file(bad, none, Some(home)), None, "{bad:?}");
    }
    assert!(is_messages_file(Path::new("/s/s1/s1.messages.json")));
    assert!(!is_messages_file(Path::new("/s/s1/s1.json")));
    assert!(!is_messages_file(Path::new("/s/events.jsonl")));
}

#[test]
fn over_the_budget_only_the_last_whole_messages_are_read() {
    let mut messages = vec![prompt("u1", "Fix it")];
    for i in 0..200 {
        messages.push(commands(&format!("c{i}"), &["cat app.py"]));
        messages.push(results(
            &format!("c{i}"),
            "run_commands",
            json!([ran("cat app.py", 0, &"x = 1\n".repeat(50))]),
        ));
    }
    messages.push(commands("call_t", &["make test"]));
    messages.push(results(
        "call_t",
        "run_commands",
        json!([ran("make test", 0, "3 passed\n")]),
    ));
    let (_dir, path) = session(&messages);
    let len = std::fs::metadata(&path).unwrap().len();
    let options = Options {
        max_scan_bytes: 20_000,
        ..Options::default()
    };
    let mut transcript = Transcript::open(&path, options).unwrap();
    let mut seen = Vec::new();
    transcript
        .visit_backwards(|e| {
            seen.push(e.clone());
            true
        })
        .unwrap();
    assert!(transcript.exhausted_budget() && transcript.stats().scanned_bytes == 20_000);
    assert!(
        len > 100_000 && seen.len() > 10 && seen.len() < 100,
        "{}",
        seen.len()
    );
    assert!(matches!(&seen[1], Event::ToolCall { id, .. } if id == "call_t"));
    // Every message read is whole: a call is never read without its id.
    assert!(seen.iter().all(|e| match e {
        Event::ToolCall { id, .. } | Event::ToolResult { id, .. } => id.starts_with('c'),
        _ => false,
    }));
}

fn newest_first(transcript: &mut Transcript) -> Vec<String> {
    let mut seen = Vec::new();
    transcript
        .visit_backwards(|e| {
            seen.push(match e {
                Event::ToolCall { id, .. } => format!("call {id}"),
                Event::ToolResult { id, .. } => format!("result {id}"),
                Event::UserTurn { .. } => "user".into(),
                Event::AssistantText { .. } | Event::Compaction => "other".into(),
            });
            true
        })
        .unwrap();
    seen
}

#[test]
fn a_document_being_rewritten_is_read_again_from_its_end() {
    let task = a_task();
    let (_dir, path) = session(&task[..4]);
    let mut transcript = Transcript::open(&path, Options::default()).unwrap();
    assert_eq!(
        newest_first(&mut transcript),
        ["call call_f", "result call_e", "call call_e", "user"]
    );
    // Cline writes the file in place: a read can meet it half written. The messages whole in
    // it are read; the one cut off is a bad line.
    let whole = document(&task);
    let cut = whole.find("\"call_t\"").unwrap();
    std::fs::write(&path, &whole[..cut]).unwrap();
    assert!(transcript.refresh().unwrap());
    assert_eq!(
        newest_first(&mut transcript),
        [
            "result call_f",
            "call call_f",
            "result call_e",
            "call call_e",
            "user"
        ]
    );
    assert_eq!(transcript.stats().bad_lines, 1);
    std::fs::write(&path, &whole).unwrap();
    assert!(transcript.refresh().unwrap());
    assert_eq!(
        newest_first(&mut transcript)[..2],
        ["call call_p", "result call_t#1"]
    );
    assert!(!transcript.refresh().unwrap(), "unchanged: not read again");
}

#[test]
fn values_of_other_types_lose_nothing_else() {
    let mut task = a_task();
    // `commands` a number, `result` a number, `success` a string.
    task.push(call("call_s", "run_commands", json!({"commands": 7})));
    task.push(results(
        "call_s",
        "run_commands",
        json!([{"query": "x", "result": 3, "success": "yes"}]),
    ));
    // A message of another shape: a bad line, the rest read.
    task.insert(
        1,
        json!({"id": "odd", "role": "user", "content": [{"type": "tool_result", "content": [7]}]}),
    );
    // A value that is no object starts no message: not read at all.
    task.insert(1, json!(42));
    let (_dir, path) = session(&task);
    let (seen, bad_lines) = described_backwards(&path);
    assert_eq!(bad_lines, 1);
    assert_eq!(seen[..2], ["result true None", "call Bash "]);
    assert_eq!(seen.len(), 12);
}
