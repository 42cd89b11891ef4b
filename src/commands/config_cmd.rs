//! `hookjudge config show|path|schema`: the effective config with each value's source, the files
//! consulted, and a JSON Schema for editors.

use std::io::{self, Write};
use std::path::Path;

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::{ExitStatus, UserError};
use crate::cli::{ConfigArgs, ConfigCommand};
use crate::config::Settings;

pub(super) fn config(args: &ConfigArgs, explicit: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let mut out = io::stdout().lock();
    let mut problems = Vec::new();
    let result = match &args.command {
        ConfigCommand::Path => {
            let mut r = Ok(());
            for (i, path) in Settings::layer_paths(&cwd, explicit).iter().enumerate() {
                let layer = ["user", "repository", "explicit"]
                    .get(i)
                    .copied()
                    .unwrap_or("explicit");
                let state = if path.exists() { "found" } else { "not found" };
                r = r.and(writeln!(out, "{layer:<11} {}  ({state})", path.display()));
            }
            r
        }
        ConfigCommand::Schema { write: false } => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&schema()).expect("schema serialises")
        ),
        ConfigCommand::Schema { write: true } => {
            let root = crate::config::repo_root(&cwd).unwrap_or_else(|| cwd.clone());
            let path = root.join(super::init::SCHEMA_FILE);
            let text = format!(
                "{}\n",
                serde_json::to_string_pretty(&schema()).expect("schema serialises")
            );
            crate::install::files::write(&path, &text, false).map_err(UserError::new)?;
            writeln!(
                out,
                "wrote {}; `\"$schema\": \"./{}\"` in `{}` points editors at it",
                path.display(),
                super::init::SCHEMA_FILE,
                crate::config::REPO_FILE
            )
        }
        ConfigCommand::Show { json } => {
            let settings = Settings::load(&cwd, explicit)?;
            problems = crate::config_check::problems(&settings);
            let sources = sources(&settings);
            let effective = effective(&settings);
            if *json {
                writeln!(
                    out,
                    "{}",
                    json!({"effective": effective, "sources": sources, "files": settings.files})
                )
            } else {
                let mut r = Ok(());
                for (key, value) in flatten(&effective) {
                    let from = source_of(&sources, &key);
                    r = r.and(writeln!(out, "{key} = {value}  ({from})"));
                }
                if let Some(report) = &settings.repo_report {
                    r = r.and(writeln!(out, "\nnote: {}", report.message()));
                }
                r
            }
        }
    };
    result.map_err(UserError::output)?;
    // The values are shown first, then what is wrong with them.
    if let Some(first) = problems.first() {
        let list: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
        return Err(UserError::new(format!(
            "the config has {} problem(s):\n{}",
            problems.len(),
            list.join("\n")
        ))
        .hint(first.hint()));
    }
    Ok(ExitStatus::Success)
}

fn effective(s: &Settings) -> Value {
    let policies: IndexMap<&str, Value> = s
        .gate
        .policies
        .iter()
        .map(|(c, p)| (c.name(), json!(p)))
        .collect();
    let specs = s.judge_specs();
    let judges: IndexMap<&str, Value> = specs
        .iter()
        .map(|(name, spec)| (name.as_str(), json!({"enabled": spec.enabled.unwrap_or(true), "sensitivity": spec.sensitivity.unwrap_or_default(), "triggers": spec.triggers.as_ref().map(Vec::len).unwrap_or(0) + spec.add_triggers.as_ref().map(Vec::len).unwrap_or(0), "broad_triggers": spec.broad_triggers.as_ref().map(Vec::len).unwrap_or(0)})))
        .collect();
    let mut gate = json!({
        "protected_branches": s.gate.protected_branches, "artifacts": s.gate.artifacts, "test_commands": s.gate.test_commands,
        "deploy_commands": s.gate.deploy_commands.iter().map(|d| d.join(" ")).collect::<Vec<_>>(), "publish_commands": s.gate.publish_commands.iter().map(|d| d.join(" ")).collect::<Vec<_>>(), "timeout_ms": s.gate.timeout_ms,
    });
    for (k, v) in policies {
        gate[k] = v;
    }
    json!({
        "text_bytes": s.text_bytes,
        "stop": {"max_blocks_per_judge": s.max_blocks_per_judge, "max_blocks_per_prompt": s.max_blocks_per_prompt},
        "log": {"dir": s.log_dir, "text": s.log_text, "retention_days": s.log_retention_days},
        "transcript": {"max_scan_bytes": s.transcript.max_scan_bytes, "max_line_bytes": s.transcript.max_line_bytes},
        "llm": {"provider": s.llm.provider, "base_url": s.llm.base_url, "model": s.llm.model, "api_key_env": s.llm.api_key_env,
                "command": s.llm.command, "timeout_ms": s.llm.timeout_ms, "cache_seconds": s.llm.cache_seconds, "response_format": s.llm.response_format},
        "gate": gate,
        "judges": judges,
    })
}

/// Leaf key path -> the file that set it last.
fn sources(s: &Settings) -> IndexMap<String, String> {
    let mut map = IndexMap::new();
    for file in &s.files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        // Of an untrusted repository file, only what it was allowed to set counts.
        let allowed: Option<Vec<&str>> =
            s.repo_report.as_ref().filter(|r| r.path == *file).map(|r| {
                r.applied
                    .iter()
                    .filter_map(|a| a.split('`').nth(1))
                    .collect()
            });
        for (key, _) in flatten(&v) {
            if let Some(allowed) = &allowed
                && !allowed
                    .iter()
                    .any(|a| key == *a || key.starts_with(&format!("{a}.")))
            {
                continue;
            }
            map.insert(key, file.display().to_string());
        }
    }
    map
}

fn source_of(sources: &IndexMap<String, String>, key: &str) -> String {
    // A judge key is set by any file that set something under it.
    sources
        .iter()
        .rev()
        .find(|(k, _)| {
            *k == key
                || k.starts_with(&format!("{key}."))
                || key.starts_with(&format!("{k}."))
                || (key.starts_with("judges.")
                    && k.starts_with(key.rsplit_once('.').map(|(a, _)| a).unwrap_or(key)))
        })
        .map(|(_, f)| f.clone())
        .unwrap_or_else(|| "default".into())
}

fn flatten(v: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    fn walk(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(map) if !map.is_empty() => {
                for (k, v) in map {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            _ => out.push((prefix.to_owned(), v.clone())),
        }
    }
    walk("", v, &mut out);
    out
}

fn policy() -> Value {
    json!({"enum": ["allow", "verify", "ask", "deny", "guard"]})
}

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

/// The JSON Schema of a config file. A test keeps it in step with what the parser accepts.
pub fn schema() -> Value {
    let judge = json!({
        "type": "object", "additionalProperties": false,
        "properties": {
            "enabled": {"type": "boolean", "description": "false turns the judge off"},
            "kind": {"enum": ["response", "gate"], "default": "response", "description": "what the judge reads: the agent's final message, or (gate) the session activity before a commit, push or deploy"},
            "description": {"type": "string"},
            "triggers": {"type": "array", "items": {"type": "string"}, "description": "Layer 1 patterns (Rust regex, case-insensitive); replaces the list"},
            "broad_triggers": {"type": "array", "items": {"type": "string"}, "description": "Layer 1 patterns used only at sensitivity `high`; replaces the list"},
            "sensitivity": {"enum": ["normal", "high"], "default": "normal", "description": "`normal` wakes on `triggers` (the measured knee), `high` also on `broad_triggers` (recall first, about twice the LLM calls)"},
            "bypasses": {"type": "array", "items": {"type": "string"}, "description": "patterns that allow a triggered text without the LLM; replaces the list"},
            "add_triggers": strings(), "add_bypasses": strings(),
            "prompt": {"type": "string"},
            "fields": {"type": "object", "additionalProperties": {"type": "string"}, "description": "field name -> what it means"},
            "block_when": {"description": "a field name, {\"all\": [...]}, {\"any\": [...]} or {\"not\": rule}"},
            "reason": {"type": "string", "description": "what the agent is told when this judge blocks"},
            "legacy_fields": {"type": "object", "description": "old field name -> rule over the current fields, so that a block_when written for the old fields keeps working"}
        }
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hookjudge config",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "$schema": {"type": "string"},
            "text_bytes": {"type": "integer", "minimum": 1, "default": 4000},
            "stop": {"type": "object", "additionalProperties": false, "properties": {
                "max_blocks_per_judge": {"type": "integer", "minimum": 0, "default": 1},
                "max_blocks_per_prompt": {"type": "integer", "minimum": 0, "default": 2}}},
            "log": {"type": "object", "additionalProperties": false, "properties": {
                "dir": {"type": "string"}, "text": {"type": "boolean", "default": true},
                "retention_days": {"type": "integer", "minimum": 0, "default": 30}}},
            "transcript": {"type": "object", "additionalProperties": false, "properties": {
                "max_scan_bytes": {"type": "integer", "default": 33554432}, "max_line_bytes": {"type": "integer", "default": 1048576}}},
            "llm": {"type": "object", "additionalProperties": false, "properties": {
                "provider": {"enum": ["auto", "none", "openai", "anthropic", "command", "codex", "claude"], "default": "auto"},
                "base_url": {"type": "string"}, "model": {"type": "string"}, "api_key_env": {"type": "string"},
                "command": strings(), "timeout_ms": {"type": "integer", "default": 10000}, "cache_seconds": {"type": "integer", "default": 120},
                "response_format": {"enum": ["json_schema", "json_object", "none"]}}},
            "gate": {"type": "object", "additionalProperties": false, "properties": {
                "commit": policy(), "push": policy(), "publish": policy(), "deploy": policy(), "hook-bypass": policy(),
                "destructive": policy(), "catastrophic": policy(), "unparsed": policy(),
                "protected_branches": strings(), "artifacts": strings(), "add_artifacts": strings(),
                "test_commands": {"type": "string"}, "deploy_commands": strings(), "publish_commands": strings(), "timeout_ms": {"type": "integer", "default": 8000}}},
            "judges": {"type": "object", "additionalProperties": judge}
        }
    })
}
