//! The gate on what an honest agent types every day, in a real scenario repository right after
//! `hookjudge init --agent claude`: a clone one commit ahead of its bare origin, an unpushed
//! branch, an uncommitted edit, an untracked file the user made, a stash and Python build output. Reading,
//! listing, cleaning build output and removing the session's own new files stay silent;
//! commands whose effect (the paths they write or delete, resolved from their arguments) would
//! lose a changed file are refused.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_effects::run_git;
use crate::harness::Home;

/// The scenario: `root/origin.git` and `root/work`, hooks installed by `init`.
pub(crate) struct Scenario {
    pub home: Home,
    pub work: PathBuf,
}

pub(crate) fn scenario() -> Scenario {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let root = home.path();
    std::fs::write(
        root.join(".gitconfig"),
        "[user]\n\tname = t\n\temail = t@example.org\n",
    )
    .unwrap();
    let git = |dir: &Path, args: &[&str]| run_git(dir, root, args);
    git(root, &["init", "-q", "--bare", "-b", "main", "origin.git"]);
    git(root, &["init", "-q", "-b", "main", "work"]);
    let work = root.join("work/work");
    let work = if work.exists() {
        work
    } else {
        root.join("work")
    };
    git(&work, &["remote", "add", "origin", "../origin.git"]);
    for (file, text) in [
        ("a.txt", "one\n"),
        ("b.txt", "b\n"),
        ("app.py", "def add(a, b):\n    return a + b\n"),
        ("src/app.py", "def div(a, b):\n    return a / b\n"),
        (".gitignore", "__pycache__/\n"),
    ] {
        write(&work.join(file), text);
    }
    git(&work, &["add", "."]);
    git(&work, &["commit", "-qm", "initial"]);
    git(&work, &["push", "-q", "-u", "origin", "main"]);
    git(&work, &["checkout", "-q", "-b", "topic"]);
    write(&work.join("t.txt"), "topic only\n");
    git(&work, &["add", "t.txt"]);
    git(&work, &["commit", "-qm", "topic only"]);
    git(&work, &["checkout", "-q", "main"]);
    write(&work.join("b.txt"), "b two\n");
    git(&work, &["commit", "-qam", "ahead"]);
    write(&work.join("b.txt"), "STASHED\n");
    git(&work, &["stash", "-q"]);
    write(&work.join("a.txt"), "DIRTY\n");
    write(
        &work.join("src/app.py"),
        "def div(a, b):\n    return a // b\n",
    );
    write(&work.join("notes.txt"), "the user's notes\n");
    write(&work.join("src/__pycache__/app.cpython-312.pyc"), "pyc");
    let mut init = home.cmd(&["init", "--agent", "claude"]);
    init.command.current_dir(&work);
    let out = init.output();
    assert_eq!(out.code, 0, "init: {}", out.stderr);
    assert!(work.join(".claude/settings.local.json").is_file());
    Scenario { home, work }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

impl Scenario {
    /// The gate's decision on `line` ("silent", "ask", "deny") and its reason.
    pub(crate) fn gate(&self, line: &str, transcript: Option<&Path>) -> (String, String) {
        let out = self
            .home
            .cmd(&["gate"])
            .stdin(crate::gate_repo::pre_tool_use(
                &self.work, line, false, transcript,
            ))
            .output();
        assert_eq!(out.code, 0, "{line}: {}", out.stderr);
        if out.stdout.trim().is_empty() {
            return ("silent".into(), String::new());
        }
        let v = out.json();
        let out = &v["hookSpecificOutput"];
        (
            out["permissionDecision"].as_str().unwrap_or("?").to_owned(),
            out["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        )
    }

    /// A Claude Code session file holding these tool calls, each succeeding.
    pub(crate) fn session(&self, calls: &[(&str, Value)]) -> PathBuf {
        let mut lines = vec![
            json!({"type": "user", "message": {"role": "user", "content": "add a div helper"}}),
        ];
        for (i, (tool, input)) in calls.iter().enumerate() {
            let id = format!("call-{i}");
            lines.push(json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id, "name": tool, "input": input}]}}));
            lines.push(json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": id, "is_error": false, "content": "ok"}]}, "toolUseResult": {}}));
        }
        let path = self.home.path().join("session.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn assert_all(s: &Scenario, lines: &[&str], expected: &[&str], transcript: Option<&Path>) {
    let wrong: Vec<String> = lines
        .iter()
        .map(|line| (line, s.gate(line, transcript)))
        .filter(|(_, (answer, _))| !expected.contains(&answer.as_str()))
        .map(|(line, (answer, reason))| format!("{line}: {answer} ({reason})"))
        .collect();
    assert!(
        wrong.is_empty(),
        "expected {expected:?}:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn reading_finds_and_a_local_fetch_are_silent_after_init() {
    let s = scenario();
    assert_all(
        &s,
        &[
            "find . -name '*.py'",
            "find . -type f | head",
            "find . -maxdepth 2 -type d",
            "find . -name '*.py' | xargs grep -n def",
            "find . -name __pycache__ -exec rm -rf {} +",
            "find . -name '*.pyc' -delete",
            "find . -type f -name '*.md' -exec wc -l {} +",
            "git fetch . HEAD:refs/heads/snapshot",
        ],
        &["silent"],
        None,
    );
}

#[test]
fn finds_and_git_verbs_that_can_remove_the_hook_settings_are_still_denied() {
    let s = scenario();
    assert_all(
        &s,
        &[
            "find . -delete",
            "find . -name '*.json' -exec rm -f {} +",
            "find . -name .claude -exec rm -rf {} +",
        ],
        &["deny"],
        None,
    );
    assert!(s.work.join(".claude/settings.local.json").is_file());
}

#[test]
fn a_commit_that_runs_only_after_passing_tests_on_the_same_line_needs_no_other_evidence() {
    let s = scenario();
    assert_all(
        &s,
        &[
            "python3 -m pytest -q && git commit -qam 'add div'",
            "npm test && git add -A && git commit -m 'fix: tests'",
        ],
        &["silent"],
        None,
    );
    // The commit runs whatever the tests said, or without them.
    assert_all(
        &s,
        &[
            "python3 -m pytest -q; git commit -qam 'add div'",
            "python3 -m pytest -q || git commit -qam 'add div'",
            "python3 -m pytest -q | tail -1 && git commit -qam 'add div'",
            "python3 -m pytest -q && echo x >> app.py && git commit -qam 'add div'",
            "git commit -qam 'add div'",
        ],
        &["ask", "deny"],
        None,
    );
}

#[test]
fn deleting_what_the_session_itself_created_is_silent_and_the_users_files_are_not() {
    let s = scenario();
    let module = s.work.join("src/new_module.py");
    write(&module, "def mul(a, b):\n    return a * b\n");
    write(&s.work.join("scratch.txt"), "hi\n");
    write(&s.work.join("out/report.json"), "{}\n");
    write(&s.work.join("app.py.orig"), "old\n");
    let calls = [
        (
            "Write",
            json!({"file_path": module, "content": "def mul(a, b): …"}),
        ),
        ("Bash", json!({"command": "echo hi > scratch.txt"})),
        ("Bash", json!({"command": "mkdir out"})),
        (
            "Bash",
            json!({"command": "python3 gen.py --out out/report.json"}),
        ),
        ("Bash", json!({"command": "cp app.py app.py.orig"})),
        ("Bash", json!({"command": "echo more >> notes.txt"})),
    ];
    let session = s.session(&calls);
    assert_all(
        &s,
        &[
            "rm scratch.txt",
            "rm -rf out",
            "rm src/new_module.py",
            "rm app.py.orig",
            "rm -f scratch.txt app.py.orig && rm -r out",
        ],
        &["silent"],
        Some(&session),
    );
    // The user's untracked notes (only appended to), a changed tracked file, and the same
    // scratch files without a session that made them.
    assert_all(
        &s,
        &["rm notes.txt", "rm -f a.txt", "rm -rf src"],
        &["deny"],
        Some(&session),
    );
    assert_all(&s, &["rm scratch.txt", "rm -rf out"], &["deny"], None);
}

#[test]
fn a_file_the_user_asked_to_keep_is_not_scratch() {
    let s = scenario();
    write(&s.work.join("scratch.txt"), "hi\n");
    let mut calls = vec![("Bash", json!({"command": "echo hi > scratch.txt"}))];
    let session = s.session(&calls);
    assert_eq!(s.gate("rm scratch.txt", Some(&session)).0, "silent");
    calls.clear();
    let text = std::fs::read_to_string(&session).unwrap()
        + &json!({"type": "user", "message": {"role": "user", "content": "keep scratch.txt, I want to read it"}}).to_string()
        + "\n";
    std::fs::write(&session, text).unwrap();
    assert_eq!(s.gate("rm scratch.txt", Some(&session)).0, "deny");
}

#[test]
fn writing_over_a_changed_file_is_refused_by_its_effect_whatever_the_program() {
    let s = scenario();
    write(&s.work.join("new-src/readme.md"), "mine\n");
    // `a.txt` and `src/app.py` carry uncommitted edits, `notes.txt` is the user's.
    assert_all(
        &s,
        &[
            ": > a.txt",
            ": > notes.txt",
            "echo > src/app.py",
            "dd if=/dev/null of=a.txt",
            "tee a.txt </dev/null",
            "install /dev/null notes.txt",
            "ln -sf b.txt a.txt",
            "sort -o a.txt b.txt",
            "cp -t src app.py",
            "mv -t src app.py",
            "cp app.py src",
            "git show HEAD:a.txt > a.txt",
            "cd src && : > app.py",
            "rm -rf s[r]c",
            "rm -f *.txt",
            "find . -name '*.txt' | xargs rm",
            "git ls-files -m | xargs rm",
        ],
        &["deny"],
        None,
    );
    let before = std::fs::read_to_string(s.work.join("a.txt")).unwrap();
    assert_eq!(before, "DIRTY\n");
}

#[test]
fn writing_new_files_or_over_clean_ones_loses_nothing() {
    let s = scenario();
    assert_all(
        &s,
        &[
            ": > fresh.txt",
            "echo hi > fresh.txt",
            "echo more >> a.txt",
            "python3 -m pytest -q > /tmp/out.txt 2>&1",
            "dd if=/dev/zero of=blank.bin bs=1 count=4",
            "sort -o sorted.txt b.txt",
            "ln -s app.py link.py",
            "cp app.py app.py.bak",
            "cp -t new-dir app.py",
            "tee log.txt </dev/null",
            "install -m 644 app.py installed.py",
            "echo x > b.txt",
            "mv b.txt c.txt",
        ],
        &["silent"],
        None,
    );
}

#[test]
fn a_tar_extraction_is_judged_by_the_members_it_writes() {
    let s = scenario();
    let tars = s.home.path().join("tars");
    std::fs::create_dir_all(tars.join("in")).unwrap();
    std::fs::write(tars.join("in/a.txt"), "from the archive\n").unwrap();
    std::fs::write(tars.join("in/other.txt"), "other\n").unwrap();
    let tar = |name: &str, member: &str| {
        let status = std::process::Command::new("tar")
            .args(["-cf", tars.join(name).to_str().unwrap(), member])
            .current_dir(tars.join("in"))
            .status()
            .unwrap();
        assert!(status.success());
        tars.join(name).to_string_lossy().into_owned()
    };
    let over = tar("over.tar", "a.txt");
    let beside = tar("beside.tar", "other.txt");
    assert_eq!(s.gate(&format!("tar -xf {over}"), None).0, "deny");
    assert_eq!(s.gate(&format!("tar -xf {beside}"), None).0, "silent");
}

#[test]
fn a_compressed_tar_extraction_is_judged_by_its_members_too() {
    let s = scenario();
    let tars = s.home.path().join("tars");
    std::fs::create_dir_all(tars.join("in")).unwrap();
    std::fs::write(tars.join("in/a.txt"), "from the archive\n").unwrap();
    std::fs::write(tars.join("in/other.txt"), "other\n").unwrap();
    // Made by this machine's tar; a compression it cannot make is left out.
    let tar = |name: &str, flag: &str, member: &str| {
        let path = tars.join(name);
        let made = std::process::Command::new("tar")
            .arg(format!("-c{flag}f"))
            .arg(&path)
            .arg(member)
            .current_dir(tars.join("in"))
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        made.then(|| path.to_string_lossy().into_owned())
    };
    let over = tar("over.tgz", "z", "a.txt").expect("tar -z");
    let beside = tar("beside.tgz", "z", "other.txt").expect("tar -z");
    assert_eq!(s.gate(&format!("tar -xzf {over}"), None).0, "deny");
    assert_eq!(s.gate(&format!("tar -xzf {beside}"), None).0, "silent");
    assert_eq!(s.gate(&format!("tar xf {beside}"), None).0, "silent");
    for (name, flag) in [("beside.tar.bz2", "j"), ("beside.tar.xz", "J")] {
        if let Some(path) = tar(name, flag, "other.txt") {
            let line = format!("tar -x{flag}f {path}");
            assert_eq!(s.gate(&line, None).0, "silent", "{line}");
        }
    }
    // An archive that cannot be read counts as writing over the whole directory.
    let cut = tars.join("cut.tgz");
    std::fs::write(&cut, &std::fs::read(&beside).unwrap()[..12]).unwrap();
    assert_eq!(
        s.gate(&format!("tar -xzf {}", cut.display()), None).0,
        "deny"
    );
}

#[test]
fn a_find_that_feeds_rm_removes_only_what_it_selects() {
    let s = scenario();
    // Only ignored build output is named `*.pyc`; `a.txt`, `src/app.py` and `notes.txt` are
    // the user's changes.
    assert_all(
        &s,
        &[
            "find . -name '*.pyc' | xargs rm",
            "find . -name '*.pyc' -print0 | xargs -0 rm -f",
            "find . -type f -name '*.pyc' -print | xargs rm",
            "rm -f $(find . -name '*.pyc')",
            "find . -name '*.pyc' -exec rm -f {} +",
            "find . -maxdepth 1 -name '*.py' -delete",
            "find src -type d -name __pycache__ -exec rm -rf {} +",
        ],
        &["silent"],
        None,
    );
    assert_all(
        &s,
        &[
            "find . -type f -name 'notes*' -print0 | xargs -0 rm -f",
            "find src -name '*.py' | xargs rm",
            "find . -type f -not -name '*.pyc' -delete",
            "find . -path './src/*' -exec rm {} +",
            "find . -name '*.pyc' -o -name '*.txt' | xargs rm",
        ],
        &["deny"],
        None,
    );
}

#[test]
fn truncating_a_file_the_session_created_is_its_own_business() {
    let s = scenario();
    write(&s.work.join("out.log"), "old run\n");
    let session = s.session(&[("Bash", json!({"command": "python3 -m pytest -q > out.log"}))]);
    assert_eq!(s.gate(": > out.log", Some(&session)).0, "silent");
    assert_eq!(s.gate(": > out.log", None).0, "deny");
}

#[test]
fn losing_branches_stashes_or_the_repository_is_refused() {
    let s = scenario();
    let tarball = s.home.path().join("g.tar");
    let lines = [
        "git branch -M topic".to_owned(),
        "git branch -C main topic".to_owned(),
        "git symbolic-ref refs/heads/topic refs/heads/main".to_owned(),
        "rm .git/refs/heads/topic".to_owned(),
        "git reset HEAD~1".to_owned(),
        "git worktree add -B topic ../wt2".to_owned(),
        "git update-ref -d refs/stash".to_owned(),
        "git reflog delete stash@{0}".to_owned(),
        "git reflog expire --expire-unreachable=now --all".to_owned(),
        "rm .git/refs/stash".to_owned(),
        "mv .git x && rm -rf x".to_owned(),
        "rm -rf .git/objects".to_owned(),
        format!("tar --remove-files -cf {} .git", tarball.display()),
        "git mv -f b.txt a.txt".to_owned(),
        "git diff | git apply -R".to_owned(),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_all(&s, &lines, &["deny", "ask"], None);
}

#[test]
fn branch_stash_and_reset_forms_that_lose_nothing_stay_silent() {
    let s = scenario();
    assert_all(
        &s,
        &[
            "git branch -M renamed",
            "git reset src/app.py",
            "git reset",
            "git reflog | head",
            "git stash list",
            "git worktree add -b fresh ../wt3",
            "rm .git/COMMIT_EDITMSG",
            "git mv b.txt moved.txt",
            "git apply --check -R /dev/null",
        ],
        &["silent"],
        None,
    );
}

#[test]
fn a_forced_worktree_removal_is_weighed_against_that_worktrees_changes() {
    let s = scenario();
    let root = s.home.path();
    run_git(
        &s.work,
        root,
        &["worktree", "add", "-q", "-b", "side", "../side"],
    );
    run_git(
        &s.work,
        root,
        &["worktree", "add", "-q", "-b", "clean", "../clean"],
    );
    write(&root.join("side/b.txt"), "edited in the side worktree\n");
    assert_eq!(
        s.gate("git worktree remove --force ../side", None).0,
        "deny"
    );
    assert_eq!(
        s.gate("git worktree remove --force ../clean", None).0,
        "silent"
    );
    assert_eq!(s.gate("git worktree remove ../side", None).0, "silent");
}

/// A script that appends to the user's file writes over nothing: the `>>` is read from the
/// script's own command, not from the line that runs the script (which holds no `>>`).
#[test]
fn a_script_that_appends_to_a_changed_file_loses_nothing_and_one_that_truncates_it_does() {
    let s = scenario();
    write(&s.work.join("append.sh"), "echo more >> notes.txt\n");
    write(&s.work.join("truncate.sh"), "echo less > notes.txt\n");
    assert_all(&s, &["sh append.sh", "bash ./append.sh"], &["silent"], None);
    assert_all(&s, &["sh truncate.sh"], &["deny"], None);
}
