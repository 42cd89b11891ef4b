//! `hookjudge stop`: the Stop-hook entry point.
//!
//! The hook runner ([`crate::hook`]) reads the agent's input and answers; the Stop hook's rules
//! are [`crate::stop`]'s. It fails open: bad stdin, a missing transcript, a bad config, a
//! failed judge or even a panic end in exit 0 with no block, a note for the human and a log
//! line.

use std::path::Path;

use super::ExitStatus;
use crate::cli::StopArgs;
use crate::hook::{self, stop::StopHook};
use crate::install::settings::clamp_deadline_ms;

/// Runs the Stop hook. Always returns success.
pub(super) fn stop(args: &StopArgs, config: Option<&Path>) -> ExitStatus {
    // The agent kills the hook at its settings timeout: the LLM's deadline stays below it.
    let llm_deadline = |timeout_ms| clamp_deadline_ms(timeout_ms, args.hook_timeout);
    let entry = StopHook {
        config,
        llm_deadline: &llm_deadline,
    };
    hook::run(&entry, args.agent);
    ExitStatus::Success
}

/// A usage error on the hook's own command line: fail open, and say how to repair the entry.
pub(super) fn usage_error(command: &str, clap_message: &str) -> ExitStatus {
    hook::stop::usage_error(command, clap_message);
    ExitStatus::Success
}
