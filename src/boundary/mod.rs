//! The boundary: an operating-system limit on what the agent's commands can write, so that
//! no command, whatever path, link, archive, copy or program it uses, switches hookjudge off.
//!
//! Reading the command line (the gate) stays the fast, explaining layer; it cannot see every
//! write (`cp -r stage/. ~/.local/state/`, `ln -s .claude cc`, a script run later). The
//! boundary runs each agent command through `hookjudge run-confined`, which (Linux) makes the
//! anchors ([`anchors`]) read-only for it and everything it starts:
//! - a new user and mount namespace, in which every anchor that exists is bind-mounted
//!   read-only onto itself (a file or a whole directory, carved out exactly: the repository
//!   stays writable beside `.git/hooks` and `.git/config`), and every directory above an
//!   anchor is bind-mounted onto itself, so that it cannot be renamed or removed
//!   (`mv ~/.cargo ~/.cargo.old` fails with "busy");
//! - the seal key's directory ([`crate::support::seal`]) covered by an empty read-only directory, so
//!   the agent's commands cannot seal a forged trust or approval record;
//! - then Landlock, which allows every file access but forbids a confined process to change
//!   its mounts (`umount` of the read-only binds), and `no_new_privs`.
//!
//! Landlock alone cannot carve a file out of a writable directory (its rules grant whole
//! hierarchies), and git needs to create files directly in `.git` next to `.git/config`,
//! which is why the read-only part is done with bind mounts. What does not exist cannot be
//! bound, so `run-confined` first creates the missing anchors in the user's own files, empty
//! (`~/.gitconfig`, `~/.codex/`, the work tree's `.codex/`): otherwise `git config --global`
//! would create `~/.gitconfig` with `core.hooksPath` in it.
//!
//! A command the gate did not let through as a push also sees the repository's local-path
//! remotes read-only ([`remotes`]): no credential guards a push to a directory. It sees no
//! credential files ([`Plan::hidden`]), and git's configuration without the credentials written
//! into it ([`git_credentials`]).
//!
//! Not for: the network (it stays open: what publishes without a credential, to a public host
//! that takes anonymous writes, is not stopped), platforms without Linux namespaces (macOS: use
//! the agent's own sandbox).

mod anchors;
#[cfg(target_os = "linux")]
mod confine;
mod git_credentials;
pub mod permissions;
mod remotes;
mod rewrite;

pub use anchors::{Anchor, CREDENTIAL_VARIABLES, CREDENTIALS, Create, Plan, plan, plan_in};
#[cfg(target_os = "linux")]
pub use confine::{Error, confine, landlock_abi};
pub use git_credentials::{Cleaned, env_settings_without_credentials, without_credentials};
pub use rewrite::{confined_command, is_confined_command};

/// How hookjudge keeps the agent's commands off its own files (`boundary.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// No boundary: only the gate's reading of the command line protects hookjudge.
    #[default]
    Off,
    /// The gate rewrites each shell command to run under `hookjudge run-confined`.
    Landlock,
    /// The agent's own sandbox protects the anchors (`init` configures Claude Code's).
    Agent,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Landlock => "landlock",
            Mode::Agent => "agent",
        }
    }
}
