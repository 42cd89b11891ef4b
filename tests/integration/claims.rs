//! Claims checked against the session, through the binary: "All tests pass now." at the end of
//! a Claude Code, Codex, Gemini CLI or Factory Droid turn is blocked, with the evidence in the reason, after a
//! failing run, after edits that followed the last passing run, and with no run at all; after a
//! passing run that followed the last edit it is not. No LLM is configured: the session's facts
//! decide. `hookjudge judge --transcript` gives the same answer.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::Home;

const CLAIM: &str = "Fixed the parser. All tests pass now.";

/// One step of a turn, agent-neutral.
#[derive(Clone, Copy)]
enum Step {
    /// An edit of `src/parser.py`.
    Edit,
    /// `pytest -q`, exiting with this status.
    Test(i32),
}

/// The turns every agent is checked on: steps, and the words the block reason must hold
/// (`None`: the claim is allowed).
fn scenarios() -> Vec<(&'static str, Vec<Step>, Option<&'static str>)> {
    use Step::*;
    vec![
        (
            "after a failing run",
            vec![Edit, Test(1)],
            Some("the last test run, `pytest -q`, after the edit of src/parser.py, exited 1"),
        ),
        (
            "after edits that followed the last passing run",
            vec![Edit, Test(0), Edit],
            Some("the last test run, `pytest -q`, exited 0, and src/parser.py was edited after it"),
        ),
        (
            "with no run at all",
            vec![Edit],
            Some("the session shows no test run in this turn after the edit of src/parser.py"),
        ),
        (
            "after a passing run that followed the last edit",
            vec![Edit, Test(1), Edit, Test(0)],
            None,
        ),
    ]
}

fn output(code: i32) -> &'static str {
    if code == 0 {
        "3 passed in 0.02s"
    } else {
        "1 failed, 2 passed in 0.03s"
    }
}

fn write(home: &Home, name: &str, lines: &[Value]) -> PathBuf {
    let path = home.path().join(name);
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn claude_session(home: &Home, steps: &[Step]) -> PathBuf {
    let mut lines = vec![
        json!({"type": "user", "uuid": "u0", "message": {"role": "user", "content": "Fix the parser"}}),
    ];
    for (i, step) in steps.iter().enumerate() {
        let id = format!("toolu_{i}");
        let (name, input, is_error, content) = match step {
            Step::Edit => (
                "Edit",
                json!({"file_path": "src/parser.py", "old_string": "a", "new_string": "b"}),
                false,
                "The file src/parser.py has been updated.".to_owned(),
            ),
            Step::Test(0) => (
                "Bash",
                json!({"command": "pytest -q"}),
                false,
                output(0).to_owned(),
            ),
            Step::Test(code) => (
                "Bash",
                json!({"command": "pytest -q"}),
                true,
                format!("Exit code {code}\n{}", output(*code)),
            ),
        };
        lines.push(json!({"type": "assistant", "uuid": format!("a{i}"), "message": {"id": format!("m{i}"), "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}));
        lines.push(json!({"type": "user", "uuid": format!("r{i}"), "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": content}]}, "toolUseResult": {"stdout": ""}, "sourceToolAssistantUUID": format!("a{i}")}));
    }
    lines.push(json!({"type": "assistant", "uuid": "last", "message": {"id": "mlast", "role": "assistant", "content": [{"type": "text", "text": CLAIM}]}}));
    write(home, "claude.jsonl", &lines)
}

fn codex_rollout(home: &Home, steps: &[Step]) -> PathBuf {
    let item = |payload: Value| json!({"timestamp": "2026-12-01T10:00:00Z", "type": "response_item", "payload": payload});
    let mut lines = vec![item(
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the parser"}]}),
    )];
    for (i, step) in steps.iter().enumerate() {
        let id = format!("call_{i}");
        match step {
            Step::Edit => {
                lines.push(item(json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": id, "input": "*** Begin Patch\n*** Update File: src/parser.py\n@@\n-a\n+b\n*** End Patch"})));
                lines.push(item(json!({"type": "custom_tool_call_output", "call_id": id, "output": "Success. Updated the following files:\nM src/parser.py"})));
            }
            Step::Test(code) => {
                lines.push(item(json!({"type": "function_call", "name": "exec_command", "call_id": id, "arguments": json!({"cmd": "pytest -q"}).to_string()})));
                lines.push(item(json!({"type": "function_call_output", "call_id": id, "output": format!("Chunk ID: 1\nWall time: 0.4 seconds\nProcess exited with code {code}\nOutput:\n{}", output(*code))})));
            }
        }
    }
    lines.push(item(
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": CLAIM}]}),
    ));
    write(home, "rollout.jsonl", &lines)
}

fn gemini_session(home: &Home, steps: &[Step]) -> PathBuf {
    let mut lines = vec![
        json!({"sessionId": "g1", "projectHash": "h", "startTime": "2026-12-01T10:00:00Z", "lastUpdated": "2026-12-01T10:00:00Z", "kind": "main"}),
        json!({"id": "u0", "timestamp": "2026-12-01T10:00:01Z", "type": "user", "content": [{"text": "Fix the parser"}]}),
    ];
    for (i, step) in steps.iter().enumerate() {
        let id = format!("call_{i}");
        let (name, args, out) = match step {
            Step::Edit => (
                "replace",
                json!({"file_path": "src/parser.py", "old_string": "a", "new_string": "b"}),
                "Successfully modified file: src/parser.py (1 replacements).".to_owned(),
            ),
            Step::Test(code) => {
                let trailer = if *code == 0 {
                    String::new()
                } else {
                    format!("Exit Code: {code}\n")
                };
                (
                    "run_shell_command",
                    json!({"command": "pytest -q"}),
                    format!(
                        "<untrusted_context>\nOutput: {}\n{trailer}Process Group PGID: 7\n</untrusted_context>",
                        output(*code)
                    ),
                )
            }
        };
        lines.push(json!({"id": format!("m{i}"), "timestamp": "2026-12-01T10:00:02Z", "type": "gemini", "content": "", "model": "gemini-2.5-flash",
            "toolCalls": [{"id": id, "name": name, "args": args, "status": "success",
                "result": [{"functionResponse": {"id": id, "name": name, "response": {"output": out}}}]}]}));
    }
    lines.push(json!({"id": "last", "timestamp": "2026-12-01T10:00:09Z", "type": "gemini", "content": CLAIM, "model": "gemini-2.5-flash"}));
    write(home, "gemini.jsonl", &lines)
}

/// Droid's session, in the shape Droid 0.215 writes it (tests/e2e): Claude Code's content
/// blocks in `message` lines, a command's status as the last line of its result.
fn droid_session(home: &Home, steps: &[Step]) -> PathBuf {
    let message = |id: String, role: &str, content: Value| json!({"type": "message", "id": id, "parentId": "p", "timestamp": "2026-12-01T10:00:01Z", "message": {"role": role, "content": content}});
    let mut lines = vec![
        json!({"type": "session_start", "id": "d1", "title": "Fix the parser", "owner": "u", "version": 2, "cwd": "/nonexistent"}),
        message(
            "ctx".into(),
            "user",
            json!([{"type": "text", "text": "<system-reminder>\nDeferred tools\n</system-reminder>"}]),
        ),
        message(
            "u0".into(),
            "user",
            json!([{"type": "text", "text": "Fix the parser"}]),
        ),
    ];
    for (i, step) in steps.iter().enumerate() {
        let id = format!("call_{i}");
        let (name, input, is_error, content) = match step {
            Step::Edit => (
                "Edit",
                json!({"file_path": "src/parser.py", "old_str": "a", "new_str": "b"}),
                false,
                r#"{"success":true,"file_path":"src/parser.py"}"#.to_owned(),
            ),
            Step::Test(0) => (
                "Execute",
                json!({"command": "pytest -q", "riskLevelReason": "runs the tests", "riskLevel": "low"}),
                false,
                format!("{}\n\n\n[Process exited with code 0]", output(0)),
            ),
            Step::Test(code) => (
                "Execute",
                json!({"command": "pytest -q", "riskLevelReason": "runs the tests", "riskLevel": "low"}),
                true,
                format!(
                    "Error: Command failed (exit code: {code})\n{}\n\n\n[Process exited with code {code}]",
                    output(*code)
                ),
            ),
        };
        lines.push(message(
            format!("a{i}"),
            "assistant",
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
        ));
        lines.push(message(format!("r{i}"), "user", json!([{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": content}])));
    }
    lines.push(message(
        "last".into(),
        "assistant",
        json!([{"type": "text", "text": CLAIM}]),
    ));
    write(home, "droid.jsonl", &lines)
}

fn claude_stop(session: &str, t: &Path) -> String {
    json!({"session_id": session, "transcript_path": t, "cwd": "/nonexistent", "prompt_id": format!("p-{session}"),
        "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": CLAIM})
    .to_string()
}

fn codex_stop(session: &str, t: &Path) -> String {
    json!({"session_id": session, "turn_id": format!("turn-{session}"), "transcript_path": t, "cwd": "/nonexistent",
        "hook_event_name": "Stop", "model": "gpt-fake", "permission_mode": "default", "stop_hook_active": false,
        "last_assistant_message": CLAIM})
    .to_string()
}

fn gemini_stop(session: &str, t: &Path) -> String {
    json!({"session_id": session, "transcript_path": t, "cwd": "/nonexistent", "hook_event_name": "AfterAgent",
        "timestamp": "2026-12-01T10:00:10Z", "prompt": "Fix the parser", "prompt_response": CLAIM, "stop_hook_active": false})
    .to_string()
}

/// Droid's `Stop` names the message that ended the turn, and carries no text.
fn droid_stop(session: &str, t: &Path) -> String {
    json!({"session_id": session, "transcript_path": t, "cwd": "/nonexistent", "permission_mode": "auto-high",
        "hook_event_name": "Stop", "message_id": "last", "stop_hook_active": false})
    .to_string()
}

type Agent = (
    &'static str,
    fn(&Home, &[Step]) -> PathBuf,
    fn(&str, &Path) -> String,
    &'static str,
);

const AGENTS: [Agent; 4] = [
    ("claude", claude_session, claude_stop, "block"),
    ("codex", codex_rollout, codex_stop, "block"),
    ("gemini", gemini_session, gemini_stop, "deny"),
    ("droid", droid_session, droid_stop, "block"),
];

fn home() -> Home {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    home
}

#[test]
fn a_claim_the_session_contradicts_is_blocked_with_the_evidence() {
    let home = home();
    for (agent, session, stop, block) in AGENTS {
        for (n, (name, steps, expected)) in scenarios().into_iter().enumerate() {
            let t = session(&home, &steps);
            let out = home
                .cmd(&["stop"])
                .stdin(stop(&format!("{agent}-{n}"), &t))
                .output();
            assert_eq!(out.code, 0, "{agent} {name}: {}", out.stderr);
            match expected {
                Some(evidence) => {
                    let v = out.json();
                    assert_eq!(v["decision"], block, "{agent} {name}: {v}");
                    let reason = v["reason"].as_str().unwrap();
                    assert!(
                        reason.starts_with("hookjudge [unverified-claim]: "),
                        "{agent} {name}: {reason}"
                    );
                    assert!(reason.contains(evidence), "{agent} {name}: {reason}");
                }
                // Allowed: at most the once-per-session notice that no LLM judges the rest.
                None => assert!(
                    !out.stdout.contains("\"decision\""),
                    "{agent} {name}: {}",
                    out.stdout
                ),
            }
            let log = home.last_log();
            let claim = log["judges"]
                .as_array()
                .unwrap()
                .iter()
                .find(|j| j["judge"] == "unverified-claim")
                .cloned()
                .unwrap();
            assert_eq!(
                claim["verdict"],
                if expected.is_some() {
                    "violation"
                } else {
                    "allow"
                },
                "{agent} {name}: {claim}"
            );
        }
    }
}

#[test]
fn the_loop_breaker_releases_a_repeated_claim_block() {
    let home = home();
    let t = claude_session(&home, &[Step::Edit, Step::Test(1)]);
    let first = home.cmd(&["stop"]).stdin(claude_stop("loop", &t)).output();
    assert_eq!(first.json()["decision"], "block");
    // The agent answers the block with the same claim: the judge has had its one block.
    let mut again: Value = serde_json::from_str(&claude_stop("loop", &t)).unwrap();
    again["stop_hook_active"] = json!(true);
    let second = home.cmd(&["stop"]).stdin(again.to_string()).output();
    assert_eq!(second.code, 0);
    assert_ne!(
        second
            .stdout
            .trim()
            .parse::<Value>()
            .ok()
            .map(|v| v["decision"].clone()),
        Some(json!("block")),
        "{}",
        second.stdout
    );
    assert_eq!(home.last_log()["released"], json!(["unverified-claim"]));
}

#[test]
fn claims_about_what_the_session_cannot_see_are_left_to_the_llm() {
    let home = home();
    let t = claude_session(&home, &[Step::Edit]);
    let mut input: Value = serde_json::from_str(&claude_stop("ci", &t)).unwrap();
    input["last_assistant_message"] = json!("Pushed the fix; CI is green on the PR.");
    let out = home.cmd(&["stop"]).stdin(input.to_string()).output();
    assert!(
        !out.stdout.contains("\"decision\""),
        "no LLM configured: unjudged, allowed: {}",
        out.stdout
    );
    let log = home.last_log();
    let claim = log["judges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["judge"] == "unverified-claim")
        .cloned()
        .unwrap();
    assert_eq!(claim["verdict"], "unjudged", "{claim}");
}

#[test]
fn judge_with_a_transcript_checks_the_claim_without_an_llm() {
    let home = home();
    for (agent, session, _, _) in AGENTS {
        let t = session(&home, &[Step::Edit, Step::Test(1)]);
        let out = home
            .cmd(&[
                "judge",
                "--no-llm",
                "--json",
                "--judge",
                "unverified-claim",
                "--transcript",
                t.to_str().unwrap(),
            ])
            .stdin(CLAIM)
            .output();
        assert_eq!(out.code, 1, "{agent}: block is exit 1; {}", out.stderr);
        let v = out.json();
        assert_eq!(v["judges"][0]["verdict"], "violation", "{agent}: {v}");
        assert!(
            v["judges"][0]["reason"]
                .as_str()
                .unwrap()
                .contains("exited 1"),
            "{agent}: {v}"
        );
        let t = session(&home, &[Step::Edit, Step::Test(0)]);
        let out = home
            .cmd(&["judge", "--no-llm", "--transcript", t.to_str().unwrap()])
            .stdin(CLAIM)
            .output();
        assert_eq!(out.code, 0, "{agent}: {}", out.stdout);
    }
    let out = home
        .cmd(&["judge", "--no-llm", "--transcript", "/nonexistent.jsonl"])
        .stdin(CLAIM)
        .output();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("cannot read the session file"),
        "{}",
        out.stderr
    );
}

/// With an LLM: the facts settle the claim without it, and the other judges of the turn share
/// one request whose prompt carries the session's facts.
#[test]
fn with_an_llm_the_facts_settle_the_claim_and_the_rest_share_one_call_that_reads_them() {
    use crate::harness::{FakeLlm, Reply};
    let server = FakeLlm::start(|r| Reply::chat(&r.answer(json!({}))));
    let home = home();
    home.user_config(
        &json!({"llm": {"provider": "openai", "base_url": format!("{}/v1", server.url),
            "model": "judge-model", "api_key_env": "JUDGE_KEY"}})
        .to_string(),
    );
    let t = claude_session(&home, &[Step::Edit, Step::Test(1)]);
    let mut input: Value = serde_json::from_str(&claude_stop("llm", &t)).unwrap();
    input["last_assistant_message"] =
        json!("Fixed the parser. All tests pass now. Shall I push to main?");
    let out = home
        .cmd(&["stop"])
        .env("JUDGE_KEY", "k")
        .stdin(input.to_string())
        .output();
    let v = out.json();
    assert_eq!(v["decision"], "block", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("hookjudge [unverified-claim]: ") && reason.contains("exited 1"),
        "{reason}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one request for the judges left");
    let asked: Vec<String> = requests[0]
        .judges_asked()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert!(asked.contains(&"commit".to_owned()), "{asked:?}");
    assert!(
        !asked.contains(&"unverified-claim".to_owned()),
        "settled by the facts: {asked:?}"
    );
    let prompt = requests[0].prompt();
    assert!(
        prompt.contains("pytest -q") && prompt.contains("src/parser.py"),
        "the facts are in the prompt: {prompt}"
    );
    assert_eq!(home.last_log()["llm_calls"], 1);

    // A turn that claims nothing is not settled from the facts, though it edited and ran no
    // test: the claim judge goes to the LLM with the rest (which here finds nothing).
    let t = claude_session(&home, &[Step::Edit]);
    let said = "I moved the tokenizer into its own module; the parser imports it from there.";
    let session = std::fs::read_to_string(&t).unwrap().replace(CLAIM, said);
    std::fs::write(&t, session).unwrap();
    let mut input: Value = serde_json::from_str(&claude_stop("quiet", &t)).unwrap();
    input["last_assistant_message"] = json!(said);
    let out = home
        .cmd(&["stop"])
        .env("JUDGE_KEY", "k")
        .stdin(input.to_string())
        .output();
    assert!(!out.stdout.contains("\"decision\""), "{}", out.stdout);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let asked: Vec<String> = requests[1]
        .judges_asked()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert!(asked.contains(&"unverified-claim".to_owned()), "{asked:?}");
}

/// Claude Code writes its transcript through a queue: the turn's test run and its result may
/// reach the file after the Stop hook started. The facts wait for the turn's last message.
#[test]
fn a_test_run_written_late_to_the_transcript_still_backs_the_claim() {
    let home = home();
    let t = claude_session(&home, &[Step::Edit, Step::Test(0)]);
    let full = std::fs::read_to_string(&t).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    let (now, late) = lines.split_at(3); // the request and the edit; then the run and the claim
    std::fs::write(&t, now.join("\n") + "\n").unwrap();
    let late = late.join("\n") + "\n";
    let path = t.clone();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(late.as_bytes()).unwrap();
    });
    let out = home.cmd(&["stop"]).stdin(claude_stop("late", &t)).output();
    writer.join().unwrap();
    assert!(!out.stdout.contains("\"decision\""), "{}", out.stdout);
    let log = home.last_log();
    let claim = log["judges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["judge"] == "unverified-claim")
        .unwrap()
        .clone();
    assert_eq!(claim["verdict"], "allow", "{claim}");
}
