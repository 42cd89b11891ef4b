//! Which part of a test suite a test command runs: the whole suite, or a selection (pytest
//! `-k`, `-m`, `--deselect`, `--ignore`, node ids and test files; `npm test -- <args>`; a cargo
//! test filter; `go test -run`; a jest or vitest pattern). A selection that passes says nothing
//! of the tests it left out, so after a failing full run it is no evidence (see
//! [`super::proof`]).

use super::super::shell::SimpleCommand;

/// How one test runner is started and which of its arguments select part of the suite.
struct Runner {
    /// The runner's name, the key that ties a selection to the full runs of the same suite.
    name: &'static str,
    /// The words that start it (the program's base name first, `python3` read as `python`).
    starts: &'static [&'static [&'static str]],
    /// Flags that select part of the suite (`--flag`, `--flag=value`, `--flag value`).
    selecting: &'static [&'static str],
    /// Flags that take a value and select nothing (their value is no operand).
    valued: &'static [&'static str],
    /// Operands that name the whole suite (`./...`); any other operand selects part of it.
    whole: &'static [&'static str],
    /// What the words after `--` are: `Forwarded` (to a script that may select anything),
    /// `Filters` (libtest's own arguments: operands and `--skip` select), or `Ignored`.
    after_dashes: AfterDashes,
    /// An environment variable whose words are read as arguments too.
    env: Option<&'static str>,
}

#[derive(Clone, Copy, PartialEq)]
enum AfterDashes {
    Forwarded,
    Filters,
    Ignored,
}

/// Flags forwarded to a test script (`npm test -- …`) that select part of the suite, for the
/// runners such scripts start (jest, vitest, node's own, mocha, pytest). Other flags
/// (`--coverage`, `--verbose`) run everything.
const FORWARDED_SELECTING: [&str; 14] = [
    "-t",
    "--testNamePattern",
    "--testPathPattern",
    "--test-name-pattern",
    "--onlyChanged",
    "--changed",
    "--shard",
    "-k",
    "-m",
    "--deselect",
    "--ignore",
    "-g",
    "--grep",
    "--project",
];

const RUNNERS: [Runner; 6] = [
    Runner {
        name: "pytest",
        starts: &[&["pytest"], &["py.test"], &["python", "-m", "pytest"]],
        selecting: &[
            "-k",
            "-m",
            "--deselect",
            "--ignore",
            "--ignore-glob",
            "--lf",
            "--last-failed",
            "--sw",
            "--stepwise",
            "--pyargs",
        ],
        valued: &[
            "-c",
            "-p",
            "-o",
            "-W",
            "-n",
            "-r",
            "--tb",
            "--maxfail",
            "--rootdir",
            "--junitxml",
            "--junit-xml",
            "--cov",
            "--cov-report",
            "--durations",
            "--basetemp",
            "--log-level",
            "--confcutdir",
            "--timeout",
            "--import-mode",
            "--dist",
            "--color",
        ],
        whole: &["."],
        after_dashes: AfterDashes::Ignored,
        env: Some("PYTEST_ADDOPTS"),
    },
    Runner {
        name: "npm",
        starts: &[
            &["npm", "test"],
            &["npm", "t"],
            &["npm", "run", "test"],
            &["pnpm", "test"],
            &["pnpm", "run", "test"],
            &["yarn", "test"],
            &["yarn", "run", "test"],
            &["bun", "run", "test"],
        ],
        selecting: &["--workspace", "-w", "--filter"],
        valued: &["--prefix", "--cwd", "--dir"],
        whole: &[],
        after_dashes: AfterDashes::Forwarded,
        env: None,
    },
    Runner {
        name: "jest",
        starts: &[
            &["jest"],
            &["vitest"],
            &["vitest", "run"],
            &["npx", "jest"],
            &["npx", "vitest"],
            &["npx", "vitest", "run"],
        ],
        selecting: &[
            "-t",
            "--testNamePattern",
            "--testPathPattern",
            "--testPathPatterns",
            "--testPathIgnorePatterns",
            "-o",
            "--onlyChanged",
            "--changed",
            "--changedSince",
            "--findRelatedTests",
            "--related",
            "--shard",
            "--project",
            "--selectProjects",
        ],
        valued: &[
            "-c",
            "--config",
            "--reporter",
            "--maxWorkers",
            "-w",
            "--root",
        ],
        whole: &[],
        after_dashes: AfterDashes::Forwarded,
        env: None,
    },
    Runner {
        name: "cargo",
        starts: &[&["cargo", "test"], &["cargo", "nextest", "run"]],
        selecting: &[
            "-p",
            "--package",
            "--test",
            "--lib",
            "--bin",
            "--bins",
            "--doc",
            "--example",
            "--examples",
            "--bench",
            "-E",
            "--filterset",
            "--exclude",
            "--partition",
        ],
        valued: &[
            "-F",
            "--features",
            "--target",
            "--manifest-path",
            "--profile",
            "-j",
            "--jobs",
            "--color",
            "--message-format",
            "--target-dir",
            "-Z",
            "--config",
        ],
        whole: &[],
        after_dashes: AfterDashes::Filters,
        env: None,
    },
    Runner {
        name: "go",
        starts: &[&["go", "test"]],
        selecting: &["-run", "--run", "-skip", "--skip", "-short"],
        valued: &["-count", "-timeout", "-p", "-tags", "-coverprofile", "-o"],
        whole: &["./...", "..."],
        after_dashes: AfterDashes::Ignored,
        env: None,
    },
    Runner {
        name: "mocha",
        starts: &[&["mocha"], &["npx", "mocha"]],
        selecting: &["-g", "--grep", "-f", "--fgrep", "--spec"],
        valued: &["--config", "-R", "--reporter", "--timeout", "-t"],
        whole: &[],
        after_dashes: AfterDashes::Ignored,
        env: None,
    },
];

/// The runner a test command starts and what it selects: `None` for the whole suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunScope {
    /// The runner (`pytest`, `cargo`, …): runs of the same runner test the same suite.
    pub(crate) runner: &'static str,
    /// The argument that selects part of the suite, when one does.
    pub(crate) selected_by: Option<String>,
}

/// The scope of `cmd`, a test command, when it starts a runner of the table.
pub(crate) fn scope(cmd: &SimpleCommand) -> Option<RunScope> {
    let words: Vec<String> = std::iter::once(cmd.program()?.to_owned())
        .chain(cmd.argv[1..].iter().map(|w| w.text().to_owned()))
        .map(|w| {
            if w.starts_with("python") {
                "python".to_owned()
            } else {
                w
            }
        })
        .collect();
    let (runner, start) = RUNNERS.iter().find_map(|r| {
        let longest = r
            .starts
            .iter()
            .filter(|s| s.len() <= words.len() && s.iter().zip(&words).all(|(a, b)| a == b))
            .map(|s| s.len())
            .max()?;
        Some((r, longest))
    })?;
    let mut args: Vec<&str> = words[start..].iter().map(String::as_str).collect();
    let from_env: Vec<String> = runner
        .env
        .and_then(|name| cmd.env_var(name))
        .map(|w| w.text().split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    args.extend(from_env.iter().map(String::as_str));
    Some(RunScope {
        runner: runner.name,
        selected_by: selected_by(runner, &args),
    })
}

/// The first argument of `args` that selects part of `runner`'s suite.
fn selected_by(runner: &Runner, args: &[&str]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        if arg == "--" {
            let rest = &args[i + 1..];
            return match runner.after_dashes {
                AfterDashes::Forwarded => rest
                    .iter()
                    .find(|a| {
                        let flag = a.split_once('=').map_or(**a, |(f, _)| f);
                        !a.starts_with('-') || FORWARDED_SELECTING.contains(&flag)
                    })
                    .map(|a| format!("-- {a}")),
                AfterDashes::Filters => filters(rest),
                AfterDashes::Ignored => None,
            };
        }
        let flag = arg.split_once('=').map_or(arg, |(f, _)| f);
        if arg.starts_with('-') {
            if runner.selecting.contains(&flag) {
                let value = match arg.split_once('=') {
                    Some(_) => String::new(),
                    None => args.get(i + 1).map(|v| format!(" {v}")).unwrap_or_default(),
                };
                return Some(format!("{arg}{value}"));
            }
            if runner.valued.contains(&flag) && !arg.contains('=') {
                i += 1;
            }
        } else if !runner.whole.contains(&arg) {
            return Some(arg.to_owned());
        }
        i += 1;
    }
    None
}

/// The first of libtest's arguments that selects tests: a filter or `--skip`.
fn filters(args: &[&str]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "--skip" | "--exact" => {
                return Some(
                    args[i..]
                        .iter()
                        .take(2)
                        .copied()
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            "--test-threads" | "--format" | "-Z" | "--color" => i += 1,
            a if !a.starts_with('-') => return Some(a.to_owned()),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::shell;
    use std::path::Path;

    fn scope_of(line: &str) -> Option<RunScope> {
        let script = shell::parse(line, Path::new("/r"));
        script.commands.iter().find_map(scope)
    }

    #[test]
    fn selections_are_read_from_the_table() {
        for (line, by) in [
            ("python3 -m pytest -q -k add", "-k add"),
            (
                "pytest -q tests/test_core.py::test_add",
                "tests/test_core.py::test_add",
            ),
            (
                "pytest --deselect tests/a.py::t -q",
                "--deselect tests/a.py::t",
            ),
            (
                "pytest -q --ignore=tests/test_core.py",
                "--ignore=tests/test_core.py",
            ),
            ("PYTEST_ADDOPTS='-m fast' pytest -q", "-m fast"),
            ("npm test -- -t add", "-- -t"),
            ("cargo test parser", "parser"),
            ("cargo test -- --skip slow", "--skip slow"),
            ("go test -run TestAdd ./...", "-run TestAdd"),
            ("npx jest src/a.test.js", "src/a.test.js"),
            ("vitest run -t add", "-t add"),
        ] {
            let s = scope_of(line).unwrap_or_else(|| panic!("{line}: no runner"));
            assert_eq!(s.selected_by.as_deref(), Some(by), "{line}");
        }
        for (line, runner) in [
            ("python3 -m pytest -q", "pytest"),
            ("pytest -q -x --tb=short -p no:cacheprovider", "pytest"),
            ("npm test", "npm"),
            ("npm test -- --coverage", "npm"),
            ("cargo test --all-features -- --nocapture", "cargo"),
            ("cargo test --features x -- --test-threads 1", "cargo"),
            ("go test ./...", "go"),
            ("npx vitest run", "jest"),
        ] {
            let s = scope_of(line).unwrap_or_else(|| panic!("{line}: no runner"));
            assert_eq!((s.runner, s.selected_by), (runner, None), "{line}");
        }
    }
}
