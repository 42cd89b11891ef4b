//! The arguments of `init` and `uninstall`: which agents, where, and what beside the hooks.

use clap::{Args, ValueEnum};

use crate::agent::Agent;

/// Which agents `init` and `uninstall` act on: one by its [`Agent::name`], or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentChoice {
    One(Agent),
    All,
}

impl AgentChoice {
    const VARIANTS: [AgentChoice; 11] = [
        AgentChoice::One(Agent::INIT[0]),
        AgentChoice::One(Agent::INIT[1]),
        AgentChoice::One(Agent::INIT[2]),
        AgentChoice::One(Agent::INIT[3]),
        AgentChoice::One(Agent::INIT[4]),
        AgentChoice::One(Agent::INIT[5]),
        AgentChoice::One(Agent::INIT[6]),
        AgentChoice::One(Agent::INIT[7]),
        AgentChoice::One(Agent::INIT[8]),
        AgentChoice::One(Agent::INIT[9]),
        AgentChoice::All,
    ];

    /// The agents chosen.
    pub fn agents(&self) -> &[Agent] {
        match self {
            AgentChoice::One(agent) => std::slice::from_ref(agent),
            AgentChoice::All => &Agent::INIT,
        }
    }
}

/// `--agent NAME`: the names come from [`Agent::name`], so they are defined once.
impl ValueEnum for AgentChoice {
    fn value_variants<'a>() -> &'a [Self] {
        &AgentChoice::VARIANTS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(match self {
            AgentChoice::One(agent) => agent.name(),
            AgentChoice::All => "all",
        }))
    }
}

/// Where `init` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    /// Team mode: the repository's committed settings (`.claude/settings.json`, `.codex/hooks.json`, `.gemini/settings.json`), naming `hookjudge` by name (whatever is first on PATH)
    Project,
    /// You, in this checkout: `.claude/settings.local.json`, `.codex/hooks.json`, `.gemini/settings.json`, kept out of git by `.git/info/exclude`; absolute path of this binary
    Local,
    /// You, in every project (`~/.claude/settings.json`, `~/.codex/hooks.json`, `~/.gemini/settings.json`)
    User,
}

/// Which boundary `init` sets up beside the hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BoundaryArg {
    /// The agent's own sandbox: Claude Code's, turned on with hookjudge's files in `sandbox.filesystem.denyWrite`; Codex CLI's, `sandbox_mode = "workspace-write"` in its `config.toml` (`uninstall` takes them out again)
    Agent,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The agent to install for; by default those whose config folder exists, or Claude Code
    #[arg(long, value_enum)]
    pub agent: Option<AgentChoice>,
    /// Where to install
    #[arg(long, value_enum, default_value = "local")]
    pub scope: ScopeArg,
    /// Also install the git pre-push hook (an existing hook is kept and chained)
    #[arg(long)]
    pub git_hook: bool,
    /// Team mode: a teammate without hookjudge is asked (or stopped) at the gate and at
    /// `git push`, instead of being told it is missing
    #[arg(long)]
    pub require: bool,
    /// Also turn on the agent's own sandbox, keeping its commands off hookjudge's files
    /// (Claude Code: local or user scope; Codex CLI: any scope)
    #[arg(long, value_enum, value_name = "KIND")]
    pub boundary: Option<BoundaryArg>,
    /// Print the changes as a diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Install even outside a git repository (into the current directory)
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// The agent to remove from; by default every agent
    #[arg(long, value_enum)]
    pub agent: Option<AgentChoice>,
    /// Where to remove from
    #[arg(long, value_enum, default_value = "local")]
    pub scope: ScopeArg,
    /// Also remove the git pre-push hook (it is removed anyway when it is ours)
    #[arg(long)]
    pub git_hook: bool,
    /// Print the changes as a diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
}
