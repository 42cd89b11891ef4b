//! The JSON Schema of a config file, built from one table of keys: each key's type and
//! description are written here once, and its default is read from [`Settings::defaults`], so
//! the schema cannot drift from the values hookjudge uses. A test keeps the table in step with
//! what the parser accepts.

use serde_json::{Map, Value, json};

use crate::config::Settings;

/// One key of a config file: its dotted path, its JSON Schema type and what it means.
struct Key {
    path: &'static str,
    schema: fn() -> Value,
    description: &'static str,
}

const fn key(path: &'static str, schema: fn() -> Value, description: &'static str) -> Key {
    Key {
        path,
        schema,
        description,
    }
}

fn integer() -> Value {
    json!({"type": "integer", "minimum": 0})
}
fn positive() -> Value {
    json!({"type": "integer", "minimum": 1})
}
fn boolean() -> Value {
    json!({"type": "boolean"})
}
fn string() -> Value {
    json!({"type": "string"})
}
fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}
fn policy() -> Value {
    json!({"enum": ["allow", "verify", "ask", "deny", "guard"]})
}
fn provider() -> Value {
    json!({"enum": ["auto", "none", "openai", "anthropic", "command", "codex", "claude"]})
}
fn judge_turns() -> Value {
    json!({"enum": ["all", "lexicon"]})
}
fn response_format() -> Value {
    json!({"enum": ["json_schema", "json_object", "none"]})
}
fn sensitivity() -> Value {
    json!({"enum": ["normal", "high"], "default": "normal"})
}
fn judge_kind() -> Value {
    json!({"enum": ["response", "gate"], "default": "response"})
}
fn field_map() -> Value {
    json!({"type": "object", "additionalProperties": {"type": "string"}})
}
fn boundary_mode() -> Value {
    json!({"enum": ["off", "landlock", "agent"]})
}
fn object() -> Value {
    json!({"type": "object"})
}
fn any() -> Value {
    json!({})
}

const POLICY: &str = "what the gate does with this class: allow (stay silent), verify (silent when the code was verified since its last change), ask (a human decides), deny, guard (deny only when something would be lost)";

/// Every key of a config file outside `judges`, in the order the schema lists them.
const KEYS: &[Key] = &[
    key(
        "boundary.mode",
        boundary_mode,
        "how the agent's commands are kept off hookjudge's own files: off (only the gate reads the command line), landlock (each shell command runs under `hookjudge run-confined`, Linux), agent (the agent's own sandbox; `hookjudge doctor` prints Claude Code's settings for it)",
    ),
    key(
        "boundary.hide_credentials",
        boolean,
        "with `landlock`: confined commands that the gate did not let through as a push, publish or deploy (or a person approved) see no publishing credentials (SSH keys and agent, git credential stores, gh, npm, cargo, PyPI, docker, kube, cloud)",
    ),
    key(
        "$schema",
        string,
        "editors' schema pointer; ignored by hookjudge",
    ),
    key(
        "text_bytes",
        positive,
        "bytes of the response (its end) that the judges read",
    ),
    key(
        "stop.max_blocks_per_judge",
        integer,
        "blocks one judge may give per user prompt before the loop breaker releases",
    ),
    key(
        "stop.max_blocks_per_prompt",
        integer,
        "blocks all judges together may give per user prompt",
    ),
    key(
        "stop.judge_turns",
        judge_turns,
        "which turns the LLM judges: all (every turn that could hold a violation, all judges in one call) or lexicon (only judges Layer 1's patterns wake; fewer calls, less reach)",
    ),
    key(
        "log.dir",
        string,
        "where the decision log goes (relative to this file); by default the platform data dir's `logs`",
    ),
    key(
        "log.text",
        boolean,
        "whether the (redacted) judged text is logged",
    ),
    key(
        "log.retention_days",
        integer,
        "days of day files to keep; older ones are deleted once a day; 0 keeps all",
    ),
    key(
        "transcript.max_scan_bytes",
        integer,
        "bytes of a transcript read from its end at most",
    ),
    key(
        "transcript.max_line_bytes",
        integer,
        "transcript lines longer than this are streamed: their structure is read, their text is not collected",
    ),
    key(
        "llm.provider",
        provider,
        "which LLM judges the triggered texts: auto picks the first configured or available; none is Layer 1 only",
    ),
    key(
        "llm.base_url",
        string,
        "the endpoint of an openai or anthropic provider",
    ),
    key(
        "llm.model",
        string,
        "the model name the provider is asked for",
    ),
    key(
        "llm.api_key_env",
        string,
        "the environment variable holding the API key",
    ),
    key(
        "llm.command",
        strings,
        "a program and its arguments that read the prompt on stdin and print the answer (provider command)",
    ),
    key(
        "llm.timeout_ms",
        integer,
        "the deadline of one hook call's LLM work, in milliseconds",
    ),
    key(
        "llm.cache_seconds",
        integer,
        "how long a verdict is reused for the same judge, model and text",
    ),
    key(
        "llm.response_format",
        response_format,
        "how a JSON answer is requested; unset picks automatically and remembers what a server accepts",
    ),
    key("gate.commit", policy, POLICY),
    key("gate.push", policy, POLICY),
    key("gate.publish", policy, POLICY),
    key("gate.deploy", policy, POLICY),
    key("gate.hook-bypass", policy, POLICY),
    key("gate.destructive", policy, POLICY),
    key("gate.catastrophic", policy, POLICY),
    key("gate.unparsed", policy, POLICY),
    key(
        "gate.protected_branches",
        strings,
        "branches a force push must never rewrite (`*` matches within a segment)",
    ),
    key(
        "gate.artifacts",
        strings,
        "files test runs write (globs); replaces the defaults",
    ),
    key(
        "gate.add_artifacts",
        strings,
        "files test runs write (globs); added to the defaults",
    ),
    key(
        "gate.test_commands",
        string,
        "a regex over a command line that recognises a test run in the transcript",
    ),
    key(
        "gate.deploy_commands",
        strings,
        "command prefixes that deploy (e.g. `./scripts/deploy.sh`, `make deploy`)",
    ),
    key(
        "gate.publish_commands",
        strings,
        "command prefixes that publish (e.g. `./scripts/release.sh`, `make release`)",
    ),
    key(
        "gate.timeout_ms",
        integer,
        "the deadline of the gate's own judge call, in milliseconds",
    ),
    key(
        "speech.add_masks",
        strings,
        "word senses that name no defect and no action (Rust regex, case-insensitive), removed from the text before any trigger reads it; added to the built-in masks",
    ),
    key(
        "speech.add_shown_headings",
        strings,
        "regexes (case-insensitive) over a trimmed line that labels displayed material, such as a report's own section headings; such a line is not read by the triggers; added to the built-in ones",
    ),
];

/// Every key of one judge under `judges.<name>`.
const JUDGE_KEYS: &[Key] = &[
    key("enabled", boolean, "false turns the judge off"),
    key(
        "kind",
        judge_kind,
        "what the judge reads: the agent's final message, or (gate) the session activity before a commit, push or deploy",
    ),
    key("description", string, "what the judge checks, in one line"),
    key(
        "triggers",
        strings,
        "Layer 1 patterns (Rust regex, case-insensitive) that wake the judge; replaces the list",
    ),
    key(
        "broad_triggers",
        strings,
        "Layer 1 patterns used only at sensitivity `high`; replaces the list",
    ),
    key(
        "sensitivity",
        sensitivity,
        "`normal` wakes on `triggers` (the measured knee), `high` also on `broad_triggers` (recall first, about twice the LLM calls)",
    ),
    key(
        "bypasses",
        strings,
        "patterns that allow a triggered text without the LLM; replaces the list",
    ),
    key(
        "add_triggers",
        strings,
        "patterns added to the judge's triggers",
    ),
    key(
        "add_bypasses",
        strings,
        "patterns added to the judge's bypasses",
    ),
    key("prompt", string, "what the LLM is asked about the text"),
    key(
        "fields",
        field_map,
        "field name -> what it means; the LLM answers each with true or false",
    ),
    key(
        "block_when",
        any,
        "a field name, {\"all\": [...]}, {\"any\": [...]} or {\"not\": rule}",
    ),
    key(
        "reason",
        string,
        "what the agent is told when this judge blocks",
    ),
    key(
        "legacy_fields",
        object,
        "old field name -> rule over the current fields, so that a block_when written for the old fields keeps working",
    ),
];

/// What each section holds.
const SECTIONS: &[(&str, &str)] = &[
    (
        "boundary",
        "the operating-system boundary that keeps the agent's commands off hookjudge's files",
    ),
    ("stop", "the Stop hook's loop breaker"),
    ("log", "the decision log"),
    ("transcript", "how much of a session transcript is read"),
    ("llm", "the LLM of Layer 2"),
    ("gate", "the PreToolUse gate for Bash commands"),
    (
        "speech",
        "the speech view Layer 1 triggers read: what the agent says, not what it shows",
    ),
];

/// The default of the key at dotted `path`, as the effective config shows it, unless it is
/// unset or depends on the machine (a path under the user's home).
fn default_of(defaults: &Value, path: &str) -> Option<Value> {
    if path == "log.dir" {
        return None;
    }
    let pointer = format!("/{}", path.replace('.', "/"));
    defaults.pointer(&pointer).filter(|v| !v.is_null()).cloned()
}

fn property(key: &Key, default: Option<Value>) -> Value {
    let mut schema = (key.schema)();
    schema["description"] = json!(key.description);
    if let Some(default) = default {
        schema["default"] = default;
    }
    schema
}

fn section(description: &str) -> Value {
    json!({"type": "object", "additionalProperties": false, "description": description, "properties": {}})
}

/// The JSON Schema of a config file.
pub fn schema() -> Value {
    let defaults = crate::config::source::effective(&Settings::defaults());
    let mut properties = Map::new();
    for key in KEYS {
        let property = property(key, default_of(&defaults, key.path));
        match key.path.split_once('.') {
            Some((name, leaf)) => {
                let description = SECTIONS
                    .iter()
                    .find(|(s, _)| *s == name)
                    .map(|(_, d)| *d)
                    .unwrap_or_default();
                let section = properties
                    .entry(name)
                    .or_insert_with(|| section(description));
                section["properties"][leaf] = property;
            }
            None => {
                properties.insert(key.path.to_owned(), property);
            }
        }
    }
    let mut judge = section("one judge: a change to a built-in, or a new judge");
    for key in JUDGE_KEYS {
        judge["properties"][key.path] = property(key, None);
    }
    properties.insert(
        "judges".into(),
        json!({"type": "object", "description": "judges by name: changes to built-ins, or new judges", "additionalProperties": judge}),
    );
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hookjudge config",
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(v: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
        for (name, property) in v["properties"].as_object().unwrap() {
            let path = format!("{prefix}{name}");
            if property["properties"].is_object() {
                leaves(property, &format!("{path}."), out);
            } else {
                out.push((path, property.clone()));
            }
        }
    }

    #[test]
    fn every_key_has_a_description_and_the_defaults_hookjudge_uses() {
        let schema = schema();
        let mut keys = Vec::new();
        leaves(&schema, "", &mut keys);
        leaves(
            &schema["properties"]["judges"]["additionalProperties"],
            "judges.*.",
            &mut keys,
        );
        // `judges` itself is a leaf of the top level: its keys are per judge.
        assert_eq!(keys.len(), KEYS.len() + 1 + JUDGE_KEYS.len());
        for (path, property) in &keys {
            assert!(
                property["description"]
                    .as_str()
                    .is_some_and(|d| d.len() > 10),
                "`{path}` has no description"
            );
        }
        let default = |path: &str| {
            keys.iter()
                .find(|(p, _)| p == path)
                .map(|(_, v)| v["default"].clone())
                .unwrap()
        };
        let d = Settings::defaults();
        assert_eq!(default("text_bytes"), json!(d.text_bytes));
        assert_eq!(
            default("transcript.max_scan_bytes"),
            json!(d.transcript.max_scan_bytes)
        );
        assert_eq!(default("llm.timeout_ms"), json!(d.llm.timeout_ms));
        assert_eq!(default("gate.timeout_ms"), json!(d.gate.timeout_ms));
        assert_eq!(default("gate.commit"), json!("verify"));
        assert_eq!(
            default("log.dir"),
            Value::Null,
            "no machine path in a schema"
        );
    }
}
