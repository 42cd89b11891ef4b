//! A commit verified by construction: in `python3 -m pytest -q && git commit -qam 'add div'`
//! the commit runs only when the tests just passed, so the line is its own evidence.
//!
//! Read strictly, from the line alone: every part is joined by `&&` (a `;`, `||`, `|`, `&`,
//! subshell or command substitution anywhere, and the line is left to the usual evidence); a
//! test run (the `gate.test_commands` pattern, from its first word, not a listing or dry run,
//! not pointed at another project) comes before the commit; and between the two only
//! `git add`, `git status`, `git diff` or `git log` run, which change no code.
//!
//! A test run is read as the line writes it, whatever it runs: `npm test` or `make test`
//! whose script or recipe the shell reader follows is still one test run, the one the pattern
//! names (the recipe's own commands are gated where they stand).

use std::path::Path;

use regex::Regex;

use super::evidence::NOT_A_RUN;
use super::shell::{self, Word};

/// Options that make a test command run another project's tests (those that make it run none
/// are the evidence reader's [`NOT_A_RUN`]).
const ELSEWHERE: [&str; 6] = [
    "--passWithNoTests",
    "--manifest-path",
    "--rootdir",
    "--prefix",
    "--cwd",
    "-C",
];

/// Git verbs that may run between the tests and the commit without changing code.
const BETWEEN: [&str; 4] = ["add", "status", "diff", "log"];

/// The test command that must pass for `commit` (one part of `line`) to run at all, when the
/// line is such a chain.
pub fn tested_before(line: &str, commit: &str, cwd: &Path, tests: &Regex) -> Option<String> {
    let parts = and_chain(line)?;
    let at = parts.iter().position(|p| *p == commit.trim())?;
    let (test_at, test) = parts[..at]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, p)| is_test_run(p, cwd, tests))?;
    parts[test_at + 1..at]
        .iter()
        .all(|p| changes_no_code(p, cwd))
        .then(|| (*test).to_owned())
}

/// Whether only commands that write no file run before `commit` (one part of `line`): it is
/// the line's first part, or follows `git add` (not `--force`, which adds ignored files),
/// `git status`, `git diff` or `git log`, all joined by `&&`.
pub fn only_staging_before(line: &str, commit: &str, cwd: &Path) -> bool {
    let Some(parts) = and_chain(line) else {
        return false;
    };
    let Some(at) = parts.iter().position(|p| *p == commit.trim()) else {
        return false;
    };
    parts[..at].iter().all(|p| {
        changes_no_code(p, cwd)
            && !shell::parse(p, cwd)
                .commands
                .iter()
                .flat_map(|c| &c.argv)
                .any(|w| forces(w.text()))
    })
}

/// `--force` (or an abbreviation), or `-f` alone or among short options (`-Af`).
fn forces(word: &str) -> bool {
    match word.strip_prefix("--") {
        Some(long) => !long.is_empty() && "force".starts_with(long),
        None => word.starts_with('-') && word.contains('f'),
    }
}

/// The parts of a line made only of `&&`-joined simple commands; `None` for any other shape.
fn and_chain(line: &str) -> Option<Vec<&str>> {
    let bytes = line.as_bytes();
    let (mut parts, mut start, mut i) = (Vec::new(), 0, 0);
    let (mut single, mut double) = (false, false);
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' if !single => i += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'`' if !single => return None,
            b'$' if !single && bytes.get(i + 1) == Some(&b'(') => return None,
            _ if single || double => {}
            b'&' if bytes.get(i + 1) == Some(&b'&') => {
                parts.push(line[start..i].trim());
                i += 1;
                start = i + 1;
            }
            b';' | b'|' | b'&' | b'\n' | b'(' | b')' | b'{' | b'}' | b'<' | b'>' => return None,
            _ => {}
        }
        i += 1;
    }
    if single || double {
        return None;
    }
    parts.push(line[start..].trim());
    parts.iter().all(|p| !p.is_empty()).then_some(parts)
}

/// The one command `part` is, as written: the commands of the recipes and scripts it runs
/// (found one level deeper) are not parts of the line.
fn written_command(part: &str, cwd: &Path) -> Option<shell::SimpleCommand> {
    let script = shell::parse(part, cwd);
    let mut written = script.commands.into_iter().filter(|c| c.depth == 0);
    let cmd = written.next()?;
    written.next().is_none().then_some(cmd)
}

fn is_test_run(part: &str, cwd: &Path, tests: &Regex) -> bool {
    let Some(cmd) = written_command(part, cwd) else {
        return false;
    };
    let Some(program) = cmd.program() else {
        return false;
    };
    let mut words = vec![program];
    for word in &cmd.argv[1..] {
        let Some(word) = word.literal() else {
            return false;
        };
        if NOT_A_RUN
            .iter()
            .chain(&ELSEWHERE)
            .any(|o| word == *o || word.starts_with(&format!("{o}=")))
        {
            return false;
        }
        words.push(word);
    }
    // `cargo test FILTER` passes when the filter matches nothing.
    if program == "cargo"
        && let Some(rest) = words.iter().skip_while(|w| **w != "test").nth(1)
        && !rest.starts_with('-')
    {
        return false;
    }
    let text = words.join(" ");
    tests
        .find(&text)
        .is_some_and(|m| text[..m.start()].trim().is_empty())
}

fn changes_no_code(part: &str, cwd: &Path) -> bool {
    let Some(cmd) = written_command(part, cwd) else {
        return false;
    };
    cmd.program() == Some("git")
        && cmd.writes.is_empty()
        && cmd
            .argv
            .get(1)
            .and_then(Word::literal)
            .is_some_and(|verb| BETWEEN.contains(&verb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::evidence::DEFAULT_TEST_COMMANDS;

    fn tested(line: &str, commit: &str) -> Option<String> {
        let tests = Regex::new(DEFAULT_TEST_COMMANDS).unwrap();
        tested_before(line, commit, Path::new("/w"), &tests)
    }

    #[test]
    fn a_commit_that_runs_only_after_passing_tests_is_verified() {
        let commit = "git commit -qam 'add div'";
        for line in [
            "python3 -m pytest -q && git commit -qam 'add div'",
            "npm test && git add -A && git commit -qam 'add div'",
            "cargo fmt && cargo test && git status && git commit -qam 'add div'",
        ] {
            assert!(tested(line, commit).is_some(), "{line}");
        }
    }

    /// The runners' files the shell reader follows exist: `npm test` and `make test` read
    /// their script and recipe, and stay one test run each.
    #[test]
    fn a_test_script_or_recipe_a_runner_runs_is_one_test_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "node --test test/"}}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join("Makefile"),
            "test:\n\tpython3 -m pytest -q\n\tnpm test\n",
        )
        .unwrap();
        let tests = Regex::new(DEFAULT_TEST_COMMANDS).unwrap();
        let commit = "git commit -am 'x y'";
        for runs in [
            "npm test",
            "npm run test",
            "yarn test",
            "pnpm test",
            "bun test",
            "make test",
            "cargo test",
            "go test ./...",
            "node --test test/",
            "npx mocha",
        ] {
            for line in [
                format!("{runs} && {commit}"),
                format!("{runs} && git add -A && {commit}"),
            ] {
                assert!(
                    tested_before(&line, commit, dir.path(), &tests).is_some(),
                    "{line}"
                );
            }
            for joined in ["; ", " || ", " | ", " & "] {
                let line = format!("{runs}{joined}{commit}");
                assert_eq!(
                    tested_before(&line, commit, dir.path(), &tests),
                    None,
                    "{line}"
                );
            }
        }
    }

    #[test]
    fn any_other_shape_is_not() {
        let commit = "git commit -qam x";
        for line in [
            "pytest; git commit -qam x",
            "pytest || git commit -qam x",
            "pytest | tail -1 && git commit -qam x",
            "pytest & git commit -qam x",
            "git commit -qam x && pytest",
            "pytest && echo x > a.py && git commit -qam x",
            "pytest && sed -i s/a/b/ a.py && git commit -qam x",
            "pytest --collect-only && git commit -qam x",
            "cargo test --manifest-path /elsewhere/Cargo.toml && git commit -qam x",
            "cargo test nothing_matches && git commit -qam x",
            "(pytest) && git commit -qam x",
            "echo pytest && git commit -qam x",
            "pytest $(cat args) && git commit -qam x",
            "pytest || true && git commit -qam x",
        ] {
            assert_eq!(tested(line, commit), None, "{line}");
        }
    }
}
