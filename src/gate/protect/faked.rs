//! Faked verification evidence: a command that writes a file the gate reads as proof of a test
//! run (`gate.artifacts`, `.hookjudge/verified`) without running the tests.

use std::path::{Component, Path, PathBuf};

use crate::gate::shell::{self, SimpleCommand, Word};
use crate::support::paths::normalize;

/// Programs that write the files named in their arguments (besides redirects).
const ARTIFACT_WRITERS: [&str; 12] = [
    "touch", "cp", "mv", "ln", "install", "tee", "dd", "rsync", "sed", "truncate", "echo", "printf",
];

/// What the config says about evidence, for telling a faked artifact from a test run's own.
#[derive(Debug, Clone, Default)]
pub struct EvidenceSettings {
    /// Artifact globs besides [`crate::gate::evidence::DEFAULT_ARTIFACTS`] (`gate.artifacts`).
    pub artifacts: Vec<String>,
    /// The test-command regex (`gate.test_commands`); the default when `None`.
    pub test_commands: Option<String>,
}

/// A command that writes a file the gate reads as proof of a test run (`gate.artifacts`:
/// `.pytest_cache/v/cache/lastfailed`, `junit.xml`, …) without running the tests: a faked
/// verification, gated as a hook bypass like a write to `.hookjudge/verified`. A test run that
/// writes its own output there (`pytest > junit.xml`) ran the tests and is not faked; `echo`,
/// `cat`, `cp`, `touch` and the like are. `settings` is asked for only when the line may name
/// an artifact.
pub fn faked_evidence(
    command: &str,
    cwd: &Path,
    settings: impl FnOnce() -> EvidenceSettings,
) -> Option<crate::gate::classify::Gated> {
    let lower = command.to_ascii_lowercase();
    // A user-added glob can name anything: any line that writes a file may concern it.
    let writes = lower.contains('>')
        || lower
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|w| ARTIFACT_WRITERS.contains(&w));
    if !writes {
        return None;
    }
    let mut globs: Vec<String> = crate::gate::evidence::DEFAULT_ARTIFACTS
        .iter()
        .map(|g| (*g).to_owned())
        .collect();
    let settings = settings();
    globs.extend(settings.artifacts);
    let tests = settings
        .test_commands
        .and_then(|t| crate::gate::evidence::test_commands(&t))
        .or_else(|| {
            crate::gate::evidence::test_commands(crate::gate::evidence::DEFAULT_TEST_COMMANDS)
        });
    let is_artifact = |word: &str, dir: Option<&Path>| {
        let path = match dir {
            Some(dir) if !word.starts_with('/') => dir.join(word),
            _ => PathBuf::from(word),
        };
        is_artifact(&path, &globs)
    };
    let script = shell::parse(command, cwd);
    let runs_tests = |cmd: &SimpleCommand| tests.as_ref().is_some_and(|t| is_test_run(cmd, t));
    for cmd in &script.commands {
        let program = cmd.program().unwrap_or("");
        let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
        let args = words.get(1..).unwrap_or_default();
        let by_args = ARTIFACT_WRITERS.contains(&program)
            && !matches!(program, "echo" | "printf")
            && args
                .iter()
                .any(|w| !w.starts_with('-') && is_artifact(w, cmd.cwd.as_deref()));
        let by_redirect = !runs_tests(cmd)
            && cmd
                .writes
                .iter()
                .any(|w| is_artifact(w.text(), cmd.cwd.as_deref()));
        if by_args || by_redirect {
            return Some(faked(cmd));
        }
    }
    // Redirects read from the text (the parser leaves some to no command: `a && b > f`,
    // `{ …; } > f`): each is faked unless the statement it ends is a test run itself.
    for (target, statement) in redirects_with_statements(command) {
        let Some(cmd) = script
            .commands
            .iter()
            .find(|c| is_artifact(&target, c.cwd.as_deref()))
        else {
            continue;
        };
        let own_output = script
            .commands
            .iter()
            .any(|c| runs_tests(c) && is_statement_of(&statement, &c.source));
        if !own_output {
            return Some(faked(cmd));
        }
    }
    None
}

/// Whether `path` is a file the gate reads as proof of a test run (`globs`: the artifact
/// globs), relative to any directory (the repository root is one of them); a file only (the
/// directories holding artifacts may be made by anyone).
fn is_artifact(path: &Path, globs: &[String]) -> bool {
    let parts: Vec<String> = normalize(path)
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (0..parts.len()).any(|i| {
        let rel = parts[i..].join("/");
        crate::gate::glob::covers(&rel, globs) && crate::gate::evidence::matches_a_glob(&rel, globs)
    })
}

/// What a file tool's write of `path` fakes, if `path` is one of the default artifacts
/// (`.hookjudge/verified`, `junit.xml`, …): the gate would read it as a test run.
pub(super) fn faked_by_file_tool(path: &Path) -> Option<String> {
    let globs: Vec<String> = crate::gate::evidence::DEFAULT_ARTIFACTS
        .iter()
        .map(|g| (*g).to_owned())
        .collect();
    is_artifact(path, &globs).then(|| {
        format!(
            "edit writes `{}`, a file the gate reads as proof of a test run, without running the tests; run them instead",
            path.display()
        )
    })
}

/// Each redirect target in `source`, with the text of the statement it ends: from the last
/// separator (`;`, `&&`, `||`, `|`, a newline, `(`, `{`, `` ` ``) before its `>`.
fn redirects_with_statements(source: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (at, _) in source.match_indices('>') {
        if source[..at].ends_with('>') {
            continue; // the second `>` of `>>`
        }
        let before = &source[..at];
        let start = [";", "&&", "||", "|", "\n", "(", "{", "`"]
            .iter()
            .filter_map(|sep| before.rfind(sep).map(|i| i + sep.len()))
            .max()
            .unwrap_or(0);
        if let (_, Some(target)) = super::redirect_target(&source[at + 1..]) {
            out.push((target.to_owned(), before[start..].to_owned()));
        }
    }
    out
}

/// Whether `statement` (the text before a `>`) is the command `source` followed only by other
/// redirections (`2>&1`) and the `>`'s file descriptor (`2`, `&`).
fn is_statement_of(statement: &str, source: &str) -> bool {
    let Some(rest) = statement.trim_start().strip_prefix(source.trim()) else {
        return false;
    };
    let redirections =
        regex::Regex::new(r"^(?:\s+\d*(?:&>>?|>>?\|?|<)&?\s*[^\s;&|<>]+)*\s*[\d&]*$")
            .expect("a valid regex");
    (rest.is_empty() || rest.starts_with(char::is_whitespace) || rest == "&")
        && redirections.is_match(rest)
}

/// Whether `cmd` runs tests (the program by its base name, matched by `tests` from its start),
/// rather than listing them or printing a version.
fn is_test_run(cmd: &SimpleCommand, tests: &regex::Regex) -> bool {
    let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
    let Some(program) = cmd.program() else {
        return false;
    };
    if words
        .iter()
        .any(|w| crate::gate::evidence::NOT_A_RUN.contains(w))
    {
        return false;
    }
    let line = std::iter::once(program)
        .chain(words.iter().skip(1).copied())
        .collect::<Vec<_>>()
        .join(" ");
    tests
        .find(&line)
        .is_some_and(|m| line[..m.start()].trim().is_empty())
}

fn faked(cmd: &SimpleCommand) -> crate::gate::classify::Gated {
    crate::gate::classify::Gated {
        class: crate::gate::classify::Class::HookBypass,
        command: cmd.source.clone(),
        target: crate::gate::classify::Target {
            dir: cmd.cwd.clone(),
            git_dir: None,
            work_tree: None,
        },
        push: None,
        destructive: None,
        what: "writes a file hookjudge reads as proof of a test run (`gate.artifacts`) without running the tests".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_is_its_command_and_redirections_only() {
        assert!(is_statement_of("cargo test ", "cargo test"));
        assert!(is_statement_of(" cargo test 2>&1 ", "cargo test"));
        assert!(is_statement_of("cargo test 2", "cargo test"));
        assert!(is_statement_of("cargo test&", "cargo test"));
        assert!(!is_statement_of("pytest2 ", "pytest"));
        assert!(!is_statement_of("pytest \" ", "pytest"));
        assert!(!is_statement_of("pytest; echo x ", "pytest"));
    }

    #[test]
    fn redirects_are_paired_with_their_statement() {
        assert_eq!(
            redirects_with_statements("cd d && cargo test > junit.xml"),
            [("junit.xml".to_owned(), " cargo test ".to_owned())]
        );
        assert_eq!(
            redirects_with_statements("{ echo x; } >> out"),
            [("out".to_owned(), " } ".to_owned())]
        );
    }
}
