//! Repository facts, read in-process with gix: branch, upstream, commits ahead and behind (with
//! their subjects), uncommitted and untracked changes, and what a destructive operation would
//! lose. Nothing here runs `git`; everything is read from the repository the command targets.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use gix::bstr::ByteSlice;
use serde::Serialize;

use super::classify::{PushSpec, Target};

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

/// An error reading a repository, said in the user's terms.
#[derive(Debug, Clone)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! ctx {
    ($expr:expr, $context:expr) => {
        $expr.map_err(|e| Error(format!("{}: {e}", $context)))
    };
}

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

    /// The HEAD commit's id and committer time.
    pub fn head(&self) -> Option<(gix::ObjectId, i64)> {
        let commit = self.repo.head_commit().ok()?;
        let time = commit.time().ok()?.seconds;
        Some((commit.id, time))
    }

    /// Uncommitted work: changed tracked files and untracked files (not ignored ones), less
    /// the paths `skip` says are not code (test artifacts).
    pub fn changes_except(&self, skip: impl Fn(&str) -> bool) -> Result<Changes, Error> {
        let mut all = self.changes()?;
        all.modified.retain(|p| !skip(p));
        all.untracked.retain(|p| !skip(p));
        if let Some(root) = &self.work_tree {
            all.newest_mtime_ms = all
                .modified
                .iter()
                .chain(&all.untracked)
                .filter_map(|p| mtime_ms(&root.join(p)))
                .max();
        }
        Ok(all)
    }

    /// Uncommitted work: changed tracked files and untracked files (not ignored ones).
    pub fn changes(&self) -> Result<Changes, Error> {
        let mut out = Changes::default();
        let iter = ctx!(
            self.repo.status(gix::progress::Discard),
            "cannot read the status"
        )?
        .untracked_files(gix::status::UntrackedFiles::Collapsed)
        .index_worktree_rewrites(None);
        let iter = ctx!(iter.into_iter(None), "cannot read the status")?;
        for item in iter {
            let item = ctx!(item, "cannot read the status")?;
            let path = item.location().to_str_lossy().into_owned();
            match &item {
                gix::status::Item::IndexWorktree(
                    gix::status::index_worktree::Item::DirectoryContents { entry, .. },
                ) => {
                    if matches!(entry.status, gix::dir::entry::Status::Untracked) {
                        out.untracked.push(path);
                    }
                }
                _ => {
                    if !out.modified.contains(&path) {
                        out.modified.push(path);
                    }
                }
            }
        }
        out.modified.sort();
        out.untracked.sort();
        if let Some(root) = &self.work_tree {
            out.newest_mtime_ms = out
                .modified
                .iter()
                .chain(&out.untracked)
                .filter_map(|p| mtime_ms(&root.join(p)))
                .max();
        }
        Ok(out)
    }

    /// What `git push` with `spec` would send, from the current branch by default.
    pub fn push_facts(&self, spec: &PushSpec) -> Result<PushFacts, Error> {
        let branch = self.branch();
        let refspec = spec
            .refspecs
            .first()
            .map(|r| r.trim_start_matches('+').to_owned());
        let (src, dst) = match refspec.as_deref().map(|r| {
            r.split_once(':')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .unwrap_or((r.to_owned(), r.to_owned()))
        }) {
            Some((src, dst)) => (src, dst),
            None => {
                let b = branch.clone().unwrap_or_else(|| "HEAD".into());
                let dst = self
                    .upstream()
                    .and_then(|u| u.split_once('/').map(|(_, b)| b.to_owned()))
                    .unwrap_or_else(|| b.clone());
                (b, dst)
            }
        };
        let src = if src.is_empty() || src == "HEAD" {
            branch.clone().unwrap_or_else(|| "HEAD".into())
        } else {
            src
        };
        let dst = if dst == "HEAD" {
            src.clone()
        } else {
            dst.trim_start_matches("refs/heads/").to_owned()
        };
        let remote = spec
            .remote
            .clone()
            .or_else(|| {
                self.upstream()
                    .and_then(|u| u.split_once('/').map(|(r, _)| r.to_owned()))
            })
            .unwrap_or_else(|| "origin".into());
        let source_id = self
            .resolve(&src)
            .ok_or_else(|| Error(format!("cannot resolve `{src}` to a commit")))?;
        let tracking_name = format!("refs/remotes/{remote}/{dst}");
        let tracking_id = self
            .repo
            .try_find_reference(tracking_name.as_str())
            .ok()
            .flatten()
            .and_then(|mut r| r.peel_to_id().ok())
            .map(|id| id.detach());
        let remote_tips = self.remote_tips(&remote)?;
        let ahead = self.walk(source_id, remote_tips.clone())?;
        let behind = match tracking_id {
            Some(t) => self.walk(t, [source_id])?,
            None => Commits::default(),
        };
        Ok(PushFacts {
            remote,
            source: src,
            destination: dst,
            tracking: tracking_id.map(|_| tracking_name),
            ahead,
            behind,
        })
    }

    /// A branch, tag, full ref name, `HEAD` or hex id, as a commit id.
    pub fn resolve(&self, name: &str) -> Option<gix::ObjectId> {
        if name == "HEAD" {
            return self.repo.head_commit().ok().map(|c| c.id);
        }
        for candidate in [
            name.to_owned(),
            format!("refs/heads/{name}"),
            format!("refs/tags/{name}"),
        ] {
            if let Ok(Some(mut r)) = self.repo.try_find_reference(candidate.as_str())
                && let Ok(id) = r.peel_to_id()
            {
                return Some(id.detach());
            }
        }
        gix::ObjectId::from_hex(name.as_bytes()).ok()
    }

    fn remote_tips(&self, remote: &str) -> Result<Vec<gix::ObjectId>, Error> {
        let refs = ctx!(self.repo.references(), "cannot list references")?;
        let prefix = format!("refs/remotes/{remote}/");
        let iter = ctx!(
            refs.prefixed(prefix.as_str()),
            "cannot list remote-tracking references"
        )?;
        Ok(iter
            .filter_map(Result::ok)
            .filter_map(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
            .collect())
    }

    /// Commits reachable from `tip` and not from `hidden`.
    pub fn walk(
        &self,
        tip: gix::ObjectId,
        hidden: impl IntoIterator<Item = gix::ObjectId>,
    ) -> Result<Commits, Error> {
        let walk = ctx!(
            self.repo.rev_walk([tip]).with_hidden(hidden).all(),
            "cannot walk the history"
        )?;
        let mut out = Commits::default();
        for info in walk {
            let info = ctx!(info, "cannot walk the history")?;
            out.count += 1;
            if out.first.len() < MAX_SUBJECTS {
                let subject = info
                    .object()
                    .ok()
                    .and_then(|c| {
                        c.message()
                            .ok()
                            .map(|m| m.summary().to_str_lossy().into_owned())
                    })
                    .unwrap_or_default();
                out.first.push(CommitLine {
                    id: info.id.to_hex_with_len(8).to_string(),
                    subject,
                });
            }
        }
        Ok(out)
    }

    /// Commits reachable only from `branch` (no other branch, tag or remote-tracking ref).
    pub fn only_on_branch(&self, branch: &str) -> Result<Commits, Error> {
        let full = format!("refs/heads/{branch}");
        let Some(mut r) = ctx!(
            self.repo.try_find_reference(full.as_str()),
            "cannot read references"
        )?
        else {
            return Ok(Commits::default());
        };
        let tip = ctx!(r.peel_to_id(), format!("cannot resolve `{branch}`"))?.detach();
        let refs = ctx!(self.repo.references(), "cannot list references")?;
        let all = ctx!(refs.all(), "cannot list references")?;
        let others: Vec<gix::ObjectId> = all
            .filter_map(Result::ok)
            .filter(|r| r.name().as_bstr() != full.as_bytes().as_bstr())
            .filter_map(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
            .collect();
        self.walk(tip, others)
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

/// A file's modification time in milliseconds since the epoch.
pub fn mtime_ms(path: &Path) -> Option<i64> {
    let t = path.metadata().ok()?.modified().ok()?;
    Some(t.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_millis() as i64)
}
