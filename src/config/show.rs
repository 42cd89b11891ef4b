//! `config show`: the effective settings as the config file keys name them, each leaf with the
//! layer that set it. The rows come from the key declarations ([`crate::config::keys`]); the
//! judges, a map merged per judge, show their `enabled` and trigger count.

use indexmap::IndexMap;
use serde_json::{Value, json};

use crate::config::keys::effective_keys;
use crate::config::{Layer, Settings};

/// Every key of the effective settings with its value and the layer it comes from (`None`
/// for a default), in the order `config show` prints them.
pub fn sourced(s: &Settings) -> Vec<(String, Value, Option<&Layer>)> {
    let builtin = s.builtin_specs();
    let judge_layer = |key: &str| {
        let (name, _) = key.strip_prefix("judges.")?.rsplit_once('.')?;
        // A new judge's keys are its definition's unless a later layer set them.
        if builtin.iter().any(|(b, _)| b == name) {
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
    effective_keys(s, json!(judges))
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
    use crate::config::{Layer, LayerKind};
    use std::path::PathBuf;

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
