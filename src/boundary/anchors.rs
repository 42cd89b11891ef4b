//! What the boundary protects: hookjudge's anchors (the files whose change switches it off or
//! forges a person's decision), found for one command's directory, and the directories above
//! them that must not be renamed away.

use std::path::{Path, PathBuf};

use super::git_credentials::Cleaned;
use crate::agent::Agent;
use crate::support::dirs;

/// One file or directory the agent's commands must not write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub path: PathBuf,
    /// What it is, for `doctor` and error messages.
    pub what: &'static str,
    /// What to create when it is missing, so that it can be bound read-only: a command that
    /// creates it (`git config --global …` making `~/.gitconfig`) would switch hookjudge off.
    pub create: Create,
}

/// What [`Plan::materialise`] creates for a missing anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Create {
    /// An empty directory.
    Dir,
    /// An empty file (an empty git config file means nothing to git).
    File,
    /// Nothing (outside the user's own files, such as `/etc/gitconfig`).
    Nothing,
}

/// What `run-confined` does for one command.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Existing anchors, made read-only (outermost only: nothing here is inside another).
    pub read_only: Vec<Anchor>,
    /// Directories above an anchor, pinned so that they cannot be renamed or removed,
    /// shallowest first.
    pub pinned: Vec<PathBuf>,
    /// Covered by an empty read-only directory (or `/dev/null` for a file): the seal key, and
    /// publishing credentials with [`Plan::hide_credentials`].
    pub hidden: Vec<PathBuf>,
    /// Anchors that do not exist, so cannot be bound: created later, they are not protected.
    pub missing: Vec<Anchor>,
    /// Git configuration files read in place through a copy without their credentials, with
    /// [`Plan::clean_git_credentials`].
    pub cleaned: Vec<Cleaned>,
}

/// Anchors under the home directory, relative to it, and what each is.
const HOME_ANCHORS: [(&str, &str, Create); 5] = [
    (".claude", "Claude Code's user settings", Create::Dir),
    (".codex", "Codex CLI's user settings and hooks", Create::Dir),
    (".gemini", "Gemini CLI's user settings", Create::Dir),
    (".gitconfig", "the user's git configuration", Create::File),
    (".config/git", "the user's git configuration", Create::Dir),
];

/// Anchors in a repository's work tree: the agents' project and local settings.
const WORK_TREE_ANCHORS: [(&str, &str, Create); 3] = [
    (".claude", "Claude Code's project settings", Create::Dir),
    (".codex", "Codex CLI's project settings", Create::Dir),
    (".gemini", "Gemini CLI's project settings", Create::Dir),
];

/// Where publishing credentials live, relative to the home directory: hidden from confined
/// commands unless the gate let a publishing command through (see [`Plan::hide_credentials`]).
pub const CREDENTIALS: [&str; 18] = [
    ".ssh",
    ".git-credentials",
    // `http.cookieFile`'s usual file: Gerrit and googlesource authenticate pushes with it.
    ".gitcookies",
    ".cache/git/credential",
    ".netrc",
    ".config/gh",
    ".config/hub",
    ".npmrc",
    ".yarnrc.yml",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".pypirc",
    ".docker/config.json",
    ".kube",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".gnupg",
];

/// Environment variables that carry publishing credentials (or reach an agent that holds
/// them): removed from a confined command's environment along with the files.
pub const CREDENTIAL_VARIABLES: [&str; 19] = [
    "SSH_AUTH_SOCK",
    // An SSH command or program of its own (a key of its own, as `core.sshCommand` can name).
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    // Programs that hand out passwords, and `git -c` settings passed down (an extra header).
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_CONFIG_PARAMETERS",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GITLAB_TOKEN",
    "NPM_TOKEN",
    "NODE_AUTH_TOKEN",
    "CARGO_REGISTRY_TOKEN",
    "TWINE_PASSWORD",
    "TWINE_USERNAME",
    "PYPI_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "DOCKER_AUTH_CONFIG",
];

impl Plan {
    /// Adds the credential files and directories that exist (and the SSH agent's socket) to
    /// what is hidden.
    pub fn hide_credentials(mut self) -> Plan {
        let mut more: Vec<PathBuf> = home()
            .map(|h| CREDENTIALS.iter().map(|rel| h.join(rel)).collect())
            .unwrap_or_default();
        more.extend(std::env::var_os("SSH_AUTH_SOCK").map(PathBuf::from));
        let anchors: Vec<Anchor> = self.read_only.drain(..).collect();
        let mut hidden = std::mem::take(&mut self.hidden);
        hidden.extend(more.into_iter().filter_map(|p| p.canonicalize().ok()));
        let mut plan = arrange(anchors, hidden);
        plan.missing = self.missing;
        plan.cleaned = self.cleaned;
        plan
    }
}

/// The anchors for a command run in `cwd` by the hookjudge binary at `exe`.
pub fn plan(cwd: &Path, exe: &Path) -> Plan {
    plan_in(gix::discover(cwd).ok().as_ref(), exe)
}

/// The anchors for a command run in `repo` (or outside any repository) by the hookjudge binary
/// at `exe`: [`plan`] for a caller that has the repository open already.
pub fn plan_in(repo: Option<&gix::Repository>, exe: &Path) -> Plan {
    let mut candidates: Vec<Anchor> = Vec::new();
    let mut add = |path: PathBuf, what: &'static str, create: Create| {
        candidates.push(Anchor { path, what, create })
    };
    add(
        dirs::state_dir(),
        "hookjudge's state (trust, approvals, ledger)",
        Create::Dir,
    );
    add(dirs::data_dir(), "hookjudge's decision log", Create::Dir);
    if let Some(config) = dirs::config_file().parent() {
        add(config.to_path_buf(), "hookjudge's user config", Create::Dir);
    }
    let exe = exe.canonicalize().unwrap_or_else(|_| exe.to_path_buf());
    if let Some(bin) = exe.parent() {
        add(
            bin.to_path_buf(),
            "the directory of the hookjudge binary",
            Create::Nothing,
        );
        // A directory earlier on PATH could shadow it for hooks that name `hookjudge`.
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let dir = dir.canonicalize().unwrap_or(dir);
            if dir == bin {
                break;
            }
            if home().is_some_and(|h| dir.starts_with(h)) {
                add(
                    dir,
                    "a directory on PATH before the hookjudge binary",
                    Create::Nothing,
                );
            }
        }
    }
    if let Some(home) = home() {
        for (rel, what, create) in HOME_ANCHORS {
            add(home.join(rel), what, create);
        }
    }
    add(
        PathBuf::from("/etc/gitconfig"),
        "the system's git configuration",
        Create::Nothing,
    );
    if let Some(repo) = repo {
        let common = repo.common_dir().to_path_buf();
        add(
            common.join("config"),
            "the repository's git configuration",
            Create::File,
        );
        add(
            common.join("hooks"),
            "the repository's git hooks",
            Create::Dir,
        );
        add(
            repo.git_dir().join("config.worktree"),
            "the work tree's git configuration",
            Create::File,
        );
        // Read from the repository already open (`githook::hooks_dir` would discover it again).
        // An empty one runs no hook at all (Gemini CLI sets it so for its shell commands): there
        // is no folder to keep, and the work tree it would name must stay writable.
        let configured = repo
            .config_snapshot()
            .string("core.hooksPath")
            .map(|p| p.to_string())
            .filter(|p| !p.trim().is_empty())
            .map(PathBuf::from);
        if let Some(hooks) = configured {
            let hooks = match repo.workdir() {
                Some(work_tree) if hooks.is_relative() => work_tree.join(hooks),
                _ => hooks,
            };
            add(
                hooks,
                "the repository's git hooks (`core.hooksPath`)",
                Create::Dir,
            );
        }
        if let Some(work_tree) = repo.workdir() {
            for (rel, what, create) in WORK_TREE_ANCHORS {
                add(work_tree.join(rel), what, create);
            }
            for agent in Agent::ALL {
                let file = work_tree.join(agent.hook_files().project);
                if file.exists() {
                    add(file, "an agent's project hook settings", Create::Nothing);
                }
            }
        }
    }
    // Every agent's hook files, from the agent table, where they exist (in the work tree above,
    // under the home folder here): the three folders above are whole, these are the files
    // `init` writes, since another agent's folder may hold what its commands must write.
    if let Some(home) = home() {
        for agent in Agent::ALL {
            let file = home.join(agent.hook_files().user);
            if file.exists() {
                add(file, "an agent's user hook settings", Create::Nothing);
            }
        }
    }
    arrange(candidates, vec![crate::support::seal::key_dir()])
}

impl Plan {
    /// Creates the missing anchors that can be created (empty), so that the boundary binds
    /// them too, and plans again. Returns the plan for the same anchors.
    pub fn materialise(self) -> Plan {
        let mut candidates = self.read_only;
        for anchor in self.missing {
            // One that cannot be made stays missing, and `--explain` and `doctor` say so.
            let _ = match anchor.create {
                Create::Dir => std::fs::create_dir_all(&anchor.path),
                Create::File => std::fs::OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(&anchor.path)
                    .map(drop),
                Create::Nothing => Ok(()),
            };
            candidates.push(anchor);
        }
        for cleaned in &self.cleaned {
            // One that cannot be written is bound all the same: the bind fails, and the command
            // is not run (fail closed).
            let _ = cleaned.write();
        }
        let mut plan = arrange(candidates, self.hidden);
        plan.cleaned = self.cleaned;
        plan
    }
}

/// Sorts anchors into existing (outermost only) and missing, and finds the directories above
/// them to pin.
pub(super) fn arrange(candidates: Vec<Anchor>, hidden: Vec<PathBuf>) -> Plan {
    let mut plan = Plan::default();
    for anchor in candidates {
        let Ok(path) = anchor.path.canonicalize() else {
            if !plan.missing.iter().any(|m| m.path == anchor.path) {
                plan.missing.push(anchor);
            }
            continue;
        };
        plan.read_only.push(Anchor { path, ..anchor });
    }
    plan.read_only.sort_by(|a, b| a.path.cmp(&b.path));
    plan.read_only
        .dedup_by(|later, earlier| later.path.starts_with(&earlier.path));
    plan.hidden = hidden
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    plan.hidden.sort();
    plan.hidden.dedup();
    let mut pinned: Vec<PathBuf> = Vec::new();
    let protected = plan
        .read_only
        .iter()
        .map(|a| a.path.as_path())
        .chain(plan.hidden.iter().map(PathBuf::as_path));
    for path in protected {
        for dir in path.ancestors().skip(1) {
            let inside_anchor = plan.read_only.iter().any(|a| dir.starts_with(&a.path));
            if dir.parent().is_some() && !inside_anchor && !pinned.iter().any(|p| p == dir) {
                pinned.push(dir.to_path_buf());
            }
        }
    }
    pinned.sort_by_key(|p| p.components().count());
    plan.pinned = pinned;
    plan
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .map(|h| h.canonicalize().unwrap_or(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_inside_anchors_fold_and_every_directory_above_is_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for sub in ["state/hookjudge/key", "repo/.git/hooks", "repo/src"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("repo/.git/config"), "").unwrap();
        let anchor = |rel: &str| Anchor {
            path: root.join(rel),
            what: "x",
            create: Create::Dir,
        };
        let plan = arrange(
            vec![
                anchor("state/hookjudge"),
                anchor("state/hookjudge/ledger"),
                anchor("repo/.git/config"),
                anchor("repo/.git/hooks"),
                anchor("repo/.codex"),
            ],
            vec![root.join("state/hookjudge/key")],
        );
        let read_only: Vec<PathBuf> = plan.read_only.iter().map(|a| a.path.clone()).collect();
        assert_eq!(
            read_only,
            [
                root.join("repo/.git/config"),
                root.join("repo/.git/hooks"),
                root.join("state/hookjudge")
            ]
        );
        assert_eq!(plan.missing.len(), 2, "{:?}", plan.missing);
        assert_eq!(plan.hidden, [root.join("state/hookjudge/key")]);
        for pinned in ["repo", "repo/.git", "state"] {
            assert!(plan.pinned.contains(&root.join(pinned)), "{pinned}");
        }
        assert!(!plan.pinned.contains(&root.join("repo/src")));
        assert!(
            !plan
                .pinned
                .iter()
                .any(|p| p.starts_with(root.join("state/hookjudge"))),
            "nothing inside an anchor is pinned: {:?}",
            plan.pinned
        );
        assert!(
            plan.pinned
                .windows(2)
                .all(|w| w[0].components().count() <= w[1].components().count())
        );
    }
}
