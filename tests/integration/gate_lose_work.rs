//! Ways to lose work, gated in a real repository that has some of each: an untracked file of
//! the user's, an uncommitted edit, an unpushed branch, a stash, and two commits its remote
//! lacks. Each line is fed as Claude Code feeds it: the session file already holds the call
//! being judged (without its result).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, git, pre_tool_use};
use crate::harness::Home;

/// The repository with work of every kind to lose; `notes.txt` is the user's untracked file.
fn repository_with_work() -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    git(&repo.work, &["checkout", "-q", "-b", "feature/wip"]);
    repo.commit("wip.txt", "experiment\n", "wip: experiment");
    git(&repo.work, &["checkout", "-q", "main"]);
    repo.commit("b.txt", "b\n", "add b");
    repo.commit("README.md", "# readme\n", "add readme");
    std::fs::write(repo.work.join("a.txt"), "stash me\n").unwrap();
    git(&repo.work, &["stash", "push", "-q", "-m", "user stash"]);
    std::fs::write(repo.work.join("b.txt"), "b\nuser edit\n").unwrap();
    std::fs::write(repo.work.join("notes.txt"), "the user's ideas\n").unwrap();
    (home, repo)
}

/// The gate's answer to `line`, with a session file that holds `earlier` (calls that ran,
/// each with its result) and then `line` itself, not yet run.
fn answer(home: &Home, repo: &GitFixture, earlier: &[&str], line: &str) -> (String, String) {
    let call = |id: &str, command: &str| {
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}})
    };
    let result = |id: &str| {
        json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": id, "content": "", "is_error": false}]}})
    };
    let mut lines =
        vec![json!({"type": "user", "message": {"role": "user", "content": "tidy up"}})];
    for (i, command) in earlier.iter().enumerate() {
        lines.push(call(&format!("e{i}"), command));
        lines.push(result(&format!("e{i}")));
    }
    lines.push(call("t", line));
    let transcript: PathBuf = home.path().join("session.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&transcript, text.join("\n") + "\n").unwrap();
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(&repo.work, line, false, Some(&transcript)))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    if out.stdout.trim().is_empty() {
        return ("silent".into(), String::new());
    }
    let v = out.json();
    let hook = &v["hookSpecificOutput"];
    (
        hook["permissionDecision"].as_str().unwrap().to_owned(),
        hook["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
    )
}

fn exists(repo: &Path, file: &str) -> bool {
    repo.join(file).exists()
}

#[test]
fn the_users_untracked_file_written_over_or_archived_away_is_denied() {
    let (home, repo) = repository_with_work();
    for line in [
        "cat /dev/null > notes.txt",
        "printf '' | tee notes.txt",
        "mv README.md notes.txt",
        "ln -sf /dev/null notes.txt",
        "tar -cf ../a.tar --remove-files notes.txt",
        "zip -qm ../a.zip notes.txt",
        "sed -i d notes.txt",
        "python3 -c \"open('notes.txt', 'w')\"",
    ] {
        let (decision, reason) = answer(&home, &repo, &[], line);
        assert_eq!(decision, "deny", "{line}: {reason}");
        assert!(reason.contains("notes.txt"), "{line}: {reason}");
    }
    assert!(exists(&repo.work, "notes.txt"));
}

#[test]
fn the_sessions_own_files_and_archives_that_keep_their_files_stay_silent() {
    let (home, repo) = repository_with_work();
    std::fs::write(repo.work.join("out.txt"), "x\n").unwrap();
    for line in [
        "cat /dev/null > out.txt",
        "printf '' | tee out.txt",
        "zip -qm ../a.zip out.txt",
    ] {
        let (decision, reason) = answer(&home, &repo, &["echo x > out.txt"], line);
        assert_eq!(decision, "silent", "{line}: {reason}");
    }
    for line in [
        "tar -cf ../a.tar notes.txt",
        "zip -q ../a.zip notes.txt",
        "echo more >> notes.txt",
        "sed -i 's/ideas/plans/' notes.txt",
        "python3 -c \"print(open('notes.txt').read())\"",
    ] {
        let (decision, reason) = answer(&home, &repo, &[], line);
        assert_eq!(decision, "silent", "{line}: {reason}");
    }
}

#[test]
fn writing_a_branch_ref_file_is_judged_like_update_ref() {
    let (home, repo) = repository_with_work();
    let (decision, reason) = answer(
        &home,
        &repo,
        &[],
        "git rev-parse origin/main > .git/refs/heads/main",
    );
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("add readme"), "{reason}");
    let (decision, reason) = answer(
        &home,
        &repo,
        &[],
        "cp .git/ORIG .git/refs/heads/feature/wip",
    );
    assert_eq!(decision, "deny", "{reason}");
    // A new branch's ref file loses nothing the facts can show, but its value is not read.
    let (decision, reason) = answer(
        &home,
        &repo,
        &[],
        "git rev-parse HEAD > .git/refs/heads/new",
    );
    assert_eq!(decision, "ask", "{reason}");
    let (decision, reason) = answer(&home, &repo, &[], "cat .git/refs/heads/main");
    assert_eq!(decision, "silent", "{reason}");
}

#[test]
fn a_fetch_into_a_local_branch_is_judged_like_branch_f() {
    let (home, repo) = repository_with_work();
    for line in [
        "git fetch -q --update-head-ok origin +main:main",
        "git fetch . +main:feature/wip",
    ] {
        let (decision, reason) = answer(&home, &repo, &[], line);
        assert_eq!(decision, "deny", "{line}: {reason}");
    }
    for line in [
        "git fetch -q origin",
        "git fetch . main:new-branch",
        "git fetch origin main:refs/remotes/origin/main",
    ] {
        let (decision, reason) = answer(&home, &repo, &[], line);
        assert_eq!(decision, "silent", "{line}: {reason}");
    }
}

#[test]
fn reset_merge_in_place_keeps_work_tree_edits_and_guards_staged_ones() {
    let (home, repo) = repository_with_work();
    let (decision, reason) = answer(&home, &repo, &[], "git reset --merge HEAD");
    assert_eq!(
        decision, "silent",
        "the edit of b.txt is unstaged: {reason}"
    );
    git(&repo.work, &["add", "b.txt"]);
    let (decision, reason) = answer(&home, &repo, &[], "git reset --merge HEAD");
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("b.txt"), "{reason}");
}

#[test]
fn the_repository_file_as_init_wrote_it_is_not_the_users_work() {
    let (home, repo) = repository_with_work();
    let config = repo.work.join(".hookjudge.json");
    std::fs::write(&config, "{\n  \"gate\": {},\n  \"judges\": {}\n}\n").unwrap();
    let (decision, reason) = answer(&home, &repo, &[], "git clean -fd");
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("notes.txt"), "{reason}");
    assert!(!reason.contains(".hookjudge.json"), "{reason}");
    std::fs::remove_file(repo.work.join("notes.txt")).unwrap();
    let (decision, reason) = answer(&home, &repo, &[], "git clean -fd");
    assert_eq!(decision, "silent", "{reason}");
    // Edited by the user, it is theirs.
    std::fs::write(&config, "{\"gate\": {\"push\": \"ask\"}}\n").unwrap();
    let (decision, reason) = answer(&home, &repo, &[], "git clean -fd");
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains(".hookjudge.json"), "{reason}");
}

#[test]
fn the_stash_is_no_home_for_unpushed_commits() {
    let (home, repo) = repository_with_work();
    // The stash's parent is main's tip: it reaches main's unpushed commits, and still a
    // rebase that drops one of them, with the edit stashed on the way, loses it.
    for line in [
        "git -c rebase.autoStash=true rebase --onto origin/main HEAD~1",
        "git rebase -q --autostash --onto origin/main HEAD~1",
        "git reset -q --keep origin/main",
    ] {
        let (decision, reason) = answer(&home, &repo, &[], line);
        assert_eq!(decision, "deny", "{line}: {reason}");
        assert!(reason.contains("add b"), "{line}: {reason}");
    }
    let (decision, reason) = answer(&home, &repo, &[], "git rebase -q --autostash origin/main");
    assert_eq!(decision, "silent", "every commit is replayed: {reason}");
}

#[test]
fn a_branch_renamed_earlier_on_the_line_is_judged_by_its_commits() {
    let (home, repo) = repository_with_work();
    let (decision, reason) = answer(
        &home,
        &repo,
        &[],
        "git branch -m feature/wip old && git branch -D old",
    );
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("wip: experiment"), "{reason}");
    let (decision, reason) = answer(&home, &repo, &[], "git branch -m feature/wip old");
    assert_eq!(decision, "silent", "{reason}");
}

#[test]
fn discarding_after_a_stash_pop_on_the_same_line_asks() {
    let (home, repo) = repository_with_work();
    for line in [
        "git stash pop -q; git checkout -- README.md",
        "git stash apply && git restore a.txt",
    ] {
        let (decision, reason) = answer(&home, &repo, &[], line);
        assert_eq!(decision, "ask", "{line}: {reason}");
    }
    for line in ["git stash pop", "git checkout -- README.md"] {
        let (decision, reason) = answer(&home, &repo, &[], line);
        assert_eq!(decision, "silent", "{line}: {reason}");
    }
}

#[test]
fn a_delete_through_a_link_is_judged_by_the_target() {
    let (home, repo) = repository_with_work();
    let link = repo.root.join("link");
    let line = format!(
        "ln -sfn {} {} && rm -rf {}/",
        repo.work.display(),
        link.display(),
        link.display()
    );
    let (decision, reason) = answer(&home, &repo, &[], &line);
    assert_eq!(decision, "deny", "{reason}");
    std::os::unix::fs::symlink(&repo.work, &link).unwrap();
    let (decision, reason) = answer(
        &home,
        &repo,
        &[],
        &format!("rm -f {}/notes.txt", link.display()),
    );
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("notes.txt"), "{reason}");
    let (decision, reason) = answer(&home, &repo, &[], &format!("rm {}", link.display()));
    assert_eq!(decision, "silent", "removing the link itself: {reason}");
}
