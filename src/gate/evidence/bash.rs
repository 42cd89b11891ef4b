//! What a Bash call in a session did, as far as its text shows: whether it really ran the tests
//! (the shell would run the test command and its status decides the call's exit code: not inside
//! `echo` or a comment, not `… || true`, not `--no-run`/`--collect-only`), whether it made
//! commits, and which files it wrote (redirections, `sed -i`, `tee`, `mv`, `cp`, `git apply`,
//! `patch`, …).

use std::path::Path;

use regex::Regex;

use super::super::repos::Repos;
use super::super::shell::{self, SimpleCommand, Word};

/// Options that make a test command not run the tests.
pub(crate) const NOT_A_RUN: [&str; 10] = [
    "--no-run",
    "--collect-only",
    "--co",
    "--list",
    "--help",
    "-h",
    "--dry-run",
    "--version",
    "--listTests",
    "--list-tests",
];

/// Programs that change the files named in their arguments (or, with `-i`, edit in place).
const FILE_WRITERS: [&str; 16] = [
    "tee", "mv", "cp", "rm", "touch", "truncate", "dd", "install", "ln", "rsync", "patch", "unzip",
    "tar", "chmod", "mkdir", "rmdir",
];

/// What a Bash call did, as far as its text shows.
pub(super) struct ShellCall {
    /// A real test run, whose status is the call's exit status.
    pub(super) test: Option<String>,
    /// It makes commits (`git commit`, `merge`, `cherry-pick`, …).
    pub(super) commits: bool,
    /// Files it writes (`None` in the list: a write whose target cannot be read).
    pub(super) writes: Vec<Option<String>>,
}

/// Reads one Bash command line.
pub(super) fn read(command: &str, cwd: &Path, tests: &Regex, repos: &Repos) -> ShellCall {
    let script = shell::parse(command, cwd);
    let mut call = ShellCall {
        test: None,
        commits: false,
        writes: Vec::new(),
    };
    for cmd in &script.commands {
        call.writes.extend(writes_of(cmd));
        call.commits |= makes_commits(cmd, repos);
        if call.test.is_none() && !cmd.status_ignored && is_test_run(cmd, tests) {
            call.test = Some(command.to_owned());
        }
    }
    call
}

fn is_test_run(cmd: &SimpleCommand, tests: &Regex) -> bool {
    let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
    if words.is_empty() || words.iter().any(|w| NOT_A_RUN.contains(w)) {
        return false;
    }
    let mut line = words.join(" ");
    // The regex expects the program's base name (`./node_modules/.bin/jest` → `jest`).
    if let Some(program) = cmd.program() {
        line = std::iter::once(program)
            .chain(words[1..].iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
    }
    tests
        .find(&line)
        .is_some_and(|m| line[..m.start()].trim().is_empty())
}

/// Whether a simple command makes commits.
fn makes_commits(cmd: &SimpleCommand, repos: &Repos) -> bool {
    if !super::super::git::is_git(cmd) {
        return false;
    }
    let inv = super::super::git::read(cmd, &Default::default(), repos);
    matches!(
        inv.verb.as_ref().and_then(Word::literal),
        Some(
            "commit"
                | "merge"
                | "cherry-pick"
                | "revert"
                | "am"
                | "rebase"
                | "pull"
                | "commit-tree"
        )
    )
}

pub(super) fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(59).collect::<String>())
    } else {
        one
    }
}

/// The files a simple command writes (absolute when its directory is known), `None` for a
/// write whose target the line does not show (`git apply`, `patch` without a file, a computed
/// name).
fn writes_of(cmd: &SimpleCommand) -> Vec<Option<String>> {
    let resolve = |w: &Word| -> Option<String> {
        let p = w.literal()?;
        if p == "/dev/null" || p.starts_with("/dev/") {
            return Some(p.to_owned());
        }
        Some(match &cmd.cwd {
            Some(c) if !p.starts_with('/') => c.join(p).to_string_lossy().into_owned(),
            _ => p.to_owned(),
        })
    };
    let mut out: Vec<Option<String>> = cmd
        .writes
        .iter()
        .map(resolve)
        .filter(|w| w.as_deref().is_none_or(|p| !p.starts_with("/dev/")))
        .collect();
    let Some(program) = cmd.program() else {
        return out;
    };
    let operands: Vec<&Word> = cmd.argv[1..]
        .iter()
        .filter(|w| w.literal().is_none_or(|a| !a.starts_with('-')))
        .collect();
    let in_place = cmd.argv[1..].iter().any(|w| {
        w.literal().is_some_and(|a| {
            a.starts_with("-i")
                || a == "--in-place"
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
        })
    });
    match program {
        "sed" | "perl" | "ruby" if in_place => {
            out.extend(operands.iter().skip(1).map(|w| resolve(w)));
        }
        "mv" | "cp" | "install" | "ln" | "rsync" => {
            if let Some(last) = operands.last() {
                out.push(resolve(last));
            }
            if program == "mv" {
                out.extend(operands.iter().rev().skip(1).map(|w| resolve(w)));
            }
        }
        "git" => {
            let verb = cmd.argv.get(1).and_then(Word::literal);
            if matches!(
                verb,
                Some(
                    "apply"
                        | "am"
                        | "checkout"
                        | "restore"
                        | "stash"
                        | "reset"
                        | "merge"
                        | "rebase"
                        | "cherry-pick"
                        | "revert"
                        | "pull"
                )
            ) && !cmd.argv.iter().any(|w| {
                matches!(
                    w.literal(),
                    Some("--check" | "--stat" | "--numstat" | "--summary")
                )
            }) {
                out.push(None);
            }
        }
        "patch" => out.push(None),
        p if FILE_WRITERS.contains(&p) => out.extend(operands.iter().map(|w| resolve(w))),
        _ => {}
    }
    out
}
