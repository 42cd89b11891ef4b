//! Trust in repository config: a repository's `.hookjudge.json` counts as written only once the
//! user trusted that exact content (`hookjudge trust`, or `init` writing the file itself).
//!
//! A file that is not trusted, or changed since it was trusted, may only make hookjudge
//! stricter: enable a judge that exists, add triggers to it, raise a gate class (see
//! [`STRICTNESS`]), protect more branches, name more deploy commands. Everything else is
//! ignored, because a cloned repository is someone else's text: `llm.*` runs a program or sends
//! the session to another endpoint, `log.*` moves the decision log, a new judge's prompt and
//! block reason are text the agent receives, bypasses and evidence settings weaken the gate. A
//! file that does not parse is ignored whole; the user's own layers still apply.
//!
//! Trust is recorded in the state dir (`trust.json`), keyed by the file's canonical path and
//! the git blob id of its content, so any change makes it untrusted again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::{ConfigFile, Policy, Settings, dirs};
use crate::gate::classify::Class;

/// How strict each gate policy is. An untrusted file may move a class only to a higher rank.
/// `verify` and `guard` rank the same: for a given class they run the same checks.
pub const STRICTNESS: [(Policy, u8); 5] = [
    (Policy::Allow, 0),
    (Policy::Verify, 1),
    (Policy::Guard, 1),
    (Policy::Ask, 2),
    (Policy::Deny, 3),
];

/// The rank of `policy` in [`STRICTNESS`].
pub fn strictness(policy: Policy) -> u8 {
    STRICTNESS
        .iter()
        .find(|(p, _)| *p == policy)
        .map(|(_, rank)| *rank)
        .unwrap_or(0)
}

/// Top-level keys an untrusted file may not set, and why.
const IGNORED_SECTIONS: [(&str, &str); 5] = [
    (
        "llm",
        "runs a program or sends the session to another endpoint",
    ),
    ("log", "moves or widens the decision log"),
    ("stop", "changes the loop breaker"),
    ("transcript", "changes how much of the session is read"),
    ("text_bytes", "changes how much of the response is judged"),
];

/// What `init` has written as the whole repository file, by version. A file holding exactly
/// one of these (as JSON, whitespace aside) is recognised as ours and trusted.
pub const INIT_WRITTEN: [&str; 2] = [
    // 0.1
    r#"{"llm": {"provider": "auto"}, "stop": {"max_blocks_per_judge": 1, "max_blocks_per_prompt": 2}, "gate": {}, "judges": {}}"#,
    // since trust exists
    r#"{"gate": {}, "judges": {}}"#,
];

/// Why a repository file was not applied as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// Never trusted.
    Untrusted,
    /// Trusted once, and changed since.
    Changed,
    /// Not valid config: ignored whole.
    Unparsable,
}

/// What hookjudge did with an untrusted repository file, for the user.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub path: PathBuf,
    /// The content's id (`git hash-object`), as trust records it.
    pub hash: String,
    pub standing: Standing,
    /// Keys not applied, each with why (`gate.push: weakens `verify` to `allow``).
    pub ignored: Vec<String>,
    /// Keys applied anyway because they only make hookjudge stricter.
    pub applied: Vec<String>,
}

impl Report {
    /// One paragraph for the human: what was ignored and the command that trusts the file.
    pub fn message(&self) -> String {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let state = match self.standing {
            Standing::Untrusted => "is not trusted",
            Standing::Changed => "changed since you trusted it",
            Standing::Unparsable => "is not valid config",
        };
        let what = if self.ignored.is_empty() {
            "nothing in it weakens hookjudge".to_string()
        } else {
            format!("hookjudge ignores {}", self.ignored.join("; "))
        };
        let fix = if self.standing == Standing::Unparsable {
            format!(
                "fix it, then review it and run `hookjudge trust` in `{}`",
                dir.display()
            )
        } else {
            format!(
                "if you wrote it or reviewed it, run `hookjudge trust` in `{}` yourself",
                dir.display()
            )
        };
        format!("`{}` {state}: {what}; {fix}.", self.path.display())
    }
}

/// The repository layer after the trust check: what to apply, and what to tell the user.
pub struct RepoLayer {
    pub file: Option<ConfigFile>,
    pub report: Option<Report>,
}

/// Decides what of the repository file at `path` (content `text`) applies, given the settings
/// of the layers below it.
pub fn repo_layer(path: &Path, text: &str, below: &Settings) -> RepoLayer {
    let hash = content_hash(text.as_bytes());
    let parsed = crate::config::parse(text);
    if is_init_written(text) || (in_place(path) && Store::load().is_trusted(path, &hash)) {
        return match parsed {
            Ok(file) => RepoLayer {
                file: Some(file),
                report: None,
            },
            Err(message) => RepoLayer {
                file: None,
                report: Some(Report {
                    path: path.to_path_buf(),
                    hash,
                    standing: Standing::Unparsable,
                    ignored: vec![format!("the whole file ({message})")],
                    applied: Vec::new(),
                }),
            },
        };
    }
    let standing = if Store::load().knows(path) {
        Standing::Changed
    } else {
        Standing::Untrusted
    };
    match parsed {
        Ok(file) => {
            let filtered = stricter_only(file, below);
            RepoLayer {
                file: Some(filtered.file),
                report: Some(Report {
                    path: path.to_path_buf(),
                    hash,
                    standing,
                    ignored: filtered.ignored,
                    applied: filtered.applied,
                }),
            }
        }
        Err(message) => RepoLayer {
            file: None,
            report: Some(Report {
                path: path.to_path_buf(),
                hash,
                standing: Standing::Unparsable,
                ignored: vec![format!("the whole file ({message})")],
                applied: Vec::new(),
            }),
        },
    }
}

/// A layer cut down to what makes hookjudge stricter.
#[derive(Debug, Default)]
pub struct Filtered {
    pub file: ConfigFile,
    pub ignored: Vec<String>,
    pub applied: Vec<String>,
}

/// Keeps only what makes hookjudge stricter than `below`, the settings of the lower layers.
/// Independent of how layers merge: it reads `below` and returns a smaller layer.
pub fn stricter_only(file: ConfigFile, below: &Settings) -> Filtered {
    let mut out = Filtered {
        file: ConfigFile {
            schema: file.schema.clone(),
            ..ConfigFile::default()
        },
        ..Filtered::default()
    };
    let set: [(&str, bool); 5] = [
        ("llm", file.llm.is_some()),
        ("log", file.log.is_some()),
        ("stop", file.stop.is_some()),
        ("transcript", file.transcript.is_some()),
        ("text_bytes", file.text_bytes.is_some()),
    ];
    for (key, present) in set {
        if present {
            let why = IGNORED_SECTIONS
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, w)| *w)
                .unwrap_or("not allowed");
            out.ignored.push(format!("`{key}` ({why})"));
        }
    }
    if let Some(gate) = file.gate {
        out.file.gate = Some(stricter_gate(
            gate,
            below,
            &mut out.ignored,
            &mut out.applied,
        ));
    }
    if let Some(judges) = file.judges {
        let specs = below.judge_specs();
        let mut kept = indexmap::IndexMap::new();
        for (name, spec) in judges {
            let Some((_, existing)) = specs.iter().find(|(n, _)| *n == name) else {
                out.ignored.push(format!(
                    "`judges.{name}` (a new judge: its prompt and reason are text the agent reads)"
                ));
                continue;
            };
            let mut keep = crate::judge::JudgeSpec::default();
            match spec.enabled {
                Some(true) => {
                    keep.enabled = Some(true);
                    out.applied.push(format!("`judges.{name}.enabled`"));
                }
                Some(false) => out
                    .ignored
                    .push(format!("`judges.{name}.enabled` (turns a judge off)")),
                None => {}
            }
            if let Some(extra) = spec.add_triggers.filter(|t| !t.is_empty()) {
                let mut merged = existing.clone();
                merged.enabled = Some(true);
                merged.overlay(&crate::judge::JudgeSpec {
                    add_triggers: Some(extra.clone()),
                    ..Default::default()
                });
                match crate::judge::Judge::from_spec(&name, &merged) {
                    Ok(_) => {
                        keep.add_triggers = Some(extra);
                        out.applied.push(format!("`judges.{name}.add_triggers`"));
                    }
                    Err(e) => out.ignored.push(format!(
                        "`judges.{name}.add_triggers` (does not compile: {e})"
                    )),
                }
            }
            let others: [(&str, bool); 8] = [
                ("description", spec.description.is_some()),
                ("triggers", spec.triggers.is_some()),
                ("bypasses", spec.bypasses.is_some()),
                ("add_bypasses", spec.add_bypasses.is_some()),
                ("prompt", spec.prompt.is_some()),
                ("fields", spec.fields.is_some()),
                ("block_when", spec.block_when.is_some()),
                ("reason", spec.reason.is_some()),
            ];
            for (key, present) in others {
                if present {
                    out.ignored.push(format!(
                        "`judges.{name}.{key}` (may weaken the judge or put text before the agent)"
                    ));
                }
            }
            kept.insert(name, keep);
        }
        out.file.judges = Some(kept);
    }
    out
}

fn stricter_gate(
    gate: crate::config::GateFile,
    below: &Settings,
    ignored: &mut Vec<String>,
    applied: &mut Vec<String>,
) -> crate::config::GateFile {
    let current = &below.gate;
    let mut keep = crate::config::GateFile::default();
    let classes: [(Class, Option<Policy>, &mut Option<Policy>); 7] = [
        (Class::Commit, gate.commit, &mut keep.commit),
        (Class::Push, gate.push, &mut keep.push),
        (Class::Publish, gate.publish, &mut keep.publish),
        (Class::Deploy, gate.deploy, &mut keep.deploy),
        (Class::HookBypass, gate.hook_bypass, &mut keep.hook_bypass),
        (Class::Destructive, gate.destructive, &mut keep.destructive),
        (Class::Unparsed, gate.unparsed, &mut keep.unparsed),
    ];
    for (class, wanted, slot) in classes {
        let Some(wanted) = wanted else { continue };
        let now = current.policy(class);
        if wanted == now {
            continue;
        }
        if strictness(wanted) > strictness(now) {
            *slot = Some(wanted);
            applied.push(format!("`gate.{}`", class.name()));
        } else {
            ignored.push(format!(
                "`gate.{}` (would change `{}` to `{}`, which is not stricter)",
                class.name(),
                policy_name(now),
                policy_name(wanted)
            ));
        }
    }
    if let Some(branches) = gate.protected_branches {
        let removed: Vec<&String> = current
            .protected_branches
            .iter()
            .filter(|b| !branches.contains(b))
            .collect();
        if !removed.is_empty() {
            let names: Vec<String> = removed.iter().map(|b| format!("`{b}`")).collect();
            ignored.push(format!(
                "removing {} from `gate.protected_branches`",
                names.join(", ")
            ));
        }
        let mut union = current.protected_branches.clone();
        union.extend(
            branches
                .into_iter()
                .filter(|b| !current.protected_branches.contains(b)),
        );
        if union != current.protected_branches {
            applied.push("`gate.protected_branches` (added branches)".into());
        }
        keep.protected_branches = Some(union);
    }
    if let Some(deploy) = gate.deploy_commands.filter(|d| !d.is_empty()) {
        applied.push("`gate.deploy_commands`".into());
        keep.deploy_commands = Some(deploy);
    }
    for (key, present) in [
        ("artifacts", gate.artifacts.is_some()),
        ("add_artifacts", gate.add_artifacts.is_some()),
        ("test_commands", gate.test_commands.is_some()),
        ("timeout_ms", gate.timeout_ms.is_some()),
    ] {
        if present {
            ignored.push(format!(
                "`gate.{key}` (decides what counts as verification)"
            ));
        }
    }
    keep
}

fn policy_name(policy: Policy) -> String {
    serde_json::to_value(policy)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Whether `text` holds only what some version of `init` wrote.
pub fn is_init_written(text: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    INIT_WRITTEN
        .iter()
        .any(|known| serde_json::from_str::<Value>(known).ok().as_ref() == Some(&value))
}

/// The id of `bytes` as a git blob (what `git hash-object` prints), prefixed with the hash kind.
pub fn content_hash(bytes: &[u8]) -> String {
    match gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes) {
        Ok(id) => format!("sha1:{id}"),
        // Only a detected SHA-1 collision attack fails: such content is never trusted.
        Err(_) => "sha1:collision".to_string(),
    }
}

/// Where trust is recorded.
pub fn store_path() -> PathBuf {
    dirs::state_dir().join("trust.json")
}

/// One trusted file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The file's canonical path.
    pub path: PathBuf,
    /// [`content_hash`] of the trusted content.
    pub hash: String,
    /// When it was trusted (RFC 3339).
    pub trusted_at: String,
}

/// The trust records, as stored in `trust.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Store {
    #[serde(default)]
    pub files: Vec<Entry>,
    /// `path hash` pairs whose report the user was already shown by a hook.
    #[serde(default)]
    pub notified: BTreeSet<String>,
}

/// What went wrong trusting or revoking a file.
#[derive(Debug)]
pub struct Error {
    pub path: PathBuf,
    pub kind: ErrorKind,
}

#[derive(Debug)]
pub enum ErrorKind {
    /// The file is a symlink, which would borrow another file's trust.
    Symlink,
    /// The file cannot be read.
    Read(std::io::Error),
    /// The trust records cannot be written.
    Store(crate::statefile::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.kind {
            ErrorKind::Symlink => write!(
                f,
                "`{path}` is a symlink; a symlinked config is never trusted (replace it with the file itself)"
            ),
            ErrorKind::Read(e) => write!(f, "cannot read `{path}`: {e}"),
            ErrorKind::Store(e) => write!(f, "cannot record trust: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl Store {
    /// The records; an unreadable store trusts nothing.
    pub fn load() -> Store {
        std::fs::read_to_string(store_path())
            .map(|t| Store::parse(Some(t)))
            .unwrap_or_default()
    }

    fn parse(text: Option<String>) -> Store {
        text.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    fn text(&self) -> String {
        serde_json::to_string_pretty(self).expect("serialisable") + "\n"
    }

    /// Changes the records under the store's lock (see [`crate::statefile::update`]); `change`
    /// returns whether it changed anything, and the store is written only then.
    fn update<T>(
        change: impl FnOnce(&mut Store) -> (bool, T),
    ) -> Result<T, crate::statefile::Error> {
        crate::statefile::update(&store_path(), |text| {
            let mut store = Store::parse(text);
            let (changed, value) = change(&mut store);
            (changed.then(|| store.text()), value)
        })
    }

    pub fn is_trusted(&self, path: &Path, hash: &str) -> bool {
        let path = canonical(path);
        self.files.iter().any(|e| e.path == path && e.hash == hash)
    }

    /// Whether `path` was trusted with any content.
    pub fn knows(&self, path: &Path) -> bool {
        let path = canonical(path);
        self.files.iter().any(|e| e.path == path)
    }
}

/// Whether `path` is the file itself, not a symlink to a file elsewhere: a symlinked
/// `.hookjudge.json` would borrow the trust given to the file it points to (another
/// repository's), so it is never trusted.
pub fn in_place(path: &Path) -> bool {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return false;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    !is_link && canonical(path) == canonical(parent).join(name)
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Trusts the current content of `path`. Returns the entry recorded.
pub fn trust(path: &Path) -> Result<Entry, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error {
        path: path.to_path_buf(),
        kind: ErrorKind::Read(e),
    })?;
    trust_content(path, &bytes)
}

/// Trusts `content` as the content of `path`: what the user was shown, or what `init` wrote,
/// rather than whatever the file holds by the time the record is written (a file changed in
/// between stays untrusted).
pub fn trust_content(path: &Path, content: &[u8]) -> Result<Entry, Error> {
    if !in_place(path) {
        return Err(Error {
            path: path.to_path_buf(),
            kind: ErrorKind::Symlink,
        });
    }
    let entry = Entry {
        path: canonical(path),
        hash: content_hash(content),
        trusted_at: crate::time::Timestamp::now().rfc3339(),
    };
    Store::update(|store| {
        store.files.retain(|e| e.path != entry.path);
        store.files.push(entry.clone());
        (true, ())
    })
    .map_err(|e| Error {
        path: path.to_path_buf(),
        kind: ErrorKind::Store(e),
    })?;
    Ok(entry)
}

/// Forgets `path`. Returns whether it was trusted.
pub fn revoke(path: &Path) -> Result<bool, Error> {
    let canonical_path = canonical(path);
    Store::update(|store| {
        let before = store.files.len();
        store.files.retain(|e| e.path != canonical_path);
        let was = store.files.len() != before;
        (was, was)
    })
    .map_err(|e| Error {
        path: path.to_path_buf(),
        kind: ErrorKind::Store(e),
    })
}

/// Whether a hook should show `report` now: true the first time for this path and content.
pub fn first_notice(report: &Report) -> bool {
    let key = format!("{} {}", report.path.display(), report.hash);
    // A store that cannot be written would repeat the notice: better than hiding it.
    Store::update(|store| {
        let first = store.notified.insert(key);
        (first, first)
    })
    .unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filtered(json: &str) -> Filtered {
        stricter_only(crate::config::parse(json).unwrap(), &Settings::defaults())
    }

    #[test]
    fn only_stricter_gate_classes_survive() {
        let f = filtered(
            r#"{"gate": {"push": "allow", "commit": "ask", "hook-bypass": "allow", "destructive": "verify", "deploy": "deny"}}"#,
        );
        let gate = f.file.gate.unwrap();
        assert_eq!(gate.push, None);
        assert_eq!(gate.hook_bypass, None);
        assert_eq!(gate.commit, Some(Policy::Ask));
        assert_eq!(gate.deploy, Some(Policy::Deny));
        assert_eq!(gate.destructive, None, "guard to verify is not stricter");
        assert_eq!(f.ignored.len(), 3, "{:?}", f.ignored);
        assert!(f.ignored.iter().any(|i| i.contains("`gate.push`")));
    }

    #[test]
    fn programs_endpoints_logs_and_new_judges_are_ignored() {
        let f = filtered(
            r#"{"llm": {"provider": "command", "command": ["sh", "-c", "x"]}, "log": {"dir": "/tmp"},
                "judges": {"evil": {"triggers": ["."], "prompt": "p", "fields": {"a": "b"}, "block_when": "a", "reason": "run curl"},
                           "commit": {"enabled": false, "add_bypasses": ["."], "add_triggers": ["\\bship it\\b"], "reason": "r"}},
                "gate": {"test_commands": "true", "add_artifacts": ["README.md"], "protected_branches": ["dev"], "deploy_commands": ["make ship"]}}"#,
        );
        assert!(f.file.llm.is_none() && f.file.log.is_none());
        let judges = f.file.judges.unwrap();
        assert!(!judges.contains_key("evil"));
        let commit = &judges["commit"];
        assert_eq!(commit.enabled, None);
        assert_eq!(commit.add_bypasses, None);
        assert_eq!(commit.reason, None);
        assert_eq!(
            commit.add_triggers.as_deref(),
            Some(&[r"\bship it\b".to_string()][..])
        );
        let gate = f.file.gate.unwrap();
        assert!(gate.test_commands.is_none() && gate.add_artifacts.is_none());
        assert_eq!(
            gate.protected_branches.unwrap(),
            ["main", "master", "release/*", "dev"]
        );
        assert_eq!(gate.deploy_commands.unwrap(), ["make ship"]);
        for key in [
            "`llm`",
            "`log`",
            "`judges.evil`",
            "`judges.commit.enabled`",
            "`judges.commit.add_bypasses`",
            "`gate.test_commands`",
        ] {
            assert!(
                f.ignored.iter().any(|i| i.contains(key)),
                "{key}: {:?}",
                f.ignored
            );
        }
    }

    #[test]
    fn a_trigger_that_does_not_compile_is_ignored_not_fatal() {
        let f = filtered(r#"{"judges": {"commit": {"add_triggers": ["(unclosed"]}}}"#);
        assert_eq!(f.file.judges.unwrap()["commit"].add_triggers, None);
        assert!(f.ignored[0].contains("does not compile"), "{:?}", f.ignored);
    }

    #[test]
    fn init_written_files_are_recognised_whatever_the_spacing() {
        assert!(is_init_written(
            "{\n  \"llm\": { \"provider\": \"auto\" },\n  \"stop\": { \"max_blocks_per_judge\": 1, \"max_blocks_per_prompt\": 2 },\n  \"gate\": {},\n  \"judges\": {}\n}\n"
        ));
        assert!(!is_init_written(
            r#"{"llm": {"provider": "command"}, "gate": {}, "judges": {}}"#
        ));
        assert!(!is_init_written("not json"));
    }

    #[test]
    fn the_strictness_table_orders_every_policy() {
        for policy in [
            Policy::Allow,
            Policy::Verify,
            Policy::Guard,
            Policy::Ask,
            Policy::Deny,
        ] {
            assert!(STRICTNESS.iter().any(|(p, _)| *p == policy));
        }
        assert!(strictness(Policy::Allow) < strictness(Policy::Verify));
        assert!(strictness(Policy::Guard) < strictness(Policy::Ask));
        assert!(strictness(Policy::Ask) < strictness(Policy::Deny));
    }

    #[test]
    fn content_hash_is_the_git_blob_id() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            content_hash(b"hello\n"),
            "sha1:ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }
}
