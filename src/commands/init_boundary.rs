//! `init --boundary agent`: the agents' own sandboxes as hookjudge's boundary, for the agents
//! that have one `init` can turn on (Claude Code's, see [`crate::install::settings::sandbox`];
//! Codex CLI's, see [`crate::install::codex_boundary`]), each refused where it cannot hold.

use std::path::Path;

use super::UserError;
use crate::agent::Agent;
use crate::cli::BoundaryArg;
use crate::install::codex_boundary::{self, CodexSandbox};
use crate::install::settings::{self, SandboxPaths, Scope};
use crate::install::target::Target;

/// What `--boundary agent` writes for Claude Code and for Codex CLI, refused where it cannot
/// serve.
pub(super) fn boundaries(
    boundary: Option<BoundaryArg>,
    t: &Target,
    binary: &Path,
) -> Result<(Option<SandboxPaths>, Option<CodexSandbox>), UserError> {
    let Some(BoundaryArg::Agent) = boundary else {
        return Ok((None, None));
    };
    let (claude, codex) = (
        t.agents.contains(&Agent::Claude),
        t.agents.contains(&Agent::Codex),
    );
    if !claude && !codex {
        return Err(UserError::new(
            "`--boundary agent` turns on Claude Code's or Codex CLI's own sandbox, and neither is among the agents chosen",
        )
        .hint("add `--agent claude` or `--agent codex`, or for the other agents set `{\"boundary\": {\"mode\": \"landlock\"}}` in your own config"));
    }
    let claude = claude.then(|| claude_sandbox(t, binary)).transpose()?;
    let codex = codex.then(|| codex_sandbox(t, binary)).transpose()?;
    Ok((claude, codex))
}

fn claude_sandbox(t: &Target, binary: &Path) -> Result<SandboxPaths, UserError> {
    // The paths are this machine's (the home folder, the binary's folder): a committed file
    // would hand them to every teammate.
    if t.scope == Scope::Project {
        return Err(UserError::new(
            "`--boundary agent` names this machine's paths, which do not belong in the committed `.claude/settings.json`",
        )
        .hint("use `--scope local` (this checkout) or `--scope user` (every project)"));
    }
    // The block asks Claude Code to refuse to start without its sandbox: where it cannot
    // start, writing it would leave Claude Code unusable here.
    if let Some(why) = settings::sandbox_unavailable() {
        return Err(UserError::new(format!(
            "`--boundary agent` would make Claude Code refuse to start here (it turns its sandbox on, with no running without it): {why}"
        ))
        .hint(settings::SANDBOX_HINT));
    }
    Ok(SandboxPaths::for_root(&t.root, binary))
}

fn codex_sandbox(t: &Target, binary: &Path) -> Result<CodexSandbox, UserError> {
    codex_boundary::prepare(t, binary).map_err(|r| {
        UserError::new(format!(
            "`--boundary agent` cannot turn on Codex CLI's sandbox here: {}; nothing was written",
            r.why
        ))
        .hint(r.hint)
    })
}
