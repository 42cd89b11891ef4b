//! The answers that hand the agent another command than its own:
//! - with `boundary.mode` `landlock`, a shell command the gate lets run (or asks about) runs
//!   inside the boundary: the answer carries the rewritten command. A rewrite never approves
//!   what the person would have been asked about (see [`crate::boundary::permissions`]);
//! - for an agent whose own refusal ends the whole run, a refused command is replaced by one
//!   that prints the reason and fails ([`refuse_in_place`]).

use std::path::{Path, PathBuf};

use crate::agent::{self, Agent, GateOutcome, HookInput};
use crate::boundary::{self, Mode};

/// The boundary settings of the project (`boundary.mode`, `boundary.hide_credentials`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Confinement {
    pub mode: Mode,
    pub hide_credentials: bool,
}

impl Default for Confinement {
    fn default() -> Confinement {
        Confinement {
            mode: Mode::default(),
            hide_credentials: true,
        }
    }
}

/// `outcome` for `command`, confined when `confinement` says so. `ruled`: the gate looked at
/// the command as gated (a push, publish or deploy it let through, or a person approved),
/// which keeps the credentials; nothing else reaches them unless the settings allow it.
pub fn confine(
    outcome: GateOutcome,
    confinement: Confinement,
    agent: Agent,
    input: &HookInput,
    command: &str,
    project: &Path,
    ruled: bool,
) -> GateOutcome {
    if confinement.mode != Mode::Landlock {
        return outcome;
    }
    let ask = match &outcome {
        GateOutcome::Silent => None,
        GateOutcome::Ask(reason) => Some(reason.clone()),
        _ => return outcome,
    };
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("hookjudge"));
    if boundary::is_confined_command(command, &exe) {
        return outcome;
    }
    let with_credentials = ruled || !confinement.hide_credentials;
    let Some(tool_input) = agent::rewritten_input(agent, input, command, |line| {
        boundary::confined_command(&exe, line, with_credentials)
    }) else {
        return outcome;
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let ask = ask.or_else(|| {
        let asked = agent == Agent::Claude
            && !boundary::permissions::runs_without_asking(
                input.permission_mode.as_deref(),
                home.as_deref(),
                project,
                command,
            );
        asked.then(|| {
            "hookjudge runs this command inside its boundary; your permission rules would have asked about it".to_owned()
        })
    });
    GateOutcome::Confined {
        input: tool_input,
        ask,
    }
}

/// `outcome` as an agent whose own refusal ends the whole run learns of it
/// ([`Agent::refuses_in_place`]): a refused shell command, or one a person must decide on,
/// is replaced by one that prints the reason and fails, so the model reads why and the run goes
/// on. An input that cannot be rewritten keeps the agent's own refusal.
pub fn refuse_in_place(outcome: GateOutcome, agent: Agent, input: &HookInput) -> GateOutcome {
    if !agent.refuses_in_place() {
        return outcome;
    }
    let told = match &outcome {
        GateOutcome::Deny(reason) => agent::told_reason(agent, true, reason),
        GateOutcome::Ask(reason)
        | GateOutcome::Confined {
            ask: Some(reason), ..
        } => agent::told_reason(agent, false, reason),
        _ => return outcome,
    };
    let line = agent::refusal_command(&told);
    match agent::replaced_commands(input.tool_input.as_ref(), &line) {
        Some(input) => GateOutcome::RefusedInPlace {
            input,
            reason: told,
        },
        None => outcome,
    }
}
