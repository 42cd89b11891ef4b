//! The gate for Gemini CLI (`BeforeTool` on `run_shell_command`), in a real repository with a
//! real bare remote, reading a session file the real Gemini CLI 0.61.0 wrote: a passing test
//! run after the last edit lets a push through, a failed or missing one does not, the judge
//! reads the session, and a human fallback is a deny that tells the agent to ask the user
//! (Gemini's `"decision":"ask"` hangs headless runs).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::GitFixture;
use crate::harness::{FakeLlm, Home, Reply};

/// The real session as it stood when the hook for the final `git push` ran: prompt,
/// `write_file`, `make test` (passed), `replace`, `make test; exit 2` (failed), `make test`
/// (passed).
const SESSION: &str = include_str!("../../fixtures/gemini-0.61-session-at-push.jsonl");

/// The session cut just before the first line containing `marker` (or whole).
fn session(home: &Home, marker: Option<&str>) -> PathBuf {
    let end = marker.map_or(SESSION.len(), |m| {
        let at = SESSION.find(m).expect("marker in the fixture");
        SESSION[..at].rfind('\n').map_or(0, |n| n + 1)
    });
    let path = home
        .path()
        .join(".gemini/tmp/repo/chats/session-2026-12-01T09-30-5be657d3.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &SESSION[..end]).unwrap();
    path
}

/// Before the last (passing) `make test`: the failed run is the latest.
const BEFORE_LAST_RUN: &str = r#""id":"run_shell_command__run_shell_command_1796117456948_0"#;
/// Right after the `replace` edit: no test ran since.
const AFTER_EDIT: &str = r#""command":"make test; exit 2""#;

fn before_tool(cwd: &Path, command: &str, transcript: &Path) -> String {
    json!({"session_id": "5be657d3-b3f5-40d8-81fe-118a32709d55", "transcript_path": transcript, "cwd": cwd,
        "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T09:30:57.315Z",
        "tool_name": "run_shell_command", "tool_input": {"command": command, "description": "run"}})
    .to_string()
}

fn setup(config: &str) -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(config);
    let repo = GitFixture::new(home.path(), "repo");
    // The pushed commit holds the file the session edits.
    repo.commit("loader.py", "two\n", "change a");
    (home, repo)
}

fn gate(home: &Home, repo: &GitFixture, transcript: &Path) -> Option<Value> {
    let out = home
        .cmd(&["gate", "--agent", "gemini"])
        .env("JUDGE_KEY", "k")
        .stdin(before_tool(&repo.work, "git push origin main", transcript))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    (!out.stdout.trim().is_empty()).then(|| out.json())
}

#[test]
fn a_passing_test_run_after_the_last_edit_lets_the_push_through() {
    let (home, repo) = setup(r#"{"llm": {"provider": "none"}}"#);
    let transcript = session(&home, None);
    assert_eq!(
        gate(&home, &repo, &transcript),
        None,
        "silent: no output at all"
    );
    let log = home.last_log();
    assert_eq!(log["agent"], "gemini");
    assert_eq!(log["event"], "BeforeTool");
    assert_eq!(log["action"], "silent");
    assert_eq!(
        log["rulings"][0]["evidence"],
        json!({"kind": "test_run_after_change", "command": "make test"})
    );
}

#[test]
fn a_failed_run_after_the_last_edit_is_denied_at_once() {
    let (home, repo) = setup(r#"{"llm": {"provider": "none"}}"#);
    let transcript = session(&home, Some(BEFORE_LAST_RUN));
    let v = gate(&home, &repo, &transcript).expect("a decision");
    assert_eq!(v["decision"], "deny", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains("the last test run, after files changed (Edit), did not pass"),
        "{reason}"
    );
    assert!(reason.contains("`make test; exit 2` failed"), "{reason}");
    assert_eq!(home.last_log()["rulings"][0]["decided_by"], "evidence");
}

#[test]
fn the_judge_reads_the_session_and_a_human_fallback_tells_the_agent_to_ask() {
    let judge = FakeLlm::start(|_| {
        Reply::chat(
            r#"{"verified_after_last_change": false, "last_check_failed": false, "no_code_changed": false, "reason": "no test after the edit"}"#,
        )
    });
    let config = json!({"llm": {"provider": "openai", "base_url": format!("{}/v1", judge.url), "model": "j", "api_key_env": "JUDGE_KEY"}});
    let (home, repo) = setup(&config.to_string());
    let transcript = session(&home, Some(AFTER_EDIT));

    let v = gate(&home, &repo, &transcript).expect("a decision");
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("no test after the edit"),
        "{v}"
    );
    assert_eq!(home.last_log()["rulings"][0]["decided_by"], "judge");
    let asked = judge.requests();
    assert_eq!(asked.len(), 1);
    let sent = asked[0].body.to_string();
    for part in [
        "User: Fix the loader and push",
        "[Write : succeeded]",
        "[Bash make test: succeeded]",
        "[Edit : succeeded]",
        "(The agent now runs: git push origin main)",
    ] {
        assert!(sent.contains(part), "{part} not in {sent}");
    }

    // The judge cannot answer: a human decides, which for Gemini is a deny asking the agent to
    // stop and ask the user (never `ask`, never an explicit allow).
    home.user_config(
        &json!({"llm": {"provider": "command", "command": ["sh", "-c", "exit 3"]}}).to_string(),
    );
    let v = gate(&home, &repo, &transcript).expect("a decision");
    assert_eq!(v["decision"], "deny", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains("ask the user whether to run it"),
        "{reason}"
    );
    assert!(!reason.contains("HOOKJUDGE_APPROVED"), "{reason}");
    let log = home.last_log();
    assert_eq!(log["action"], "ask", "logged as a human decision");
    assert_eq!(log["rulings"][0]["decided_by"], "judge-failed");
}

#[test]
fn a_dir_path_is_the_repository_the_command_runs_in() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let outer = GitFixture::new(home.path(), "repo");
    let sub = GitFixture::new(&outer.work, "sub");
    sub.commit("a.txt", "two\n", "change sub");
    let run = |tool_input: Value| {
        let mut input: Value = serde_json::from_str(&before_tool(
            &outer.work,
            "git push",
            Path::new("/nonexistent"),
        ))
        .unwrap();
        input["tool_input"] = tool_input;
        let out = home
            .cmd(&["gate", "--agent", "gemini"])
            .stdin(input.to_string())
            .output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        (!out.stdout.trim().is_empty()).then(|| out.json())
    };
    // Without `dir_path` the push runs in the outer repository: nothing to publish.
    assert_eq!(run(json!({"command": "git push"})), None);
    // With it, in `sub`, whose unverified commit would be published.
    let v = run(json!({"command": "git push", "dir_path": "sub"})).expect("a decision");
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("change sub"), "{v}");
    assert_eq!(
        home.last_log()["rulings"][0]["repo"],
        json!(sub.work.to_str().unwrap())
    );
}
