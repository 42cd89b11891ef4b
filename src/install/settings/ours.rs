//! Which handlers in a settings file are ours: those that run the `hookjudge` binary (by that
//! exact file name) with one of our subcommands, directly or through the team-mode wrapper.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::template::{COMMAND_KEYS, TIMEOUT_KEYS, events};
use super::{Scope, settings_path};
use crate::agent::Agent;
use crate::support::jsonc::{self, Node, Parsed};

/// The subcommands our entries run; an entry running another one is not ours.
pub const SUBCOMMANDS: [&str; 2] = ["stop", "gate"];
/// The program and the words after it that a handler runs, when that program is `hookjudge`.
fn our_invocation(handler: &Value) -> Option<(String, Vec<String>)> {
    let command = COMMAND_KEYS.into_iter().find_map(|k| handler[k].as_str())?;
    let (program, rest) = match handler["args"].as_array() {
        Some(args) => (
            command.to_owned(),
            args.iter()
                .map(|a| a.as_str().unwrap_or("").to_owned())
                .collect(),
        ),
        None => {
            let words = shell_words::split(command).ok()?;
            let start = if words.starts_with(&["command".into(), "-v".into(), "hookjudge".into()]) {
                words.iter().position(|w| w == "exec")? + 1
            } else {
                0
            };
            let words = &words[start..];
            let end = words.iter().position(|w| w == "||").unwrap_or(words.len());
            (words.first()?.clone(), words[1..end].to_vec())
        }
    };
    let base = Path::new(&program).file_name()?.to_str()?;
    is_our_file_name(base).then_some((program, rest))
}

/// Whether a program's file name is hookjudge's: entries are recognised by it.
pub fn is_our_file_name(name: &str) -> bool {
    matches!(name, "hookjudge" | "hookjudge.exe")
}

/// Whether a handler is ours: the `hookjudge` binary with one of [`SUBCOMMANDS`].
pub fn is_ours(handler: &Value) -> bool {
    our_invocation(handler).is_some_and(|(_, rest)| {
        rest.first()
            .is_some_and(|s| SUBCOMMANDS.contains(&s.as_str()))
    })
}

/// The handler nodes of one element of an event's array: a matcher group's `hooks`, or the
/// element itself where the agent lists handlers directly (Copilot CLI, Cursor, Crush).
pub(super) fn handler_nodes(group: &Node) -> Vec<&Node> {
    match group.member("hooks") {
        Some(handlers) if handlers.is_array() => handlers.elements().iter().collect(),
        _ => vec![group],
    }
}

/// Our handlers in an event's array, in order: (element index, handler index in it; 0 for
/// an element that is a handler itself).
pub(super) fn ours_in(parsed: &Parsed, array: &Node) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (gi, group) in array.elements().iter().enumerate() {
        for (hi, handler) in handler_nodes(group).into_iter().enumerate() {
            if is_ours(&parsed.value(handler)) {
                found.push((gi, hi));
            }
        }
    }
    found
}

/// One of our handlers as installed.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    pub event: String,
    /// The program it runs: an absolute path, or `hookjudge` (found on PATH).
    pub program: String,
    /// The settings timeout, in seconds (Gemini's and Qwen's milliseconds converted).
    pub timeout_s: Option<f64>,
    /// The words after the program (`gate --agent claude --hook-timeout 13`).
    pub args: Vec<String>,
}

/// Our handlers in `text`, for `agent`'s events.
pub fn installed(agent: Agent, text: &str) -> Vec<Installed> {
    let Ok(parsed) = jsonc::parse(text) else {
        return Vec::new();
    };
    let Some(hooks) = parsed.root.member("hooks") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for event in events(agent) {
        let Some(array) = hooks.member(&event) else {
            continue;
        };
        for (gi, hi) in ours_in(&parsed, array) {
            let handler = parsed.value(handler_nodes(&array.elements()[gi])[hi]);
            let Some((program, args)) = our_invocation(&handler) else {
                continue;
            };
            let timeout_s = TIMEOUT_KEYS
                .into_iter()
                .find_map(|k| handler[k].as_f64())
                .map(|t| {
                    if agent.timeouts_in_ms() {
                        t / 1000.0
                    } else {
                        t
                    }
                });
            found.push(Installed {
                event: event.clone(),
                program,
                timeout_s,
                args,
            });
        }
    }
    found
}

/// The other scopes whose settings file for `agent` already runs our entries (each hook would
/// run once per file).
pub fn installed_elsewhere(
    agent: Agent,
    scope: Scope,
    root: &Path,
    home: &Path,
) -> Vec<(Scope, PathBuf)> {
    let mut seen = vec![settings_path(agent, scope, root, home)];
    let mut found = Vec::new();
    for s in [Scope::Project, Scope::Local, Scope::User] {
        let p = settings_path(agent, s, root, home);
        if seen.contains(&p) {
            continue;
        }
        seen.push(p.clone());
        let ours = std::fs::read_to_string(&p)
            .is_ok_and(|raw| !installed(agent, &jsonc::Encoding::decode(&raw).1).is_empty());
        if ours {
            found.push((s, p));
        }
    }
    found
}
