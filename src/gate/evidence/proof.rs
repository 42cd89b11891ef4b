//! What the events before a passing test run can say against it, read newest first once the
//! run is found:
//! - a command of the current turn wrote an agent's session file: the lines the run is read
//!   from may be forged;
//! - the session edited a file that decides what the runner runs or reports (`conftest.py`,
//!   `package.json`'s test script, …: [`HARNESS_FILES`]): the edit may have made the run pass;
//! - the run selected part of its suite and the runner's latest full run failed, with no full
//!   run passing since: the part says nothing of the tests it left out.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

use super::Finding;
use super::bash::short;
use super::selection::RunScope;
use super::session::{CHANGE_TOOLS, Reader};
use crate::support::paths::normalize;
use crate::transcript::Event;

/// Files that decide what a test runner runs or how it reports: a name, or a prefix followed by
/// `*`. An edit to one of them can make a failing suite pass (a `conftest.py` hook that drops
/// tests or sets the exit status, a test script replaced by `echo`, `addopts` that deselect).
pub const HARNESS_FILES: [&str; 16] = [
    "conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "noxfile.py",
    "package.json",
    "jest.config.*",
    "jest.setup.*",
    "vitest.config.*",
    "vite.config.*",
    "vitest.workspace.*",
    ".mocharc*",
    "karma.conf.*",
    "Makefile",
    "justfile",
];

/// Whether the file at `path` is one of [`HARNESS_FILES`].
pub fn is_harness_file(path: &str) -> bool {
    let name = Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    HARNESS_FILES.iter().any(|h| match h.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == *h,
    })
}

/// Reads the events older than a passing run (see the module's doc).
pub(super) struct BeforeRun<'a, 'r> {
    reader: &'a Reader<'r>,
    /// The passing run.
    command: String,
    /// Its runner and selection, when it ran part of its suite.
    partial: Option<(&'static str, String)>,
    /// Call id -> whether it passed, for the older runs.
    passed: HashMap<String, bool>,
    /// Events left to read.
    left: usize,
    /// Still in the run's turn (a forged session line comes after the command that wrote it,
    /// in the same turn).
    in_turn: bool,
}

impl<'a, 'r> BeforeRun<'a, 'r> {
    pub(super) fn new(
        reader: &'a Reader<'r>,
        command: &str,
        scope: Option<&RunScope>,
        lookback: usize,
    ) -> Self {
        BeforeRun {
            reader,
            command: command.to_owned(),
            partial: scope.and_then(|s| Some((s.runner, s.selected_by.clone()?))),
            passed: HashMap::new(),
            left: lookback,
            in_turn: true,
        }
    }

    /// Reads the next older event: `Break(Some(finding))` when it voids the run, `Break(None)`
    /// when nothing older can.
    pub(super) fn visit(&mut self, event: &Event) -> ControlFlow<Option<Finding>> {
        match event {
            Event::UserTurn { .. } | Event::Compaction => self.in_turn = false,
            Event::ToolResult {
                id, failed, exit, ..
            } => {
                self.passed
                    .entry(id.clone())
                    .or_insert(!failed && exit.is_none_or(|c| c == 0));
            }
            Event::ToolCall { tool, files, .. } if CHANGE_TOOLS.contains(&tool.as_str()) => {
                if let Some(file) = files.iter().find(|f| self.harness_in_repo(f)) {
                    return ControlFlow::Break(Some(self.harness(file, tool)));
                }
            }
            Event::ToolCall {
                id,
                tool,
                command: Some(command),
                ..
            } if tool == "Bash" => {
                let call = self.reader.read(command);
                if self.in_turn && call.writes_session {
                    return ControlFlow::Break(Some(Finding::SessionWritten {
                        command: short(command),
                    }));
                }
                let by = format!("Bash `{}`", short(command));
                if let Some(file) = call
                    .writes
                    .iter()
                    .flatten()
                    .find(|f| self.harness_in_repo(f))
                {
                    return ControlFlow::Break(Some(self.harness(file, &by)));
                }
                if let Some(file) = call.code_writes.then(|| harness_named(command)).flatten() {
                    return ControlFlow::Break(Some(self.harness(file, &by)));
                }
                if let (Some((runner, _)), Some(scope)) = (&self.partial, &call.test_scope)
                    && scope.runner == *runner
                    && scope.selected_by.is_none()
                {
                    match self.passed.get(id) {
                        Some(true) => self.partial = None,
                        Some(false) => {
                            return ControlFlow::Break(Some(Finding::PartialAfterFailure {
                                full: short(command),
                                partial: short(&self.command),
                            }));
                        }
                        None => {}
                    }
                }
            }
            _ => {}
        }
        self.left = self.left.saturating_sub(1);
        if self.left == 0 {
            return ControlFlow::Break(None);
        }
        ControlFlow::Continue(())
    }

    fn harness(&self, file: &str, by: &str) -> Finding {
        Finding::HarnessEdited {
            file: self.relative(file),
            by: by.to_owned(),
            command: short(&self.command),
        }
    }

    /// Whether `path` is a harness file of the repository whose tests count.
    fn harness_in_repo(&self, path: &str) -> bool {
        if !is_harness_file(path) {
            return false;
        }
        let Some(root) = self.reader.root else {
            return true;
        };
        normalize(&self.reader.cwd.join(path)).starts_with(normalize(root))
    }

    fn relative(&self, path: &str) -> String {
        let full = normalize(&self.reader.cwd.join(path));
        let base = normalize(self.reader.root.unwrap_or(self.reader.cwd));
        full.strip_prefix(&base)
            .map_or_else(|_| path.to_owned(), |p| p.to_string_lossy().into_owned())
    }
}

/// A harness file that interpreter code on a command line names, when it names one.
fn harness_named(command: &str) -> Option<&'static str> {
    HARNESS_FILES
        .iter()
        .map(|h| h.trim_end_matches('*'))
        .find(|h| command.contains(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_files_are_known_by_name() {
        for harness in [
            "conftest.py",
            "/r/tests/conftest.py",
            "package.json",
            "jest.config.ts",
            ".mocharc.yml",
            "pyproject.toml",
        ] {
            assert!(is_harness_file(harness), "{harness}");
        }
        for code in [
            "src/lib.rs",
            "mypkg/core.py",
            "tests/test_core.py",
            "package-lock.json",
        ] {
            assert!(!is_harness_file(code), "{code}");
        }
        assert_eq!(
            harness_named("python3 -c \"open('conftest.py','w').write('x')\""),
            Some("conftest.py")
        );
    }
}
