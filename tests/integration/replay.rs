//! `hookjudge replay` as a user runs it after editing a judge: Layer 1 only without an LLM,
//! exit 0 on an empty log, and with an LLM bounded concurrency and progress on stderr.

use std::time::Duration;

use serde_json::json;

use crate::harness::{FakeLlm, Home, Reply, claude_stop, command_llm_config};

#[test]
fn without_an_llm_unchanged_layer1_is_no_change() {
    let home = Home::new();
    // Logged while an LLM judged: the triggered text was a violation and blocked.
    home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    for (session, text) in [
        ("s1", "Done. I'll push to main now."),
        ("s2", "Here is the summary of the module."),
        ("s3", "Shall I commit these changes?"),
    ] {
        home.cmd(&["stop"])
            .stdin(claude_stop(session, std::path::Path::new(""), text, false))
            .output();
    }
    assert!(
        home.log()
            .iter()
            .any(|r| r["judges"][0]["verdict"] == "violation"),
        "the log holds LLM verdicts"
    );
    // Now no LLM is configured, and no pattern changed: nothing changed.
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let out = home.cmd(&["replay"]).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("replayed 3 logged responses with 6 judge(s) (no LLM: Layer 1 only); 0 outcome(s) changed"),
        "{}",
        out.stdout
    );
    let json = home.cmd(&["replay", "--json"]).output();
    assert_eq!((json.code, json.stdout.as_str()), (0, ""));
    // A pattern edit that wakes a judge on a text it slept through is a change.
    home.user_config(
        &json!({"llm": {"provider": "none"}, "judges": {"commit": {"add_triggers": ["\\bsummary\\b"]}}})
            .to_string(),
    );
    let out = home.cmd(&["replay", "--json"]).output();
    let changes: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(changes.len(), 1, "{}", out.stdout);
    assert_eq!(
        (changes[0]["before"].as_str(), changes[0]["after"].as_str()),
        (Some("quiet"), Some("trigger"))
    );
}

#[test]
fn an_empty_log_exits_0_like_log() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let out = home.cmd(&["replay"]).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("no logged response texts to replay"),
        "{}",
        out.stdout
    );
    assert_eq!(home.cmd(&["log"]).output().code, 0);
    let json = home.cmd(&["replay", "--json"]).output();
    assert_eq!((json.code, json.stdout.as_str()), (0, ""));
    let since = home.cmd(&["replay", "--since", "1d"]).output();
    assert_eq!(since.code, 0);
    assert!(since.stdout.contains("in that period"), "{}", since.stdout);
}

#[test]
fn with_an_llm_at_most_jobs_calls_at_once_and_progress_on_stderr() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Calls being answered, counted inside the answer so that a call is counted out before its
    // response leaves (the server's own connection count can lag behind on a loaded machine).
    let (answering, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let server = {
        let (answering, most) = (answering.clone(), most.clone());
        FakeLlm::start(move |_| {
            let now = answering.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            // Long enough that workers overlap even on a loaded machine.
            std::thread::sleep(Duration::from_millis(400));
            answering.fetch_sub(1, Ordering::SeqCst);
            Reply::chat(
                r#"{"new_proposal": true, "verification_reported": false, "direction_query": false, "future_step_description": false}"#,
            )
        })
    };
    let home = Home::new();
    let dir = home.log_dir();
    std::fs::create_dir_all(&dir).unwrap();
    // Twelve responses logged while no LLM was configured: triggered but unjudged.
    let mut lines = String::new();
    for i in 0..12 {
        let r = json!({"ts": format!("2026-11-30T10:{i:02}:00.000Z"), "kind": "stop", "action": "allow",
            "session": format!("s{i}"), "text": format!("Change {i} is done. I'll push to main now."),
            "judges": [{"judge": "commit", "layer1": "trigger", "verdict": "unjudged", "decision": "allow"}]});
        lines.push_str(&format!("{r}\n"));
    }
    std::fs::write(dir.join("decisions-2026-11-30.jsonl"), lines).unwrap();
    home.user_config(
        &json!({"llm": {"provider": "openai", "base_url": format!("{}/v1", server.url), "model": "m",
            "api_key_env": "JUDGE_KEY", "cache_seconds": 0}})
        .to_string(),
    );
    let out = home
        .cmd(&["replay", "--judge", "commit", "--jobs", "3", "--json"])
        .env("JUDGE_KEY", "k")
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(server.requests().len(), 12);
    let most = most.load(Ordering::SeqCst);
    assert!(
        (2..=3).contains(&most),
        "{most} calls at once with --jobs 3"
    );
    let changes: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(changes.len(), 12);
    assert!(
        changes.iter().all(|c| c["before"] == "trigger/unjudged"
            && c["after"] == "trigger/violation (would block)")
    );
    // In log order, whatever order the workers finished in.
    let sessions: Vec<&str> = changes
        .iter()
        .map(|c| c["session"].as_str().unwrap())
        .collect();
    assert_eq!(
        sessions,
        (0..12).map(|i| format!("s{i}")).collect::<Vec<_>>()
    );
    assert!(
        out.stderr.contains("3 at a time") && out.stderr.contains("replay: 12/12 responses judged"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.lines().count() >= 4,
        "progress as it goes:\n{}",
        out.stderr
    );
}
