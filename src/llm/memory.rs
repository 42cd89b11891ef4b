//! What hookjudge has learned about one OpenAI-compatible server and model (the parameters it
//! refuses, the response format it accepts), kept per server and model in a small state file,
//! so that the next hook call does not pay for the same refused request again.
//!
//! Reading is forgiving: a missing or malformed file is an empty memory, which only costs one
//! retry. Writing goes through [`statefile`] (atomic, under the file's lock, private), and a
//! failed write is returned so that the caller can log it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::statefile;

/// One server and model's entry in one memory file.
pub struct ServerMemory {
    path: PathBuf,
    key: String,
}

impl ServerMemory {
    pub fn new(state_dir: &Path, file: &str, base_url: &str, model: &str) -> ServerMemory {
        ServerMemory {
            path: state_dir.join(file),
            key: format!("{base_url} {model}"),
        }
    }

    /// This server and model's entry, or `None` when nothing is known.
    pub fn recall(&self) -> Option<Value> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let mut all: Value = serde_json::from_str(&text).ok()?;
        all.get_mut(&self.key).map(Value::take)
    }

    /// Sets this server and model's entry, keeping every other one.
    pub fn remember(&self, value: Value) -> Result<(), statefile::Error> {
        statefile::update(&self.path, |current| {
            let mut all = current
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({}));
            all[&self.key] = value;
            (Some(all.to_string()), ())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_kept_per_server_and_model_and_survive_a_bad_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = ServerMemory::new(dir.path(), "m.json", "http://x", "a");
        let b = ServerMemory::new(dir.path(), "m.json", "http://x", "b");
        assert_eq!(a.recall(), None);
        a.remember(json!(["temperature"])).unwrap();
        b.remember(json!("json_object")).unwrap();
        assert_eq!(
            a.recall(),
            Some(json!(["temperature"])),
            "b did not overwrite a"
        );
        assert_eq!(b.recall(), Some(json!("json_object")));
        std::fs::write(dir.path().join("m.json"), "not json").unwrap();
        assert_eq!(a.recall(), None, "a malformed file is an empty memory");
        a.remember(json!([])).unwrap();
        assert_eq!(
            a.recall(),
            Some(json!([])),
            "and is replaced by the next write"
        );
    }

    #[test]
    fn a_write_that_fails_says_where() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the state dir should be: nothing can be created under it.
        let blocked = dir.path().join("blocked");
        std::fs::write(&blocked, "").unwrap();
        let m = ServerMemory::new(&blocked, "m.json", "http://x", "a");
        let e = m.remember(json!(1)).unwrap_err();
        assert!(e.to_string().contains("blocked"), "{e}");
    }
}
