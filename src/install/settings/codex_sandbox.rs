//! Codex CLI's own sandbox as hookjudge's boundary: the keys of Codex's `config.toml` that
//! turn on its `workspace-write` sandbox, merged beside the user's own keys (comments kept)
//! and taken out again exactly.
//!
//! Found with Codex CLI 0.169.0 on Linux (bubblewrap, seccomp): in `workspace-write` a
//! command may write only the working folder and the temporary folders; inside the working
//! folder `.git` and `.codex` stay read-only. So hookjudge's anchors (its state and config
//! folders, `~/.codex`, the binary, `.git/config`, `.git/hooks`, `.codex/hooks.json`) are
//! out of reach, unless one lies under `/tmp` or `$TMPDIR`: then the temporary folders are
//! taken out of the writable roots too (`exclude_slash_tmp`, `exclude_tmpdir_env_var`).
//!
//! What is added is recorded member by member, as for Claude Code's block:
//! `sandbox_mode` (created), `sandbox_mode="danger-full-access"` (the user's value, put back
//! on the way out), `sandbox_workspace_write` (a table created, removed once empty),
//! `sandbox_workspace_write.exclude_slash_tmp` (a key created).

use std::fmt;
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, value};

/// The mode hookjudge needs.
pub const MODE: &str = "workspace-write";
const TABLE: &str = "sandbox_workspace_write";
const EXCLUSIONS: [&str; 2] = ["exclude_slash_tmp", "exclude_tmpdir_env_var"];

/// Why the keys cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodexSandboxError {
    /// The file is not TOML.
    NotToml(String),
    /// `key` holds something other than what Codex reads there.
    WrongShape { key: String, expected: &'static str },
    /// The user's own writable root holds one of hookjudge's anchors.
    WritableAnchor { root: String, anchor: PathBuf },
}

impl fmt::Display for CodexSandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodexSandboxError::NotToml(e) => write!(f, "not valid TOML: {e}"),
            CodexSandboxError::WrongShape { key, expected } => {
                write!(f, "`{key}` is not {expected}")
            }
            CodexSandboxError::WritableAnchor { root, anchor } => write!(
                f,
                "`{TABLE}.writable_roots` has `{root}`, which holds hookjudge's `{}`: Codex's sandbox would let commands write it",
                anchor.display()
            ),
        }
    }
}

impl std::error::Error for CodexSandboxError {}

/// The merged text, what was created or replaced (for `uninstall`), and notes for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexMerged {
    pub text: String,
    pub created_members: Vec<String>,
    pub notes: Vec<String>,
}

/// Whether `path` lies in a folder Codex's `workspace-write` keeps writable by default
/// besides the workspace: `/tmp` or `tmpdir` (`$TMPDIR`).
pub fn under_temp(path: &Path, tmpdir: Option<&Path>) -> bool {
    path.starts_with("/tmp")
        || tmpdir.is_some_and(|t| !t.as_os_str().is_empty() && path.starts_with(t))
}

/// Merges the sandbox keys into Codex's `config.toml` `text`. `anchors` are hookjudge's
/// places; `exclude_temp` takes the temporary folders out of the writable roots.
pub fn merge_codex_sandbox(
    text: &str,
    anchors: &[PathBuf],
    exclude_temp: bool,
) -> Result<CodexMerged, CodexSandboxError> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| CodexSandboxError::NotToml(e.message().to_owned()))?;
    let mut created = Vec::new();
    let mut notes = Vec::new();
    match doc.get("sandbox_mode") {
        None => {
            // The root's keys are written before its tables (after one, TOML would read the
            // key as that table's): a new key goes after the user's last top-level key.
            doc.insert("sandbox_mode", value(MODE));
            created.push("sandbox_mode".to_owned());
        }
        Some(item) => match item.as_str() {
            Some(MODE) => {}
            Some(old) => {
                let old = old.to_owned();
                let decor = item.as_value().map(|v| v.decor().clone());
                let mut new = toml_edit::Value::from(MODE);
                if let Some(d) = decor {
                    *new.decor_mut() = d;
                }
                doc["sandbox_mode"] = Item::Value(new);
                notes.push(format!(
                    "`sandbox_mode` was \"{old}\"; set to \"{MODE}\", or Codex's sandbox would not keep commands off hookjudge's files (`uninstall` puts \"{old}\" back)"
                ));
                created.push(format!("sandbox_mode=\"{old}\""));
            }
            None => {
                return Err(CodexSandboxError::WrongShape {
                    key: "sandbox_mode".into(),
                    expected: "a string",
                });
            }
        },
    }
    if doc.get(TABLE).is_none() && exclude_temp {
        let mut t = Table::new();
        t.set_implicit(false);
        doc.insert(TABLE, Item::Table(t));
        created.push(TABLE.to_owned());
    }
    let Some(item) = doc.get_mut(TABLE) else {
        return Ok(CodexMerged {
            text: doc.to_string(),
            created_members: created,
            notes,
        });
    };
    let table = item.as_table_mut().ok_or(CodexSandboxError::WrongShape {
        key: TABLE.into(),
        expected: "a table",
    })?;
    if let Some(roots) = table.get("writable_roots") {
        let roots = roots.as_array().ok_or(CodexSandboxError::WrongShape {
            key: format!("{TABLE}.writable_roots"),
            expected: "an array of paths",
        })?;
        for root in roots.iter().filter_map(|r| r.as_str()) {
            if let Some(anchor) = anchors.iter().find(|a| a.starts_with(root)) {
                return Err(CodexSandboxError::WritableAnchor {
                    root: root.to_owned(),
                    anchor: anchor.clone(),
                });
            }
        }
    }
    if exclude_temp {
        for key in EXCLUSIONS {
            match table.get(key).map(|i| i.as_bool()) {
                None => {
                    table.insert(key, value(true));
                    created.push(format!("{TABLE}.{key}"));
                }
                Some(Some(true)) => {}
                Some(_) => {
                    let old = table[key].to_string().trim().to_owned();
                    table[key] = value(true);
                    created.push(format!("{TABLE}.{key}={old}"));
                }
            }
        }
    }
    Ok(CodexMerged {
        text: doc.to_string(),
        created_members: created,
        notes,
    })
}

/// Takes out of `text` what `created` says the merge added; what the user changed since
/// stays. Text that is not TOML any more is left as it is.
pub fn remove_codex_sandbox(text: &str, created: &[String]) -> String {
    let Ok(mut doc) = text.parse::<DocumentMut>() else {
        return text.to_owned();
    };
    for member in created {
        let (path, old) = match member.split_once('=') {
            Some((p, o)) => (p, Some(o)),
            None => (member.as_str(), None),
        };
        let (table, key) = match path.split_once('.') {
            Some((t, k)) => match doc.get_mut(t).and_then(Item::as_table_mut) {
                Some(t) => (t, k),
                None => continue,
            },
            None if path == TABLE => continue,
            None => (doc.as_table_mut(), path),
        };
        let holds_ours = table.get(key).is_some_and(|i| match path {
            "sandbox_mode" => i.as_str() == Some(MODE),
            _ => i.as_bool() == Some(true),
        });
        if !holds_ours {
            continue;
        }
        match old.and_then(|o| o.parse::<toml_edit::Value>().ok()) {
            Some(mut old) => {
                if let Some(d) = table
                    .get(key)
                    .and_then(Item::as_value)
                    .map(|v| v.decor().clone())
                {
                    *old.decor_mut() = d;
                }
                table[key] = Item::Value(old);
            }
            None => {
                table.remove(key);
            }
        }
    }
    if created.iter().any(|m| m == TABLE)
        && doc
            .get(TABLE)
            .and_then(Item::as_table)
            .is_some_and(Table::is_empty)
    {
        doc.remove(TABLE);
    }
    doc.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const USERS: &str =
        "# my codex\nmodel = \"o3\" # the good one\n\n[otel]\nexporter = \"none\"\n";

    #[test]
    fn the_keys_are_added_before_any_table_and_taken_out_to_the_byte() {
        let merged = merge_codex_sandbox(USERS, &[], false).unwrap();
        let doc: DocumentMut = merged.text.parse().unwrap();
        assert_eq!(doc["sandbox_mode"].as_str(), Some(MODE), "{}", merged.text);
        assert!(doc["otel"].get("sandbox_mode").is_none(), "{}", merged.text);
        assert!(merged.text.contains("# the good one"), "{}", merged.text);
        assert_eq!(
            merge_codex_sandbox(&merged.text, &[], false).unwrap().text,
            merged.text,
            "a second merge changes nothing"
        );
        assert_eq!(
            remove_codex_sandbox(&merged.text, &merged.created_members),
            USERS
        );
    }

    #[test]
    fn the_mode_goes_after_the_users_last_key_and_no_table_is_made_for_nothing() {
        let merged = merge_codex_sandbox(USERS, &[], false).unwrap();
        assert_eq!(
            merged.text,
            "# my codex\nmodel = \"o3\" # the good one\nsandbox_mode = \"workspace-write\"\n\n[otel]\nexporter = \"none\"\n"
        );
        assert_eq!(merged.created_members, ["sandbox_mode"]);
        let only_tables = "[otel]\nexporter = \"none\"\n";
        let merged = merge_codex_sandbox(only_tables, &[], false).unwrap();
        assert!(
            merged
                .text
                .starts_with("sandbox_mode = \"workspace-write\"\n"),
            "{}",
            merged.text
        );
        assert_eq!(
            remove_codex_sandbox(&merged.text, &merged.created_members),
            only_tables
        );
    }

    #[test]
    fn an_empty_file_gets_the_mode_and_comes_back_empty() {
        let merged = merge_codex_sandbox("", &[], true).unwrap();
        let doc: DocumentMut = merged.text.parse().unwrap();
        assert_eq!(doc[TABLE]["exclude_slash_tmp"].as_bool(), Some(true));
        assert_eq!(doc[TABLE]["exclude_tmpdir_env_var"].as_bool(), Some(true));
        assert_eq!(
            remove_codex_sandbox(&merged.text, &merged.created_members),
            ""
        );
    }

    #[test]
    fn the_users_mode_is_turned_and_put_back() {
        let text = "sandbox_mode = \"danger-full-access\" # fast\n[sandbox_workspace_write]\nnetwork_access = true\nexclude_slash_tmp = false\n";
        let merged = merge_codex_sandbox(text, &[], true).unwrap();
        let doc: DocumentMut = merged.text.parse().unwrap();
        assert_eq!(doc["sandbox_mode"].as_str(), Some(MODE));
        assert_eq!(doc[TABLE]["network_access"].as_bool(), Some(true));
        assert_eq!(doc[TABLE]["exclude_slash_tmp"].as_bool(), Some(true));
        assert_eq!(merged.notes.len(), 1, "{:?}", merged.notes);
        assert!(merged.text.contains("# fast"), "{}", merged.text);
        assert_eq!(
            remove_codex_sandbox(&merged.text, &merged.created_members),
            text
        );
    }

    #[test]
    fn a_writable_root_holding_an_anchor_is_refused() {
        let text = "[sandbox_workspace_write]\nwritable_roots = [\"/home/me\"]\n";
        let anchor = PathBuf::from("/home/me/.local/state/hookjudge");
        let err = merge_codex_sandbox(text, &[anchor], false).unwrap_err();
        assert!(err.to_string().contains("`/home/me`"), "{err}");
        assert!(merge_codex_sandbox("sandbox_mode = 3\n", &[], false).is_err());
        assert!(merge_codex_sandbox("sandbox_mode = \n", &[], false).is_err());
    }

    #[test]
    fn temp_folders_are_recognised() {
        assert!(under_temp(Path::new("/tmp/x/state"), None));
        assert!(under_temp(Path::new("/var/t/x"), Some(Path::new("/var/t"))));
        assert!(!under_temp(
            Path::new("/home/me/.local"),
            Some(Path::new(""))
        ));
    }
}
