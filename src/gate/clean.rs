//! What `git clean` would delete, by git's rules, and what of it is lost: read from the
//! repository (its untracked and ignored entries, limited to the command's pathspecs) rather
//! than guessed from the flags, so that `git clean -fdx dist` is judged on `dist/` alone and
//! `git clean -fdX` on the ignored files it really takes (an agent's hook settings kept out of
//! git by `.git/info/exclude` among them).
//!
//! Git's rules, as read here: without `-x`/`-X` only untracked files go; `-x` takes ignored
//! files too, `-X` only them; without `-d` and without a pathspec no directory is removed;
//! `-e` patterns add ignore rules: under `-X` a `!pattern` keeps what it re-includes, and any
//! other pattern may make untracked files ignored, so then untracked files count as deleted
//! too (elsewhere `-e` only keeps more, and is not needed to stay on the safe side).
//!
//! Of what is deleted, lost is: an untracked file or directory that is not the session's own
//! scratch, and an ignored one outside build output (`target/`, `dist/`, `__pycache__/` …)
//! and test artifacts; an entry holding hookjudge's or an agent's hook settings is named apart,
//! for self-protection.

use std::path::Path;

use super::classify::Destructive;
use super::evidence;
use super::facts::{self, BUILD_DIRS, Repo, Uncommitted};
use super::scratch::SessionMade;
use crate::support::init_file::{REPO_FILE, is_init_written};

/// What a `git clean` would delete that matters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CleanLoss {
    /// Deleted work: repository-relative paths (a directory's ending in `/`).
    pub lost: Vec<String>,
    /// Deleted entries holding what hookjudge protects, with why.
    pub protected: Vec<(String, &'static str)>,
}

/// What `op`, a `git clean`, would delete in `repo` that matters.
pub fn read(
    repo: &Repo,
    op: &Destructive,
    made: Option<&SessionMade>,
    artifacts: &[String],
) -> Result<CleanLoss, facts::Error> {
    let Destructive::Clean {
        directories,
        ignored,
        only_ignored,
        excludes,
        paths,
        ..
    } = op
    else {
        return Ok(CleanLoss::default());
    };
    let root = repo.work_tree.clone().unwrap_or_default();
    let kept_by: Vec<&str> = excludes
        .iter()
        .filter_map(|e| e.strip_prefix('!'))
        .collect();
    let ignores_more = excludes.iter().any(|e| !e.starts_with('!'));
    let mut out = CleanLoss::default();
    for entry in repo.clean_candidates(paths)? {
        if entry.directory && !directories && paths.is_empty() {
            continue; // without `-d`, git leaves untracked directories alone
        }
        let deleted = if *only_ignored {
            if entry.ignored {
                !kept_by.iter().any(|p| excluded_by(p, &entry.path))
            } else {
                ignores_more
            }
        } else {
            *ignored || !entry.ignored
        };
        if !deleted {
            continue;
        }
        let at = root.join(entry.path.trim_end_matches('/'));
        if let Some(why) = super::protect::deleting(&at) {
            out.protected.push((entry.path, why));
        } else if is_lost(&entry, &at, made, artifacts) {
            out.lost.push(entry.path);
        }
    }
    Ok(out)
}

fn is_lost(
    entry: &Uncommitted,
    at: &Path,
    made: Option<&SessionMade>,
    artifacts: &[String],
) -> bool {
    if made.is_some_and(|m| m.is_scratch(at)) {
        return false;
    }
    // The repository file just as `init` wrote it is hookjudge's own, which `init` writes again.
    if entry.path == REPO_FILE && std::fs::read_to_string(at).is_ok_and(|t| is_init_written(&t)) {
        return false;
    }
    if !entry.ignored {
        return true;
    }
    let build_output = entry.path.split('/').any(|part| BUILD_DIRS.contains(&part));
    !build_output && !evidence::is_artifact(&entry.path, artifacts)
}

/// Whether the gitignore pattern `pattern` names `path` (a directory's ending in `/`): a
/// pattern without a `/` inside matches the last component, one with it the whole path.
fn excluded_by(pattern: &str, path: &str) -> bool {
    let path = path.trim_end_matches('/');
    let pattern = pattern.trim_end_matches('/');
    match pattern.trim_start_matches('/') {
        p if p.contains('/') || pattern.starts_with('/') => super::glob::matches(p, path),
        p => {
            let name = path.rsplit('/').next().unwrap_or(path);
            super::glob::matches(p, name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exclude_pattern_names_a_component_or_a_path() {
        assert!(excluded_by(".claude", ".claude/"));
        assert!(excluded_by(".claude/", "sub/.claude/"));
        assert!(excluded_by("*.log", "logs/a.log"));
        assert!(excluded_by("/dist", "dist/"));
        assert!(!excluded_by("/dist", "web/dist/"));
        assert!(excluded_by("web/dist", "web/dist/"));
        assert!(!excluded_by("settings.local.json", ".claude/"));
    }
}
