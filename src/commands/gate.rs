//! `hookjudge gate`: the PreToolUse (Claude Code, Codex) / BeforeTool (Gemini) entry for shell
//! commands and file tools.
//!
//! The hook runner ([`crate::hook`]) reads the agent's input and answers; the gate's rules are
//! [`crate::gate::outcome`]'s. It fails safe: when it cannot decide, a human does.

use std::path::Path;

use super::ExitStatus;
use crate::cli::GateArgs;
use crate::hook::{self, gate::GateHook};
use crate::install::settings::clamp_deadline_ms;

/// Runs the gate. Always exits 0; failures ask a human.
pub(super) fn gate(args: &GateArgs, config: Option<&Path>) -> ExitStatus {
    // The agent kills the hook at its settings timeout: the judge's deadline stays below it.
    let llm_deadline = |timeout_ms| clamp_deadline_ms(timeout_ms, args.hook_timeout);
    let entry = GateHook {
        agent: args.agent,
        config,
        llm_deadline: &llm_deadline,
    };
    hook::run(&entry, args.agent);
    ExitStatus::Success
}

/// Fail-safe answer for a usage error on the gate's own command line.
pub(super) fn usage_error(message: &str) -> ExitStatus {
    hook::gate::usage_error(hook::usage_line(message));
    ExitStatus::Success
}
