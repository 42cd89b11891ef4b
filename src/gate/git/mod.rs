//! Reading a `git` command line the way git does: its global options (`-C`, `-c`,
//! `--config-env`, `--git-dir`, `--work-tree`), configuration given on the command line or in the
//! environment (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`, `GIT_CONFIG_PARAMETERS`), aliases (from the
//! command line, from `git config alias.…` earlier in the same line, and from the repository's
//! and the user's git config), and each subcommand's options with git's abbreviation rule.
//!
//! `read` reads the global part and expands aliases, once per command (what `classify` finds
//! and the alias a command defines for the rest of its line come from that one reading);
//! `verbs` names what each subcommand does to shared state, from its table of subcommands whose
//! procedural rows are read by `rules`, with `loss` for the forms that lose branches, stashes
//! or changes.

mod loss;
pub mod program_keys;
mod read;
mod rebase;
mod rules;
#[cfg(test)]
mod tests;
mod verbs;

use std::path::Path;

use super::classify::Gated;
use super::git_options as opts;
use super::repos::Repos;
use super::shell::SimpleCommand;
pub use read::{Invocation, LineAliases, read};

/// Whether `cmd` runs git: `git`, a path to it, or `git-<verb>` (`…/git-core/git-push`).
pub fn is_git(cmd: &SimpleCommand) -> bool {
    cmd.program()
        .is_some_and(|p| p == "git" || p.strip_prefix("git-").is_some_and(opts::is_builtin))
}

/// What the classifier found for one git command.
pub enum Found {
    Gated(Vec<Gated>),
    /// The verb (or a global option) is computed at run time.
    Unreadable(String),
    /// A `!shell` alias: the text of what it runs, to be read as a script.
    ShellAlias(String),
    /// What the command does, and a program a config value on its command line makes git run
    /// (to be read as a script).
    GatedAndProgram(Vec<Gated>, String),
}

/// A program a config value on the command line makes git run, when it names a gated action
/// (`-c core.fsmonitor='git push #' status`): read as a script.
fn program_config(inv: &Invocation) -> Option<String> {
    inv.config.iter().find_map(|(key, value)| {
        let runs = program_keys::runs_program(key);
        let names_gated = value
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .any(super::tools::is_gated_program);
        (runs && names_gated).then(|| value.clone())
    })
}

/// A git command, read once: what it does, and what it leaves for the commands after it on
/// the line: whether it stashes the current changes, and an alias (or `help.autocorrect`) it
/// defines.
pub struct GitCommand {
    pub found: Found,
    pub stashes: bool,
    /// It brings a stash's changes back (`stash pop`, `stash apply`).
    pub unstashes: bool,
    /// It renames a branch: `(new, old)`.
    pub renames: Option<(String, String)>,
    pub defines: Option<(String, String)>,
}

/// Names the gated actions of a git command.
pub fn classify(
    cmd: &SimpleCommand,
    line: &LineAliases,
    repos: &Repos,
    earlier_stash: bool,
) -> GitCommand {
    let inv = read(cmd, line, repos);
    let found = verbs::classify_verb(cmd, &inv, earlier_stash);
    // `-c core.fsmonitor='git push #' status`: the program runs besides the command itself.
    let found = match (found, program_config(&inv)) {
        (Found::Gated(gated), Some(program)) => Found::GatedAndProgram(gated, program),
        (found, _) => found,
    };
    // A definition reached through an alias defines as surely as one typed out: after
    // `git config alias.c config`, `git c alias.p push` runs `git config alias.p push` (the
    // reading follows aliases to the same bounded depth as any other).
    let defines = read::defined_alias(&inv);
    GitCommand {
        found,
        stashes: verbs::stashes(&inv),
        unstashes: verbs::unstashes(&inv),
        renames: verbs::renames(&inv),
        defines,
    }
}

/// Whether a path names a git directory or lies inside one.
pub fn in_git_dir(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == ".git")
}
