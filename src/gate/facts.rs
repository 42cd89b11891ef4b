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

    /// When the work tree last changed, cheaply: tracked files whose stat data differ from the
    /// index (no content hashing: a touched file counts as changed, which only makes the
    /// evidence check stricter), and directories whose entries changed after the index was
    /// written (new or removed files, without walking every untracked file). Paths `skip` says
    /// are not code (test artifacts) are left out. Enough for "is the evidence newer than the
    /// last change"; destructive operations use the exact [`Repo::changes`].
    pub fn quick_changes(&self, skip: &(dyn Fn(&str) -> bool + Sync)) -> Result<Changes, Error> {
        let Some(root) = self.work_tree.clone() else {
            return Ok(Changes::default());
        };
        // Read-only use of stat data: skip the checksum over the whole file (git's own
        // `index.skipHash`), which on a 20 000-file index costs more than the rest of the work.
        let index = ctx!(
            gix::index::File::at(
                self.repo.index_path(),
                self.repo.object_hash(),
                true,
                Default::default()
            ),
            "cannot read the index"
        )?;
        let index_written = mtime_ms(&self.repo.index_path()).unwrap_or(0);
        let entries = index.entries();
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 4);
        let chunk = entries.len().div_ceil(threads).max(1);
        let mut out = Changes::default();
        let found: Vec<(Vec<String>, Option<i64>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = entries
                .chunks(chunk)
                .map(|part| {
                    let (index, root) = (&index, &root);
                    scope.spawn(move || {
                        let mut changed = Vec::new();
                        let mut newest: Option<i64> = None;
                        for entry in part {
                            let path = entry.path(index).to_str_lossy();
                            let meta = std::fs::symlink_metadata(root.join(path.as_ref()));
                            let differs = match &meta {
                                Ok(m) => {
                                    let (secs, nanos) = unix_mtime(m);
                                    secs != i64::from(entry.stat.mtime.secs)
                                        || nanos != entry.stat.mtime.nsecs
                                        || m.len() as u32 != entry.stat.size
                                }
                                Err(_) => true,
                            };
                            // Artifacts are not code; checked only for the few changed paths.
                            if differs && !skip(&path) {
                                if let Ok(m) = &meta {
                                    let (secs, nanos) = unix_mtime(m);
                                    let ms = secs * 1000 + i64::from(nanos / 1_000_000);
                                    newest = Some(newest.map_or(ms, |n| n.max(ms)));
                                }
                                changed.push(path.into_owned());
                            }
                        }
                        (changed, newest)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for (changed, newest) in found {
            out.modified.extend(changed);
            out.newest_mtime_ms = out.newest_mtime_ms.max(newest);
        }
        // Directories whose entries changed after the index was written hold new or removed
        // files: look only in those, and only at entries the index does not know.
        let tracked: std::collections::HashSet<&[u8]> =
            entries.iter().map(|e| e.path(&index).as_bytes()).collect();
        let mut dirs: Vec<&str> = entries
            .iter()
            .filter_map(|e| e.path(&index).to_str().ok())
            .filter_map(|p| p.rsplit_once('/').map(|(d, _)| d))
            .collect();
        dirs.sort_unstable();
        dirs.dedup();
        dirs.push("");
        let ignored = simple_ignores(&root);
        for dir in dirs {
            if mtime_ms(&root.join(dir)).is_none_or(|t| t <= index_written) {
                continue;
            }
            let Ok(listing) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for entry in listing.flatten().take(10_000) {
                let name = entry.file_name().to_string_lossy().into_owned();
                let rel = if dir.is_empty() {
                    name.clone()
                } else {
                    format!("{dir}/{name}")
                };
                let is_dir = entry.path().is_dir();
                if tracked.contains(rel.as_bytes())
                    || name == ".git"
                    || skip(&rel)
                    || (is_dir
                        && (skip(&format!("{rel}/"))
                            || ignored.contains(&name)
                            || BUILD_DIRS.contains(&name.as_str())))
                {
                    continue;
                }
                if is_dir && tracked_prefix(&tracked, &rel) {
                    continue; // a tracked directory: its own files are checked above
                }
                if let Some(t) = mtime_ms(&entry.path()) {
                    out.untracked
                        .push(if is_dir { format!("{rel}/") } else { rel });
                    out.newest_mtime_ms = out.newest_mtime_ms.max(Some(t));
                }
            }
        }
        out.modified.sort();
        Ok(out)
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

    /// What `git push` with `spec` would send for each of its refspecs (every local branch
    /// for `--all`/`--branches`; the current branch when none is given).
    pub fn push_facts_all(&self, spec: &PushSpec) -> Result<Vec<PushFacts>, Error> {
        let mut refspecs: Vec<String> = if spec.all {
            self.local_branches()
        } else {
            spec.refspecs.clone()
        };
        // `refs/heads/*:refs/heads/*`: the pattern stands for every local branch it matches.
        let branches = self.local_branches();
        refspecs = refspecs
            .into_iter()
            .flat_map(|r| {
                let plain = r.trim_start_matches('+');
                let (src, dst) = plain.split_once(':').unwrap_or((plain, plain));
                let src = src.trim_start_matches("refs/heads/");
                let dst = dst.trim_start_matches("refs/heads/");
                if !src.contains('*') || plain.starts_with(':') {
                    return vec![r];
                }
                branches
                    .iter()
                    .filter(|b| super::glob::matches(src, b))
                    .map(|b| {
                        let stem = src.split('*').next().unwrap_or("");
                        let matched = b.strip_prefix(stem).unwrap_or(b);
                        let matched = matched
                            .strip_suffix(src.rsplit('*').next().unwrap_or(""))
                            .unwrap_or(matched);
                        format!("{b}:{}", dst.replacen('*', matched, 1))
                    })
                    .collect()
            })
            .collect();
        if refspecs.is_empty() {
            return Ok(vec![self.push_facts_for(spec, None)?]);
        }
        let mut out = Vec::new();
        for r in &refspecs {
            if r.starts_with(':') || r.contains('*') {
                continue; // a delete, or a pattern: judged by the flags
            }
            out.push(self.push_facts_for(spec, Some(r))?);
        }
        Ok(out)
    }

    /// What `git push` with `spec` would send for its first refspec (the current branch when
    /// none is given).
    pub fn push_facts(&self, spec: &PushSpec) -> Result<PushFacts, Error> {
        self.push_facts_for(spec, spec.refspecs.first().map(String::as_str))
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

    /// Commits that moving `branch` (HEAD's when `None`) to `to` leaves on no ref at all.
    pub fn lost_by_move(&self, branch: Option<&str>, to: &str) -> Result<Commits, Error> {
        let full = match branch {
            Some(b) => format!("refs/heads/{}", b.trim_start_matches("refs/heads/")),
            None => match self.repo.head_name().ok().flatten() {
                Some(n) => n.as_bstr().to_string(),
                None => return Ok(Commits::default()), // detached: HEAD's reflog keeps it
            },
        };
        let Some(mut r) = ctx!(
            self.repo.try_find_reference(full.as_str()),
            "cannot read references"
        )?
        else {
            return Ok(Commits::default()); // a new branch loses nothing
        };
        let tip = ctx!(r.peel_to_id(), format!("cannot resolve `{full}`"))?.detach();
        let Some(target) = self.resolve_rev(to) else {
            return Err(Error(format!("cannot resolve `{to}` to a commit")));
        };
        let refs = ctx!(self.repo.references(), "cannot list references")?;
        let all = ctx!(refs.all(), "cannot list references")?;
        let mut others: Vec<gix::ObjectId> = all
            .filter_map(Result::ok)
            .filter(|r| r.name().as_bstr() != full.as_bytes().as_bstr())
            .filter_map(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
            .collect();
        others.push(target);
        self.walk(tip, others)
    }

    /// A revision as git reads it, for the simple forms: names, `HEAD~N`, `X^`, `@{u}`.
    pub fn resolve_rev(&self, rev: &str) -> Option<gix::ObjectId> {
        if let Some((base, n)) = rev.rsplit_once('~') {
            let n: usize = if n.is_empty() { 1 } else { n.parse().ok()? };
            let mut id = self.resolve_rev(base)?;
            for _ in 0..n {
                id = self
                    .repo
                    .find_commit(id)
                    .ok()?
                    .parent_ids()
                    .next()?
                    .detach();
            }
            return Some(id);
        }
        if let Some(base) = rev.strip_suffix('^') {
            let id = self.resolve_rev(base)?;
            return Some(
                self.repo
                    .find_commit(id)
                    .ok()?
                    .parent_ids()
                    .next()?
                    .detach(),
            );
        }
        if rev == "@" || rev.is_empty() {
            return self.resolve("HEAD");
        }
        if matches!(rev, "@{u}" | "@{upstream}") {
            return self.resolve(&format!("refs/remotes/{}", self.upstream()?));
        }
        self.resolve(rev)
            .or_else(|| self.resolve(&format!("refs/remotes/{rev}")))
            .or_else(|| self.short_id(rev))
    }

    /// An abbreviated commit id (at least 4 hex digits) that names one object.
    fn short_id(&self, hex: &str) -> Option<gix::ObjectId> {
        if hex.len() < 4 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let prefix = gix::hash::Prefix::from_hex(hex).ok()?;
        match self.repo.objects.lookup_prefix(prefix, None) {
            Ok(Some(Ok(id))) => Some(id),
            _ => None,
        }
    }

    /// Paths whose content differs between two commits (`None`: the empty tree), at most
    /// `limit` of them.
    pub fn changed_paths(
        &self,
        from: Option<gix::ObjectId>,
        to: gix::ObjectId,
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        let tree_of = |id: gix::ObjectId| -> Result<gix::ObjectId, Error> {
            let commit = ctx!(self.repo.find_commit(id), "cannot read a commit")?;
            Ok(ctx!(commit.tree_id(), "cannot read a commit's tree")?.detach())
        };
        let new = tree_of(to)?;
        let old = from.map(tree_of).transpose()?;
        let mut out = Vec::new();
        let mut stack: Vec<(String, Option<gix::ObjectId>, Option<gix::ObjectId>)> =
            vec![(String::new(), old, Some(new))];
        while let Some((prefix, a, b)) = stack.pop() {
            if a == b || out.len() >= limit {
                continue;
            }
            let entries = |id: Option<gix::ObjectId>| -> Vec<(String, gix::ObjectId, bool)> {
                let Some(id) = id else { return Vec::new() };
                let Ok(tree) = self.repo.find_tree(id) else {
                    return Vec::new();
                };
                let Ok(decoded) = tree.decode() else {
                    return Vec::new();
                };
                decoded
                    .entries
                    .iter()
                    .map(|e| (e.filename.to_string(), e.oid.to_owned(), e.mode.is_tree()))
                    .collect()
            };
            let (ea, eb) = (entries(a), entries(b));
            let mut names: Vec<&String> = ea.iter().chain(&eb).map(|(n, _, _)| n).collect();
            names.sort();
            names.dedup();
            for name in names {
                let x = ea.iter().find(|(n, _, _)| n == name);
                let y = eb.iter().find(|(n, _, _)| n == name);
                if x.map(|e| e.1) == y.map(|e| e.1) {
                    continue;
                }
                let path = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}/{name}")
                };
                let tree_a = x.filter(|e| e.2).map(|e| e.1);
                let tree_b = y.filter(|e| e.2).map(|e| e.1);
                if tree_a.is_some() || tree_b.is_some() {
                    stack.push((path.clone(), tree_a, tree_b));
                }
                if x.is_some_and(|e| !e.2) || y.is_some_and(|e| !e.2) {
                    out.push(path);
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// What `git push` with `spec` would send for `refspec`, from the current branch by
    /// default.
    pub fn push_facts_for(
        &self,
        spec: &PushSpec,
        refspec: Option<&str>,
    ) -> Result<PushFacts, Error> {
        let branch = self.branch();
        let refspec = refspec.map(|r| r.trim_start_matches('+').to_owned());
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
            .resolve_rev(&src)
            .ok_or_else(|| Error(format!("cannot resolve `{src}` to a commit")))?;
        // A URL or a path instead of a remote's name: no remote-tracking refs of its own, so
        // what any remote is known to have is the base.
        let by_location = remote.contains(['/', ':']) || remote == ".";
        let tracking_name = format!("refs/remotes/{remote}/{dst}");
        let tracking_id = if by_location {
            None
        } else {
            self.repo
                .try_find_reference(tracking_name.as_str())
                .ok()
                .flatten()
                .and_then(|mut r| r.peel_to_id().ok())
                .map(|id| id.detach())
        };
        let remote_tips = if by_location {
            self.remote_tips("")?
        } else {
            self.remote_tips(&remote)?
        };
        // A linear run from the pushed commit down to the destination's remote-tracking tip
        // means that tip is an ancestor: nothing on the remote would be lost.
        let (ahead, behind) = match self.linear_walk(source_id, &remote_tips) {
            Some((ahead, met)) if Some(met) == tracking_id || tracking_id.is_none() => {
                (ahead, Commits::default())
            }
            quick => {
                let ahead = match quick {
                    Some((ahead, _)) => ahead,
                    None => self.full_walk(source_id, remote_tips.clone())?,
                };
                let behind = match tracking_id {
                    Some(t) => self.walk(t, [source_id])?,
                    None => Commits::default(),
                };
                (ahead, behind)
            }
        };
        Ok(PushFacts {
            remote,
            source_id: Some(source_id),
            base_id: tracking_id,
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
        let prefix = if remote.is_empty() {
            "refs/remotes/".to_owned()
        } else {
            format!("refs/remotes/{remote}/")
        };
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
        let hidden: Vec<gix::ObjectId> = hidden.into_iter().collect();
        if let Some((commits, _)) = self.linear_walk(tip, &hidden) {
            return Ok(commits);
        }
        self.full_walk(tip, hidden)
    }

    /// The common case, cheaply: a linear run of commits from `tip` down to a hidden tip. A
    /// hidden walk first marks the ancestors of the hidden tips (on a long history, most of
    /// it); this reads only the commits in between. `None` when the history between is not a
    /// single line ending at a hidden tip (merges, an unknown base), or is long.
    fn linear_walk(
        &self,
        tip: gix::ObjectId,
        hidden: &[gix::ObjectId],
    ) -> Option<(Commits, gix::ObjectId)> {
        const LIMIT: usize = 2000;
        let mut out = Commits::default();
        let mut id = tip;
        for _ in 0..LIMIT {
            if hidden.contains(&id) {
                return Some((out, id));
            }
            let commit = self.repo.find_commit(id).ok()?;
            let mut parents = commit.parent_ids();
            let parent = parents.next();
            if parents.next().is_some() {
                return None; // a merge: the full walk decides
            }
            out.count += 1;
            if out.first.len() < MAX_SUBJECTS {
                let subject = commit
                    .message()
                    .ok()
                    .map(|m| m.summary().to_str_lossy().into_owned())
                    .unwrap_or_default();
                out.first.push(CommitLine {
                    id: id.to_hex_with_len(8).to_string(),
                    subject,
                });
            }
            id = parent?.detach(); // the root without meeting a hidden tip: unknown base
        }
        None
    }

    fn full_walk(&self, tip: gix::ObjectId, hidden: Vec<gix::ObjectId>) -> Result<Commits, Error> {
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

/// Directories that hold build output, not code, in common ecosystems.
const BUILD_DIRS: [&str; 14] = [
    "target",
    "node_modules",
    "dist",
    "build",
    "out",
    "coverage",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".pytest_cache",
    ".mypy_cache",
    ".gradle",
    ".next",
];

/// Plain names listed in the root `.gitignore` (`target/`, `/dist`): enough to skip ignored
/// build directories without evaluating every ignore rule.
fn simple_ignores(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root.join(".gitignore"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().trim_start_matches('/').trim_end_matches('/'))
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with('#')
                && !l.starts_with('!')
                && !l.contains(['*', '?', '[', '/'])
        })
        .map(str::to_owned)
        .collect()
}

fn tracked_prefix(tracked: &std::collections::HashSet<&[u8]>, dir: &str) -> bool {
    let prefix = format!("{dir}/");
    tracked.iter().any(|p| p.starts_with(prefix.as_bytes()))
}

#[cfg(unix)]
fn unix_mtime(m: &std::fs::Metadata) -> (i64, u32) {
    use std::os::unix::fs::MetadataExt;
    (m.mtime(), m.mtime_nsec() as u32)
}

#[cfg(not(unix))]
fn unix_mtime(m: &std::fs::Metadata) -> (i64, u32) {
    let d = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .unwrap_or_default();
    (d.as_secs() as i64, d.subsec_nanos())
}

/// A file's modification time in milliseconds since the epoch.
pub fn mtime_ms(path: &Path) -> Option<i64> {
    let t = path.metadata().ok()?.modified().ok()?;
    Some(t.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_millis() as i64)
}
