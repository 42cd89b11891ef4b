//! The words of the gate's reasons: what evidence was found, counts, commit lists, a command
//! shortened to one line, and the patterns of protected branches and pathspecs.

use crate::gate::evidence::{self, Finding};
use crate::gate::facts::Commits;

/// Whether the pathspec `p` (a path, a directory, `.`, `*` or `:/`) covers the file `f`.
pub(super) fn path_covers(p: &str, f: &str) -> bool {
    let p = p.trim_start_matches("./").trim_start_matches(":/");
    p.is_empty()
        || p == "."
        || p == "*"
        || f == p
        || f.starts_with(&format!("{}/", p.trim_end_matches('/')))
        || (p.contains('*') && evidence::glob_match(p, f))
}

/// What the evidence shows, for a reason.
pub(super) fn describe(finding: &Finding) -> String {
    match finding {
        Finding::StaleArtifact {
            path,
            change_is_newer_by_ms,
        } => {
            format!(
                "the newest test results (`{}`) are {} older than the last change",
                path.display(),
                seconds(*change_is_newer_by_ms / 1000)
            )
        }
        Finding::FailedArtifact { path, failed } => format!(
            "the newest test results (`{}`) report {}",
            path.display(),
            plural(*failed, "failure")
        ),
        Finding::ChangeAfterTests {
            tool,
            last_test: Some(t),
        } if tool == evidence::NO_CHANGE_SEEN => format!("the last test run did not pass: {t}"),
        Finding::ChangeAfterTests {
            tool,
            last_test: Some(t),
            // Read newest first, the failed run came after the change.
        } => format!("the last test run, after files changed ({tool}), did not pass: {t}"),
        Finding::ChangeAfterTests {
            tool,
            last_test: None,
        } => format!("files changed ({tool}) and no test run followed"),
        Finding::WrittenArtifact { path, by } => format!(
            "the test results `{}` were written by the session itself ({by}), not by a test run",
            path.display()
        ),
        Finding::SessionWritten { command } => format!(
            "the session file was written by the agent's own command (`{command}`), so the test runs it shows are no evidence"
        ),
        Finding::PartialAfterFailure { full, partial } => {
            format!("the last full run (`{full}`) failed; `{partial}` ran only part of the suite")
        }
        Finding::HarnessEdited { file, by, command } => format!(
            "`{command}` ran after the session edited `{file}` ({by}), which decides what the tests run and report, so its result may come from that edit"
        ),
        Finding::None => "no test artifacts and no test run in the session".into(),
        Finding::TestRunPending { command } => {
            format!("the result of `{command}` is not in the session yet")
        }
        Finding::FreshArtifact { .. } | Finding::TestRunAfterChange { .. } => "verified".into(),
    }
}

fn seconds(s: i64) -> String {
    match s {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s => format!("{} h", s / 3600),
    }
}

pub(super) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

pub(super) fn subjects(commits: &Commits) -> String {
    let mut parts: Vec<String> = commits
        .first
        .iter()
        .take(3)
        .map(|c| format!("{} {}", c.id, c.subject))
        .collect();
    if commits.count > 3 {
        parts.push(format!("… {} more", commits.count - 3));
    }
    parts.join("; ")
}

/// `release/*` matches `release/1.2`; `*` stays within a segment.
pub fn branch_matches(pattern: &str, branch: &str) -> bool {
    let (p, b): (Vec<&str>, Vec<&str>) =
        (pattern.split('/').collect(), branch.split('/').collect());
    p.len() == b.len()
        && p.iter().zip(&b).all(|(p, b)| {
            *p == "*" || p == b || (p.ends_with('*') && b.starts_with(p.trim_end_matches('*')))
        })
}

pub(super) fn short(command: &str) -> String {
    // A whole command line, in a reason the agent reads.
    crate::support::text::short(command, 120)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_branch_patterns() {
        assert!(branch_matches("main", "main"));
        assert!(branch_matches("release/*", "release/1.2"));
        assert!(!branch_matches("release/*", "release"));
        assert!(!branch_matches("main", "maintenance"));
    }
}
