//! Evidence that means something, in real repositories: a tested push is not held back by an
//! unrelated uncommitted edit, a Bash write to a pushed file after the tests is a change, a
//! failing JUnit report is a failed run, and the marker file and remote-tracking refs cannot be
//! set by the agent. Also what destructive and catastrophic commands are told, and reasons that
//! state only what is true.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, git, pre_tool_use};
use crate::harness::Home;

fn setup() -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let fixture = GitFixture::new(home.path(), "repo");
    (home, fixture)
}

fn transcript(home: &Home, calls: &[(&str, &str, Value)]) -> PathBuf {
    let mut lines =
        vec![json!({"type": "user", "message": {"role": "user", "content": "fix it and push"}})];
    for (id, name, input) in calls {
        lines.push(json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}));
        lines.push(json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": id, "is_error": false, "content": "…"}]}, "toolUseResult": {}}));
    }
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

/// (decision, reason) of the gate on `command` in `cwd`.
fn answer(home: &Home, cwd: &Path, command: &str, t: Option<&Path>) -> (String, String) {
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(cwd, command, false, t))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    if out.stdout.trim().is_empty() {
        return ("silent".into(), String::new());
    }
    let v = out.json();
    (
        v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap()
            .to_owned(),
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

#[test]
fn a_tested_push_is_not_held_back_by_an_unrelated_uncommitted_edit() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let t = transcript(
        &home,
        &[
            ("1", "Edit", json!({"file_path": repo.work.join("a.txt")})),
            ("2", "Bash", json!({"command": "cargo test"})),
            (
                "3",
                "Edit",
                json!({"file_path": repo.work.join("notes.md")}),
            ),
            ("4", "Bash", json!({"command": "echo idea >> notes.md"})),
        ],
    );
    // The notes edits after the tests are uncommitted and not part of the push.
    std::fs::write(repo.work.join("notes.md"), "draft, edited\n").unwrap();
    let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
    assert_eq!(decision, "silent", "{why}");
    // An edit of a pushed file after the commit is not in the commit either.
    let t = transcript(
        &home,
        &[
            ("1", "Bash", json!({"command": "cargo test"})),
            ("2", "Bash", json!({"command": "git commit -am 'change a'"})),
            ("3", "Edit", json!({"file_path": repo.work.join("a.txt")})),
        ],
    );
    let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
    assert_eq!(decision, "silent", "{why}");
    // A pushed file edited after the tests (no commit seen after the edit) is a change: the
    // push is not silent.
    let t = transcript(
        &home,
        &[
            ("1", "Bash", json!({"command": "cargo test"})),
            ("2", "Edit", json!({"file_path": repo.work.join("a.txt")})),
        ],
    );
    let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
    assert_eq!(decision, "ask", "{why}");
    assert!(
        why.contains("files changed (Edit) and no test run followed"),
        "{why}"
    );
}

#[test]
fn a_bash_edit_of_a_pushed_file_after_the_tests_holds_the_push() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    for write in [
        "sed -i 's/two/three/' a.txt",
        "echo three > a.txt",
        "cp /tmp/x a.txt",
    ] {
        let t = transcript(
            &home,
            &[
                ("1", "Bash", json!({"command": "cargo test"})),
                ("2", "Bash", json!({"command": write})),
            ],
        );
        let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
        assert_eq!(decision, "ask", "{write}: {why}");
        assert!(
            why.contains(&format!(
                "files changed (Bash `{write}`) and no test run followed"
            )),
            "{why}"
        );
    }
    // Faked runs are no runs: nothing shows verification, so a human decides.
    for fake in [
        "echo cargo test",
        "cargo test || true",
        "cargo test --no-run",
    ] {
        let t = transcript(&home, &[("1", "Bash", json!({"command": fake}))]);
        let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
        assert_eq!(decision, "ask", "{fake}: {why}");
    }
}

#[test]
fn a_failing_junit_report_is_a_failed_run() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    std::fs::create_dir_all(repo.work.join("target/nextest/ci")).unwrap();
    std::fs::write(
        repo.work.join("target/nextest/ci/junit.xml"),
        r#"<testsuites tests="2" failures="1" errors="0"><testsuite name="t"><testcase name="a"><failure/></testcase></testsuite></testsuites>"#,
    )
    .unwrap();
    let (decision, why) = answer(&home, &repo.work, "git push", None);
    assert_eq!(decision, "deny", "{why}");
    assert!(why.contains("report 1 failure"), "{why}");
}

#[test]
fn the_agent_cannot_fake_the_state_the_gate_reads() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    for fake in [
        "mkdir -p .hookjudge && touch .hookjudge/verified",
        "date > .hookjudge/verified",
        "git update-ref refs/remotes/origin/main HEAD",
        "git push . HEAD:refs/remotes/origin/main",
        "cp .git/refs/heads/main .git/refs/remotes/origin/main",
    ] {
        let (decision, why) = answer(&home, &repo.work, fake, None);
        assert_eq!(decision, "deny", "{fake}: {why}");
        assert!(why.starts_with("hookjudge gate [hook-bypass]:"), "{why}");
    }
    let (decision, _) = answer(&home, &repo.work, "cat .hookjudge/verified", None);
    assert_eq!(decision, "silent");
}

#[test]
fn losing_commits_or_changes_is_denied_with_what_would_be_lost() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "unpushed work");
    std::fs::write(repo.work.join("a.txt"), "dirty\n").unwrap();
    for (command, lost) in [
        ("git reset --hard HEAD~1", "unpushed work"),
        ("git reset --hard origin/main", "unpushed work"),
        ("git checkout -B main origin/main", "unpushed work"),
        ("git branch -f main HEAD~1", "unpushed work"),
        ("git update-ref -d refs/heads/main", "unpushed work"),
        ("git checkout a.txt", "a.txt"),
        ("git checkout HEAD .", "a.txt"),
        ("git switch -f main", "a.txt"),
        ("git checkout-index -f -a", "a.txt"),
        ("git read-tree -u --reset HEAD", "a.txt"),
        ("git rm -f a.txt", "a.txt"),
        ("git stash -u && git stash drop", "a.txt"),
    ] {
        let (decision, why) = answer(&home, &repo.work, command, None);
        assert_eq!(decision, "deny", "{command}: {why}");
        assert!(why.contains(lost), "{command}: {why}");
        assert!(why.starts_with("hookjudge gate [destructive]:"), "{why}");
    }
    // Switching to a branch carries local changes; a soft reset keeps everything.
    for harmless in ["git checkout -b other", "git checkout main"] {
        let (decision, why) = answer(&home, &repo.work, harmless, None);
        assert_eq!(decision, "silent", "{harmless}: {why}");
    }
}

#[test]
fn catastrophic_deletes_are_denied_by_default_and_configurable() {
    let (home, repo) = setup();
    for command in [
        "rm -rf .",
        "rm -rf .git",
        "rm -rf ~",
        "rm -rf /",
        "find . -delete",
        "cd .. && rm -rf repo",
    ] {
        let (decision, why) = answer(&home, &repo.work, command, None);
        assert_eq!(decision, "deny", "{command}: {why}");
        assert!(why.starts_with("hookjudge gate [catastrophic]:"), "{why}");
    }
    for fine in [
        "rm -rf target",
        "rm -rf build dist",
        "find . -name '*.orig' -delete",
    ] {
        assert_eq!(answer(&home, &repo.work, fine, None).0, "silent", "{fine}");
    }
    home.user_config(r#"{"llm": {"provider": "none"}, "gate": {"catastrophic": "ask"}}"#);
    assert_eq!(answer(&home, &repo.work, "rm -rf .git", None).0, "ask");
}

#[test]
fn reasons_state_only_what_is_true() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let (_, why) = answer(&home, &repo.work, "git push --mirror", None);
    assert!(!why.contains("0 commits") && !why.contains("()"), "{why}");
    assert!(why.starts_with("hookjudge gate [push]:"), "{why}");
    // The command text once, and one prefix.
    let (_, why) = answer(&home, &repo.work, "kubectl apply -f x.yaml", None);
    assert_eq!(why.matches("kubectl apply").count(), 1, "{why}");
    assert!(why.starts_with("hookjudge gate [deploy]:"), "{why}");
    // No remote at all: nothing is invented, and git refuses by itself.
    let lonely = home.path().join("lonely");
    git(
        home.path(),
        &["init", "-q", "-b", "main", lonely.to_str().unwrap()],
    );
    std::fs::write(lonely.join("f"), "x").unwrap();
    git(&lonely, &["add", "."]);
    git(&lonely, &["commit", "-qm", "only"]);
    let (decision, why) = answer(&home, &lonely, "git push", None);
    assert_eq!(decision, "silent", "{why}");
    // A failed test run is not "files changed after the last test run".
    let t = transcript(&home, &[]);
    let mut text = std::fs::read_to_string(&t).unwrap();
    text.push_str(&json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "9", "name": "Bash", "input": {"command": "cargo test"}}]}}).to_string());
    text.push('\n');
    text.push_str(&json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "9", "is_error": true, "content": "failed"}]}, "toolUseResult": {}}).to_string());
    text.push('\n');
    std::fs::write(&t, text).unwrap();
    let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
    assert_eq!(decision, "deny", "{why}");
    assert!(why.contains("the last test run did not pass"), "{why}");
    assert!(!why.contains("files changed"), "{why}");
}

#[test]
fn a_test_run_the_transcript_has_not_caught_up_with_still_counts() {
    // Claude Code writes its transcript through a queue: a test run that finished just before
    // the push can reach the file after the gate was called. The push's own call ("t" in the
    // hook input) is written after it, so the gate waits for that call before it says there
    // is no test run.
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "change a");
    let t = transcript(
        &home,
        &[("1", "Edit", json!({"file_path": repo.work.join("a.txt")}))],
    );
    let late = [
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "2", "name": "Bash", "input": {"command": "cargo test"}}]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "2", "is_error": false, "content": "ok"}]}, "toolUseResult": {}}),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "git push"}}]}}),
    ];
    let writer = {
        let t = t.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            let mut text = std::fs::read_to_string(&t).unwrap();
            for line in &late {
                text.push_str(&line.to_string());
                text.push('\n');
            }
            std::fs::write(&t, text).unwrap();
        })
    };
    let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
    writer.join().unwrap();
    assert_eq!(decision, "silent", "{why}");
    // With the call in the file and no test run before it, the push is held as before.
    let t = transcript(
        &home,
        &[
            ("1", "Edit", json!({"file_path": repo.work.join("a.txt")})),
            ("t", "Bash", json!({"command": "git push"})),
        ],
    );
    let (decision, why) = answer(&home, &repo.work, "git push", Some(&t));
    assert_eq!(decision, "ask", "{why}");
}
