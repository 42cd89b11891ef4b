//! The gate in real git repositories with a real bare remote: pushes with and without fresh
//! evidence, nothing to push, force pushes over the remote's new commits, destructive commands
//! with and without something to lose, a rebase that drops commits, `cd other && git push`,
//! and the judge failing.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{Home, command_llm_config};

/// A work repository cloned from a bare `origin`, with an upstream and one pushed commit.
pub struct GitFixture {
    pub root: PathBuf,
    pub work: PathBuf,
    pub origin: PathBuf,
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl GitFixture {
    pub fn new(root: &Path, name: &str) -> GitFixture {
        let origin = root.join(format!("{name}-origin.git"));
        let work = root.join(name);
        git(
            root,
            &[
                "init",
                "-q",
                "--bare",
                "-b",
                "main",
                origin.to_str().unwrap(),
            ],
        );
        git(root, &["init", "-q", "-b", "main", work.to_str().unwrap()]);
        git(
            &work,
            &["remote", "add", "origin", origin.to_str().unwrap()],
        );
        std::fs::write(work.join("a.txt"), "one\n").unwrap();
        git(&work, &["add", "."]);
        git(
            &work,
            &["commit", "-qm", "initial", "--date", "2020-01-01T00:00:00Z"],
        );
        git(&work, &["push", "-q", "-u", "origin", "main"]);
        GitFixture {
            root: root.to_path_buf(),
            work,
            origin,
        }
    }

    /// Commits a change dated in the past (so a fresh artifact is unambiguously newer).
    pub fn commit(&self, file: &str, content: &str, subject: &str) {
        std::fs::write(self.work.join(file), content).unwrap();
        git(&self.work, &["add", "."]);
        let out = Command::new("git")
            .args(["commit", "-qm", subject])
            .current_dir(&self.work)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_DATE", "2021-01-01T00:00:00Z")
            .env("GIT_AUTHOR_DATE", "2021-01-01T00:00:00Z")
            .output()
            .unwrap();
        assert!(out.status.success());
    }

    pub fn origin_head(&self) -> String {
        git(&self.origin, &["rev-parse", "main"]).trim().to_owned()
    }
}

pub fn pre_tool_use(cwd: &Path, command: &str, codex: bool, transcript: Option<&Path>) -> String {
    let mut v = json!({"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse", "permission_mode": "default",
        "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t"});
    if codex {
        v["turn_id"] = json!("turn-1");
    }
    if let Some(t) = transcript {
        v["transcript_path"] = json!(t);
    }
    v.to_string()
}

fn gate(home: &Home, cwd: &Path, command: &str) -> Option<Value> {
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(cwd, command, false, None))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    (!out.stdout.trim().is_empty()).then(|| out.json())
}

/// The reason of a deny or ask (empty when the gate was silent).
fn reason(v: &Option<Value>) -> String {
    v.as_ref()
        .and_then(|v| v["hookSpecificOutput"]["permissionDecisionReason"].as_str())
        .unwrap_or("")
        .to_owned()
}

fn decision(v: &Option<Value>) -> &str {
    v.as_ref()
        .map(|v| {
            v["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .unwrap()
        })
        .unwrap_or("silent")
}

fn setup() -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let fixture = GitFixture::new(home.path(), "repo");
    (home, fixture)
}

#[test]
fn push_with_nothing_ahead_is_silent() {
    let (home, repo) = setup();
    assert_eq!(decision(&gate(&home, &repo.work, "git push")), "silent");
    assert_eq!(home.last_log()["rulings"][0]["decided_by"], "facts");
}

#[test]
fn push_without_evidence_asks_and_with_fresh_evidence_passes() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let v = gate(&home, &repo.work, "git push origin main");
    assert_eq!(decision(&v), "ask");
    let why = reason(&v);
    assert!(
        why.contains("would publish 1 commit to `origin/main`") && why.contains("change a"),
        "{why}"
    );
    // Test results written after the change: silent.
    std::fs::create_dir_all(repo.work.join("target/nextest/ci")).unwrap();
    std::fs::write(
        repo.work.join("target/nextest/ci/junit.xml"),
        "<testsuites/>",
    )
    .unwrap();
    assert_eq!(
        decision(&gate(&home, &repo.work, "git push origin main")),
        "silent"
    );
    assert_eq!(
        home.last_log()["rulings"][0]["evidence"]["kind"],
        "fresh_artifact"
    );
}

#[test]
fn a_stale_artifact_is_denied() {
    let (home, repo) = setup();
    std::fs::create_dir_all(repo.work.join(".pytest_cache/v/cache")).unwrap();
    std::fs::write(repo.work.join(".pytest_cache/v/cache/nodeids"), "[]").unwrap();
    // Backdate the artifact below the (2021) commit.
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_500_000_000);
    std::fs::File::options()
        .write(true)
        .open(repo.work.join(".pytest_cache/v/cache/nodeids"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    repo.commit("a.txt", "two\n", "change a");
    let v = gate(&home, &repo.work, "git push");
    assert_eq!(decision(&v), "deny");
    let why = reason(&v);
    assert!(
        why.contains("older than the last change") && why.contains("nodeids"),
        "{why}"
    );
}

#[test]
fn force_push_over_the_remotes_new_commit_is_denied() {
    let (home, repo) = setup();
    let other = repo.root.join("other-clone");
    git(
        &repo.root,
        &[
            "clone",
            "-q",
            repo.origin.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    std::fs::write(other.join("b.txt"), "theirs\n").unwrap();
    git(&other, &["add", "."]);
    git(&other, &["commit", "-qm", "their work"]);
    git(&other, &["push", "-q", "origin", "main"]);
    git(&repo.work, &["fetch", "-q", "origin"]);
    repo.commit("a.txt", "mine\n", "my work");
    let before = repo.origin_head();
    home.user_config(r#"{"llm": {"provider": "none"}, "gate": {"protected_branches": []}}"#);
    let v = gate(&home, &repo.work, "git push --force origin main");
    assert_eq!(decision(&v), "deny");
    let why = reason(&v);
    assert!(
        why.contains("would discard 1 commit") && why.contains("their work"),
        "{why}"
    );
    assert_eq!(
        repo.origin_head(),
        before,
        "the gate itself changes nothing"
    );
    // With the default protected branches, main is protected outright.
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let v = gate(&home, &repo.work, "git push -f");
    assert!(reason(&v).contains("protected branch `main`"));
}

#[test]
fn reset_hard_and_clean_are_judged_by_what_they_would_lose() {
    let (home, repo) = setup();
    assert_eq!(
        decision(&gate(&home, &repo.work, "git reset --hard")),
        "silent"
    );
    assert_eq!(
        decision(&gate(&home, &repo.work, "git clean -fd")),
        "silent"
    );
    std::fs::write(repo.work.join("a.txt"), "edited\n").unwrap();
    let v = gate(&home, &repo.work, "git reset --hard HEAD");
    assert_eq!(decision(&v), "deny");
    assert!(reason(&v).contains("a.txt"));
    assert_eq!(
        decision(&gate(&home, &repo.work, "git clean -fd")),
        "silent",
        "no untracked files yet"
    );
    std::fs::write(repo.work.join("scratch.txt"), "notes\n").unwrap();
    let v = gate(&home, &repo.work, "git clean -fd");
    assert_eq!(decision(&v), "deny");
    assert!(reason(&v).contains("scratch.txt"));
    assert_eq!(
        decision(&gate(&home, &repo.work, "git checkout -- a.txt")),
        "deny"
    );
    assert_eq!(
        decision(&gate(&home, &repo.work, "git checkout -- other.txt")),
        "silent"
    );
}

#[test]
fn a_rebase_that_drops_unpushed_commits_is_denied_and_one_that_replays_them_is_silent() {
    let (home, repo) = setup();
    git(&repo.work, &["checkout", "-q", "-b", "feature"]);
    repo.commit("f1.txt", "1\n", "first feature commit");
    repo.commit("f2.txt", "2\n", "second feature commit");
    repo.commit("f3.txt", "3\n", "third feature commit");
    // HEAD~2 is the first feature commit: the last two are replayed on main, it is dropped.
    let v = gate(&home, &repo.work, "git rebase --onto main HEAD~2");
    assert_eq!(decision(&v), "deny", "{}", reason(&v));
    assert!(
        reason(&v).contains("first feature commit"),
        "{}",
        reason(&v)
    );
    assert!(
        !reason(&v).contains("second feature commit"),
        "{}",
        reason(&v)
    );
    for replays_all in [
        "git rebase main",
        "git rebase --onto main HEAD~3",
        "git rebase -i --onto main main feature",
    ] {
        let v = gate(&home, &repo.work, replays_all);
        assert_eq!(decision(&v), "silent", "{replays_all}: {}", reason(&v));
    }
    let scripted = "GIT_SEQUENCE_EDITOR=\"sed -i '1s/^pick/drop/'\" git rebase -i HEAD~3";
    assert_eq!(decision(&gate(&home, &repo.work, scripted)), "ask");
    // Once the remote has the branch, dropping a commit from it loses nothing.
    git(&repo.work, &["push", "-q", "origin", "feature"]);
    let v = gate(&home, &repo.work, "git rebase --onto main HEAD~2");
    assert_eq!(decision(&v), "silent", "{}", reason(&v));
}

#[test]
fn cd_other_and_push_is_judged_on_the_other_repository() {
    let (home, quiet) = setup();
    let busy = GitFixture::new(home.path(), "busy");
    busy.commit("a.txt", "two\n", "busy change");
    // From the quiet repository, the push targets the busy one.
    let v = gate(&home, &quiet.work, "cd ../busy && git push");
    assert_eq!(decision(&v), "ask");
    assert_eq!(
        home.last_log()["rulings"][0]["repo"],
        busy.work.to_str().unwrap()
    );
    assert_eq!(
        decision(&gate(&home, &busy.work, "cd ../repo && git push")),
        "silent",
        "nothing to push in the quiet repository"
    );
    assert_eq!(
        decision(&gate(&home, &quiet.work, "git -C ../busy push")),
        "ask"
    );
    assert_eq!(
        decision(&gate(
            &home,
            &quiet.work,
            "bash -c 'cd ../busy && git push'"
        )),
        "ask"
    );
}

fn transcript_with(home: &Home, lines: &[Value]) -> PathBuf {
    let path = home.path().join("session.jsonl");
    std::fs::write(
        &path,
        lines
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )
    .unwrap();
    path
}

fn tool(id: &str, name: &str, input: Value, ok: bool) -> [Value; 2] {
    [
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": id, "is_error": !ok, "content": "…"}]}, "toolUseResult": {}}),
    ]
}

#[test]
fn a_test_run_after_the_last_edit_in_the_transcript_passes() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let mut lines =
        vec![json!({"type": "user", "message": {"role": "user", "content": "fix it and push"}})];
    lines.extend(tool("1", "Edit", json!({"file_path": "a.txt"}), true));
    lines.extend(tool("2", "Bash", json!({"command": "cargo test"}), true));
    let t = transcript_with(&home, &lines);
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(&repo.work, "git push", false, Some(&t)))
        .output();
    out.assert_silent_allow();
    assert_eq!(
        home.last_log()["rulings"][0]["evidence"]["kind"],
        "test_run_after_change"
    );
}

#[test]
fn the_judge_decides_when_evidence_is_inconclusive_and_its_failure_asks_a_human() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let mut lines =
        vec![json!({"type": "user", "message": {"role": "user", "content": "ship it"}})];
    lines.push(json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "I ran the smoke script; all 12 checks passed."}]}}));
    let t = transcript_with(&home, &lines);
    let run = |codex: bool| {
        home.cmd(&["gate"])
            .stdin(pre_tool_use(&repo.work, "git push", codex, Some(&t)))
            .output()
    };

    home.user_config(&command_llm_config(
        r#"{"verified_after_last_change": true, "last_check_failed": false, "no_code_changed": false}"#,
    ));
    run(false).assert_silent_allow();
    assert_eq!(home.last_log()["rulings"][0]["decided_by"], "judge");

    // The gate applies its judge's `block_when`: a failed last check denies despite the rest.
    home.user_config(&command_llm_config(
        r#"{"verified_after_last_change": true, "last_check_failed": true, "no_code_changed": false}"#,
    ));
    assert_eq!(
        run(false).json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );

    home.user_config(&command_llm_config(
        r#"{"verified_after_last_change": false, "reason": "no test output"}"#,
    ));
    let v = run(false).json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("no test output")
    );

    home.user_config(
        &json!({"llm": {"provider": "command", "command": ["sh", "-c", "exit 3"]}}).to_string(),
    );
    let claude = run(false).json();
    assert_eq!(claude["hookSpecificOutput"]["permissionDecision"], "ask");
    assert_eq!(home.last_log()["rulings"][0]["decided_by"], "judge-failed");
    let codex = run(true).json();
    assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "deny");
    let told = codex["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(told.contains("Stop here and ask the user"), "{told}");
    assert!(
        !told.contains("HOOKJUDGE_APPROVED") && !told.contains("hookjudge approve"),
        "the agent is never told how to approve: {told}"
    );
    let gemini = home
        .cmd(&["gate"])
        .stdin(json!({"session_id": "g", "cwd": repo.work, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "git push"}}).to_string())
        .output()
        .json();
    // Gemini CLI's `ask` hangs headless runs: a deny that tells the agent to ask the user.
    assert_eq!(gemini["decision"], "deny");
    assert!(
        gemini["reason"]
            .as_str()
            .unwrap()
            .contains("ask the user whether to run it"),
        "{gemini}"
    );
}

#[test]
fn non_shell_tools_and_plain_commands_cost_nothing() {
    let (home, repo) = setup();
    let edit = json!({"session_id": "s", "cwd": repo.work, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {"file_path": "a.txt"}});
    home.cmd(&["gate"])
        .stdin(edit.to_string())
        .output()
        .assert_silent_allow();
    home.cmd(&["gate"])
        .stdin(pre_tool_use(&repo.work, "ls -la && cat a.txt", false, None))
        .output()
        .assert_silent_allow();
    assert!(home.log().is_empty(), "nothing gated, nothing logged");
}

#[test]
fn the_gate_fails_safe() {
    let home = Home::new();
    let out = home
        .cmd(&["gate"])
        .env("HOOKJUDGE_DEBUG_PANIC", "gate")
        .stdin(pre_tool_use(&home.work(), "git push", false, None))
        .output();
    assert_eq!(
        out.json()["hookSpecificOutput"]["permissionDecision"],
        "ask"
    );
    let out = home
        .cmd(&["gate"])
        .env("HOOKJUDGE_DEBUG_PANIC", "gate")
        .stdin(pre_tool_use(&home.work(), "ls", false, None))
        .output();
    out.assert_silent_allow();
    let out = home
        .cmd(&["gate", "--bogus"])
        .stdin(pre_tool_use(&home.work(), "git push", false, None))
        .output();
    assert_eq!(
        (
            out.code,
            out.json()["hookSpecificOutput"]["permissionDecision"].as_str()
        ),
        (0, Some("ask"))
    );
    home.user_config(r#"{"gate": {"push": "sometimes"}}"#);
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(&home.work(), "git push", false, None))
        .output();
    assert_eq!(
        out.json()["hookSpecificOutput"]["permissionDecision"],
        "ask",
        "a broken config means a human decides"
    );
}

#[test]
fn user_deploy_commands_are_gated_and_others_stay_quiet() {
    let (home, repo) = setup();
    assert_eq!(
        decision(&gate(&home, &repo.work, "./scripts/ship.sh prod")),
        "silent"
    );
    home.user_config(
        r#"{"llm": {"provider": "none"}, "gate": {"deploy_commands": ["./scripts/ship.sh"]}}"#,
    );
    let v = gate(&home, &repo.work, "./scripts/ship.sh prod");
    assert_eq!(decision(&v), "ask");
    assert!(
        reason(&v).contains("configured deploy command"),
        "{}",
        reason(&v)
    );
    assert_eq!(decision(&gate(&home, &repo.work, "ls -la")), "silent");
}

#[test]
fn the_gate_has_its_own_judge_independent_of_the_stop_commit_judge() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let lines = vec![
        json!({"type": "user", "message": {"role": "user", "content": "ship it"}}),
        json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "I ran the smoke script; all 12 checks passed."}]}}),
    ];
    let t = transcript_with(&home, &lines);
    let run = || {
        home.cmd(&["gate"])
            .stdin(pre_tool_use(&repo.work, "git push", false, Some(&t)))
            .output()
    };
    let seen = home.path().join("prompt.txt");
    let answering = |answer: &str, judges: Value| {
        json!({
            "llm": {"provider": "command", "command": ["sh", "-c", format!("cat > {}; echo '{answer}'", seen.display())]},
            "judges": judges,
        })
        .to_string()
    };

    // Disabling the Stop hook's `commit` judge leaves the gate's judge running, with its own
    // prompt about session activity.
    home.user_config(&answering(
        r#"{"verified_after_last_change": true}"#,
        json!({"commit": {"enabled": false}}),
    ));
    run().assert_silent_allow();
    assert_eq!(home.last_log()["rulings"][0]["decided_by"], "judge");
    let prompt = std::fs::read_to_string(&seen).unwrap();
    assert!(
        prompt.contains("recent activity") && prompt.contains("\"verified_after_last_change\""),
        "{prompt}"
    );
    assert!(!prompt.contains("\"new_proposal\""), "{prompt}");

    // Its block rule is configurable like any judge's.
    home.user_config(&answering(
        r#"{"verified_after_last_change": true, "no_code_changed": false}"#,
        json!({"gate-verification": {"block_when": {"not": "no_code_changed"}}}),
    ));
    assert_eq!(
        run().json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );

    // A broken definition is a judge failure: a human decides, and the log says why.
    std::fs::remove_file(&seen).unwrap();
    home.user_config(&answering(
        r#"{"verified_after_last_change": true}"#,
        json!({"gate-verification": {"block_when": {"not": "verification_reportd"}}}),
    ));
    let v = run().json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reason.contains("`verification_reportd`"), "{reason}");
    let log = home.last_log();
    assert_eq!(log["rulings"][0]["decided_by"], "judge-failed");
    assert!(
        log["rulings"][0]["facts"]["judge_failure"]
            .as_str()
            .unwrap()
            .contains("gate-verification"),
        "{log}"
    );
    assert!(!seen.exists(), "a broken judge is not asked");

    // Disabled on purpose: a human decides, as without an LLM.
    home.user_config(&answering(
        r#"{"verified_after_last_change": true}"#,
        json!({"gate-verification": {"enabled": false}}),
    ));
    assert_eq!(
        run().json()["hookSpecificOutput"]["permissionDecision"],
        "ask"
    );
}

#[test]
fn git_autocorrect_and_npm_abbreviations_do_not_walk_around_the_gate() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    // With `help.autocorrect` set, git runs the command an unknown one resembles (`pus` is
    // `push`), so an unknown verb asks; without it, git refuses the typo and so does nothing.
    for line in [
        "git -c help.autocorrect=immediate pus origin main",
        "git config help.autocorrect 1 && git pus",
    ] {
        let v = gate(&home, &repo.work, line);
        assert_eq!(decision(&v), "ask", "{line}");
        assert!(
            reason(&v).contains("help.autocorrect"),
            "{line}: {}",
            reason(&v)
        );
    }
    git(&repo.work, &["config", "help.autocorrect", "prompt"]);
    assert_eq!(decision(&gate(&home, &repo.work, "git pus")), "ask");
    git(&repo.work, &["config", "help.autocorrect", "0"]);
    assert_eq!(decision(&gate(&home, &repo.work, "git pus")), "silent");
    // npm runs any unique prefix of a command, and `run-script` has three more names.
    for line in [
        "npm pub",
        "npm publ --tag next",
        "npm unp my-pkg@1.0.0",
        "npm run-script deploy",
        "npm rum publish:prod",
    ] {
        assert_eq!(decision(&gate(&home, &repo.work, line)), "ask", "{line}");
    }
    for line in ["npm install", "npm run-script build", "npm run lint"] {
        assert_eq!(decision(&gate(&home, &repo.work, line)), "silent", "{line}");
    }
}

#[test]
fn an_alias_defined_through_another_alias_is_gated_as_the_typed_out_one() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let typed_out = gate(
        &home,
        &repo.work,
        "git config alias.p push && git p origin main",
    );
    assert_eq!(decision(&typed_out), "ask");
    // `git c alias.p push` runs `git config alias.p push`: `git p` pushes just the same.
    let through_alias = gate(
        &home,
        &repo.work,
        "git config alias.c config && git c alias.p push && git p origin main",
    );
    assert_eq!(decision(&through_alias), decision(&typed_out));
    let why = reason(&through_alias);
    assert!(
        why.contains("would publish 1 commit to `origin/main`") && why.contains("change a"),
        "{why}"
    );
}
