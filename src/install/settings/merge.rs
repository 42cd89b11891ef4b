//! Merging our entries into a settings file without touching anything else. Entries are
//! paired with the template's rows in order within an event, so the user's changes to ours
//! (matcher, a larger timeout, extra keys) are kept, a second `init` changes nothing and an
//! upgrade edits ours in place.

use std::fmt;

use serde_json::{Value, json};

use super::ours::{handler_nodes, ours_in};
use super::template::{COMMAND_KEYS, TIMEOUT_KEYS, first_handler};
use crate::support::jsonc::{self, Node, Parsed};

/// Matchers that earlier versions of the templates wrote. An entry of ours with one of these is
/// upgraded to the template's matcher; any other matcher is the user's and is kept. Append the
/// old value here when a template's matcher changes.
pub const PREVIOUS_MATCHERS: &[&str] = &[
    "Bash",
    "^Bash$",
    "run_shell_command",
    "Execute",
    "Execute|Create|Edit",
];

/// Why a settings file cannot be merged into, with the key at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeError {
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    /// The top level is not an object; `found` is what it is (`an array`).
    NotAnObject { found: &'static str },
    /// The member at `key` (`hooks`, `hooks.Stop`) is `found` instead of `expected`.
    WrongShape {
        key: String,
        found: &'static str,
        expected: &'static str,
    },
    /// `key` appears more than once, on these lines.
    Duplicate { key: String, lines: Vec<usize> },
    /// The edits did not converge (a bug, said instead of looping).
    DidNotSettle,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::NotJson {
                line,
                column,
                message,
            } => write!(
                f,
                "not valid JSON (line {line}, column {column}: {message})"
            ),
            MergeError::NotAnObject { found } => write!(
                f,
                "the top level is {found}, but a settings file is one JSON object: `{{ … }}`"
            ),
            MergeError::WrongShape {
                key,
                found,
                expected,
            } => write!(f, "`{key}` is {found}, expected {expected}"),
            MergeError::Duplicate { key, lines } => {
                let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
                write!(
                    f,
                    "`{key}` appears {} times (lines {}); agents read only the last one, so an entry written into another would be ignored. Merge them into one `{key}`",
                    lines.len(),
                    lines.join(" and ")
                )
            }
            MergeError::DidNotSettle => write!(
                f,
                "the merge did not settle; nothing was written (please report this with the file)"
            ),
        }
    }
}

impl std::error::Error for MergeError {}
/// The one member `key` of `object`, refusing a duplicate (parsers keep only the last one, so
/// an edit of the first would be ignored).
pub(super) fn unique_member<'a>(
    parsed: &Parsed,
    object: &'a Node,
    key: &str,
    path: &str,
) -> Result<Option<&'a Node>, MergeError> {
    let jsonc::Kind::Object(members) = &object.kind else {
        return Ok(None);
    };
    let found: Vec<&(String, usize, Node)> = members.iter().filter(|(k, _, _)| k == key).collect();
    if found.len() > 1 {
        return Err(MergeError::Duplicate {
            key: path.to_owned(),
            lines: found.iter().map(|(_, at, _)| parsed.line_of(*at)).collect(),
        });
    }
    Ok(found.first().map(|(_, _, v)| v))
}

/// The result of a merge: the new text, what it created, and what it changed that the user
/// had set.
#[derive(Debug, Clone, Default)]
pub struct Merged {
    pub text: String,
    /// Containers created (`hooks`, `hooks.Stop`), which `uninstall` may remove when empty.
    pub created_members: Vec<String>,
    pub notes: Vec<String>,
}

/// One edit of a merge (the new text, the members it created, a note for the person), or none
/// left to make.
pub(super) enum Step {
    Edit(String, Vec<String>, Option<String>),
    Done,
}

/// Merges `hooks` (event -> groups) into the settings `text` (JSONC, without BOM or CRLF).
pub fn merge(text: &str, hooks: &Value) -> Result<Merged, MergeError> {
    settle(text, |text| step(text, hooks))
}

/// Applies `step` to `text` until it has no edit left: each step makes one edit, re-reading the
/// text it left, and a file has at most a few dozen of hookjudge's keys.
pub(super) fn settle(
    text: &str,
    mut step: impl FnMut(&str) -> Result<Step, MergeError>,
) -> Result<Merged, MergeError> {
    let mut merged = Merged {
        text: text.to_owned(),
        ..Merged::default()
    };
    for _ in 0..1000 {
        match step(&merged.text)? {
            Step::Edit(text, created, note) => {
                merged.text = text;
                merged.created_members.extend(created);
                merged.notes.extend(note);
            }
            Step::Done => return Ok(merged),
        }
    }
    Err(MergeError::DidNotSettle)
}

fn step(text: &str, hooks: &Value) -> Result<Step, MergeError> {
    let parsed = jsonc::parse(text).map_err(|e| MergeError::NotJson {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let root = &parsed.root;
    if !root.is_object() {
        return Err(MergeError::NotAnObject {
            found: crate::judge::rule::kind(&parsed.value(root)),
        });
    }
    let Some(hooks_node) = unique_member(&parsed, root, "hooks", "hooks")? else {
        let text = jsonc::insert_member(text, root, "hooks", hooks);
        let mut created = vec!["hooks".to_owned()];
        created.extend(
            hooks
                .as_object()
                .into_iter()
                .flat_map(|m| m.keys())
                .map(|e| format!("hooks.{e}")),
        );
        return Ok(Step::Edit(text, created, None));
    };
    if !hooks_node.is_object() {
        return Err(MergeError::WrongShape {
            key: "hooks".into(),
            found: crate::judge::rule::kind(&parsed.value(hooks_node)),
            expected: "an object of events",
        });
    }
    for (event, groups) in hooks.as_object().expect("templates hold an object") {
        let path = format!("hooks.{event}");
        let Some(array) = unique_member(&parsed, hooks_node, event, &path)? else {
            let text = jsonc::insert_member(text, hooks_node, event, groups);
            return Ok(Step::Edit(text, vec![path], None));
        };
        if !array.is_array() {
            return Err(MergeError::WrongShape {
                key: path,
                found: crate::judge::rule::kind(&parsed.value(array)),
                expected: "an array",
            });
        }
        let ours = ours_in(&parsed, array);
        for (k, group) in groups
            .as_array()
            .expect("events hold arrays")
            .iter()
            .enumerate()
        {
            let Some(&(gi, hi)) = ours.get(k) else {
                return Ok(Step::Edit(
                    jsonc::append_element(text, array, group),
                    Vec::new(),
                    None,
                ));
            };
            let group_node = &array.elements()[gi];
            if let (Some(want), Some(node)) = (group.get("matcher"), group_node.member("matcher"))
                && parsed.value(node) != *want
                && parsed
                    .value(node)
                    .as_str()
                    .is_some_and(|m| PREVIOUS_MATCHERS.contains(&m))
            {
                let text = jsonc::replace(text, node, want);
                return Ok(Step::Edit(text, Vec::new(), None));
            }
            let handler = handler_nodes(group_node)[hi];
            let wanted = first_handler(group);
            if let Some(edit) = update_handler(text, &parsed, handler, wanted, &path) {
                return Ok(edit);
            }
        }
    }
    Ok(Step::Done)
}

/// One edit that brings our `handler` closer to `wanted`, keeping what the user may change:
/// a timeout at least as large as ours, and keys we do not write.
fn update_handler(
    text: &str,
    parsed: &Parsed,
    handler: &Node,
    wanted: &Value,
    path: &str,
) -> Option<Step> {
    let current = parsed.value(handler);
    let wanted = &with_kept_timeout(wanted, &current);
    for (key, want) in wanted.as_object().expect("handlers are objects") {
        let have = &current[key];
        // A handler that carries its own matcher (a flat list) had it checked above: the
        // user's own matcher stays.
        if have == want || key == "matcher" {
            continue;
        }
        let is_timeout = TIMEOUT_KEYS.contains(&key.as_str());
        if is_timeout
            && let (Some(h), Some(w)) = (have.as_f64(), want.as_f64())
            && h >= w
        {
            continue;
        }
        let note = (is_timeout && !have.is_null()).then(|| {
            format!(
                "raised the timeout of `{path}` from {have} to {want}, above the hook's deadline"
            )
        });
        let edited = match handler.member(key) {
            Some(node) => jsonc::replace(text, node, want),
            None => jsonc::insert_member(text, handler, key, want),
        };
        return Some(Step::Edit(edited, Vec::new(), note));
    }
    if current.get("args").is_some() && wanted.get("args").is_none() {
        return Some(Step::Edit(
            jsonc::remove_member(text, handler, "args"),
            Vec::new(),
            None,
        ));
    }
    None
}

/// `wanted` with the user's timeout (in `current`) when it is larger, and `--hook-timeout` to
/// match it, so that the hook's deadline follows the timeout the agent enforces.
fn with_kept_timeout(wanted: &Value, current: &Value) -> Value {
    let mut wanted = wanted.clone();
    let Some(timeout_key) = TIMEOUT_KEYS.into_iter().find(|k| wanted.get(*k).is_some()) else {
        return wanted;
    };
    let Some(command_key) = COMMAND_KEYS.into_iter().find(|k| wanted.get(*k).is_some()) else {
        return wanted;
    };
    let (Some(h), Some(w)) = (current[timeout_key].as_u64(), wanted[timeout_key].as_u64()) else {
        return wanted;
    };
    if h <= w {
        return wanted;
    }
    let words = match wanted["args"].as_array() {
        Some(args) => args
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        None => shell_words::split(wanted[command_key].as_str().unwrap_or("")).unwrap_or_default(),
    };
    let Some(want_s) = words
        .iter()
        .position(|w| w == "--hook-timeout")
        .and_then(|i| words.get(i + 1))
        .and_then(|s| s.parse::<u64>().ok())
    else {
        return wanted;
    };
    let have_s = if w == want_s * 1000 { h / 1000 } else { h };
    let (from, to) = (
        format!("--hook-timeout {want_s}"),
        format!("--hook-timeout {have_s}"),
    );
    if let Some(command) = wanted[command_key].as_str() {
        wanted[command_key] = json!(command.replace(&from, &to));
    }
    if let Some(args) = wanted["args"].as_array_mut()
        && let Some(i) = args.iter().position(|a| a == "--hook-timeout")
        && i + 1 < args.len()
    {
        args[i + 1] = json!(have_s.to_string());
    }
    wanted[timeout_key] = json!(h);
    wanted
}
