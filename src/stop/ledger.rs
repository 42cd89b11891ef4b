//! The loop breaker's ledger: how often each judge blocked during one user prompt.
//!
//! A wrongly blocked agent rephrases and is blocked again until the session collapses. The
//! ledger caps blocks per judge and per prompt; past the cap a block is released (allowed) and
//! the human is told which judge still objects. One small file per session holds the counts of
//! the current prompt only, under an exclusive file lock, so concurrent hook processes (several
//! Stop hooks, subagents) cannot lose or double-count a block.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::support::hash::fnv1a;

/// How many blocks the ledger admits per user prompt.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub per_judge: u32,
    pub per_prompt: u32,
}

/// Which blocking judges may block, and which are released by the caps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Admission {
    pub admitted: Vec<String>,
    pub released: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Entry {
    /// The prompt these counts belong to.
    prompt: String,
    /// Blocks per judge, in the order they first blocked.
    blocks: indexmap::IndexMap<String, u32>,
    total: u32,
    /// Prompts seen without a prompt key, to name the next one.
    #[serde(default)]
    epochs: u64,
    /// Notices the human was given once in this session (kept across prompts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    told: Vec<String>,
}

/// The ledger file for a session.
pub fn path(state_dir: &Path, session: &str) -> PathBuf {
    state_dir
        .join("ledger")
        .join(format!("{:016x}.json", fnv1a(session.as_bytes())))
}

/// Admits or releases each judge in `blocking` for this prompt and records the admitted blocks.
///
/// `prompt_key` identifies the user prompt; without one, a Stop with `stop_hook_active` false
/// starts a new prompt (the agent sets it once a hook has blocked in the current turn).
pub fn admit(
    state_dir: &Path,
    session: &str,
    prompt_key: Option<&str>,
    stop_hook_active: bool,
    blocking: &[&str],
    limits: Limits,
) -> io::Result<Admission> {
    let mut file = open_locked(state_dir, session)?;
    let result = update(&mut file, prompt_key, stop_hook_active, blocking, limits);
    let _ = file.unlock();
    result
}

/// The session's ledger file, created if need be, locked for this process.
fn open_locked(state_dir: &Path, session: &str) -> io::Result<File> {
    let path = path(state_dir, session);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)?;
    file.lock()?;
    Ok(file)
}

/// Whether the notice `what` is new to `session`, recording it: a notice meant once per
/// session (such as "no LLM judges") is shown on the first Stop only. The session's ledger file
/// holds it, under the same lock as the block counts.
pub fn first_in_session(state_dir: &Path, session: &str, what: &str) -> io::Result<bool> {
    let mut file = open_locked(state_dir, session)?;
    let result = (|| {
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        let mut entry: Entry = serde_json::from_str(&text).unwrap_or_default();
        if entry.told.iter().any(|t| t == what) {
            return Ok(false);
        }
        entry.told.push(what.to_owned());
        let bytes = serde_json::to_vec(&entry).expect("ledger entries serialise");
        file.seek(SeekFrom::Start(0))?;
        file.set_len(0)?;
        file.write_all(&bytes)?;
        Ok(true)
    })();
    let _ = file.unlock();
    result
}

fn update(
    file: &mut File,
    prompt_key: Option<&str>,
    stop_hook_active: bool,
    blocking: &[&str],
    limits: Limits,
) -> io::Result<Admission> {
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    // A corrupt or foreign file is replaced: the ledger only guards against loops.
    let mut entry: Entry = serde_json::from_str(&text).unwrap_or_default();
    let prompt = match prompt_key {
        Some(key) => key.to_owned(),
        None if stop_hook_active => entry.prompt.clone(),
        None => format!("epoch-{}", entry.epochs + 1),
    };
    if entry.prompt != prompt {
        let epochs = entry.epochs + u64::from(prompt_key.is_none());
        entry = Entry {
            prompt,
            epochs,
            told: std::mem::take(&mut entry.told),
            ..Entry::default()
        };
    }
    let mut admission = Admission::default();
    for judge in blocking {
        let count = entry.blocks.get(*judge).copied().unwrap_or(0);
        if count < limits.per_judge && entry.total < limits.per_prompt {
            *entry.blocks.entry((*judge).to_owned()).or_insert(0) += 1;
            entry.total += 1;
            admission.admitted.push((*judge).to_owned());
        } else {
            admission.released.push((*judge).to_owned());
        }
    }
    let bytes = serde_json::to_vec(&entry).expect("ledger entries serialise");
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    file.write_all(&bytes)?;
    Ok(admission)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        per_judge: 1,
        per_prompt: 2,
    };

    #[test]
    fn caps_per_judge_and_per_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let admit = |prompt: Option<&str>, active: bool, judges: &[&str]| {
            admit(dir.path(), "s1", prompt, active, judges, LIMITS).unwrap()
        };
        let a = admit(Some("p1"), false, &["commit"]);
        assert_eq!(a.admitted, ["commit"]);
        let a = admit(Some("p1"), true, &["commit", "scope-check"]);
        assert_eq!(
            (a.admitted, a.released),
            (vec!["scope-check".to_string()], vec!["commit".to_string()])
        );
        let a = admit(Some("p1"), true, &["shallow-bugfix"]);
        assert_eq!(
            a.released,
            ["shallow-bugfix"],
            "the per-prompt cap of 2 is reached"
        );
        // A new prompt starts afresh.
        assert_eq!(admit(Some("p2"), false, &["commit"]).admitted, ["commit"]);
    }

    #[test]
    fn without_a_prompt_key_stop_hook_active_continues_the_prompt() {
        let dir = tempfile::tempdir().unwrap();
        let admit =
            |active: bool| admit(dir.path(), "s", None, active, &["commit"], LIMITS).unwrap();
        assert_eq!(admit(false).admitted, ["commit"]);
        assert_eq!(admit(true).released, ["commit"]);
        assert_eq!(
            admit(false).admitted,
            ["commit"],
            "a fresh stop is a new prompt"
        );
    }

    #[test]
    fn a_corrupt_ledger_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path(), "s");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "garbage{").unwrap();
        assert_eq!(
            admit(dir.path(), "s", Some("p"), false, &["commit"], LIMITS)
                .unwrap()
                .admitted,
            ["commit"]
        );
    }

    #[test]
    fn concurrent_threads_never_exceed_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let admitted: u32 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| {
                    s.spawn(|| {
                        admit(
                            dir.path(),
                            "s",
                            Some("p"),
                            false,
                            &["commit", "scope-check", "scope-change"],
                            LIMITS,
                        )
                        .unwrap()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().admitted.len() as u32)
                .sum()
        });
        assert_eq!(admitted, 2);
    }

    #[test]
    fn a_session_notice_is_new_once_and_survives_new_prompts() {
        let dir = tempfile::tempdir().unwrap();
        assert!(first_in_session(dir.path(), "s1", "no-llm").unwrap());
        assert!(!first_in_session(dir.path(), "s1", "no-llm").unwrap());
        // A new prompt resets the block counts, not what the human was told.
        admit(dir.path(), "s1", Some("p2"), false, &["commit"], LIMITS).unwrap();
        admit(dir.path(), "s1", Some("p3"), false, &["commit"], LIMITS).unwrap();
        assert!(!first_in_session(dir.path(), "s1", "no-llm").unwrap());
        assert!(first_in_session(dir.path(), "s2", "no-llm").unwrap());
        assert!(first_in_session(dir.path(), "s1", "other").unwrap());
    }
}
