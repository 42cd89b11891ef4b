//! Uncommitted work: the exact status through gix, and a cheap stat-only look for "did
//! anything change after the evidence".

use std::path::Path;
use std::time::SystemTime;

use gix::bstr::ByteSlice;

use super::{Changes, Error, Repo};

impl Repo {
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
        let mut in_work_tree: Vec<String> = Vec::new();
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
                    if matches!(item, gix::status::Item::TreeIndex(_)) {
                        out.staged_only.push(path.clone());
                    } else {
                        in_work_tree.push(path.clone());
                    }
                    if !out.modified.contains(&path) {
                        out.modified.push(path);
                    }
                }
            }
        }
        out.staged_only.retain(|p| !in_work_tree.contains(p));
        out.staged_only.sort();
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

    /// Every path a commit could take: staged, unstaged and untracked (each file inside an
    /// untracked directory, not ignored ones), a staged rename as both its sides.
    pub fn every_changed_path(&self) -> Result<Vec<String>, Error> {
        let iter = ctx!(
            self.repo.status(gix::progress::Discard),
            "cannot read the status"
        )?
        .untracked_files(gix::status::UntrackedFiles::Files)
        .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled)
        .index_worktree_rewrites(None);
        let iter = ctx!(iter.into_iter(None), "cannot read the status")?;
        let mut out = Vec::new();
        for item in iter {
            let item = ctx!(item, "cannot read the status")?;
            out.push(item.location().to_str_lossy().into_owned());
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The untracked and ignored entries `git clean` could delete, limited to `pathspecs`
    /// when there are any: a directory wholly untracked or ignored as one entry, its path
    /// ending in `/`.
    pub fn clean_candidates(&self, pathspecs: &[String]) -> Result<Vec<Uncommitted>, Error> {
        use gix::dir::entry::{Kind, Status};
        use gix::dir::walk::EmissionMode::CollapseDirectory;
        let index = ctx!(self.repo.index_or_empty(), "cannot read the index")?;
        let options = ctx!(self.repo.dirwalk_options(), "cannot read the work tree")?
            .emit_untracked(CollapseDirectory)
            .emit_ignored(Some(CollapseDirectory))
            .for_deletion(Some(Default::default()))
            .empty_patterns_match_prefix(true);
        let walk = ctx!(
            self.repo.dirwalk_iter(
                index,
                pathspecs.iter().map(String::as_str),
                Default::default(),
                options
            ),
            "cannot walk the work tree"
        )?;
        let mut out = Vec::new();
        for item in walk {
            let entry = ctx!(item, "cannot walk the work tree")?.entry;
            let ignored = match entry.status {
                Status::Untracked => false,
                Status::Ignored(_) => true,
                Status::Pruned | Status::Tracked => continue,
            };
            let directory = matches!(entry.disk_kind, Some(Kind::Directory | Kind::Repository));
            let mut path = entry.rela_path.to_str_lossy().into_owned();
            if directory {
                path.push('/');
            }
            out.push(Uncommitted {
                path,
                ignored,
                directory,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// A file or directory git does not track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uncommitted {
    /// Repository-relative; a directory's ends in `/`.
    pub path: String,
    /// Ignored (`.gitignore`, `.git/info/exclude`, `core.excludesFile`), not just untracked.
    pub ignored: bool,
    pub directory: bool,
}

/// Directories that hold build output, not code, in common ecosystems.
pub const BUILD_DIRS: [&str; 14] = [
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
