//! Changes that are not code: documentation and repository metadata (`gate.not_code`). A commit
//! that takes only such changes, or a push whose commits change only such files, needs no test
//! evidence: no test run could fail because of it.
//!
//! A push is read commit by commit: each pushed commit against its parents.
//!
//! What a commit takes is read as a superset, so that nothing it commits escapes the check:
//! every staged, unstaged and untracked path (renames as their two sides), whatever `-a` or a
//! pathspec narrows it to. Only when the commit is the line's first command, or comes after
//! nothing but `git add` (not `-f`: that adds ignored files the status does not list),
//! `git status`, `git diff` or `git log` joined by `&&`: any other command before it could
//! write the files it commits.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::cell::RefCell;

use super::chained;
use super::classify::{COMMITS_THE_CHANGES, Class, Gated};
use super::evidence;
use super::gather::PushRepoFacts;
use super::policy::Context;

/// Commits, and paths, compared at most for a push: past it, the usual evidence decides.
const MAX_COMPARED: usize = 2000;

thread_local! {
    /// The sets for the last list: (the list, what is not code, the exceptions).
    static SETS: RefCell<Option<(Vec<String>, GlobSet, GlobSet)>> = const { RefCell::new(None) };
}

/// Whether the repository-relative `path` is not code under `globs`: it matches a glob and no
/// `!`-prefixed exception (`!**/CMakeLists.txt`). `*` stays within a path segment, `**`
/// crosses them; globs that do not parse match nothing.
pub fn is_not_code(path: &str, globs: &[String]) -> bool {
    SETS.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.as_ref().is_none_or(|(g, _, _)| g.as_slice() != globs) {
            let (mut yes, mut no) = (GlobSetBuilder::new(), GlobSetBuilder::new());
            for pattern in globs {
                let (set, pattern) = match pattern.strip_prefix('!') {
                    Some(rest) => (&mut no, rest),
                    None => (&mut yes, pattern.as_str()),
                };
                if let Ok(g) = GlobBuilder::new(pattern).literal_separator(true).build() {
                    set.add(g);
                }
            }
            let build = |b: GlobSetBuilder| b.build().unwrap_or_else(|_| GlobSet::empty());
            *cell = Some((globs.to_vec(), build(yes), build(no)));
        }
        let (_, yes, no) = cell.as_ref().expect("just set");
        yes.is_match(path) && !no.is_match(path)
    })
}

/// Whether every path is not code (an empty list is not: nothing was read).
pub fn all_not_code(paths: &[String], globs: &[String]) -> bool {
    !paths.is_empty() && paths.iter().all(|p| is_not_code(p, globs))
}

/// Whether `gated`, a `git commit`, takes only changes that are not code (see the module doc
/// for how much of the line and the work tree is read).
pub fn commit_takes_only_not_code(gated: &Gated, ctx: &Context) -> bool {
    if gated.class != Class::Commit
        || gated.what != COMMITS_THE_CHANGES
        || gated.command.contains("--amend")
        || !(ctx.line.is_empty() || chained::only_staging_before(ctx.line, &gated.command, ctx.cwd))
    {
        return false;
    }
    let opened = ctx.reads.repo(&gated.target, ctx.cwd);
    let Ok(repo) = opened.as_ref() else {
        return false;
    };
    let artifacts = &ctx.settings.artifacts;
    repo.every_changed_path().is_ok_and(|paths| {
        let code: Vec<String> = paths
            .into_iter()
            .filter(|p| !evidence::is_artifact(p, artifacts))
            .collect();
        all_not_code(&code, &ctx.settings.not_code)
    })
}

/// Whether every commit `gated`, a push, would send changes only files that are not code:
/// each commit against its parents, not only the pushed tip against the remote's.
pub fn pushes_only_not_code(gated: &Gated, push: &PushRepoFacts, ctx: &Context) -> bool {
    let (Some(Ok(refs)), Some(spec)) = (&push.refs, &gated.push) else {
        return false;
    };
    let pushed: Vec<_> = refs.iter().filter(|f| f.ahead.count > 0).collect();
    if spec.tags || pushed.is_empty() {
        return false;
    }
    let opened = ctx.reads.repo(&gated.target, ctx.cwd);
    let Ok(repo) = opened.as_ref() else {
        return false;
    };
    pushed.iter().all(|f| {
        f.source_id.is_some_and(|tip| {
            repo.paths_each_commit_changes(tip, &f.remote, MAX_COMPARED)
                .is_ok_and(|paths| all_not_code(&paths, &ctx.settings.not_code))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::settings::DEFAULT_NOT_CODE;

    fn defaults() -> Vec<String> {
        DEFAULT_NOT_CODE.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn documentation_and_metadata_are_not_code() {
        for path in [
            "README.md",
            "docs/usage.md",
            "docs/conf/index.html",
            "crates/wc/README.rst",
            "NOTES.txt",
            "README",
            "LICENSE",
            "LICENSE-MIT",
            ".gitignore",
            "sub/.gitattributes",
            "CHANGELOG",
            "CHANGELOG.md",
            "assets/logo.png",
        ] {
            assert!(is_not_code(path, &defaults()), "{path}");
        }
    }

    #[test]
    fn code_build_files_and_dependency_lists_are_code() {
        for path in [
            "src/lib.rs",
            "mathkit/core.py",
            "CMakeLists.txt",
            "lib/CMakeLists.txt",
            "requirements.txt",
            "requirements-dev.txt",
            "package.json",
            "Makefile",
            ".github/workflows/ci.yml",
            "docsrc/x.py",
            "tests/data/expected.txt",
        ] {
            assert!(!is_not_code(path, &defaults()), "{path}");
        }
        assert!(!all_not_code(&[], &defaults()));
        // A configured exception wins over a broader glob.
        let own: Vec<String> = ["**/*.txt", "!**/requirements*.txt"]
            .map(String::from)
            .to_vec();
        assert!(is_not_code("notes/todo.txt", &own));
        assert!(!is_not_code("requirements-dev.txt", &own));
        let mixed = ["README.md".to_string(), "src/a.py".to_string()];
        assert!(!all_not_code(&mixed, &defaults()));
    }
}
