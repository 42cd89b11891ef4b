//! What a Bash call in a session did, as far as its text shows: whether it really ran the tests
//! (the shell would run the test command and its status decides the call's exit code: not inside
//! `echo` or a comment, not `… || true`, `…; true`, `… & wait`, `(…); exit 0`, not
//! `--no-run`/`--collect-only`, and in this repository, not `--manifest-path /elsewhere/…` or
//! after `cd /other`), whether it ran a build or lint, made commits or pushed, which files it
//! wrote (redirections, `sed -i`, `tee`, `mv`, `cp`, `git apply`, `patch`, …), and whether it
//! wrote an agent's session file (whose lines are then no evidence).

use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use super::super::repos::Repos;
use super::super::shell::{self, SimpleCommand, Word};
use super::selection::{self, RunScope};
use crate::support::paths::normalize;

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

/// Flags of test runners and build tools that name the project (or a directory in it) to run.
const PROJECT_FLAGS: [&str; 7] = [
    "--manifest-path",
    "--prefix",
    "-C",
    "--cwd",
    "--dir",
    "--rootdir",
    "--project",
];

/// Where the agents keep their session files, and what their names hold: a command that writes
/// there (or runs interpreter code that names them) may forge the lines the evidence reads.
const SESSION_FILES: [(&str, &str); 6] = [
    (".claude/projects", "jsonl"),
    (".codex/sessions", "jsonl"),
    (".gemini/tmp", "jsonl"),
    (".factory/sessions", "jsonl"),
    (".copilot/session-state", "jsonl"),
    (".cline/data/sessions", ".messages.json"),
];

/// Programs that run code given on their command line (`python3 -c`, `node -e`, …), whose
/// writes the line does not show.
const INTERPRETERS: [&str; 10] = [
    "python", "python3", "node", "perl", "ruby", "php", "deno", "bun", "sh", "bash",
];

/// Build, lint and type-check commands, as a regex over one simple command: a claim that the
/// build or a check passes is compared with the last of these.
pub const DEFAULT_CHECK_COMMANDS: &str = r"^(?:cargo (?:build|check|clippy|b|c)|(?:npm|pnpm|yarn|bun)(?: run)? (?:build|lint|typecheck|check|tsc)|npx (?:tsc|eslint)|tsc|eslint|ruff|mypy|pyright|flake8|go (?:build|vet)|make(?: (?:all|build|lint|check))?|mvn(?: \S+)* (?:compile|package)|(?:\./)?gradlew?(?: \S+)* build|dotnet build|swift build|zig build|cmake --build|ninja)(?:\s|$)";

/// What a Bash call did, as far as its text shows.
#[derive(Debug, Default)]
pub(crate) struct ShellCall {
    /// A real test run of this repository, whose status is the call's exit status.
    pub(crate) test: Option<String>,
    /// The runner of that run and the part of its suite it selected.
    pub(crate) test_scope: Option<RunScope>,
    /// A test run that is no evidence whatever the call's status: why (`the status of
    /// \`…; true\` is not the test's`, another project's tests).
    pub(crate) unproven_test: Option<&'static str>,
    /// The command line of that run.
    pub(crate) unproven_test_command: Option<String>,
    /// A build, lint or type check whose status is the call's.
    pub(crate) check: bool,
    /// It makes commits (`git commit`, `merge`, `cherry-pick`, …).
    pub(crate) commits: bool,
    /// It pushes (`git push`).
    pub(crate) pushes: bool,
    /// Files it writes (`None` in the list: a write whose target cannot be read).
    pub(crate) writes: Vec<Option<String>>,
    /// It writes an agent's session file, or runs interpreter code that names one.
    pub(crate) writes_session: bool,
    /// It runs code given on its command line (`python3 -c`, `node -e`), whose writes the
    /// line does not show.
    pub(crate) interpreted: bool,
    /// That code opens a file for writing ([`CODE_WRITES`]).
    pub(crate) code_writes: bool,
}

/// Interpreter code that writes files, as regexes over the command line; the first group, when
/// it matched, is the file written (else the target is unknown).
const CODE_WRITES: [&str; 5] = [
    // Python: open('f', 'w'|'a'|'x'|'r+'), Path('f').write_text(…)
    r#"\bopen\(\s*[rbf]?['"]([^'"]+)['"]\s*,\s*(?:mode\s*=\s*)?[rbf]?['"][^'"]*[wax+]"#,
    r#"Path\(\s*['"]([^'"]+)['"]\s*\)\s*\.\s*(?:write_text|write_bytes|open|unlink|rename|replace|touch)\("#,
    // Node, Deno, Bun: fs.writeFileSync('f', …), appendFile, createWriteStream, Deno.writeTextFile
    r#"\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|writeTextFile|rmSync|unlinkSync|renameSync)\(\s*['"]([^'"]+)['"]"#,
    // Ruby, PHP, Perl: File.write('f'), file_put_contents('f'), open(F, '>f')
    r#"(?:File\.(?:write|open)|file_put_contents|fopen)\(\s*['"]([^'"]+)['"]"#,
    // A write whose target the code computes.
    r#"\b(?:os\.(?:remove|rename|replace|unlink)|shutil\.(?:copy\w*|move|rmtree)|open\([^)]*,\s*(?:mode\s*=\s*)?['"][^'"]*[wax+])"#,
];

/// Reads one Bash command line run in `cwd`; `root` is the repository whose tests count.
pub(crate) fn read(
    command: &str,
    cwd: &Path,
    root: Option<&Path>,
    tests: &Regex,
    repos: &Repos,
) -> ShellCall {
    let script = shell::parse(command, cwd);
    let mut call = ShellCall::default();
    let mut interpreted = false;
    // `trap 'exit 0' EXIT` sets the line's status whatever the tests did.
    let traps_exit = script.commands.iter().any(|c| c.program() == Some("trap"));
    for cmd in &script.commands {
        call.writes.extend(writes_of(cmd));
        let verb = git_verb(cmd, repos);
        call.commits |= verb.as_deref().is_some_and(makes_commits);
        call.pushes |= verb.as_deref() == Some("push");
        interpreted |= cmd.program().is_some_and(|p| {
            INTERPRETERS.contains(&p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'))
                || INTERPRETERS.contains(&p)
        });
        if cmd.status_ignored {
            continue;
        }
        if call.test.is_none() && is_test_run(cmd, tests) {
            if traps_exit || status_hidden(command, cmd) {
                call.unproven_test = Some("its exit status is not the test run's");
                call.unproven_test_command = Some(command.to_owned());
            } else if root.is_some_and(|root| runs_elsewhere(cmd, root)) {
                call.unproven_test = Some("it ran another project's tests");
                call.unproven_test_command = Some(command.to_owned());
            } else {
                call.test = Some(command.to_owned());
                call.test_scope = selection::scope(cmd).map(|mut scope| {
                    // In a directory below the repository's root, only that part runs.
                    if let (Some(root), Some(dir)) = (root, &cmd.cwd)
                        && normalize(dir) != normalize(root)
                        && scope.selected_by.is_none()
                    {
                        scope.selected_by = Some(format!("cd {}", dir.display()));
                    }
                    scope
                });
            }
        } else if !call.check && is_check_run(cmd) && !status_hidden(command, cmd) {
            call.check = true;
        }
    }
    let names_session = SESSION_FILES
        .iter()
        .any(|(dir, name)| command.contains(dir) && command.contains(name));
    call.writes_session = names_session && (interpreted || !call.writes.is_empty());
    call.interpreted = interpreted;
    if interpreted {
        let written = code_writes(command);
        call.code_writes = !written.is_empty();
        call.writes.extend(written);
    }
    if call.test.is_some() {
        call.unproven_test = None;
        call.unproven_test_command = None;
    }
    call
}

/// Whether the line's status may not be `cmd`'s: a command runs after it unconditionally (`;`,
/// a newline, `&`, `||`), unless `set -e` stops the line at a failure first.
fn status_hidden(line: &str, cmd: &SimpleCommand) -> bool {
    let Some(at) = line.find(cmd.source.as_str()) else {
        return false;
    };
    let rest = &line[at + cmd.source.len()..];
    // The last `set -e` or `set +e` before the command decides.
    let errexit = {
        static SET_E: OnceLock<Regex> = OnceLock::new();
        SET_E
            .get_or_init(|| {
                Regex::new(r"\bset\s+(?:([-+])[a-zA-Z]*e[a-zA-Z]*\b|([-+])o\s+errexit\b)")
                    .expect("valid")
            })
            .captures_iter(&line[..at])
            .last()
            .and_then(|c| c.get(1).or(c.get(2)))
            .is_some_and(|sign| sign.as_str() == "-")
    };
    let bytes = rest.as_bytes();
    let (mut single, mut double) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        let prev = if i > 0 { bytes[i - 1] } else { b' ' };
        match c {
            b'\\' if !single => i += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            _ if single || double => {}
            b'|' if next == Some(b'|') => return true,
            b'&' if next == Some(b'&') => i += 1,
            b'&' if prev == b'>' || prev == b'<' || next == Some(b'>') => {}
            b'&' => return true,
            // Any command after it, `:` and `true` included, gives the line its status; a
            // closing `)` or `}`, a comment or nothing does not.
            b';' | b'\n'
                if !errexit
                    && rest[i + 1..]
                        .trim_start()
                        .starts_with(|c: char| !")};#".contains(c)) =>
            {
                return true;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether a test command runs a project outside `root`: after a `cd` elsewhere, or with a
/// flag or path operand that names another directory.
fn runs_elsewhere(cmd: &SimpleCommand, root: &Path) -> bool {
    let base = cmd.cwd.clone().unwrap_or_else(|| root.to_path_buf());
    let outside = |p: &str| !normalize(&base.join(p)).starts_with(normalize(root));
    if cmd
        .cwd
        .as_ref()
        .is_some_and(|c| !normalize(c).starts_with(normalize(root)))
    {
        return true;
    }
    let args: Vec<&str> = cmd.argv.iter().filter_map(Word::literal).collect();
    let mut i = 1;
    while i < args.len() {
        let arg = args[i];
        if let Some((flag, value)) = arg.split_once('=')
            && PROJECT_FLAGS.contains(&flag)
            && outside(value)
        {
            return true;
        }
        if PROJECT_FLAGS.contains(&arg)
            && let Some(value) = args.get(i + 1)
        {
            if outside(value) {
                return true;
            }
            i += 1;
        } else if (arg.starts_with('/') || arg.starts_with("../")) && outside(arg) {
            return true;
        }
        i += 1;
    }
    false
}

/// The files interpreter code on `line` writes ([`CODE_WRITES`]), `None` for a target it
/// computes. Read on the whole line: the code is in quotes the shell parser keeps as one word.
fn code_writes(line: &str) -> Vec<Option<String>> {
    static WRITES: OnceLock<Vec<Regex>> = OnceLock::new();
    let writes = WRITES.get_or_init(|| {
        CODE_WRITES
            .iter()
            .map(|w| Regex::new(w).expect("valid"))
            .collect()
    });
    let mut found: Vec<Option<String>> = Vec::new();
    for regex in writes {
        for m in regex.captures_iter(line) {
            found.push(m.get(1).map(|f| f.as_str().to_owned()));
        }
    }
    // A target named by one pattern makes the bare `.write(` of the same code no unknown.
    if found.iter().any(Option::is_some) {
        found.retain(Option::is_some);
    }
    found
}

fn is_check_run(cmd: &SimpleCommand) -> bool {
    static CHECKS: OnceLock<Regex> = OnceLock::new();
    let checks = CHECKS.get_or_init(|| Regex::new(DEFAULT_CHECK_COMMANDS).expect("valid"));
    let Some(program) = cmd.program() else {
        return false;
    };
    let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
    if words.iter().any(|w| NOT_A_RUN.contains(w)) {
        return false;
    }
    let line = std::iter::once(program)
        .chain(words[1..].iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    checks.is_match(&line)
}

/// Summaries of test runners that ran no test (a filter that matched nothing, an empty
/// selection): such a run exits 0 for some runners and proves nothing.
const RAN_NO_TEST: [&str; 8] = [
    r"\bno tests ran\b",
    r"\bcollected 0 items\b",
    r"\b0 passed\b[^\n]*\b[1-9]\d* (?:filtered out|deselected)\b",
    r"(?i)\bno tests? (?:files? )?found\b",
    r"\bno tests to run\b",
    r"\bRan 0 tests\b",
    r"\b0 examples, 0 failures\b",
    r"\bTests:\s+0 total\b",
];

/// Whether a test run's output says it ran no test: a summary of [`RAN_NO_TEST`] and no count
/// of tests that passed.
pub(crate) fn ran_no_test(output: &str) -> bool {
    static NONE: OnceLock<regex::RegexSet> = OnceLock::new();
    static SOME: OnceLock<Regex> = OnceLock::new();
    let none = NONE.get_or_init(|| regex::RegexSet::new(RAN_NO_TEST).expect("valid"));
    let some = SOME.get_or_init(|| {
        Regex::new(r"\b[1-9]\d* (?:passed|tests? passed|examples?)\b|\bRan [1-9]|\bok\s+\S+\s+[0-9.]+s\s*$")
            .expect("valid")
    });
    none.is_match(output) && !some.is_match(output)
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

/// The git verb of a simple command, when it is a git command with a literal verb (read once
/// per command: whether it commits and whether it pushes are both asked of it).
fn git_verb(cmd: &SimpleCommand, repos: &Repos) -> Option<String> {
    if !super::super::git::is_git(cmd) {
        return None;
    }
    let inv = super::super::git::read(cmd, &Default::default(), repos);
    inv.verb.as_ref().and_then(Word::literal).map(str::to_owned)
}

/// Whether a git verb makes commits.
fn makes_commits(verb: &str) -> bool {
    matches!(
        verb,
        "commit" | "merge" | "cherry-pick" | "revert" | "am" | "rebase" | "pull" | "commit-tree"
    )
}

pub(crate) fn short(text: &str) -> String {
    // A command among the session's facts: a line of a list.
    crate::support::text::short(text, 60)
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
