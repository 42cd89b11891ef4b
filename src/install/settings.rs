//! Our entries in each agent's settings file: what they look like, where they go, and how to
//! merge them in or take them out without touching anything else.
//!
//! Entries are recognised by their command (the `hookjudge` binary with `stop` or `gate`), so a
//! second `init` changes nothing and an upgrade replaces ours in place.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::jsonedit::{self, Node};
use crate::agent::Agent;

/// Where an install goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Shared with the repository (`.claude/settings.json`, `.codex/hooks.json`, …).
    Project,
    /// This checkout only, not committed (`.claude/settings.local.json`; Claude Code only).
    Local,
    /// Every project of this user (`~/.claude/settings.json`, …).
    User,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }
}

/// The settings file of `agent` for `scope`, or why there is none.
pub fn settings_path(
    agent: Agent,
    scope: Scope,
    root: &Path,
    home: &Path,
) -> Result<PathBuf, String> {
    Ok(match (agent, scope) {
        (Agent::Claude, Scope::Project) => root.join(".claude/settings.json"),
        (Agent::Claude, Scope::Local) => root.join(".claude/settings.local.json"),
        (Agent::Claude, Scope::User) => home.join(".claude/settings.json"),
        (Agent::Codex, Scope::Project) => root.join(".codex/hooks.json"),
        (Agent::Codex, Scope::User) => std::env::var_os("CODEX_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"))
            .join("hooks.json"),
        (Agent::Gemini, Scope::Project) => root.join(".gemini/settings.json"),
        (Agent::Gemini, Scope::User) => home.join(".gemini/settings.json"),
        (agent, Scope::Local) => {
            return Err(format!(
                "{} has no local scope; use `--scope project` or `--scope user`",
                display_name(agent)
            ));
        }
    })
}

/// The folder whose presence says the agent is used here.
pub fn agent_folder(agent: Agent, scope: Scope, root: &Path, home: &Path) -> PathBuf {
    let base = if scope == Scope::User { home } else { root };
    base.join(match agent {
        Agent::Claude => ".claude",
        Agent::Codex => ".codex",
        Agent::Gemini => ".gemini",
    })
}

pub fn display_name(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "Claude Code",
        Agent::Codex => "Codex CLI",
        Agent::Gemini => "Gemini CLI",
    }
}

/// The template of `agent` (as shipped in `hooks-templates/`).
pub fn template(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => include_str!("../../hooks-templates/claude.json"),
        Agent::Codex => include_str!("../../hooks-templates/codex.json"),
        Agent::Gemini => include_str!("../../hooks-templates/gemini.json"),
    }
}

/// What fills the templates' placeholders.
#[derive(Debug, Clone)]
pub struct Fill {
    pub binary: PathBuf,
    pub stop_timeout_ms: u64,
    pub gate_timeout_ms: u64,
}

/// The hooks object for `agent`, placeholders filled.
pub fn entries(agent: Agent, fill: &Fill) -> Value {
    let mut v: Value =
        serde_json::from_str(template(agent)).expect("hooks-templates are valid JSON (tested)");
    substitute(&mut v, fill);
    v["hooks"].take()
}

fn substitute(v: &mut Value, fill: &Fill) {
    let binary = fill.binary.to_string_lossy().into_owned();
    // Hooks get 5 s beyond the LLM deadline so that hookjudge, not the agent, ends a slow call.
    let (stop_s, gate_s) = (
        fill.stop_timeout_ms.div_ceil(1000) + 5,
        fill.gate_timeout_ms.div_ceil(1000) + 5,
    );
    match v {
        Value::String(s) => {
            *v = match s.as_str() {
                "@HOOKJUDGE@" => json!(binary),
                "@STOP_TIMEOUT_S@" => json!(stop_s),
                "@GATE_TIMEOUT_S@" => json!(gate_s),
                "@STOP_TIMEOUT_MS@" => json!(stop_s * 1000),
                "@GATE_TIMEOUT_MS@" => json!(gate_s * 1000),
                _ => json!(s.replace("@HOOKJUDGE_SHELL@", &shell_words::quote(&binary))),
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| substitute(i, fill)),
        Value::Object(map) => map.values_mut().for_each(|i| substitute(i, fill)),
        _ => {}
    }
}

/// Whether a handler is ours: it runs the `hookjudge` binary's `stop` or `gate`.
pub fn is_ours(handler: &Value) -> bool {
    let Some(command) = handler["command"].as_str() else {
        return false;
    };
    let (program, sub) = match handler["args"].as_array() {
        Some(args) => (
            command.to_owned(),
            args.first()
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        ),
        None => {
            let words = shell_words::split(command).unwrap_or_default();
            (
                words.first().cloned().unwrap_or_default(),
                words.get(1).cloned().unwrap_or_default(),
            )
        }
    };
    let base = Path::new(&program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    base.starts_with("hookjudge") && matches!(sub.as_str(), "stop" | "gate")
}

/// A settings file that cannot be merged into, said with the key at fault.
#[derive(Debug, Clone)]
pub struct MergeError(pub String);

fn value_of(text: &str, node: &Node) -> Value {
    serde_json::from_str(&text[node.start..node.end]).unwrap_or(Value::Null)
}

/// Finds (group index, handler index) of our handler in an event's array.
fn find_ours(text: &str, array: &Node) -> Option<(usize, usize)> {
    for (gi, group) in array.elements().iter().enumerate() {
        if let Some(handlers) = group.member("hooks") {
            for (hi, handler) in handlers.elements().iter().enumerate() {
                if is_ours(&value_of(text, handler)) {
                    return Some((gi, hi));
                }
            }
        }
    }
    None
}

/// Merges `hooks` (event -> groups) into the settings `text`. Returns the new text.
pub fn merge(text: &str, hooks: &Value) -> Result<String, MergeError> {
    let mut text = text.to_owned();
    for (event, groups) in hooks.as_object().expect("templates hold an object") {
        let ours_group = &groups[0];
        let ours_handler = &ours_group["hooks"][0];
        let root = jsonedit::parse(&text)
            .ok_or_else(|| MergeError("the file is not valid JSON".into()))?;
        if !root.is_object() {
            return Err(MergeError("the top level is not a JSON object".into()));
        }
        let Some(hooks_node) = root.member("hooks") else {
            text = jsonedit::insert_member(&text, &root, "hooks", &json!({ event: groups }));
            continue;
        };
        if !hooks_node.is_object() {
            return Err(MergeError(format!(
                "`hooks` is {}, expected an object",
                crate::judge::rule::kind(&value_of(&text, hooks_node))
            )));
        }
        let Some(array) = hooks_node.member(event) else {
            text = jsonedit::insert_member(&text, hooks_node, event, groups);
            continue;
        };
        if !array.is_array() {
            return Err(MergeError(format!(
                "`hooks.{event}` is {}, expected an array",
                crate::judge::rule::kind(&value_of(&text, array))
            )));
        }
        match find_ours(&text, array) {
            Some((gi, hi)) => {
                let group = &array.elements()[gi];
                let handlers = group.member("hooks").expect("found in it");
                if handlers.elements().len() == 1 {
                    if value_of(&text, group) != *ours_group {
                        text = jsonedit::replace(&text, group, ours_group);
                    }
                } else if value_of(&text, &handlers.elements()[hi]) != *ours_handler {
                    text = jsonedit::replace(&text, &handlers.elements()[hi], ours_handler);
                }
            }
            None => text = jsonedit::append_element(&text, array, ours_group),
        }
    }
    Ok(text)
}

/// Removes every handler of ours for the events in `hooks`; empties what it empties.
pub fn remove(text: &str, events: &[String]) -> String {
    let mut text = text.to_owned();
    for event in events {
        loop {
            let Some(root) = jsonedit::parse(&text) else {
                return text;
            };
            let Some(array) = root
                .member("hooks")
                .and_then(|h| h.member(event))
                .filter(|a| a.is_array())
            else {
                break;
            };
            let Some((gi, hi)) = find_ours(&text, array) else {
                if array.elements().is_empty() {
                    text = jsonedit::remove_member(
                        &text,
                        root.member("hooks").expect("has it"),
                        event,
                    );
                }
                break;
            };
            let group = &array.elements()[gi];
            let handlers = group.member("hooks").expect("found in it");
            text = if handlers.elements().len() == 1 {
                jsonedit::remove_element(&text, array, gi)
            } else {
                jsonedit::remove_element(&text, handlers, hi)
            };
        }
    }
    if let Some(root) = jsonedit::parse(&text)
        && let Some(hooks) = root.member("hooks")
        && matches!(&hooks.kind, jsonedit::Kind::Object(m) if m.is_empty())
    {
        text = jsonedit::remove_member(&text, &root, "hooks");
    }
    text
}

/// Which events of ours are present, and whether each points at `binary`.
pub fn installed(text: &str, events: &[String]) -> Vec<(String, Option<String>)> {
    let Some(root) = jsonedit::parse(text) else {
        return Vec::new();
    };
    events
        .iter()
        .map(|event| {
            let command = root
                .member("hooks")
                .and_then(|h| h.member(event))
                .and_then(|array| {
                    let (gi, hi) = find_ours(text, array)?;
                    let handler =
                        value_of(text, &array.elements()[gi].member("hooks")?.elements()[hi]);
                    let command = handler["command"].as_str()?.to_owned();
                    Some(if handler["args"].is_array() {
                        command
                    } else {
                        shell_words::split(&command).ok()?.into_iter().next()?
                    })
                });
            (event.clone(), command)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill() -> Fill {
        Fill {
            binary: PathBuf::from("/opt/bin/hookjudge"),
            stop_timeout_ms: 10_000,
            gate_timeout_ms: 8000,
        }
    }

    #[test]
    fn templates_fill_per_agent() {
        let claude = entries(Agent::Claude, &fill());
        assert_eq!(
            claude["Stop"][0]["hooks"][0]["command"],
            "/opt/bin/hookjudge"
        );
        assert_eq!(claude["Stop"][0]["hooks"][0]["timeout"], 15);
        assert_eq!(
            claude["PreToolUse"][0]["matcher"],
            "Bash|Write|Edit|MultiEdit"
        );
        let gemini = entries(Agent::Gemini, &fill());
        assert_eq!(
            gemini["AfterAgent"][0]["hooks"][0]["timeout"], 15000,
            "Gemini counts milliseconds"
        );
        let codex = entries(
            Agent::Codex,
            &Fill {
                binary: PathBuf::from("/a b/hookjudge"),
                ..fill()
            },
        );
        assert_eq!(
            codex["Stop"][0]["hooks"][0]["command"],
            "'/a b/hookjudge' stop --agent codex"
        );
        assert!(is_ours(&codex["Stop"][0]["hooks"][0]));
        assert!(!is_ours(
            &json!({"command": "/usr/bin/other-tool", "args": ["stop"]})
        ));
    }

    #[test]
    fn merge_is_idempotent_and_remove_restores() {
        let original = "{\n    \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n    \"hooks\": {\n        \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"my-notify\" } ] } ]\n    }\n}\n";
        let hooks = entries(Agent::Claude, &fill());
        let once = merge(original, &hooks).unwrap();
        assert_eq!(
            merge(&once, &hooks).unwrap(),
            once,
            "a second merge changes nothing"
        );
        let v: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(
            v["hooks"]["Stop"][0]["hooks"][0]["command"], "my-notify",
            "the user's hook stays first"
        );
        assert!(is_ours(&v["hooks"]["Stop"][1]["hooks"][0]));
        let upgraded = merge(
            &once,
            &entries(
                Agent::Claude,
                &Fill {
                    binary: PathBuf::from("/new/hookjudge"),
                    ..fill()
                },
            ),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&upgraded).unwrap();
        assert_eq!(
            v["hooks"]["Stop"].as_array().unwrap().len(),
            2,
            "replaced in place"
        );
        assert_eq!(
            v["hooks"]["Stop"][1]["hooks"][0]["command"],
            "/new/hookjudge"
        );
        let events: Vec<String> = hooks.as_object().unwrap().keys().cloned().collect();
        assert_eq!(remove(&upgraded, &events), original);
    }

    #[test]
    fn wrong_shapes_are_refused() {
        let hooks = entries(Agent::Claude, &fill());
        assert!(
            merge(r#"{"hooks": "none"}"#, &hooks)
                .unwrap_err()
                .0
                .contains("`hooks` is a string")
        );
        assert!(
            merge(r#"{"hooks": {"Stop": {}}}"#, &hooks)
                .unwrap_err()
                .0
                .contains("`hooks.Stop` is an object")
        );
        assert!(merge("[]", &hooks).is_err());
    }
}
