//! A short-lived verdict cache: agents often stop twice on the same text (a retry, a subagent
//! and its parent), and the same judge, model and text deserve the same answer without paying
//! for another call. A combined call is cached whole, under a key over all its judges. One
//! small file per key in the state dir; stale files are swept on write.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::Backend;
use super::answer::Parsed;
use super::frame::Turn;
use crate::judge::Judge;
use crate::support::hash::fnv1a;

/// The cache key: the judge's whole definition, the provider and model, and the text.
pub fn key(judge: &Judge, backend: &Backend, text: &str, request: Option<&str>) -> String {
    let mut material = format!("{}\0", backend.describe());
    push_judge(&mut material, judge);
    // The request changes the prompt, so it is part of what an answer depends on.
    if let Some(request) = request {
        material.push_str("request\0");
        material.push_str(request);
        material.push('\0');
    }
    let first = fnv1a(material.as_bytes());
    let second = fnv1a(text.as_bytes());
    format!("{first:016x}{second:016x}")
}

/// A judge's whole definition, as key material.
fn push_judge(material: &mut String, judge: &Judge) {
    material.push_str(&format!(
        "{}\0{}\0{}\0",
        judge.name,
        judge.prompt,
        judge.block_when.to_json()
    ));
    for f in &judge.fields {
        material.push_str(&f.name);
        material.push('\0');
        material.push_str(&f.meaning);
        material.push('\0');
    }
}

/// The key of a combined request: every judge's definition in order, the provider and model,
/// and everything of the turn the prompt carries (request, facts, hints, text).
pub fn panel_key(judges: &[&Judge], backend: &Backend, turn: &Turn) -> String {
    let mut material = format!("panel\0{}\0", backend.describe());
    for judge in judges {
        push_judge(&mut material, judge);
    }
    for (name, part) in [("request", turn.request), ("facts", turn.facts)] {
        if let Some(part) = part {
            material.push_str(name);
            material.push('\0');
            material.push_str(part);
            material.push('\0');
        }
    }
    for hint in turn.hints {
        material.push_str(hint);
        material.push('\0');
    }
    let first = fnv1a(material.as_bytes());
    let second = fnv1a(turn.text.as_bytes());
    format!("p{first:016x}{second:016x}")
}

/// The cached parts of a combined answer, when every judge's part is there.
pub fn get_panel(
    state_dir: &Path,
    key: &str,
    judges: &[&Judge],
    ttl_seconds: u64,
) -> Option<Vec<Parsed>> {
    let value = read(state_dir, key, ttl_seconds)?;
    judges
        .iter()
        .map(|j| parsed(&value["parts"][&j.name]))
        .collect()
}

/// Stores a combined answer whose every part parsed.
pub fn put_panel(state_dir: &Path, key: &str, parts: &[(&str, &Parsed)], ttl_seconds: u64) {
    let parts: serde_json::Map<String, Value> = parts
        .iter()
        .map(|(name, p)| {
            (
                (*name).to_owned(),
                json!({"fields": p.fields, "reason": p.reason}),
            )
        })
        .collect();
    write(state_dir, key, &json!({ "parts": parts }), ttl_seconds);
}

fn parsed(value: &Value) -> Option<Parsed> {
    Some(Parsed {
        fields: value["fields"].as_object()?.clone(),
        reason: value["reason"].as_str().map(str::to_owned),
    })
}

fn dir(state_dir: &Path) -> PathBuf {
    state_dir.join("llm-cache")
}

/// A cached answer younger than `ttl_seconds`.
pub fn get(state_dir: &Path, key: &str, ttl_seconds: u64) -> Option<Parsed> {
    parsed(&read(state_dir, key, ttl_seconds)?)
}

/// A cache file younger than `ttl_seconds`.
fn read(state_dir: &Path, key: &str, ttl_seconds: u64) -> Option<Value> {
    if ttl_seconds == 0 {
        return None;
    }
    let path = dir(state_dir).join(format!("{key}.json"));
    let age = path
        .metadata()
        .ok()?
        .modified()
        .ok()?
        .elapsed()
        .unwrap_or(Duration::MAX);
    if age > Duration::from_secs(ttl_seconds) {
        return None;
    }
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Stores an answer; failures to write are ignored (the cache only saves time).
pub fn put(state_dir: &Path, key: &str, parsed: &Parsed, ttl_seconds: u64) {
    let body = json!({"fields": parsed.fields, "reason": parsed.reason});
    write(state_dir, key, &body, ttl_seconds);
}

fn write(state_dir: &Path, key: &str, body: &Value, ttl_seconds: u64) {
    if ttl_seconds == 0 {
        return;
    }
    let dir = dir(state_dir);
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    sweep(&dir, ttl_seconds);
    let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, body.to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, dir.join(format!("{key}.json")));
    }
}

fn sweep(dir: &Path, ttl_seconds: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > Duration::from_secs(ttl_seconds.max(60) * 2));
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::builtin_specs;

    fn judges() -> Vec<Judge> {
        builtin_specs()
            .into_iter()
            .take(2)
            .map(|(n, s)| Judge::from_spec(&n, &s).unwrap().unwrap())
            .collect()
    }

    fn backend(model: &str) -> Backend {
        Backend::OpenAi {
            base_url: "http://127.0.0.1:1/v1".into(),
            model: model.into(),
            api_key: None,
            missing_key: None,
        }
    }

    #[test]
    fn a_combined_answer_is_cached_whole_under_everything_its_prompt_carries() {
        let dir = tempfile::tempdir().unwrap();
        let judges = judges();
        let refs: Vec<&Judge> = judges.iter().collect();
        let hints = vec!["commit: trigger \"push\"".to_owned()];
        let turn = Turn {
            text: "I'll push now.",
            request: Some("ship it"),
            facts: None,
            hints: &hints,
        };
        let key = panel_key(&refs, &backend("m"), &turn);
        let differs = [
            panel_key(&refs, &backend("other"), &turn),
            panel_key(&refs[..1], &backend("m"), &turn),
            panel_key(
                &refs,
                &backend("m"),
                &Turn {
                    text: "Done.",
                    ..turn
                },
            ),
            panel_key(
                &refs,
                &backend("m"),
                &Turn {
                    request: None,
                    ..turn
                },
            ),
            panel_key(
                &refs,
                &backend("m"),
                &Turn {
                    facts: Some("f"),
                    ..turn
                },
            ),
            panel_key(&refs, &backend("m"), &Turn { hints: &[], ..turn }),
        ];
        assert!(differs.iter().all(|k| *k != key), "{differs:?}");
        assert_eq!(get_panel(dir.path(), &key, &refs, 60), None);
        let parsed = |b: bool| Parsed {
            fields: serde_json::Map::from_iter([("new_proposal".to_owned(), Value::Bool(b))]),
            reason: Some("r".into()),
        };
        let (a, b) = (parsed(true), parsed(false));
        put_panel(
            dir.path(),
            &key,
            &[(&refs[0].name, &a), (&refs[1].name, &b)],
            60,
        );
        assert_eq!(
            get_panel(dir.path(), &key, &refs, 60),
            Some(vec![a.clone(), b])
        );
        assert_eq!(
            get_panel(dir.path(), &key, &refs, 0),
            None,
            "no cache at 0 s"
        );
        // A cached answer lacking a judge's part does not answer for it.
        let partial = panel_key(&refs[..1], &backend("m"), &turn);
        put_panel(dir.path(), &partial, &[(&refs[0].name, &a)], 60);
        assert_eq!(get_panel(dir.path(), &partial, &refs, 60), None);
    }
}
