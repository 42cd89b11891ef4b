//! A short-lived verdict cache: agents often stop twice on the same text (a retry, a subagent
//! and its parent), and the same judge, model and text deserve the same answer without paying
//! for another call. One small file per key in the state dir; stale files are swept on write.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::Backend;
use super::answer::Parsed;
use crate::agent::fnv1a;
use crate::judge::Judge;

/// The cache key: the judge's whole definition, the provider and model, and the text.
pub fn key(judge: &Judge, backend: &Backend, text: &str, request: Option<&str>) -> String {
    let mut material = format!(
        "{}\0{}\0{}\0{}\0",
        judge.name,
        judge.prompt,
        judge.block_when.to_json(),
        backend.describe()
    );
    for f in &judge.fields {
        material.push_str(&f.name);
        material.push('\0');
        material.push_str(&f.meaning);
        material.push('\0');
    }
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

fn dir(state_dir: &Path) -> PathBuf {
    state_dir.join("llm-cache")
}

/// A cached answer younger than `ttl_seconds`.
pub fn get(state_dir: &Path, key: &str, ttl_seconds: u64) -> Option<Parsed> {
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
    let value: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(Parsed {
        fields: value["fields"].as_object()?.clone(),
        reason: value["reason"].as_str().map(str::to_owned),
    })
}

/// Stores an answer; failures to write are ignored (the cache only saves time).
pub fn put(state_dir: &Path, key: &str, parsed: &Parsed, ttl_seconds: u64) {
    if ttl_seconds == 0 {
        return;
    }
    let dir = dir(state_dir);
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    sweep(&dir, ttl_seconds);
    let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    let body = json!({"fields": parsed.fields, "reason": parsed.reason});
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
