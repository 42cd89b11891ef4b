//! Our entries in each agent's settings file: what they look like, where they go, and how to
//! merge them in or take them out without touching anything else.
//!
//! The templates in `hooks-templates/` are the table of entries: one group per row (event,
//! matcher, subcommand, timeout). [`entries`] fills them for one install mode; adding an entry
//! is one more group in a template.
//!
//! An entry is ours when it runs the `hookjudge` binary (by that exact file name) with one of
//! our subcommands, directly or through the team-mode wrapper. Entries are paired with the
//! template's rows in order within an event, so the user's changes to ours (matcher, a larger
//! timeout, extra keys) are kept, a second `init` changes nothing and an upgrade edits ours in
//! place.
//!
//! This module says where the entries go ([`Scope`], [`settings_path`]); [`template`] fills
//! the entries, [`ours`] recognises them in a file, [`merge`] puts them in and [`remove`]
//! takes them out; [`sandbox`] does the same for Claude Code's `sandbox` block, and
//! [`codex_sandbox`] for Codex CLI's sandbox keys in its `config.toml`.

mod codex_sandbox;
mod merge;
mod ours;
mod owned;
mod remove;
mod sandbox;
mod template;

use std::path::{Path, PathBuf};

use crate::agent::{Agent, LocalFile};

pub use codex_sandbox::{
    CodexMerged, CodexSandboxError, merge_codex_sandbox, remove_codex_sandbox, under_temp,
};
pub use merge::{MergeError, Merged, PREVIOUS_MATCHERS, merge};
pub use ours::{Installed, SUBCOMMANDS, installed, installed_elsewhere, is_our_file_name, is_ours};
pub use owned::{is_owned_text, owned_path, owned_program, owned_text};
pub use remove::remove;
pub use sandbox::{SANDBOX_HINT, SandboxPaths, merge_sandbox, remove_sandbox, sandbox_unavailable};
pub use template::{
    CLAMP_MARGIN_MS, Fill, TIMEOUT_MARGIN_S, clamp_deadline_ms, entries, events, fresh_file,
    missing_output, settings_timeout_s, template,
};

/// Where an install goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Team mode: the repository's committed settings (`.claude/settings.json`,
    /// `.codex/hooks.json`, `.gemini/settings.json`), naming `hookjudge` by name.
    Project,
    /// This user in this checkout (the default): Claude Code's `.claude/settings.local.json`;
    /// the others have no per-checkout file, so their project files (`.codex/hooks.json`,
    /// `.gemini/settings.json`, …). All are kept out of git by the clone's `.git/info/exclude`.
    Local,
    /// Every project of this user (`~/.claude/settings.json`, …).
    User,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }

    /// Whether entries name `hookjudge` by name (committed files) rather than by absolute path.
    pub fn portable(self) -> bool {
        self == Scope::Project
    }
}

/// Codex's home folder: `CODEX_HOME`, or `~/.codex` when that is unset or empty.
pub fn codex_home(home: &Path) -> PathBuf {
    agent_home(Agent::Codex, home)
}

#[cfg(test)]
fn codex_home_from(var: Option<std::ffi::OsString>, home: &Path) -> PathBuf {
    agent_home_from(Agent::Codex, var, home)
}

/// The folder `agent`'s user file starts with: where its [`crate::agent::HookFiles::home_var`]
/// points, or in the home folder when that is unset or empty.
fn agent_home(agent: Agent, home: &Path) -> PathBuf {
    let var = agent.hook_files().home_var.and_then(std::env::var_os);
    agent_home_from(agent, var, home)
}

fn agent_home_from(agent: Agent, var: Option<std::ffi::OsString>, home: &Path) -> PathBuf {
    let first: PathBuf = Path::new(agent.hook_files().user)
        .components()
        .take(1)
        .collect();
    var.filter(|h| !h.is_empty())
        .map_or_else(|| home.join(first), PathBuf::from)
}

/// The user-scope hooks file of `agent` (Codex's follows `CODEX_HOME`, Copilot CLI's
/// `COPILOT_HOME`).
fn user_path(agent: Agent, home: &Path) -> PathBuf {
    let rest: PathBuf = Path::new(agent.hook_files().user)
        .components()
        .skip(1)
        .collect();
    agent_home(agent, home).join(rest)
}

/// The file that holds `agent`'s hooks for `scope`, from the agent table
/// ([`crate::agent::HookFiles`]).
pub fn settings_path(agent: Agent, scope: Scope, root: &Path, home: &Path) -> PathBuf {
    let files = agent.hook_files();
    match (scope, files.local) {
        (Scope::Local, LocalFile::Own(local)) => root.join(local),
        // The agent reads only the project file in a checkout: the local install goes there,
        // kept out of git by the clone's exclude file (see [`crate::install::ignore`]).
        (Scope::Project, _) | (Scope::Local, LocalFile::Project) => root.join(files.project),
        (Scope::User, _) | (Scope::Local, LocalFile::User) => user_path(agent, home),
    }
}

/// The folder whose presence says the agent is used here.
pub fn agent_folder(agent: Agent, scope: Scope, root: &Path, home: &Path) -> PathBuf {
    let base = if scope == Scope::User { home } else { root };
    base.join(agent.config_dir())
}

#[cfg(test)]
mod tests;
