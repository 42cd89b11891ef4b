//! Where an install or an uninstall acts: the repository (or folder), the home folder, the
//! scope and the agents, and how the files it touches are named to the user.

use std::path::{Path, PathBuf};

use super::files;
use super::settings::{self, Scope};
use crate::agent::Agent;

/// What `init` or `uninstall` acts on.
#[derive(Debug, Clone)]
pub struct Target {
    /// The repository root, or the folder it runs in (`--force`, user scope, `uninstall`).
    pub root: PathBuf,
    pub home: PathBuf,
    pub scope: Scope,
    pub agents: Vec<Agent>,
    /// Whether the agents were named (`--agent`) rather than found.
    pub explicit: bool,
    /// Whether no agent's folder was found, so the agent is the default (Claude Code): the
    /// person is told, and how to choose another.
    pub defaulted: bool,
}

impl Target {
    /// A path as the user should read it: relative to the repository when inside it (outside
    /// user scope), absolute otherwise, with the symlink target when the file is a link.
    pub fn shown(&self, path: &Path) -> String {
        let name = match path.strip_prefix(&self.root) {
            Ok(p) if self.scope != Scope::User => p.display().to_string(),
            _ => path.display().to_string(),
        };
        let real = files::resolve(path);
        if real != path {
            format!("{name} -> {}", real.display())
        } else {
            name
        }
    }

    /// The folder a dry run's diff is relative to, so that `patch -p1` applies it there: the
    /// repository, or the home folder in user scope.
    pub fn diff_base(&self) -> &Path {
        match self.scope {
            Scope::User => &self.home,
            _ => &self.root,
        }
    }

    /// `path` as a diff names it: relative to [`Target::diff_base`], absolute outside it.
    pub fn diff_name(&self, path: &Path) -> String {
        let base = files::resolve(self.diff_base());
        let path = files::resolve(path);
        match path.strip_prefix(&base) {
            Ok(relative) => relative.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// Each agent's settings file, once per file (two agents may share one through a link).
    pub fn settings_files(&self) -> Vec<(Agent, PathBuf)> {
        let mut seen = Vec::new();
        let mut found = Vec::new();
        for agent in &self.agents {
            if self.owned_file(*agent).is_some() {
                continue;
            }
            let path = settings::settings_path(*agent, self.scope, &self.root, &self.home);
            let real = files::resolve(&path);
            if !seen.contains(&real) {
                seen.push(real);
                found.push((*agent, path));
            }
        }
        found
    }

    /// The file of ours `init` writes whole for `agent` in this scope, if its hooks are one.
    pub fn owned_file(&self, agent: Agent) -> Option<PathBuf> {
        settings::owned_path(agent, self.scope, &self.root, &self.home)
    }

    /// The ignore file for this scope: `.gitignore` in team mode, else the clone's own
    /// exclude; none in user scope or outside a repository.
    pub fn ignore_file(&self) -> Option<PathBuf> {
        match self.scope {
            Scope::User => None,
            Scope::Project => Some(self.root.join(".gitignore")),
            Scope::Local => {
                let repo = gix::discover(&self.root).ok()?;
                Some(repo.common_dir().join("info/exclude"))
            }
        }
    }

    /// Whether git tracks `path` in this repository (a committed file a local install must not
    /// change: everyone would get this machine's paths).
    pub fn tracked(&self, path: &Path) -> bool {
        let Ok(repo) = gix::discover(&self.root) else {
            return false;
        };
        let Some(work) = repo.workdir().and_then(|w| w.canonicalize().ok()) else {
            return false;
        };
        let Some(dir) = path.parent().and_then(|d| d.canonicalize().ok()) else {
            return false;
        };
        let Some(name) = path.file_name() else {
            return false;
        };
        let Ok(relative) = dir.join(name).strip_prefix(&work).map(Path::to_path_buf) else {
            return false;
        };
        let Ok(index) = repo.index_or_empty() else {
            return false;
        };
        let Ok(relative) = gix::path::into_bstr(relative) else {
            return false;
        };
        let relative = gix::path::to_unix_separators_on_windows(relative);
        index.entry_by_path(relative.as_ref()).is_some()
    }

    /// Why the agent was chosen when nothing chose it, and how to choose another; none when
    /// `--agent` named it or its folder was found.
    pub fn default_note(&self) -> Option<String> {
        if !self.defaulted {
            return None;
        }
        let folders: Vec<String> = Agent::INSTALLABLE
            .iter()
            .map(|a| format!("`{}`", a.config_dir()))
            .collect();
        let others: Vec<&str> = Agent::INIT
            .iter()
            .filter(|a| !self.agents.contains(a))
            .map(|a| a.name())
            .collect();
        let chosen: Vec<&str> = self.agents.iter().map(|a| a.display_name()).collect();
        let base = match self.scope {
            Scope::User => &self.home,
            _ => &self.root,
        };
        Some(format!(
            "no agent folder ({}) in `{}`, so this is for {}, the default; for another agent run `hookjudge init --agent {}` (or `--agent all`)",
            folders.join(", "),
            base.display(),
            chosen.join(", "),
            others.join("|")
        ))
    }

    /// Whether every agent is being removed (then the files shared by all go too).
    pub fn all_agents(&self) -> bool {
        !self.explicit || self.agents.len() == Agent::INIT.len()
    }
}
