//! The JSON Schema of a config file, built from the key declarations
//! ([`crate::config::keys`]): each key's shape and description as declared, and its default read
//! from [`Settings::defaults`] the way `config show` prints it, so the schema cannot drift from
//! the values hookjudge uses. The keys of one judge (`judges.<name>`) are a table here: they are
//! [`JudgeSpec`](crate::judge::JudgeSpec)'s, merged per judge.

use serde_json::{Map, Value, json};

use crate::config::Settings;
use crate::config::declare::Key;
use crate::config::keys::{keys, sections};
use crate::config::show::effective;

/// One key of a judge: its name, its JSON Schema type and what it means.
struct JudgeKey {
    path: &'static str,
    schema: fn() -> Value,
    description: &'static str,
}

const fn key(path: &'static str, schema: fn() -> Value, description: &'static str) -> JudgeKey {
    JudgeKey {
        path,
        schema,
        description,
    }
}

use crate::config::declare::shapes::{boolean, string, strings};

fn sensitivity() -> Value {
    json!({"enum": ["normal", "high"], "default": "normal"})
}
fn judge_kind() -> Value {
    json!({"enum": ["response", "gate"], "default": "response"})
}
fn field_map() -> Value {
    json!({"type": "object", "additionalProperties": {"type": "string"}})
}
fn object() -> Value {
    json!({"type": "object"})
}
fn any() -> Value {
    json!({})
}

/// The order of the schema's top level, as editors have always been shown it (`boundary`
/// first); any other top-level name follows in declaration order.
const TOP_LEVEL_ORDER: [&str; 10] = [
    "boundary",
    "$schema",
    "text_bytes",
    "stop",
    "log",
    "transcript",
    "llm",
    "gate",
    "speech",
    "judges",
];

/// Every key of one judge under `judges.<name>`.
const JUDGE_KEYS: &[JudgeKey] = &[
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
    key(
        "second_reading",
        boolean,
        "true: under stop.second_reading \"marked\", this judge's blocks are read a second time and stand only when upheld",
    ),
];

/// The default of the key at dotted `path`, as the effective config shows it, unless it is
/// unset, not shown, or depends on the machine (a path under the user's home).
fn default_of(defaults: &Value, key: &Key) -> Option<Value> {
    if key.machine_default {
        return None;
    }
    let pointer = format!("/{}", key.path.replace('.', "/"));
    defaults.pointer(&pointer).filter(|v| !v.is_null()).cloned()
}

fn property(mut schema: Value, description: &str, default: Option<Value>) -> Value {
    schema["description"] = json!(description);
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
    let defaults = effective(&Settings::defaults());
    let sections = sections();
    let mut properties = Map::new();
    for key in keys() {
        let property = property(
            (key.shape)(),
            &key.description(),
            default_of(&defaults, &key),
        );
        match key.path.split_once('.') {
            Some((name, leaf)) => {
                let description = sections
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| s.description())
                    .unwrap_or_default();
                let section = properties
                    .entry(name)
                    .or_insert_with(|| section(&description));
                section["properties"][leaf] = property;
            }
            None => {
                properties.insert(key.path.to_owned(), property);
            }
        }
    }
    let mut judge = section("one judge: a change to a built-in, or a new judge");
    for key in JUDGE_KEYS {
        judge["properties"][key.path] = property((key.schema)(), key.description, None);
    }
    properties.insert(
        "judges".into(),
        json!({"type": "object", "description": "judges by name: changes to built-ins, or new judges", "additionalProperties": judge}),
    );
    let mut ordered = Map::new();
    for name in TOP_LEVEL_ORDER {
        if let Some(value) = properties.shift_remove(name) {
            ordered.insert(name.to_owned(), value);
        }
    }
    ordered.extend(properties);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hookjudge config",
        "type": "object",
        "additionalProperties": false,
        "properties": ordered,
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
        assert_eq!(keys.len(), super::keys().len() + 1 + JUDGE_KEYS.len());
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
