//! The gate against a corpus written without sight of the gate (`fixtures/gate-corpus-blind.jsonl`:
//! 437 lines, each labelled with the effect it has in the scene below or `none`), in the scene
//! the corpus was written for: a repository 2 commits ahead of its bare remote, a dirty tracked
//! `src/app.py`, an untracked `notes.txt`, a `sub/` repository with unpushed commits of its own,
//! and no test evidence.
//!
//! `fixtures/gate-corpus-lookalikes.jsonl` adds lines written afterwards for the same scene.
//!
//! Checked: no line with an effect passes silently, and every `none` line stays silent.

use std::path::Path;

use serde_json::Value;

use crate::harness::{BIN, Home};

/// A repository at `root/name`, pushed once to `root/name.git`, then two commits ahead.
fn ahead_repo(root: &Path, home: &Path, path: &Path, origin: &str) {
    let git = |dir: &Path, args: &[&str]| {
        crate::gate_effects::run_git(dir, home, args);
    };
    git(root, &["init", "-q", "--bare", origin]);
    git(
        root,
        &["init", "-q", "-b", "main", &path.display().to_string()],
    );
    std::fs::create_dir_all(path.join("src")).unwrap();
    std::fs::write(path.join("src/app.py"), "a\n").unwrap();
    git(path, &["add", "."]);
    git(path, &["commit", "-qm", "one"]);
    let url = format!("{}/{origin}", root.display());
    git(path, &["remote", "add", "origin", &url]);
    git(path, &["push", "-q", "-u", "origin", "main"]);
    for line in ["b", "c"] {
        let mut text = std::fs::read_to_string(path.join("src/app.py")).unwrap();
        text.push_str(line);
        text.push('\n');
        std::fs::write(path.join("src/app.py"), text).unwrap();
        git(path, &["commit", "-qam", line]);
    }
}

/// The gate's answer to `line` as a Claude Code PreToolUse call, run as the replay test runs it.
fn answer(home: &Home, cwd: &Path, line: &str) -> String {
    crate::gate_effects::gate_answer(BIN, home, cwd, "s1", line)
}

#[test]
fn a_corpus_written_blind_gets_its_labelled_answers() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let root = home.path().join("scene");
    std::fs::create_dir_all(&root).unwrap();
    let repo = root.join("repo");
    ahead_repo(&root, home.path(), &repo, "origin.git");
    ahead_repo(&root, home.path(), &repo.join("sub"), "suborigin.git");
    let mut text = std::fs::read_to_string(repo.join("src/app.py")).unwrap();
    text.push_str("dirty\n");
    std::fs::write(repo.join("src/app.py"), text).unwrap();
    std::fs::write(repo.join("notes.txt"), "n\n").unwrap();
    // The blind corpus, then look-alikes written for the same scene afterwards (harmless
    // cleanups and copies, and never-run code next to forms of it that do run).
    let table: Vec<Value> = [
        include_str!("../../fixtures/gate-corpus-blind.jsonl"),
        include_str!("../../fixtures/gate-corpus-lookalikes.jsonl"),
    ]
    .iter()
    .flat_map(|text| text.lines())
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let workers = 3;
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|k| {
                let (table, home, repo) = (&table, &home, &repo);
                s.spawn(move || {
                    let mut failures = Vec::new();
                    for case in table.iter().skip(k).step_by(workers) {
                        let line = case["command"].as_str().unwrap();
                        let silent = answer(home, repo, line) == "silent";
                        let harmless = case["effect"] == "none";
                        if silent != harmless {
                            failures.push(format!(
                                "{} {line:?}: {}, labelled {}",
                                case["id"].as_str().unwrap_or("?"),
                                if silent { "silent" } else { "not silent" },
                                case["effect"]
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} lines:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
}
