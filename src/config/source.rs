//! Where each config value comes from. Layers are merged key by key (a key a layer leaves
//! unset keeps the value below it, as uv's `Combine` does), and [`Merge`] records the layer that
//! set each key as it merges, so `config show` names the right file for every key without
//! reading any file again: a layer holding `"gate": {}` sets nothing.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::{Value, json};

use crate::config::{ConfigFile, Settings};
use crate::judge;

/// The kind of a config layer, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// The user's own file (e.g. `~/.config/hookjudge/config.json`).
    User,
    /// `.hookjudge.json` at the repository root (see [`crate::config::trust`]).
    Repository,
    /// A file named by `--config` or `HOOKJUDGE_CONFIG`.
    Explicit,
}

impl LayerKind {
    /// The word `config path` shows.
    pub fn label(self) -> &'static str {
        match self {
            LayerKind::User => "user",
            LayerKind::Repository => "repository",
            LayerKind::Explicit => "explicit",
        }
    }
}

/// One config layer: its kind and its file (which may not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub kind: LayerKind,
    pub path: PathBuf,
}

/// Leaf key path (as `config show` prints it) -> the layer that set it last. A key no layer set
/// holds its default.
#[derive(Debug, Clone, Default)]
pub struct Sources(IndexMap<String, Layer>);

impl Sources {
    /// The layer that set `key` last, or `None` for a default.
    pub fn of(&self, key: &str) -> Option<&Layer> {
        self.0.get(key)
    }
}

/// Every key of the effective settings with its value and the layer it comes from (`None`
/// for a default), in the order `config show` prints them.
pub fn sourced(s: &Settings) -> Vec<(String, Value, Option<&Layer>)> {
    let builtin: Vec<String> = judge::builtin_specs().into_iter().map(|(n, _)| n).collect();
    let judge_layer = |key: &str| {
        let (name, _) = key.strip_prefix("judges.")?.rsplit_once('.')?;
        // A new judge's keys are its definition's unless a later layer set them.
        if builtin.iter().any(|b| b == name) {
            return None;
        }
        s.sources.of(&format!("judges.{name}"))
    };
    flatten(&effective(s))
        .into_iter()
        .map(|(key, value)| {
            let layer = s.sources.of(&key).or_else(|| judge_layer(&key));
            (key, value, layer)
        })
        .collect()
}

/// One layer being merged into the settings: each value it sets replaces the one below and is
/// recorded as coming from this layer.
pub struct Merge<'a> {
    layer: &'a Layer,
    sources: &'a mut Sources,
}

impl<'a> Merge<'a> {
    pub fn new(layer: &'a Layer, sources: &'a mut Sources) -> Merge<'a> {
        Merge { layer, sources }
    }

    /// Sets `slot` to `value` when the layer has one.
    pub fn set<T>(&mut self, key: &str, slot: &mut T, value: Option<T>) {
        if let Some(value) = value {
            *slot = value;
            self.mark(key);
        }
    }

    /// Records that this layer changed `key` (a list it extended, a judge it changed).
    pub fn mark(&mut self, key: &str) {
        self.sources.0.insert(key.to_owned(), self.layer.clone());
    }

    /// Records this layer for `key` unless a lower layer already did (a judge's definition).
    pub fn mark_first(&mut self, key: &str) {
        if !self.sources.0.contains_key(key) {
            self.mark(key);
        }
    }
}

impl Settings {
    /// Merges one layer's `file` (whose relative paths are relative to `base`) onto these
    /// settings, recording the keys it sets.
    pub(crate) fn apply(&mut self, file: ConfigFile, base: &Path, layer: &Layer) {
        let mut m = Merge::new(layer, &mut self.sources);
        m.set("text_bytes", &mut self.text_bytes, file.text_bytes);
        if let Some(stop) = file.stop {
            m.set(
                "stop.max_blocks_per_judge",
                &mut self.max_blocks_per_judge,
                stop.max_blocks_per_judge,
            );
            m.set(
                "stop.max_blocks_per_prompt",
                &mut self.max_blocks_per_prompt,
                stop.max_blocks_per_prompt,
            );
            m.set("stop.judge_turns", &mut self.judge_turns, stop.judge_turns);
        }
        if let Some(log) = file.log {
            m.set("log.dir", &mut self.log_dir, log.dir.map(|d| base.join(d)));
            m.set("log.text", &mut self.log_text, log.text);
            m.set(
                "log.retention_days",
                &mut self.log_retention_days,
                log.retention_days,
            );
        }
        if let Some(t) = file.transcript {
            let o = &mut self.transcript;
            m.set(
                "transcript.max_scan_bytes",
                &mut o.max_scan_bytes,
                t.max_scan_bytes,
            );
            m.set(
                "transcript.max_line_bytes",
                &mut o.max_line_bytes,
                t.max_line_bytes,
            );
        }
        if let Some(llm) = file.llm {
            let s = &mut self.llm;
            m.set("llm.provider", &mut s.provider, llm.provider);
            m.set("llm.base_url", &mut s.base_url, llm.base_url.map(Some));
            m.set("llm.model", &mut s.model, llm.model.map(Some));
            m.set(
                "llm.api_key_env",
                &mut s.api_key_env,
                llm.api_key_env.map(Some),
            );
            m.set("llm.command", &mut s.command, llm.command.map(Some));
            m.set("llm.timeout_ms", &mut s.timeout_ms, llm.timeout_ms);
            m.set("llm.cache_seconds", &mut s.cache_seconds, llm.cache_seconds);
            m.set(
                "llm.response_format",
                &mut s.response_format,
                llm.response_format.map(Some),
            );
        }
        if let Some(gate) = file.gate {
            use crate::gate::classify::Class;
            let g = &mut self.gate;
            for (class, policy) in [
                (Class::Commit, gate.commit),
                (Class::Push, gate.push),
                (Class::Publish, gate.publish),
                (Class::Deploy, gate.deploy),
                (Class::HookBypass, gate.hook_bypass),
                (Class::Destructive, gate.destructive),
                (Class::Catastrophic, gate.catastrophic),
                (Class::Unparsed, gate.unparsed),
            ] {
                if let Some(policy) = policy {
                    g.policies.retain(|(c, _)| *c != class);
                    g.policies.push((class, policy));
                    m.mark(&format!("gate.{}", class.name()));
                }
            }
            m.set(
                "gate.protected_branches",
                &mut g.protected_branches,
                gate.protected_branches,
            );
            m.set("gate.artifacts", &mut g.artifacts, gate.artifacts);
            if let Some(more) = gate.add_artifacts {
                g.artifacts.extend(more);
                m.mark("gate.artifacts");
            }
            m.set(
                "gate.test_commands",
                &mut g.test_commands,
                gate.test_commands,
            );
            if let Some(commands) = gate.deploy_commands {
                for command in commands {
                    let words = shell_words::split(&command).unwrap_or_else(|_| vec![command]);
                    g.deploy_commands.push(words);
                }
                m.mark("gate.deploy_commands");
            }
            if let Some(commands) = gate.publish_commands {
                for command in commands {
                    let words = shell_words::split(&command).unwrap_or_else(|_| vec![command]);
                    g.publish_commands.push(words);
                }
                m.mark("gate.publish_commands");
            }
            m.set("gate.timeout_ms", &mut g.timeout_ms, gate.timeout_ms);
        }
        if let Some(boundary) = file.boundary {
            m.set("boundary.mode", &mut self.boundary, boundary.mode);
            m.set(
                "boundary.hide_credentials",
                &mut self.boundary_hide_credentials,
                boundary.hide_credentials,
            );
        }
        if let Some(speech) = file.speech {
            let s = &mut self.speech;
            if let Some(more) = speech.add_masks {
                s.masks.extend(more);
                m.mark("speech.add_masks");
            }
            if let Some(more) = speech.add_shown_headings {
                s.shown_headings.extend(more);
                m.mark("speech.add_shown_headings");
            }
        }
        // Which judges are built in is known only where sources are shown (the built-ins are
        // not parsed on the gate's quiet path): a new judge's keys come from the layer that
        // first defined it unless a later one sets them (see [`sourced`]).
        for (name, spec) in file.judges.unwrap_or_default() {
            m.mark_first(&format!("judges.{name}"));
            if spec.enabled.is_some() {
                m.mark(&format!("judges.{name}.enabled"));
            }
            if spec.triggers.is_some() || spec.add_triggers.is_some() {
                m.mark(&format!("judges.{name}.triggers"));
            }
            if spec.sensitivity.is_some() {
                m.mark(&format!("judges.{name}.sensitivity"));
            }
            if spec.broad_triggers.is_some() {
                m.mark(&format!("judges.{name}.broad_triggers"));
            }
            self.judge_layers.push((name, spec));
        }
    }
}

/// The effective settings as the config file keys name them.
pub fn effective(s: &Settings) -> Value {
    let specs = s.judge_specs();
    let judges: IndexMap<&str, Value> = specs
        .iter()
        .map(|(name, spec)| {
            let triggers = spec.triggers.as_ref().map(Vec::len).unwrap_or(0)
                + spec.add_triggers.as_ref().map(Vec::len).unwrap_or(0);
            let enabled = spec.enabled.unwrap_or(true);
            (
                name.as_str(),
                json!({"enabled": enabled, "triggers": triggers}),
            )
        })
        .collect();
    let g = &s.gate;
    let joined = |commands: &[Vec<String>]| -> Vec<String> {
        commands.iter().map(|d| d.join(" ")).collect()
    };
    let mut gate = json!({
        "protected_branches": g.protected_branches, "artifacts": g.artifacts,
        "test_commands": g.test_commands, "deploy_commands": joined(&g.deploy_commands),
        "publish_commands": joined(&g.publish_commands), "timeout_ms": g.timeout_ms,
    });
    for (class, policy) in &g.policies {
        gate[class.name()] = json!(policy);
    }
    let llm = &s.llm;
    json!({
        "text_bytes": s.text_bytes,
        "stop": {"max_blocks_per_judge": s.max_blocks_per_judge, "max_blocks_per_prompt": s.max_blocks_per_prompt, "judge_turns": s.judge_turns},
        "log": {"dir": s.log_dir, "text": s.log_text, "retention_days": s.log_retention_days},
        "transcript": {"max_scan_bytes": s.transcript.max_scan_bytes, "max_line_bytes": s.transcript.max_line_bytes},
        "llm": {"provider": llm.provider, "base_url": llm.base_url, "model": llm.model, "api_key_env": llm.api_key_env,
                "command": llm.command, "timeout_ms": llm.timeout_ms, "cache_seconds": llm.cache_seconds,
                "response_format": llm.response_format},
        "gate": gate,
        "judges": judges,
        "speech": {"add_masks": s.speech.masks, "add_shown_headings": s.speech.shown_headings},
        "boundary": {"mode": s.boundary, "hide_credentials": s.boundary_hide_credentials},
    })
}

/// The leaves of `v` with their dotted paths, in order.
pub fn flatten(v: &Value) -> Vec<(String, Value)> {
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
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(user: &str, explicit: &str) -> (Settings, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap().keep();
        let lower = dir.join("lower.json");
        let upper = dir.join("upper.json");
        std::fs::write(&lower, user).unwrap();
        std::fs::write(&upper, explicit).unwrap();
        let layers = [
            Layer {
                kind: LayerKind::User,
                path: lower.clone(),
            },
            Layer {
                kind: LayerKind::Explicit,
                path: upper.clone(),
            },
        ];
        let settings = Settings::load_layers(&layers).unwrap();
        (settings, lower, upper)
    }

    #[test]
    fn an_empty_section_is_the_source_of_nothing() {
        let (s, lower, upper) = load(
            r#"{"gate": {"push": "ask", "timeout_ms": 5}, "judges": {"commit": {"enabled": false}}}"#,
            r#"{"gate": {}, "judges": {"commit": {}}, "text_bytes": 7}"#,
        );
        let from = |key: &str| s.sources.of(key).map(|l| l.path.clone());
        assert_eq!(from("gate.push"), Some(lower.clone()));
        assert_eq!(from("gate.timeout_ms"), Some(lower.clone()));
        assert_eq!(from("gate.commit"), None, "a default");
        assert_eq!(from("judges.commit.enabled"), Some(lower.clone()));
        assert_eq!(from("judges.commit.triggers"), None);
        assert_eq!(from("text_bytes"), Some(upper.clone()));
        let shown: Vec<(String, Option<PathBuf>)> = sourced(&s)
            .into_iter()
            .map(|(k, _, l)| (k, l.map(|l| l.path.clone())))
            .collect();
        assert!(shown.contains(&("text_bytes".into(), Some(upper))));
        assert!(shown.contains(&("gate.push".into(), Some(lower))));
        assert!(shown.contains(&("judges.commit.triggers".into(), None)));
    }

    #[test]
    fn speech_rules_append_across_layers() {
        let (s, _, upper) = load(
            r#"{"speech": {"add_masks": ["\\bfixed asset register\\b"]}}"#,
            r#"{"speech": {"add_masks": ["\\bpush alerts?\\b"], "add_shown_headings": ["^#+ resolved$"]}}"#,
        );
        assert_eq!(
            s.speech.masks,
            [r"\bfixed asset register\b", r"\bpush alerts?\b"]
        );
        assert_eq!(s.speech.shown_headings, ["^#+ resolved$"]);
        let shown = sourced(&s);
        let masks = shown
            .iter()
            .find(|(k, _, _)| k == "speech.add_masks")
            .unwrap();
        assert_eq!(masks.1.as_array().map(Vec::len), Some(2));
        assert_eq!(masks.2.map(|l| &l.path), Some(&upper));
        let panel = s.panel(&[]).unwrap();
        assert!(!panel.judges.is_empty());
    }

    #[test]
    fn lists_extended_and_new_judges_are_sourced() {
        let (s, lower, upper) = load(
            r#"{"gate": {"add_artifacts": ["a.xml"]}}"#,
            r#"{"gate": {"deploy_commands": ["make ship"]}, "judges": {"mine": {"prompt": "p", "fields": {"x": "y"}, "block_when": "x"}}}"#,
        );
        let shown = sourced(&s);
        let from = |key: &str| {
            let (_, _, layer) = shown.iter().find(|(k, _, _)| k == key).unwrap();
            layer.map(|l| l.path.clone())
        };
        assert_eq!(from("gate.artifacts"), Some(lower));
        assert_eq!(from("gate.deploy_commands"), Some(upper.clone()));
        assert_eq!(from("judges.mine.enabled"), Some(upper.clone()));
        assert_eq!(from("judges.mine.triggers"), Some(upper));
        assert_eq!(from("judges.commit.enabled"), None, "a built-in's default");
    }
}
