//! Our entries as the agents' settings want them: the templates in `hooks-templates/` (one
//! group per row: event, matcher, subcommand, timeout) with their placeholders filled for one
//! install mode, and the timeouts they give a hook.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::agent::Agent;

/// The settings-file templates (as shipped in `hooks-templates/`), one row per agent of
/// [`Agent::INSTALLABLE`].
const TEMPLATES: [(Agent, &str); 8] = [
    (
        Agent::Claude,
        include_str!("../../../hooks-templates/claude.json"),
    ),
    (
        Agent::Codex,
        include_str!("../../../hooks-templates/codex.json"),
    ),
    (
        Agent::Gemini,
        include_str!("../../../hooks-templates/gemini.json"),
    ),
    (
        Agent::Qwen,
        include_str!("../../../hooks-templates/qwen.json"),
    ),
    (
        Agent::Droid,
        include_str!("../../../hooks-templates/droid.json"),
    ),
    (
        Agent::Copilot,
        include_str!("../../../hooks-templates/copilot.json"),
    ),
    (
        Agent::Cursor,
        include_str!("../../../hooks-templates/cursor.json"),
    ),
    (
        Agent::Crush,
        include_str!("../../../hooks-templates/crush.json"),
    ),
];

/// The template of `agent` (as shipped in `hooks-templates/`).
pub fn template(agent: Agent) -> &'static str {
    TEMPLATES
        .iter()
        .find(|(a, _)| *a == agent)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| {
            unreachable!(
                "{agent} has no settings-file template (only `Agent::INSTALLABLE` are installed)"
            )
        })
}

/// The keys a handler names its command with: Copilot CLI's `bash`, everyone else's `command`.
pub const COMMAND_KEYS: [&str; 2] = ["command", "bash"];
/// The keys a handler gives its timeout in: Copilot CLI's `timeoutSec`, everyone else's
/// `timeout`.
pub const TIMEOUT_KEYS: [&str; 2] = ["timeout", "timeoutSec"];

/// The handlers of one element of an event's array: a matcher group's `hooks` (Claude Code's
/// shape), or the element itself where the agent lists handlers directly (Copilot CLI,
/// Cursor, Crush).
pub(super) fn handlers_mut(group: &mut Value) -> Vec<&mut Value> {
    if group.get("hooks").is_some_and(Value::is_array) {
        group["hooks"]
            .as_array_mut()
            .expect("checked")
            .iter_mut()
            .collect()
    } else {
        vec![group]
    }
}

/// The first handler of one element of an event's array (see [`handlers_mut`]).
pub(super) fn first_handler(group: &Value) -> &Value {
    match group.get("hooks").and_then(Value::as_array) {
        Some(handlers) => &handlers[0],
        None => group,
    }
}

/// A new settings file for `agent` holding only `hooks`: the template's other top-level keys
/// (`"version": 1` for Copilot CLI and Cursor) come with it.
pub fn fresh_file(agent: Agent, hooks: &Value) -> Value {
    let mut v: Value =
        serde_json::from_str(template(agent)).expect("hooks-templates are valid JSON (tested)");
    v["hooks"] = hooks.clone();
    v
}

/// The extra seconds a settings timeout gives beyond the hook's own deadline, so that
/// hookjudge, not the agent, ends a slow call and says why.
pub const TIMEOUT_MARGIN_S: u64 = 5;
/// How far below the settings timeout a hook keeps its deadline (`--hook-timeout`).
pub const CLAMP_MARGIN_MS: u64 = 3000;

/// The settings timeout (seconds) for a hook whose deadline is `deadline_ms`.
pub fn settings_timeout_s(deadline_ms: u64) -> u64 {
    deadline_ms.div_ceil(1000) + TIMEOUT_MARGIN_S
}

/// The deadline a hook keeps when its settings timeout is `hook_timeout_s`: its own, or less.
pub fn clamp_deadline_ms(deadline_ms: u64, hook_timeout_s: Option<u64>) -> u64 {
    match hook_timeout_s {
        Some(s) => deadline_ms.min((s * 1000).saturating_sub(CLAMP_MARGIN_MS).max(1000)),
        None => deadline_ms,
    }
}

/// What fills the templates' placeholders.
#[derive(Debug, Clone)]
pub struct Fill {
    pub binary: PathBuf,
    pub stop_timeout_ms: u64,
    pub gate_timeout_ms: u64,
    /// Name `hookjudge` by name through the wrapper ([`Scope::portable`]).
    pub portable: bool,
    /// In portable mode, a teammate without hookjudge gets a human decision at the gate
    /// instead of a notice.
    pub required: bool,
}

/// The hooks object for `agent`, placeholders filled.
pub fn entries(agent: Agent, fill: &Fill) -> Value {
    let mut v: Value =
        serde_json::from_str(template(agent)).expect("hooks-templates are valid JSON (tested)");
    for groups in v["hooks"]
        .as_object_mut()
        .expect("templates hold hooks")
        .values_mut()
    {
        for group in groups.as_array_mut().expect("events hold arrays") {
            for handler in handlers_mut(group) {
                fill_handler(agent, handler, fill);
            }
        }
    }
    v["hooks"].take()
}

/// The events of `agent`'s entries.
pub fn events(agent: Agent) -> Vec<String> {
    let v: Value = serde_json::from_str(template(agent)).expect("templates are valid JSON");
    v["hooks"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn fill_handler(agent: Agent, handler: &mut Value, fill: &Fill) {
    let (stop_s, gate_s) = (
        settings_timeout_s(fill.stop_timeout_ms),
        settings_timeout_s(fill.gate_timeout_ms),
    );
    let seconds = |s: &str| {
        s.replace("@STOP_TIMEOUT_S@", &stop_s.to_string())
            .replace("@GATE_TIMEOUT_S@", &gate_s.to_string())
    };
    let obj = handler.as_object_mut().expect("handlers are objects");
    let timeout_key = TIMEOUT_KEYS
        .into_iter()
        .find(|k| obj.contains_key(*k))
        .expect("template handlers have a timeout");
    let timeout = match obj.get(timeout_key).and_then(Value::as_str) {
        Some("@STOP_TIMEOUT_S@") => stop_s,
        Some("@GATE_TIMEOUT_S@") => gate_s,
        Some("@STOP_TIMEOUT_MS@") => stop_s * 1000,
        Some("@GATE_TIMEOUT_MS@") => gate_s * 1000,
        other => panic!("template timeout {other:?} is not a placeholder"),
    };
    obj.insert(timeout_key.into(), json!(timeout));
    let command_key = COMMAND_KEYS
        .into_iter()
        .find(|k| obj.contains_key(*k))
        .expect("template handlers have a command");
    let command = obj[command_key].as_str().expect("commands are strings");
    let exec_form = command == "@HOOKJUDGE@";
    let args: Vec<String> = if exec_form {
        obj["args"]
            .as_array()
            .expect("exec form has args")
            .iter()
            .map(|a| seconds(a.as_str().expect("args are strings")))
            .collect()
    } else {
        let rest = command
            .strip_prefix("@HOOKJUDGE_SHELL@ ")
            .expect("shell form starts with @HOOKJUDGE_SHELL@");
        seconds(rest).split(' ').map(str::to_owned).collect()
    };
    let binary = fill.binary.to_string_lossy().into_owned();
    if fill.portable {
        obj.remove("args");
        obj.insert(
            command_key.into(),
            json!(wrapper(agent, &args, fill.required)),
        );
    } else if exec_form {
        obj.insert("command".into(), json!(binary));
        obj.insert("args".into(), json!(args));
    } else {
        let line = std::iter::once(shell_words::quote(&binary).into_owned())
            .chain(args.iter().map(|a| shell_words::quote(a).into_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        obj.insert(command_key.into(), json!(line));
    }
}

/// What a teammate without hookjudge sees: a notice, or with `required` a human decision at
/// the gate. The Stop path always stays open.
pub fn missing_output(agent: Agent, subcommand: &str, required: bool) -> Value {
    // An agent that reads no answer as a refusal (Cline) is given the gate's silent answer.
    if subcommand == "gate"
        && !required
        && let Some(silent) = agent.gate_answer(&crate::agent::GateOutcome::Silent)
    {
        return silent;
    }
    if subcommand == "gate" && required {
        let reason = "hookjudge is not installed on this machine (no `hookjudge` on PATH), and this repository requires it to check shell commands and file changes";
        return match agent.can_ask() {
            true => crate::agent::gate_output(
                agent,
                false,
                &format!("{reason}; approve only if you know this command is safe."),
            ),
            false => crate::agent::gate_output(
                agent,
                true,
                &format!(
                    "{reason}. Stop and ask the user to install hookjudge before running this command."
                ),
            ),
        };
    }
    json!({"systemMessage": "hookjudge is not installed on this machine (no `hookjudge` on PATH), so the checks this repository set up did not run; install hookjudge (see the repository README) to turn them on"})
}

/// The team-mode command: run `hookjudge` from PATH, or say that it is missing.
fn wrapper(agent: Agent, args: &[String], required: bool) -> String {
    let missing = missing_output(agent, &args[0], required).to_string();
    debug_assert!(!missing.contains('\''), "the notice sits in single quotes");
    format!(
        "command -v hookjudge >/dev/null 2>&1 && exec hookjudge {} || printf '%s\\n' '{missing}'",
        args.join(" ")
    )
}
