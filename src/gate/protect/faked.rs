//! Faked verification evidence: a command that writes a file the gate reads as proof of a test
//! run (`gate.artifacts`, `.hookjudge/verified`) without running the tests.

use std::path::{Component, Path, PathBuf};

use super::places::normalize;
use super::redirect_targets;
use crate::gate::shell::{self, Word};

/// Programs that write the files named in their arguments (besides redirects).
const ARTIFACT_WRITERS: [&str; 12] = [
    "touch", "cp", "mv", "ln", "install", "tee", "dd", "rsync", "sed", "truncate", "echo", "printf",
];

/// A command that writes a file the gate reads as proof of a test run (`gate.artifacts`:
/// `.pytest_cache/v/cache/lastfailed`, `junit.xml`, …) without running the tests: a faked
/// verification, gated as a hook bypass like a write to `.hookjudge/verified`. `artifacts` is
/// asked for only when the line may name one.
pub fn faked_evidence(
    command: &str,
    cwd: &Path,
    artifacts: impl FnOnce() -> Vec<String>,
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
    globs.extend(artifacts());
    let is_artifact = |word: &str, dir: Option<&Path>| {
        let path = match dir {
            Some(dir) if !word.starts_with('/') => dir.join(word),
            _ => PathBuf::from(word),
        };
        let parts: Vec<String> = normalize(&path)
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        // Relative to any directory (the repository root is one of them); a file only (the
        // directories holding artifacts may be made by anyone).
        (0..parts.len()).any(|i| {
            let rel = parts[i..].join("/");
            crate::gate::glob::covers(&rel, &globs)
                && globs.iter().any(|g| {
                    globset::Glob::new(g)
                        .ok()
                        .is_some_and(|g| g.compile_matcher().is_match(&rel))
                })
        })
    };
    let script = shell::parse(command, cwd);
    let redirected = redirect_targets(command);
    for cmd in &script.commands {
        let program = cmd.program().unwrap_or("");
        let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
        let by_args = ARTIFACT_WRITERS.contains(&program)
            && !matches!(program, "echo" | "printf")
            && words[1..]
                .iter()
                .any(|w| !w.starts_with('-') && is_artifact(w, cmd.cwd.as_deref()));
        let by_redirect = cmd
            .writes
            .iter()
            .map(Word::text)
            .chain(redirected.iter().map(String::as_str))
            .any(|w| is_artifact(w, cmd.cwd.as_deref()));
        if by_args || by_redirect {
            return Some(crate::gate::classify::Gated {
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
            });
        }
    }
    None
}
