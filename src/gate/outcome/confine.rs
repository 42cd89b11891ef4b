//! With `boundary.mode` `landlock`, a shell command the gate lets run (or asks about) runs
//! inside the boundary: the answer carries the rewritten command. A rewrite never approves
//! what the person would have been asked about (see [`crate::boundary::permissions`]).

use std::path::{Path, PathBuf};

use crate::agent::{Agent, GateOutcome, HookInput};
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
    if boundary::is_confined_command(command) {
        return outcome;
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("hookjudge"));
    let mut tool_input = input
        .tool_input
        .clone()
        .filter(serde_json::Value::is_object)
        .unwrap_or_else(|| serde_json::json!({}));
    let with_credentials = ruled || !confinement.hide_credentials;
    tool_input["command"] =
        serde_json::json!(boundary::confined_command(&exe, command, with_credentials));
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
