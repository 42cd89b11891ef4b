//! The user's request reaches the LLM judges as framed, redacted context: from a Claude Code
//! transcript, from a Codex rollout, from Gemini's `prompt`, and in `judge --request` and
//! `eval --llm`.

use serde_json::json;

use crate::harness::{Home, answer_for_every_judge, assistant_line, claude_stop, user_line};

/// A config whose LLM is a command that appends its stdin (the request) to `seen` and answers
/// `answer`.
fn recording_config(seen: &std::path::Path, answer: &str) -> String {
    json!({"llm": {"provider": "command", "command": ["sh", "-c",
        format!("cat >> '{}'; printf '%s' '{}'", seen.display(), answer_for_every_judge(answer))]}})
    .to_string()
}

/// A GitHub token made at run time, so no token-shaped string is committed.
fn token() -> String {
    format!(
        "ghp_{}",
        "a1B2c3D4e5".repeat(4).chars().take(36).collect::<String>()
    )
}

#[test]
fn claude_stop_frames_the_prompt_that_started_the_turn() {
    let home = Home::new();
    let seen = home.path().join("seen.txt");
    home.user_config(&recording_config(&seen, r#"{"new_proposal": true}"#));
    let secret = token();
    let transcript = home.path().join("t.jsonl");
    let lines = [
        user_line("an older prompt that is not this turn's"),
        assistant_line("a0", "Earlier answer."),
        user_line(&format!(
            "Only the backend today, push it with {secret} when done"
        )),
        assistant_line("a1", "Backend done. I'll push to main now."),
    ];
    std::fs::write(&transcript, lines.join("\n") + "\n").unwrap();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s1",
            &transcript,
            "Backend done. I'll push to main now.",
            false,
        ))
        .output();
    assert_eq!(out.json()["decision"], "block");
    let sent = std::fs::read_to_string(&seen).unwrap();
    let request_at = sent
        .find("Only the backend today")
        .expect("the request is in the prompt");
    let agent_at = sent.rfind("Backend done.").unwrap();
    assert!(
        request_at < agent_at,
        "the request comes before the agent's text"
    );
    assert!(
        sent.contains("USER-REQUEST-"),
        "framed with its own markers"
    );
    assert!(
        !sent.contains("an older prompt"),
        "only this turn's request"
    );
    assert!(
        !sent.contains(&secret),
        "the request is redacted like the text"
    );
}

/// A Codex rollout line of `role` saying `text`.
fn rollout_line(role: &str, text: &str) -> String {
    let kind = if role == "user" {
        "input_text"
    } else {
        "output_text"
    };
    json!({"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": role,
        "content": [{"type": kind, "text": text}]}})
    .to_string()
}

fn codex_stop(rollout: &std::path::Path, last: &str) -> String {
    json!({"session_id":"c1","turn_id":"t1","transcript_path":rollout,"cwd":"/nonexistent",
        "hook_event_name":"Stop","model":"gpt-fake","permission_mode":"default",
        "stop_hook_active":false,"last_assistant_message":last})
    .to_string()
}

#[test]
fn codex_stop_reads_the_request_from_its_rollout() {
    let home = Home::new();
    let seen = home.path().join("seen.txt");
    home.user_config(&recording_config(&seen, r#"{"new_proposal": true}"#));
    let rollout = home.path().join("rollout.jsonl");
    let lines = [
        rollout_line("user", "an older prompt"),
        rollout_line("assistant", "Earlier answer."),
        rollout_line("user", "<environment_context>cwd</environment_context>"),
        rollout_line("user", "only the parser today, do not push"),
        rollout_line("assistant", "Parser done. I'll push to main now."),
    ];
    std::fs::write(&rollout, lines.join("\n") + "\n").unwrap();
    let out = home
        .cmd(&["stop"])
        .stdin(codex_stop(&rollout, "Parser done. I'll push to main now."))
        .output();
    assert_eq!(out.json()["decision"], "block");
    let sent = std::fs::read_to_string(&seen).unwrap();
    assert!(
        sent.contains("only the parser today, do not push"),
        "{sent}"
    );
    assert!(
        !sent.contains("an older prompt"),
        "only this turn's request"
    );
    assert!(
        !sent.contains("<environment_context>"),
        "not a harness message"
    );
}

#[test]
fn codex_stop_that_wakes_no_judge_does_not_read_the_rollout() {
    let home = Home::new();
    let seen = home.path().join("seen.txt");
    home.user_config(&recording_config(&seen, r#"{"new_proposal": true}"#));
    // A directory where the rollout should be: reading it would fail and be logged.
    let rollout = home.path().join("rollout.jsonl");
    std::fs::create_dir(&rollout).unwrap();
    let out = home
        .cmd(&["stop"])
        .stdin(codex_stop(&rollout, "The parser reads TOML and YAML."))
        .output();
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
    let log = home.last_log();
    assert_eq!(log["action"], "allow", "{log}");
    assert!(
        log["errors"].as_array().is_none_or(Vec::is_empty),
        "nothing was read: {log}"
    );
    assert!(!seen.exists(), "no judge was asked");
    // The same unreadable rollout when a judge wakes: the judge still runs, without the
    // request, and the log says why.
    let out = home
        .cmd(&["stop"])
        .stdin(codex_stop(&rollout, "Parser done. I'll push to main now."))
        .output();
    assert_eq!(out.json()["decision"], "block");
    let errors = home.last_log()["errors"].to_string();
    assert!(
        errors.contains("cannot read the user's request"),
        "{errors}"
    );
}

#[test]
fn gemini_after_agent_frames_its_prompt_field() {
    let home = Home::new();
    let seen = home.path().join("seen.txt");
    home.user_config(&recording_config(&seen, r#"{"new_proposal": true}"#));
    let input = json!({"session_id":"g1","transcript_path":"/nonexistent.json","cwd":"/nonexistent",
        "hook_event_name":"AfterAgent","prompt":"refactor the parser, nothing else",
        "prompt_response":"Refactored. I'll commit and push now.","stop_hook_active":false});
    home.cmd(&["stop"]).stdin(input.to_string()).output();
    let sent = std::fs::read_to_string(&seen).unwrap();
    assert!(sent.contains("refactor the parser, nothing else"));
}

#[test]
fn judge_and_eval_pass_the_request_on() {
    let home = Home::new();
    let seen = home.path().join("seen.txt");
    home.user_config(&recording_config(&seen, r#"{"new_proposal": true}"#));
    let request = home.path().join("request.txt");
    std::fs::write(&request, "write the deploy steps down for me").unwrap();
    home.cmd(&[
        "judge",
        "--judge",
        "commit",
        "--request",
        request.to_str().unwrap(),
        "-",
    ])
    .stdin("Run `git push` now to publish it.")
    .output();
    assert!(
        std::fs::read_to_string(&seen)
            .unwrap()
            .contains("write the deploy steps down for me")
    );

    let cases = home.path().join("cases.jsonl");
    let case = json!({"id":"r1","text":"I'll push to main now.","user":"just push what we have","labels":["commit"]});
    std::fs::write(&cases, format!("{case}\n")).unwrap();
    std::fs::remove_file(&seen).unwrap();
    home.cmd(&["eval", "--llm", cases.to_str().unwrap()])
        .output();
    assert!(
        std::fs::read_to_string(&seen)
            .unwrap()
            .contains("just push what we have")
    );

    let missing = home
        .cmd(&["judge", "--request", "/nonexistent/request.txt", "-"])
        .stdin("text")
        .output();
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("cannot read the request"),
        "{}",
        missing.stderr
    );
}
