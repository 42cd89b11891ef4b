//! Everyday commits, pushes and cleans in real repositories with a real session file: a test
//! run joined to the commit or push by `&&` is its own evidence whatever runner it uses, a
//! commit or push that changes only documentation needs none, and `git clean` is judged on
//! what it would really delete.

use std::path::Path;

use serde_json::json;

use crate::gate_everyday::{Scenario, scenario};
use crate::gate_repo::git;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The session edited `src/app.py` and ran no test.
fn edited(s: &Scenario) -> std::path::PathBuf {
    s.session(&[(
        "Edit",
        json!({"file_path": s.work.join("src/app.py"), "old_string": "/", "new_string": "//"}),
    )])
}

fn answers(s: &Scenario, lines: &[String], t: &Path) -> Vec<(String, String, String)> {
    lines
        .iter()
        .map(|line| {
            let (decision, why) = s.gate(line, Some(t));
            (line.clone(), decision, why)
        })
        .collect()
}

fn assert_each(found: &[(String, String, String)], expected: &[&str]) {
    let wrong: Vec<String> = found
        .iter()
        .filter(|(_, d, _)| !expected.contains(&d.as_str()))
        .map(|(line, d, why)| format!("{line}: {d} ({why})"))
        .collect();
    assert!(
        wrong.is_empty(),
        "expected {expected:?}:\n{}",
        wrong.join("\n")
    );
}

const TEST_RUNS: [&str; 21] = [
    "npm test",
    "npm run test",
    "yarn test",
    "pnpm test",
    "bun test",
    "make test",
    "cargo test",
    "go test ./...",
    "node --test",
    "node --test test/",
    "deno test",
    "vitest run",
    "npx jest",
    "mocha",
    "mvn test",
    "gradle test",
    "dotnet test",
    "ctest",
    "tox",
    "nox",
    "python3 -m pytest -q",
];

#[test]
fn a_test_run_joined_by_and_to_the_commit_is_evidence_whatever_the_runner() {
    let s = scenario();
    // The runners' files exist, so the shell reader follows `npm test` and `make test` into
    // their script and recipe.
    write(
        &s.work.join("package.json"),
        r#"{"scripts": {"test": "node --test test/"}}"#,
    );
    write(
        &s.work.join("Makefile"),
        "test:\n\tpython3 -m pytest -q\n\tnpm test\n",
    );
    let t = edited(&s);
    let mut chained = Vec::new();
    let mut unchained = Vec::new();
    for run in TEST_RUNS {
        chained.push(format!("{run} && git commit -qam 'div'"));
        chained.push(format!("{run} && git add -A && git commit -m 'div'"));
    }
    for run in ["npm test", "make test", "go test ./...", "node --test"] {
        for joined in ["; ", " || ", " | ", " & "] {
            unchained.push(format!("{run}{joined}git commit -qam 'div'"));
        }
    }
    assert_each(&answers(&s, &chained, &t), &["silent"]);
    assert_each(&answers(&s, &unchained, &t), &["ask", "deny"]);
}

#[test]
fn a_test_run_joined_by_and_to_a_push_of_head_from_a_clean_tree_is_evidence() {
    let s = scenario();
    // A clean tree one commit ahead of origin, made after the session's edit.
    git(&s.work, &["stash", "-q", "-u"]);
    write(
        &s.work.join("src/app.py"),
        "def div(a, b):\n    return a // b\n",
    );
    git(&s.work, &["commit", "-qam", "floor division"]);
    let t = edited(&s);
    let pushes: Vec<String> = ["npm test", "make test", "python3 -m pytest -q"]
        .iter()
        .flat_map(|run| {
            [
                format!("{run} && git push"),
                format!("{run} && git push -u origin main"),
            ]
        })
        .collect();
    assert_each(&answers(&s, &pushes, &t), &["silent"]);
    // Another branch than the one tested, with a code change.
    git(&s.work, &["branch", "other", "origin/main"]);
    git(
        &s.work,
        &["worktree", "add", "-q", "../other-tree", "other"],
    );
    let other = s.work.join("../other-tree");
    write(&other.join("app.py"), "def add(a, b):\n    return b + a\n");
    git(&other, &["commit", "-qam", "other code"]);
    let not_what_was_tested = [
        "python3 -m pytest -q && git push origin other".to_string(),
        "python3 -m pytest -q; git push".to_string(),
    ];
    assert_each(&answers(&s, &not_what_was_tested, &t), &["ask", "deny"]);
    // An uncommitted change: the tests ran on something else than what is pushed.
    write(&s.work.join("a.txt"), "uncommitted\n");
    let dirty = ["python3 -m pytest -q && git push".to_string()];
    assert_each(&answers(&s, &dirty, &t), &["ask", "deny"]);
}

/// A clean repository after `init`, with the session having edited `README.md` only.
fn docs_session(s: &Scenario) -> std::path::PathBuf {
    git(&s.work, &["stash", "-q", "-u"]);
    write(&s.work.join("README.md"), "# app\n\nSmall maths helpers.\n");
    write(&s.work.join("docs/usage.md"), "# Usage\n\n    add(1, 2)\n");
    write(&s.work.join(".gitignore"), "__pycache__/\n.venv/\n");
    s.session(&[(
        "Edit",
        json!({"file_path": s.work.join("README.md"), "old_string": "Small", "new_string": "Small maths"}),
    )])
}

#[test]
fn a_commit_of_documentation_and_metadata_only_needs_no_test_run() {
    let s = scenario();
    let t = docs_session(&s);
    let docs_only: Vec<String> = [
        "git add README.md && git commit -m 'README: fix typo'",
        "git add -A && git commit -m 'docs: usage page'",
        "git add docs/usage.md .gitignore && git commit -m 'docs'",
        "git commit -am 'README and .gitignore'",
    ]
    .map(String::from)
    .to_vec();
    assert_each(&answers(&s, &docs_only, &t), &["silent"]);
    // A command before the commit could write code; a forced add takes ignored files.
    let not_only_staging: Vec<String> = [
        "echo 'x = 1' > app2.py && git add -A && git commit -m 'docs'",
        "git add -f build.py && git commit -m 'docs'",
        "git add -A; git commit -m 'docs'",
    ]
    .map(String::from)
    .to_vec();
    assert_each(&answers(&s, &not_only_staging, &t), &["ask", "deny"]);
    // Code or a build file among the changes: the usual evidence decides.
    for code in ["lib.py", "CMakeLists.txt", "requirements.txt"] {
        write(&s.work.join(code), "x\n");
        let line = vec!["git add -A && git commit -m 'docs'".to_string()];
        assert_each(&answers(&s, &line, &t), &["ask", "deny"]);
        std::fs::remove_file(s.work.join(code)).unwrap();
    }
}

#[test]
fn a_push_whose_every_commit_changes_only_documentation_needs_no_test_run() {
    let s = scenario();
    let t = docs_session(&s);
    // A new branch from what origin has, whose one commit is documentation only.
    git(&s.work, &["checkout", "-q", "-b", "docs", "origin/main"]);
    git(&s.work, &["add", "-A"]);
    git(&s.work, &["commit", "-qm", "docs"]);
    let push = vec!["git push -u origin docs".to_string()];
    assert_each(&answers(&s, &push, &t), &["silent"]);
    // A code commit among them, even one a later commit undoes: every commit is read.
    write(&s.work.join("app.py"), "def add(a, b):\n    return b + a\n");
    git(&s.work, &["commit", "-qam", "code"]);
    write(&s.work.join("app.py"), "def add(a, b):\n    return a + b\n");
    git(&s.work, &["commit", "-qam", "undo code"]);
    assert_each(&answers(&s, &push, &t), &["ask", "deny"]);
}

#[test]
fn git_clean_is_judged_on_what_it_would_delete() {
    let s = scenario();
    write(&s.work.join(".gitignore"), "__pycache__/\ndist/\n*.log\n");
    write(&s.work.join("dist/app.js"), "built\n");
    let t = s.session(&[("Bash", json!({"command": "npm run build"}))]);
    // Only build output under the pathspec, or nothing at all: nothing is lost.
    let silent: Vec<String> = [
        "git clean -fdx dist",
        "git clean -fdX dist",
        "git clean -fd src",
        "git clean -fdX -e '!.claude' -e '!.hookjudge'",
    ]
    .map(String::from)
    .to_vec();
    assert_each(&answers(&s, &silent, &t), &["silent"]);
    // The ignored hook settings go with `-X` or `-x`: named, as self-protection.
    for line in ["git clean -fdX", "git clean -fdx"] {
        let (decision, why) = s.gate(line, Some(&t));
        assert_eq!(decision, "deny", "{line}: {why}");
        assert!(
            why.contains("[self-protection]") && why.contains("`.claude/`"),
            "{line}: {why}"
        );
    }
    // The user's untracked notes and an ignored log that is not build output are lost.
    write(&s.work.join("run.log"), "the user's log\n");
    let (decision, why) = s.gate("git clean -fd", Some(&t));
    assert_eq!(decision, "deny", "{why}");
    assert!(
        why.contains("would lose") && why.contains("notes.txt"),
        "{why}"
    );
    let (decision, why) = s.gate("git clean -fX -e '!.claude' -e '!.hookjudge'", Some(&t));
    assert_eq!(decision, "deny", "{why}");
    assert!(why.contains("would lose run.log"), "{why}");
    assert!(s.work.join(".claude/settings.local.json").is_file());
}
