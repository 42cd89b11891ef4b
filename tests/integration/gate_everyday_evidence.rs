//! Everyday commits, pushes and cleans in real repositories with a real session file: a test
//! run joined to the commit or push by `&&` is its own evidence whatever runner it uses.

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
