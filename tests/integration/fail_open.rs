//! The Stop path fails open: every failure ends in exit 0, no block, a note for the human where
//! the agent shows one, and a log line saying what failed.

use serde_json::json;

use crate::harness::{Home, claude_stop};

fn notice(out: &crate::harness::Outcome) -> String {
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let v = out.json();
    assert!(
        v.get("decision").is_none(),
        "a failure must never block: {v}"
    );
    v["systemMessage"]
        .as_str()
        .expect("a systemMessage for the human")
        .to_owned()
}

#[test]
fn empty_and_non_json_stdin() {
    let home = Home::new();
    for stdin in [
        "",
        "   \n",
        "this is not json",
        "[1,2,3]",
        "{\"hook_event_name\": 5}",
    ] {
        let out = home.cmd(&["stop"]).stdin(stdin).output();
        assert!(notice(&out).contains("allowed to end"), "{stdin:?}");
        assert_eq!(home.last_log()["action"], "fail-open");
        assert_eq!(home.last_log()["cause"], "bad_input", "{stdin:?}");
    }
}

#[test]
fn missing_transcript_judges_the_last_message_and_logs_the_error() {
    let home = Home::new();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            &home.path().join("missing.jsonl"),
            "Here is the summary.",
            false,
        ))
        .output();
    out.assert_silent_allow();
    let log = home.last_log();
    assert!(
        log["errors"][0]
            .as_str()
            .unwrap()
            .contains("cannot read transcript"),
        "{log}"
    );
    assert_eq!(log["text"], "Here is the summary.");
}

#[test]
fn invalid_config_is_reported_and_allowed() {
    let home = Home::new();
    home.user_config(r#"{"judges": {"commit": {"trigers": ["x"]}}}"#);
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            std::path::Path::new(""),
            "I'll push now.",
            false,
        ))
        .output();
    assert!(notice(&out).contains("invalid config"));
    let log = home.last_log();
    assert_eq!(log["cause"], "config", "{log}");
    assert!(
        log["errors"][0]
            .as_str()
            .unwrap()
            .contains("judges.commit.trigers"),
        "{log}"
    );
}

#[test]
fn invalid_user_regex_names_the_judge_and_pattern() {
    let home = Home::new();
    home.user_config(r#"{"judges": {"commit": {"add_triggers": ["(unclosed"]}}}"#);
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            std::path::Path::new(""),
            "I'll push now.",
            false,
        ))
        .output();
    assert!(notice(&out).contains("invalid judge"));
    let error = home.last_log()["errors"][0].as_str().unwrap().to_owned();
    assert!(
        error.contains("at `judges.commit.add_triggers[0]`: judge `commit`")
            && error.contains("`(unclosed`"),
        "{error}"
    );
    // Checked when the config loads, so the gate sees it too: a gated command is left to a
    // human with the key named, a quiet one stays quiet.
    let gate = |command: &str| {
        let input = crate::gate_repo::pre_tool_use(&home.work(), command, false, None);
        let out = home.cmd(&["gate"]).stdin(input).output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let asked = gate("git push");
    assert!(
        asked.contains(r#""permissionDecision":"ask""#)
            && asked.contains("judges.commit.add_triggers[0]"),
        "{asked}"
    );
    assert_eq!(gate("ls -la").trim(), "");
    // The same config is a clear error (exit 2) for the tuning commands.
    let out = home.cmd(&["judge"]).stdin("text").output();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("`(unclosed`") && out.stderr.contains("hint:"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_forced_panic_exits_zero_with_a_notice() {
    let home = Home::new();
    let out = home
        .cmd(&["stop"])
        .env("HOOKJUDGE_DEBUG_PANIC", "stop")
        .stdin(claude_stop("s", std::path::Path::new(""), "x", false))
        .output();
    assert!(notice(&out).contains("internal error"));
    assert_eq!(home.last_log()["cause"], "internal");
    assert!(
        home.last_log()["errors"][0]
            .as_str()
            .unwrap()
            .contains("internal error")
    );
}

#[test]
fn a_bad_hook_command_line_fails_open_instead_of_exiting_2() {
    let home = Home::new();
    let out = home.cmd(&["stop", "--no-such-flag"]).stdin("{}").output();
    assert!(notice(&out).contains("hookjudge init"));
}

#[test]
fn llm_failures_allow_with_a_notice() {
    let home = Home::new();
    for (name, llm) in [
        (
            "exit 1",
            json!({"provider": "command", "command": ["sh", "-c", "echo boom >&2; exit 1"]}),
        ),
        (
            "garbage",
            json!({"provider": "command", "command": ["sh", "-c", "echo I cannot decide"]}),
        ),
        (
            "missing CLI",
            json!({"provider": "command", "command": ["hookjudge-no-such-cli"]}),
        ),
        (
            "timeout",
            json!({"provider": "command", "command": ["sh", "-c", "sleep 20"], "timeout_ms": 300}),
        ),
    ] {
        home.user_config(&json!({ "llm": llm }).to_string());
        let started = std::time::Instant::now();
        let out = home
            .cmd(&["stop"])
            .stdin(claude_stop(
                name,
                std::path::Path::new(""),
                "I'll push to main now.",
                false,
            ))
            .output();
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{name}: the deadline bounds the call"
        );
        assert!(notice(&out).contains("could not judge"), "{name}");
        let log = home.last_log();
        assert_eq!(
            (log["action"].as_str(), log["judges"][0]["verdict"].as_str()),
            (Some("fail-open"), Some("fail")),
            "{name}"
        );
    }
}
