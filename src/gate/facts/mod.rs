//! Repository facts, read in-process with gix: branch, upstream, commits ahead and behind (with
//! their subjects), uncommitted and untracked changes, and what a destructive operation would
//! lose. Nothing here runs `git`; everything is read from the repository the command targets.
//!
//! `changes` reads uncommitted work (the exact status, and a cheap stat-only look);
//! `history` walks commits: what a push sends or drops, what a branch move or delete loses;
//! `pushed` lists the paths each pushed commit changes.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::classify::Target;

/// How many commit subjects a fact list keeps (the count is always exact).
const MAX_SUBJECTS: usize = 10;

/// A commit listed in a fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitLine {
    pub id: String,
    pub subject: String,
}

/// A list of commits, with the exact count and the first few subjects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Commits {
    pub count: usize,
    pub first: Vec<CommitLine>,
}

/// Uncommitted work in the work tree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Changes {
    /// Tracked files changed in the index or the work tree.
    pub modified: Vec<String>,
    pub untracked: Vec<String>,
    /// Changed files whose change is all staged (the work tree matches the index): what
    /// `git reset --merge` puts back to the commit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub staged_only: Vec<String>,
    /// The newest modification time among the changed files that exist (ms since the epoch).
    pub newest_mtime_ms: Option<i64>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.modified.is_empty() && self.untracked.is_empty()
    }
}

/// What pushing would do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PushFacts {
    pub remote: String,
    /// The pushed commit, and the destination's remote-tracking tip (what the remote has).
    #[serde(skip)]
    pub source_id: Option<gix::ObjectId>,
    #[serde(skip)]
    pub base_id: Option<gix::ObjectId>,
    /// The local side (a branch name or a commit).
    pub source: String,
    /// The remote branch it lands on.
    pub destination: String,
    /// The remote-tracking ref of the destination, when it exists.
    pub tracking: Option<String>,
    /// Commits the remote does not have (as far as the remote-tracking refs know).
    pub ahead: Commits,
    /// Commits on the remote branch that the pushed commit lacks (a force push drops them).
    pub behind: Commits,
}

/// The repository the command targets.
pub struct Repo {
    pub repo: gix::Repository,
    pub work_tree: Option<PathBuf>,
}

/// An error reading a repository: what hookjudge was reading, in the user's terms, and why
/// git could not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What could not be read (``cannot open the repository at `…` ``).
    pub context: String,
    /// Why, as gix says it; `None` when the context says it all.
    pub cause: Option<String>,
}

impl Error {
    /// An error that `context` explains by itself.
    pub fn new(context: impl Into<String>) -> Error {
        Error {
            context: context.into(),
            cause: None,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cause {
            Some(cause) => write!(f, "{}: {cause}", self.context),
            None => f.write_str(&self.context),
        }
    }
}

impl std::error::Error for Error {}

/// As its message: a ruling's facts record what could not be read.
impl serde::Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

macro_rules! ctx {
    ($expr:expr, $context:expr) => {
        $expr.map_err(|e| Error {
            context: $context.into(),
            cause: Some(e.to_string()),
        })
    };
}

mod changes;
mod history;
mod pushed;

pub use changes::{BUILD_DIRS, Uncommitted, mtime_ms};

impl Repo {
    /// Opens the repository of `target`: `--git-dir`/`GIT_DIR` when given, else discovery from
    /// the target directory.
    pub fn open(target: &Target, fallback_dir: &Path) -> Result<Repo, Error> {
        let dir = target
            .dir
            .clone()
            .unwrap_or_else(|| fallback_dir.to_path_buf());
        let repo = match &target.git_dir {
            Some(git_dir) => ctx!(
                gix::open(git_dir),
                format!("cannot open the repository at `{}`", git_dir.display())
            )?,
            None => ctx!(
                gix::discover(&dir),
                format!("no git repository at `{}` or its parents", dir.display())
            )?,
        };
        let work_tree = target
            .work_tree
            .clone()
            .or_else(|| repo.workdir().map(Path::to_path_buf));
        Ok(Repo { repo, work_tree })
    }

    /// The current branch's short name, or `None` on a detached HEAD.
    pub fn branch(&self) -> Option<String> {
        self.repo
            .head_name()
            .ok()
            .flatten()
            .map(|n| n.shorten().to_string())
    }

    /// `remote/branch` of the current branch's upstream, when configured.
    pub fn upstream(&self) -> Option<String> {
        let head = self.repo.head_ref().ok()??;
        let tracking = head
            .remote_tracking_ref_name(gix::remote::Direction::Fetch)?
            .ok()?;
        Some(tracking.shorten().to_string())
    }

    /// A commit's committer time, in seconds.
    pub fn commit_time(&self, id: gix::ObjectId) -> Option<i64> {
        Some(self.repo.find_commit(id).ok()?.time().ok()?.seconds)
    }

    /// The HEAD commit's id and committer time.
    pub fn head(&self) -> Option<(gix::ObjectId, i64)> {
        let commit = self.repo.head_commit().ok()?;
        let time = commit.time().ok()?.seconds;
        Some((commit.id, time))
    }

    /// Short names of the local branches.
    pub fn local_branches(&self) -> Vec<String> {
        let Ok(refs) = self.repo.references() else {
            return Vec::new();
        };
        let Ok(iter) = refs.local_branches() else {
            return Vec::new();
        };
        iter.filter_map(Result::ok)
            .map(|r| r.name().shorten().to_string())
            .collect()
    }

    /// Whether `name` is a remote configured in the repository.
    pub fn remote_exists(&self, name: &str) -> bool {
        self.repo.remote_names().iter().any(|n| *n == name)
    }

    /// `clean.requireForce` is off in the repository's or the user's config.
    pub fn clean_needs_no_force(&self) -> bool {
        self.repo.config_snapshot().boolean("clean.requireForce") == Some(false)
    }

    /// How many stash entries exist.
    pub fn stash_count(&self) -> usize {
        let Some(git_dir) = Some(self.repo.git_dir()) else {
            return 0;
        };
        std::fs::read_to_string(git_dir.join("logs/refs/stash"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }
}
