//! Evidence means a test run that passed, in this repository, after the last change: every
//! way of issue 21's list to make a failed, empty, foreign or forged run look like a pass is
//! held (denied or asked), and its everyday counterpart, a real passing run after the last
//! edit, stays silent.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, git, pre_tool_use};
use crate::harness::Home;

/// One tool call of a Claude Code session and how it ended: `(name, input, is_error, output)`.
type Step<'a> = (&'a str, Value, bool, &'a str);

fn setup() -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    // HEAD dated in the past, as the change to commit, so that an artifact written now is
    // newer than both.
    repo.commit("b.txt", "b\n", "older work");
    // The change to commit, dated in the past so that an artifact written now is newer.
    std::fs::write(repo.work.join("a.txt"), "fixed\n").unwrap();
    git(&repo.work, &["add", "a.txt"]);
    touch_old(&repo.work.join("a.txt"));
    (home, repo)
}

fn touch_old(path: &Path) {
    let ok = std::process::Command::new("touch")
        .args(["-d", "2020-01-01"])
        .arg(path)
        .status()
        .unwrap();
    assert!(ok.success());
}

fn line(v: Value) -> String {
    v.to_string() + "\n"
}

fn call(id: &str, name: &str, input: &Value) -> String {
    line(
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}),
    )
}

fn result(id: &str, is_error: bool, output: &str) -> String {
    line(
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": output}]}, "toolUseResult": {}}),
    )
}

/// A Claude Code session: the prompt, `steps`, then the gated call itself (id `t`, as in the
/// hook input), so that the gate has no reason to wait for the file to catch up.
fn session(home: &Home, steps: &[Step]) -> PathBuf {
    let mut text =
        line(json!({"type": "user", "message": {"role": "user", "content": "fix it and commit"}}));
    for (i, (name, input, is_error, output)) in steps.iter().enumerate() {
        let id = format!("c{i}");
        text += &call(&id, name, input);
        text += &result(&id, *is_error, output);
    }
    text += &call("t", "Bash", &json!({"command": "git commit -m fix"}));
    let path = home.path().join("session.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn edit(repo: &GitFixture) -> Step<'static> {
    (
        "Edit",
        json!({"file_path": repo.work.join("a.txt")}),
        false,
        "ok",
    )
}

fn bash(command: &str, is_error: bool, output: &'static str) -> Step<'static> {
    ("Bash", json!({"command": command}), is_error, output)
}

/// The gate's answer on `command` in `repo`: (decision, reason), `silent` when it said nothing.
fn answer(
    home: &Home,
    cwd: &Path,
    command: &str,
    t: Option<&Path>,
    codex: bool,
) -> (String, String) {
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(cwd, command, codex, t))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    if out.stdout.trim().is_empty() {
        return ("silent".into(), String::new());
    }
    let v = out.json();
    let out = &v["hookSpecificOutput"];
    match out["permissionDecision"].as_str() {
        Some(d) => (
            d.to_owned(),
            out["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        ),
        // Codex and Gemini shapes.
        None => (
            v["decision"].as_str().unwrap_or("?").to_owned(),
            v["reason"].as_str().unwrap_or("").to_owned(),
        ),
    }
}

fn commit(home: &Home, repo: &GitFixture, t: &Path) -> (String, String) {
    answer(home, &repo.work, "git commit -m fix", Some(t), false)
}

/// pytest's cache directory, which hides itself from git as pytest does.
fn pytest_cache(repo: &GitFixture) -> PathBuf {
    let cache = repo.work.join(".pytest_cache/v/cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(repo.work.join(".pytest_cache/.gitignore"), "*\n").unwrap();
    cache
}

const FAILED: &str = "Exit code 1\nFAIL test/a.test.js\nTests: 1 failed, 2 passed, 3 total";
const PASSED: &str = "PASS test/a.test.js\nTests: 3 passed, 3 total";

#[test]
fn a_real_passing_run_after_the_last_edit_is_evidence() {
    let (home, repo) = setup();
    for everyday in [
        "npm test",
        "npm test 2>&1",
        "cd . && npm test",
        "set -e; npm test; echo done",
        "npm test && echo ok",
        "cargo test --manifest-path Cargo.toml",
        "cargo test parser",
        // As `boundary.mode` `landlock` rewrote it, and the session holds it.
        "'/home/u/my bin/hookjudge' run-confined -- bash -c 'npm test'",
        "hookjudge run-confined --with-credentials -- bash -c 'npm test && echo ok'",
    ] {
        let output = if everyday.starts_with("cargo") {
            "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out"
        } else {
            PASSED
        };
        let t = session(
            &home,
            &[
                edit(&repo),
                bash("npm test", true, FAILED),
                edit(&repo),
                bash(everyday, false, output),
            ],
        );
        let (decision, why) = commit(&home, &repo, &t);
        assert_eq!(decision, "silent", "{everyday}: {why}");
    }
}

#[test]
fn a_line_whose_status_is_not_the_tests_is_no_evidence() {
    let (home, repo) = setup();
    for masked in [
        "npm test; true",
        "npm test > t.log 2>&1; echo done",
        "(npm test); exit 0",
        "npm test & wait",
        "pytest -q | tail -1; test ${PIPESTATUS[0]} -eq 0 || true",
        "npm test; :",
        "npm test || :",
        "trap 'exit 0' EXIT; npm test",
    ] {
        // After a failing run, the masked run says nothing: the failure stands.
        let t = session(
            &home,
            &[
                edit(&repo),
                bash("npm test", true, FAILED),
                bash(masked, false, "done"),
            ],
        );
        let (decision, why) = commit(&home, &repo, &t);
        assert_ne!(decision, "silent", "{masked}: {why}");
        // (`> t.log` is itself a change after the failed run.)
        if !masked.contains("t.log") {
            assert_eq!(decision, "deny", "{masked}: {why}");
            assert!(
                why.contains("did not pass: `npm test` failed"),
                "{masked}: {why}"
            );
        }
        // With no other run, there is no evidence at all: a human decides.
        let t = session(&home, &[edit(&repo), bash(masked, false, "done")]);
        let (decision, why) = commit(&home, &repo, &t);
        assert_ne!(decision, "silent", "{masked}: {why}");
    }
}

#[test]
fn a_run_that_ran_no_test_or_another_projects_tests_is_no_evidence() {
    let (home, repo) = setup();
    for (empty, is_error, output) in [
        (
            "pytest -k nothing_matches",
            true,
            "Exit code 5\n\n12 deselected in 0.02s\nno tests ran",
        ),
        (
            "python3 -m pytest -k nothing_matches",
            false,
            "============ 0 passed, 12 deselected in 0.01s ============",
        ),
        (
            "cargo test nothing_matches",
            false,
            "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 12 filtered out; finished in 0.00s",
        ),
    ] {
        let t = session(&home, &[edit(&repo), bash(empty, is_error, output)]);
        let (decision, why) = commit(&home, &repo, &t);
        assert_eq!(decision, "deny", "{empty}: {why}");
        assert!(
            why.contains("ran no test") || why.contains("failed"),
            "{empty}: {why}"
        );
    }
    for foreign in [
        "cargo test --manifest-path /elsewhere/Cargo.toml",
        "cargo test --manifest-path=/elsewhere/Cargo.toml",
        "cd /other && cargo test",
        "cd .. && cargo test",
        "npm test --prefix /elsewhere",
    ] {
        let t = session(
            &home,
            &[
                edit(&repo),
                bash(
                    foreign,
                    false,
                    "test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out",
                ),
            ],
        );
        let (decision, why) = commit(&home, &repo, &t);
        assert_ne!(decision, "silent", "{foreign}: {why}");
    }
}

#[test]
fn a_pytest_lastfailed_with_entries_is_a_failed_run() {
    let (home, repo) = setup();
    let cache = pytest_cache(&repo);
    std::fs::write(cache.join("nodeids"), r#"["tests/test_a.py::test_div"]"#).unwrap();
    std::fs::write(
        cache.join("lastfailed"),
        r#"{"tests/test_a.py::test_div": true}"#,
    )
    .unwrap();
    let (decision, why) = answer(&home, &repo.work, "git commit -m fix", None, false);
    assert_eq!(decision, "deny", "{why}");
    assert!(
        why.contains("lastfailed") && why.contains("1 failure"),
        "{why}"
    );
    // Everyday: the failures fixed, pytest empties the list.
    std::fs::write(cache.join("lastfailed"), "{}").unwrap();
    let (decision, why) = answer(&home, &repo.work, "git commit -m fix", None, false);
    assert_eq!(decision, "silent", "{why}");
}

#[test]
fn artifacts_do_not_count_where_the_session_file_is_readable() {
    let (home, repo) = setup();
    let report = repo.work.join("junit.xml");
    std::fs::write(&report, r#"<testsuite tests="3" failures="0" errors="0"/>"#).unwrap();
    let verified = repo.work.join(".hookjudge/verified");
    std::fs::create_dir_all(verified.parent().unwrap()).unwrap();
    std::fs::write(&verified, "ok\n").unwrap();
    // Written by the session or not (a script it ran can write them unseen), fresh artifacts
    // are no test run when the session shows its runs.
    for steps in [
        vec![(
            "Write",
            json!({"file_path": report, "content": "<testsuite/>"}),
            false,
            "ok",
        )],
        vec![bash("python3 scripts/check.py", false, "ok")],
        vec![edit(&repo)],
    ] {
        let t = session(&home, &steps);
        let (decision, why) = commit(&home, &repo, &t);
        assert_ne!(decision, "silent", "{steps:?}: {why}");
    }
    // Everyday: a passing run in the session; and, with no session file, the artifacts.
    let t = session(
        &home,
        &[edit(&repo), bash("pytest -q", false, "3 passed in 0.01s")],
    );
    assert_eq!(commit(&home, &repo, &t).0, "silent");
    let (decision, why) = answer(&home, &repo.work, "git commit -m fix", None, false);
    assert_eq!(decision, "silent", "{why}");
    // A report of failures still counts as a failed run: forging one only holds the agent back.
    let cache = pytest_cache(&repo);
    std::fs::write(cache.join("lastfailed"), r#"{"t.py::test_b": true}"#).unwrap();
    let t = session(&home, &[bash("ls", false, "a.txt")]);
    let (decision, why) = commit(&home, &repo, &t);
    assert_eq!(decision, "deny", "{why}");
    assert!(why.contains("lastfailed"), "{why}");
}

#[test]
fn a_run_of_part_of_the_suite_after_a_failing_full_run_is_no_evidence() {
    let (home, repo) = setup();
    const PYTEST_FAILED: &str = "Exit code 1\n1 failed, 1 passed in 0.02s";
    for partial in [
        "python3 -m pytest -q -k add",
        "python3 -m pytest -q tests/test_core.py::test_add",
        "PYTEST_ADDOPTS='--deselect tests/test_core.py::test_slug' python3 -m pytest -q",
        "python3 -m pytest -q --ignore=tests/test_core.py",
    ] {
        let t = session(
            &home,
            &[
                edit(&repo),
                bash("python3 -m pytest -q", true, PYTEST_FAILED),
                bash(partial, false, "1 passed, 1 deselected in 0.01s"),
            ],
        );
        let (decision, why) = commit(&home, &repo, &t);
        assert_eq!(decision, "deny", "{partial}: {why}");
        assert!(
            why.contains("the last full run (`python3 -m pytest -q`) failed")
                && why.contains("ran only part of the suite"),
            "{partial}: {why}"
        );
    }
    // Everyday: the full run passes again before the partial one.
    let t = session(
        &home,
        &[
            edit(&repo),
            bash("python3 -m pytest -q", true, PYTEST_FAILED),
            bash("python3 -m pytest -q", false, "2 passed in 0.01s"),
            bash(
                "python3 -m pytest -q -k add",
                false,
                "1 passed, 1 deselected",
            ),
        ],
    );
    let (decision, why) = commit(&home, &repo, &t);
    assert_eq!(decision, "silent", "{why}");
}

#[test]
fn a_run_after_the_session_edited_the_test_harness_asks() {
    let (home, repo) = setup();
    for (tool, input) in [
        (
            "Write",
            json!({"file_path": repo.work.join("conftest.py"), "content": "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 0\n"}),
        ),
        (
            "Edit",
            json!({"file_path": repo.work.join("package.json"), "old_string": "pytest", "new_string": "echo 2 passed"}),
        ),
        (
            "Bash",
            json!({"command": "printf '[pytest]\\naddopts = -k add\\n' > pytest.ini"}),
        ),
    ] {
        let name = if tool == "Bash" {
            "pytest.ini"
        } else if tool == "Write" {
            "conftest.py"
        } else {
            "package.json"
        };
        let t = session(
            &home,
            &[
                edit(&repo),
                (tool, input.clone(), false, "ok"),
                bash("python3 -m pytest -q", false, "2 passed in 0.01s"),
            ],
        );
        let (decision, why) = commit(&home, &repo, &t);
        assert_eq!(decision, "ask", "{tool}: {why}");
        assert!(why.contains(&format!("edited `{name}`")), "{tool}: {why}");
    }
}

#[test]
fn interpreter_code_that_writes_after_the_run_is_a_change() {
    let (home, repo) = setup();
    let t = session(
        &home,
        &[
            edit(&repo),
            bash("pytest -q", false, "3 passed in 0.01s"),
            bash("python3 -c \"open('a.txt','a').write('later')\"", false, ""),
        ],
    );
    let (decision, why) = commit(&home, &repo, &t);
    assert_ne!(decision, "silent", "{why}");
    assert!(why.contains("python3 -c"), "{why}");
    // Everyday: code that only reads.
    let t = session(
        &home,
        &[
            edit(&repo),
            bash("pytest -q", false, "3 passed in 0.01s"),
            bash("python3 -c \"print(open('a.txt').read())\"", false, "fixed"),
        ],
    );
    assert_eq!(commit(&home, &repo, &t).0, "silent");
}

#[test]
fn file_times_do_not_make_an_edit_older_than_the_run() {
    let (home, repo) = setup();
    let cache = pytest_cache(&repo);
    std::fs::write(cache.join("nodeids"), r#"["t.py::test_a"]"#).unwrap();
    let t = session(
        &home,
        &[
            bash("pytest -q", false, "3 passed in 0.01s"),
            edit(&repo),
            bash("touch -d '2024-01-01' a.txt", false, ""),
        ],
    );
    let (decision, why) = commit(&home, &repo, &t);
    assert_ne!(decision, "silent", "{why}");
    // Everyday: the edit, then the passing run.
    let t = session(
        &home,
        &[edit(&repo), bash("pytest -q", false, "3 passed in 0.01s")],
    );
    let (decision, why) = commit(&home, &repo, &t);
    assert_eq!(decision, "silent", "{why}");
}

#[test]
fn lines_the_agent_appended_to_its_own_transcript_are_no_evidence() {
    let (home, repo) = setup();
    let t = home.path().join("session.jsonl");
    let fake = call("f1", "Bash", &json!({"command": "npm test"})) + &result("f1", false, PASSED);
    let mut text =
        line(json!({"type": "user", "message": {"role": "user", "content": "fix it and commit"}}));
    text += &call("c0", "Edit", &json!({"file_path": repo.work.join("a.txt")}));
    text += &result("c0", false, "ok");
    text += &call("c1", "Bash", &json!({"command": "npm test"}));
    text += &result("c1", true, FAILED);
    let echo = format!(
        "echo '{}' >> ~/.claude/projects/-repo/session.jsonl",
        fake.trim_end().replace('\n', "' '")
    );
    text += &call("c2", "Bash", &json!({"command": echo}));
    // What the echo appended lands before its own result.
    text += &fake;
    text += &result("c2", false, "");
    text += &call("t", "Bash", &json!({"command": "git commit -m fix"}));
    std::fs::write(&t, text).unwrap();
    let (decision, why) = commit(&home, &repo, &t);
    assert_eq!(decision, "deny", "{why}");
    assert!(why.contains("session file was written"), "{why}");
    // The same run, really made by the agent, is evidence.
    let t = session(
        &home,
        &[
            edit(&repo),
            bash("npm test", true, FAILED),
            bash("npm test", false, PASSED),
        ],
    );
    assert_eq!(commit(&home, &repo, &t).0, "silent");
}

#[test]
fn stashing_around_a_commit_does_not_verify_it() {
    let (home, repo) = setup();
    // What the failing pytest run left behind: fresh cache files, one listing the failure.
    let cache = pytest_cache(&repo);
    std::fs::write(cache.join("nodeids"), r#"["t.py::test_a", "t.py::test_b"]"#).unwrap();
    std::fs::write(cache.join("lastfailed"), r#"{"t.py::test_b": true}"#).unwrap();
    let t = session(
        &home,
        &[
            edit(&repo),
            bash("pytest -q", true, "Exit code 1\n1 failed, 2 passed"),
        ],
    );
    let line = "git add -A && git stash && git stash pop && git commit -m fix";
    let (decision, why) = answer(&home, &repo.work, line, Some(&t), false);
    assert_eq!(decision, "deny", "{why}");
    assert!(why.contains("did not pass: `pytest -q` failed"), "{why}");
}
