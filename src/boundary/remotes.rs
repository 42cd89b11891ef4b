//! The repository's remotes that are local paths (`/srv/origin.git`, `../origin.git`,
//! `file:///srv/origin.git`): a push there is a write to a directory, which no hidden
//! credential stops, so a confined command that the gate did not let through as a push sees
//! them read-only ([`Plan::protect_local_remotes`]); fetching from them still works.

use std::path::PathBuf;

use super::anchors::{Anchor, Create, Plan, arrange};

impl Plan {
    /// Adds the directories of the local-path remotes of `repo` to what is read-only (for a remote with a work tree, its `.git`). A remote that holds the
    /// repository itself (`.`, a parent folder) is left alone: binding it would make the work
    /// tree read-only too.
    pub fn protect_local_remotes(mut self, repo: Option<&gix::Repository>) -> Plan {
        let Some(remotes) = repo.map(local_remotes) else {
            return self;
        };
        if remotes.is_empty() {
            return self;
        }
        let mut candidates: Vec<Anchor> = self.read_only.drain(..).collect();
        candidates.extend(remotes.into_iter().map(|path| Anchor {
            path,
            what: "a local-path remote of the repository (pushing needs the gate's yes)",
            create: Create::Nothing,
        }));
        let hidden = std::mem::take(&mut self.hidden);
        let mut plan = arrange(candidates, hidden);
        plan.missing = self.missing;
        plan.cleaned = self.cleaned;
        plan
    }
}

/// The existing directories the repository's remotes (`url` and `pushurl`) name as local
/// paths, canonical.
fn local_remotes(repo: &gix::Repository) -> Vec<PathBuf> {
    // Git reads a relative remote path from the top of the work tree.
    let base = repo
        .workdir()
        .unwrap_or_else(|| repo.git_dir())
        .to_path_buf();
    let own: Vec<PathBuf> = [Some(repo.common_dir()), repo.workdir()]
        .into_iter()
        .flatten()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let config = repo.config_snapshot();
    let mut found: Vec<PathBuf> = Vec::new();
    for section in config
        .plumbing()
        .sections_by_name("remote")
        .into_iter()
        .flatten()
    {
        for key in ["url", "pushurl"] {
            for url in section.values(key) {
                let Some(path) = local_path(&url.to_string()) else {
                    continue;
                };
                let Ok(path) = base.join(path).canonicalize() else {
                    continue;
                };
                let path = match path.join(".git") {
                    git if git.is_dir() => git,
                    _ => path,
                };
                if own.iter().any(|o| o.starts_with(&path)) || found.contains(&path) {
                    continue;
                }
                found.push(path);
            }
        }
    }
    found
}

/// The path of a remote URL that names a local directory, as git tells them apart: `file://`,
/// or no `://` and no `:` before the first `/` (`host:path` is SSH).
fn local_path(url: &str) -> Option<PathBuf> {
    if let Some(path) = url.strip_prefix("file://") {
        return Some(PathBuf::from(path));
    }
    if url.contains("://") {
        return None;
    }
    match (url.find(':'), url.find('/')) {
        (Some(colon), Some(slash)) if colon < slash => None,
        (Some(_), None) => None,
        _ => Some(PathBuf::from(url)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_paths_are_told_from_network_remotes_as_git_does() {
        for (url, local) in [
            ("/srv/origin.git", Some("/srv/origin.git")),
            ("../origin.git", Some("../origin.git")),
            ("file:///srv/o.git", Some("/srv/o.git")),
            ("origin.git", Some("origin.git")),
            ("./a:b/c", Some("./a:b/c")),
            ("git@github.com:me/r.git", None),
            ("host:r.git", None),
            ("https://github.com/me/r.git", None),
            ("ssh://git@host/r.git", None),
        ] {
            assert_eq!(local_path(url), local.map(PathBuf::from), "{url}");
        }
    }
}
