//! `hookjudge check --run-tests`: runs the project's tests and, when they pass, records the run
//! as evidence by writing `.hookjudge/verified` (an artifact the gate counts until the next
//! change). A person's passing run in their own terminal is otherwise invisible to hookjudge.
//!
//! Refused inside an agent: the gate protects `.hookjudge/verified` from agents (see
//! [`crate::gate::protect`]), and `--run-tests true` would write it without running anything.
//! An agent's own test runs are seen in its transcript instead.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::UserError;
use crate::support::time::Timestamp;

/// The file a passing run writes, relative to the repository root.
pub(super) const VERIFIED: &str = ".hookjudge/verified";

/// The test command a project's files name, first match wins.
const TEST_COMMANDS: [(&str, &str); 6] = [
    ("Cargo.toml", "cargo test"),
    ("package.json", "npm test"),
    ("go.mod", "go test ./..."),
    ("pyproject.toml", "pytest"),
    ("pytest.ini", "pytest"),
    ("Makefile", "make test"),
];

/// Runs `command` (or the one the project's files name, when empty) in `root`, its output on
/// stderr, and records a pass; a failure removes an earlier record.
pub(super) fn run_and_record(root: &Path, command: &str) -> Result<(), UserError> {
    if let Some(why) = crate::agent::human::inside_agent() {
        return Err(UserError::new(format!(
            "`--run-tests` records evidence for the gate, so it is for a person's own terminal, and {why}"
        ))
        .hint("run the tests as a command of their own: the gate sees the run in the session"));
    }
    let command = if command.trim().is_empty() {
        infer(root)?
    } else {
        command.to_owned()
    };
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "hookjudge check: running `{command}` in `{}`",
        root.display()
    );
    let status = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| UserError::new(format!("cannot run `{command}`: {e}")))?;
    let record = root.join(VERIFIED);
    if !status.success() {
        let _ = std::fs::remove_file(&record);
        let _ = writeln!(
            err,
            "hookjudge check: `{command}` failed ({status}); nothing recorded"
        );
        return Ok(());
    }
    let text = format!(
        "`{command}` passed at {}, run by `hookjudge check --run-tests`\n",
        Timestamp::now().rfc3339()
    );
    let dir = record.parent().unwrap_or(root);
    // The folder ignores itself, so that the record is not an uncommitted change of its own
    // where `init` has not excluded `.hookjudge/`.
    let ignore = dir.join(".gitignore");
    std::fs::create_dir_all(dir)
        .and_then(|()| match ignore.exists() {
            true => Ok(()),
            false => std::fs::write(&ignore, "*\n"),
        })
        .and_then(|()| std::fs::write(&record, text))
        .map_err(|e| {
            UserError::new(format!(
                "cannot record the run in `{}`: {e}",
                record.display()
            ))
        })?;
    let _ = writeln!(
        err,
        "hookjudge check: `{command}` passed; recorded in `{VERIFIED}`"
    );
    Ok(())
}

/// The test command `root`'s files name.
fn infer(root: &Path) -> Result<String, UserError> {
    TEST_COMMANDS
        .iter()
        .find(|(file, _)| root.join(file).is_file())
        .map(|(_, command)| (*command).to_owned())
        .ok_or_else(|| {
            let files: Vec<&str> = TEST_COMMANDS.iter().map(|(f, _)| *f).collect();
            UserError::new(format!(
                "no test command found in `{}` (looked for {})",
                root.display(),
                files.join(", ")
            ))
            .hint("name it: `hookjudge check --run-tests \"make check\"`")
        })
}
