//! Which repository a logged decision belongs to, and the `--repo` filter of `log` and
//! `stats`: by default the repository of the current directory (inside one), so that one
//! project's figures do not mix with another's; `--repo all` shows every repository.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::UserError;
use crate::log::Record;

/// The `--repo` value that selects every repository.
pub(super) const ALL: &str = "all";

/// The records to keep.
pub(super) enum RepoFilter {
    All,
    /// Records whose repository (or working directory) is in this work tree.
    Only(PathBuf),
}

impl RepoFilter {
    /// The filter for `--repo ARG`, run in `cwd`: `all`, a path inside a repository (its root
    /// is used), or by default the repository `cwd` is in (every repository outside one).
    pub(super) fn choose(arg: Option<&str>, cwd: &Path) -> Result<RepoFilter, UserError> {
        match arg {
            Some(ALL) => Ok(RepoFilter::All),
            Some(path) => {
                let path = cwd.join(path);
                let dir = path.canonicalize().map_err(|e| {
                    UserError::new(format!("cannot use `--repo {}`: {e}", path.display()))
                        .hint("name a directory in a repository, or `--repo all`")
                })?;
                Ok(RepoFilter::Only(
                    crate::support::paths::repo_root(&dir).unwrap_or(dir),
                ))
            }
            None => Ok(match crate::support::paths::repo_root(cwd) {
                Some(root) => RepoFilter::Only(root),
                None => RepoFilter::All,
            }),
        }
    }

    /// For messages: "in `/path`", or nothing.
    pub(super) fn describe(&self) -> String {
        match self {
            RepoFilter::All => String::new(),
            RepoFilter::Only(root) => format!(
                " for `{}` (`--repo all` shows every repository)",
                root.display()
            ),
        }
    }
}

/// Finds each record's repository, looking each working directory up once.
#[derive(Default)]
pub(super) struct Repositories {
    roots: HashMap<String, Option<PathBuf>>,
}

impl Repositories {
    /// The repository of `r`: the one a gated command targets, else the work tree its
    /// directory is in (as far as the directory still exists), else the directory itself.
    pub(super) fn of(&mut self, r: &Record) -> Option<PathBuf> {
        if let Some(repo) = r.rulings().iter().find_map(|x| x.repo.clone()) {
            return Some(repo);
        }
        let cwd = r.cwd()?;
        self.roots
            .entry(cwd.to_owned())
            .or_insert_with(|| {
                let dir = Path::new(cwd);
                Some(crate::support::paths::repo_root(dir).unwrap_or_else(|| dir.to_path_buf()))
            })
            .clone()
    }

    /// Whether `filter` keeps `r`.
    pub(super) fn keeps(&mut self, filter: &RepoFilter, r: &Record) -> bool {
        match filter {
            RepoFilter::All => true,
            RepoFilter::Only(root) => {
                r.cwd().is_some_and(|cwd| Path::new(cwd).starts_with(root))
                    || self.of(r).is_some_and(|repo| repo.starts_with(root))
            }
        }
    }
}

/// The short name shown in the repository column: the work tree's folder name.
pub(super) fn short_name(repo: Option<&Path>) -> String {
    repo.and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "-".into())
}
