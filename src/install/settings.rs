//! Our entries in each agent's settings file: what they look like, where they go, and how to
//! merge them in or take them out without touching anything else.
//!
//! The templates in `hooks-templates/` are the table of entries: one group per row (event,
//! matcher, subcommand, timeout). [`entries`] fills them for one install mode; adding an entry
//! is one more group in a template.
//!
//! An entry is ours when it runs the `hookjudge` binary (by that exact file name) with one of
//! our subcommands, directly or through the team-mode wrapper. Entries are paired with the
//! template's rows in order within an event, so the user's changes to ours (matcher, a larger
//! timeout, extra keys) are kept, a second `init` changes nothing and an upgrade edits ours in
//! place.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::jsonedit::{self, Node, Parsed};
use crate::agent::Agent;

/// Where an install goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Team mode: the repository's committed settings (`.claude/settings.json`,
    /// `.codex/hooks.json`, `.gemini/settings.json`), naming `hookjudge` by name.
    Project,
    /// This user in this checkout (the default): Claude Code's `.claude/settings.local.json`,
    /// which stays out of git; Codex and Gemini have no such file, so their user settings.
    Local,
    /// Every project of this user (`~/.claude/settings.json`, …).
    User,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }

    /// Whether entries name `hookjudge` by name (committed files) rather than by absolute path.
    pub fn portable(self) -> bool {
        self == Scope::Project
    }
}

/// The user-scope settings file of `agent`.
fn user_path(agent: Agent, home: &Path) -> PathBuf {
    match agent {
        Agent::Claude => home.join(".claude/settings.json"),
        Agent::Codex => std::env::var_os("CODEX_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"))
            .join("hooks.json"),
        Agent::Gemini => home.join(".gemini/settings.json"),
    }
}

/// The settings file of `agent` for `scope`.
pub fn settings_path(agent: Agent, scope: Scope, root: &Path, home: &Path) -> PathBuf {
    match (agent, scope) {
        (Agent::Claude, Scope::Project) => root.join(".claude/settings.json"),
        (Agent::Claude, Scope::Local) => root.join(".claude/settings.local.json"),
        (Agent::Codex, Scope::Project) => root.join(".codex/hooks.json"),
        (Agent::Gemini, Scope::Project) => root.join(".gemini/settings.json"),
        (agent, Scope::User | Scope::Local) => user_path(agent, home),
    }
}

/// The folder whose presence says the agent is used here.
pub fn agent_folder(agent: Agent, scope: Scope, root: &Path, home: &Path) -> PathBuf {
    let base = if scope == Scope::User { home } else { root };
    base.join(match agent {
        Agent::Claude => ".claude",
        Agent::Codex => ".codex",
        Agent::Gemini => ".gemini",
    })
}

pub fn display_name(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "Claude Code",
        Agent::Codex => "Codex CLI",
        Agent::Gemini => "Gemini CLI",
    }
}

/// The template of `agent` (as shipped in `hooks-templates/`).
pub fn template(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => include_str!("../../hooks-templates/claude.json"),
        Agent::Codex => include_str!("../../hooks-templates/codex.json"),
        Agent::Gemini => include_str!("../../hooks-templates/gemini.json"),
    }
}

/// The subcommands our entries run; an entry running another one is not ours.
pub const SUBCOMMANDS: [&str; 2] = ["stop", "gate"];

/// Matchers that earlier versions of the templates wrote. An entry of ours with one of these is
/// upgraded to the template's matcher; any other matcher is the user's and is kept. Append the
/// old value here when a template's matcher changes.
pub const PREVIOUS_MATCHERS: &[&str] = &["Bash", "^Bash$", "run_shell_command"];

/// The extra seconds a settings timeout gives beyond the hook's own deadline, so that
/// hookjudge, not the agent, ends a slow call and says why.
pub const TIMEOUT_MARGIN_S: u64 = 5;
/// How far below the settings timeout a hook keeps its deadline (`--hook-timeout`).
pub const CLAMP_MARGIN_MS: u64 = 3000;

/// The settings timeout (seconds) for a hook whose deadline is `deadline_ms`.
pub fn settings_timeout_s(deadline_ms: u64) -> u64 {
    deadline_ms.div_ceil(1000) + TIMEOUT_MARGIN_S
}

/// The deadline a hook keeps when its settings timeout is `hook_timeout_s`: its own, or less.
pub fn clamp_deadline_ms(deadline_ms: u64, hook_timeout_s: Option<u64>) -> u64 {
    match hook_timeout_s {
        Some(s) => deadline_ms.min((s * 1000).saturating_sub(CLAMP_MARGIN_MS).max(1000)),
        None => deadline_ms,
    }
}

/// What fills the templates' placeholders.
#[derive(Debug, Clone)]
pub struct Fill {
    pub binary: PathBuf,
    pub stop_timeout_ms: u64,
    pub gate_timeout_ms: u64,
    /// Name `hookjudge` by name through the wrapper ([`Scope::portable`]).
    pub portable: bool,
    /// In portable mode, a teammate without hookjudge gets a human decision at the gate
    /// instead of a notice.
    pub required: bool,
}

/// The hooks object for `agent`, placeholders filled.
pub fn entries(agent: Agent, fill: &Fill) -> Value {
    let mut v: Value =
        serde_json::from_str(template(agent)).expect("hooks-templates are valid JSON (tested)");
    for groups in v["hooks"]
        .as_object_mut()
        .expect("templates hold hooks")
        .values_mut()
    {
        for group in groups.as_array_mut().expect("events hold arrays") {
            for handler in group["hooks"].as_array_mut().expect("groups hold hooks") {
                fill_handler(agent, handler, fill);
            }
        }
    }
    v["hooks"].take()
}

/// The events of `agent`'s entries.
pub fn events(agent: Agent) -> Vec<String> {
    let v: Value = serde_json::from_str(template(agent)).expect("templates are valid JSON");
    v["hooks"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn fill_handler(agent: Agent, handler: &mut Value, fill: &Fill) {
    let (stop_s, gate_s) = (
        settings_timeout_s(fill.stop_timeout_ms),
        settings_timeout_s(fill.gate_timeout_ms),
    );
    let seconds = |s: &str| {
        s.replace("@STOP_TIMEOUT_S@", &stop_s.to_string())
            .replace("@GATE_TIMEOUT_S@", &gate_s.to_string())
    };
    let obj = handler.as_object_mut().expect("handlers are objects");
    let timeout = match obj.get("timeout").and_then(Value::as_str) {
        Some("@STOP_TIMEOUT_S@") => stop_s,
        Some("@GATE_TIMEOUT_S@") => gate_s,
        Some("@STOP_TIMEOUT_MS@") => stop_s * 1000,
        Some("@GATE_TIMEOUT_MS@") => gate_s * 1000,
        other => panic!("template timeout {other:?} is not a placeholder"),
    };
    obj.insert("timeout".into(), json!(timeout));
    let command = obj["command"].as_str().expect("handlers have a command");
    let exec_form = command == "@HOOKJUDGE@";
    let args: Vec<String> = if exec_form {
        obj["args"]
            .as_array()
            .expect("exec form has args")
            .iter()
            .map(|a| seconds(a.as_str().expect("args are strings")))
            .collect()
    } else {
        let rest = command
            .strip_prefix("@HOOKJUDGE_SHELL@ ")
            .expect("shell form starts with @HOOKJUDGE_SHELL@");
        seconds(rest).split(' ').map(str::to_owned).collect()
    };
    let binary = fill.binary.to_string_lossy().into_owned();
    if fill.portable {
        obj.remove("args");
        obj.insert(
            "command".into(),
            json!(wrapper(agent, &args, fill.required)),
        );
    } else if exec_form {
        obj.insert("command".into(), json!(binary));
        obj.insert("args".into(), json!(args));
    } else {
        let line = std::iter::once(shell_words::quote(&binary).into_owned())
            .chain(args.iter().map(|a| shell_words::quote(a).into_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        obj.insert("command".into(), json!(line));
    }
}

/// What a teammate without hookjudge sees: a notice, or with `required` a human decision at
/// the gate. The Stop path always stays open.
pub fn missing_output(agent: Agent, subcommand: &str, required: bool) -> Value {
    if subcommand == "gate" && required {
        let reason = "hookjudge is not installed on this machine (no `hookjudge` on PATH), and this repository requires it to check shell commands and file changes";
        return match agent {
            Agent::Claude => crate::agent::gate_output(
                agent,
                false,
                &format!("{reason}; approve only if you know this command is safe."),
            ),
            Agent::Codex | Agent::Gemini => crate::agent::gate_output(
                agent,
                true,
                &format!(
                    "{reason}. Stop and ask the user to install hookjudge before running this command."
                ),
            ),
        };
    }
    json!({"systemMessage": "hookjudge is not installed on this machine (no `hookjudge` on PATH), so the checks this repository set up did not run; install hookjudge (see the repository README) to turn them on"})
}

/// The team-mode command: run `hookjudge` from PATH, or say that it is missing.
fn wrapper(agent: Agent, args: &[String], required: bool) -> String {
    let missing = missing_output(agent, &args[0], required).to_string();
    debug_assert!(!missing.contains('\''), "the notice sits in single quotes");
    format!(
        "command -v hookjudge >/dev/null 2>&1 && exec hookjudge {} || printf '%s\\n' '{missing}'",
        args.join(" ")
    )
}

/// The program and the words after it that a handler runs, when that program is `hookjudge`.
fn our_invocation(handler: &Value) -> Option<(String, Vec<String>)> {
    let command = handler["command"].as_str()?;
    let (program, rest) = match handler["args"].as_array() {
        Some(args) => (
            command.to_owned(),
            args.iter()
                .map(|a| a.as_str().unwrap_or("").to_owned())
                .collect(),
        ),
        None => {
            let words = shell_words::split(command).ok()?;
            let start = if words.starts_with(&["command".into(), "-v".into(), "hookjudge".into()]) {
                words.iter().position(|w| w == "exec")? + 1
            } else {
                0
            };
            let words = &words[start..];
            let end = words.iter().position(|w| w == "||").unwrap_or(words.len());
            (words.first()?.clone(), words[1..end].to_vec())
        }
    };
    let base = Path::new(&program).file_name()?.to_str()?;
    matches!(base, "hookjudge" | "hookjudge.exe").then_some((program, rest))
}

/// Whether a handler is ours: the `hookjudge` binary with one of [`SUBCOMMANDS`].
pub fn is_ours(handler: &Value) -> bool {
    our_invocation(handler).is_some_and(|(_, rest)| {
        rest.first()
            .is_some_and(|s| SUBCOMMANDS.contains(&s.as_str()))
    })
}

/// A settings file that cannot be merged into, said with the key at fault.
#[derive(Debug, Clone)]
pub struct MergeError(pub String);

/// Our handlers in an event's array, in order: (group index, handler index).
fn ours_in(parsed: &Parsed, array: &Node) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (gi, group) in array.elements().iter().enumerate() {
        if let Some(handlers) = group.member("hooks") {
            for (hi, handler) in handlers.elements().iter().enumerate() {
                if is_ours(&parsed.value(handler)) {
                    found.push((gi, hi));
                }
            }
        }
    }
    found
}

/// The one member `key` of `object`, refusing a duplicate (parsers keep only the last one, so
/// an edit of the first would be ignored).
fn unique_member<'a>(
    parsed: &Parsed,
    object: &'a Node,
    key: &str,
    path: &str,
) -> Result<Option<&'a Node>, MergeError> {
    let jsonedit::Kind::Object(members) = &object.kind else {
        return Ok(None);
    };
    let found: Vec<&(String, usize, Node)> = members.iter().filter(|(k, _, _)| k == key).collect();
    if found.len() > 1 {
        let lines: Vec<String> = found
            .iter()
            .map(|(_, at, _)| parsed.line_of(*at).to_string())
            .collect();
        return Err(MergeError(format!(
            "`{path}` appears {} times (lines {}); agents read only the last one, so an entry written into another would be ignored. Merge them into one `{path}`",
            found.len(),
            lines.join(" and ")
        )));
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

enum Step {
    Edit(String, Vec<String>, Option<String>),
    Done,
}

/// Merges `hooks` (event -> groups) into the settings `text` (JSONC, without BOM or CRLF).
pub fn merge(text: &str, hooks: &Value) -> Result<Merged, MergeError> {
    let mut merged = Merged {
        text: text.to_owned(),
        ..Merged::default()
    };
    // Each step makes one edit; a file has at most a few dozen of our keys.
    for _ in 0..1000 {
        match step(&merged.text, hooks)? {
            Step::Edit(text, created, note) => {
                merged.text = text;
                merged.created_members.extend(created);
                merged.notes.extend(note);
            }
            Step::Done => return Ok(merged),
        }
    }
    Err(MergeError(
        "the merge did not settle; nothing was written".into(),
    ))
}

fn step(text: &str, hooks: &Value) -> Result<Step, MergeError> {
    let parsed = jsonedit::parse(text).map_err(|e| {
        MergeError(format!(
            "not valid JSON (line {}, column {}: {})",
            e.line, e.column, e.message
        ))
    })?;
    let root = &parsed.root;
    if !root.is_object() {
        return Err(MergeError(format!(
            "the top level is {}, but a settings file is one JSON object: `{{ … }}`",
            crate::judge::rule::kind(&parsed.value(root))
        )));
    }
    let Some(hooks_node) = unique_member(&parsed, root, "hooks", "hooks")? else {
        let text = jsonedit::insert_member(text, root, "hooks", hooks);
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
        return Err(MergeError(format!(
            "`hooks` is {}, expected an object of events",
            crate::judge::rule::kind(&parsed.value(hooks_node))
        )));
    }
    for (event, groups) in hooks.as_object().expect("templates hold an object") {
        let path = format!("hooks.{event}");
        let Some(array) = unique_member(&parsed, hooks_node, event, &path)? else {
            let text = jsonedit::insert_member(text, hooks_node, event, groups);
            return Ok(Step::Edit(text, vec![path], None));
        };
        if !array.is_array() {
            return Err(MergeError(format!(
                "`{path}` is {}, expected an array",
                crate::judge::rule::kind(&parsed.value(array))
            )));
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
                    jsonedit::append_element(text, array, group),
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
                let text = jsonedit::replace(text, node, want);
                return Ok(Step::Edit(text, Vec::new(), None));
            }
            let handler = &group_node.member("hooks").expect("found in it").elements()[hi];
            let wanted = &group["hooks"][0];
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
    let wanted = &with_kept_timeout(wanted, &current["timeout"]);
    for (key, want) in wanted.as_object().expect("handlers are objects") {
        let have = &current[key];
        if have == want {
            continue;
        }
        if key == "timeout"
            && let (Some(h), Some(w)) = (have.as_f64(), want.as_f64())
            && h >= w
        {
            continue;
        }
        let note = (key == "timeout" && !have.is_null()).then(|| {
            format!(
                "raised the timeout of `{path}` from {have} to {want}, above the hook's deadline"
            )
        });
        let edited = match handler.member(key) {
            Some(node) => jsonedit::replace(text, node, want),
            None => jsonedit::insert_member(text, handler, key, want),
        };
        return Some(Step::Edit(edited, Vec::new(), note));
    }
    if current.get("args").is_some() && wanted.get("args").is_none() {
        return Some(Step::Edit(
            jsonedit::remove_member(text, handler, "args"),
            Vec::new(),
            None,
        ));
    }
    None
}

/// `wanted` with the user's timeout when it is larger, and `--hook-timeout` to match it, so
/// that the hook's deadline follows the timeout the agent enforces.
fn with_kept_timeout(wanted: &Value, have: &Value) -> Value {
    let mut wanted = wanted.clone();
    let (Some(h), Some(w)) = (have.as_u64(), wanted["timeout"].as_u64()) else {
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
        None => shell_words::split(wanted["command"].as_str().unwrap_or("")).unwrap_or_default(),
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
    if let Some(command) = wanted["command"].as_str() {
        wanted["command"] = json!(command.replace(&from, &to));
    }
    if let Some(args) = wanted["args"].as_array_mut()
        && let Some(i) = args.iter().position(|a| a == "--hook-timeout")
        && i + 1 < args.len()
    {
        args[i + 1] = json!(have_s.to_string());
    }
    wanted["timeout"] = json!(h);
    wanted
}

/// Removes every handler of ours for `events`; a group left empty goes with its last handler,
/// and a container goes when it is empty and listed in `created` (what `init` created).
/// Containers the user had, even empty ones, stay.
pub fn remove(text: &str, events: &[String], created: &[String]) -> String {
    let mut text = text.to_owned();
    'again: loop {
        let Ok(parsed) = jsonedit::parse(&text) else {
            return text;
        };
        let Some(hooks) = parsed.root.member("hooks").filter(|h| h.is_object()) else {
            break;
        };
        for event in events {
            let Some(array) = hooks.member(event).filter(|a| a.is_array()) else {
                continue;
            };
            if let Some(&(gi, hi)) = ours_in(&parsed, array).first() {
                let handlers = array.elements()[gi].member("hooks").expect("found in it");
                text = if handlers.elements().len() == 1 {
                    jsonedit::remove_element(&text, array, gi)
                } else {
                    jsonedit::remove_element(&text, handlers, hi)
                };
                continue 'again;
            }
        }
        break;
    }
    // Deepest first, so that `hooks` can go once its events have.
    let mut created: Vec<&String> = created.iter().collect();
    created.sort_by_key(|p| std::cmp::Reverse(p.matches('.').count()));
    for path in created {
        let Ok(parsed) = jsonedit::parse(&text) else {
            return text;
        };
        let (parent, key) = match path.rsplit_once('.') {
            Some(("hooks", event)) => (parsed.root.member("hooks"), event),
            None => (Some(&parsed.root), path.as_str()),
            Some(_) => continue,
        };
        let Some(parent) = parent else { continue };
        let empty = parent.member(key).is_some_and(|n| match &n.kind {
            jsonedit::Kind::Object(m) => m.is_empty(),
            jsonedit::Kind::Array(a) => a.is_empty(),
            jsonedit::Kind::Scalar => false,
        });
        if empty {
            text = jsonedit::remove_member(&text, parent, key);
        }
    }
    text
}

/// One of our handlers as installed.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    pub event: String,
    /// The program it runs: an absolute path, or `hookjudge` (found on PATH).
    pub program: String,
    /// The settings timeout, in seconds (Gemini's milliseconds converted).
    pub timeout_s: Option<f64>,
    /// The words after the program (`gate --agent claude --hook-timeout 13`).
    pub args: Vec<String>,
}

/// Our handlers in `text`, for `agent`'s events.
pub fn installed(agent: Agent, text: &str) -> Vec<Installed> {
    let Ok(parsed) = jsonedit::parse(text) else {
        return Vec::new();
    };
    let Some(hooks) = parsed.root.member("hooks") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for event in events(agent) {
        let Some(array) = hooks.member(&event) else {
            continue;
        };
        for (gi, hi) in ours_in(&parsed, array) {
            let handler = parsed.value(
                &array.elements()[gi]
                    .member("hooks")
                    .expect("has")
                    .elements()[hi],
            );
            let Some((program, args)) = our_invocation(&handler) else {
                continue;
            };
            let timeout_s = handler["timeout"].as_f64().map(|t| {
                if agent == Agent::Gemini {
                    t / 1000.0
                } else {
                    t
                }
            });
            found.push(Installed {
                event: event.clone(),
                program,
                timeout_s,
                args,
            });
        }
    }
    found
}

/// The other scopes whose settings file for `agent` already runs our entries (each hook would
/// run once per file).
pub fn installed_elsewhere(
    agent: Agent,
    scope: Scope,
    root: &Path,
    home: &Path,
) -> Vec<(Scope, PathBuf)> {
    let mut seen = vec![settings_path(agent, scope, root, home)];
    let mut found = Vec::new();
    for s in [Scope::Project, Scope::Local, Scope::User] {
        let p = settings_path(agent, s, root, home);
        if seen.contains(&p) {
            continue;
        }
        seen.push(p.clone());
        let ours = std::fs::read_to_string(&p).is_ok_and(|raw| {
            !installed(agent, &super::jsonedit::Encoding::decode(&raw).1).is_empty()
        });
        if ours {
            found.push((s, p));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill() -> Fill {
        Fill {
            binary: PathBuf::from("/opt/bin/hookjudge"),
            stop_timeout_ms: 10_000,
            gate_timeout_ms: 8000,
            portable: false,
            required: false,
        }
    }

    fn events_of(hooks: &Value) -> Vec<String> {
        hooks.as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn templates_fill_per_agent() {
        let claude = entries(Agent::Claude, &fill());
        let stop = &claude["Stop"][0]["hooks"][0];
        assert_eq!(stop["command"], "/opt/bin/hookjudge");
        assert_eq!(
            stop["args"],
            json!(["stop", "--agent", "claude", "--hook-timeout", "15"])
        );
        assert_eq!(stop["timeout"], 15);
        assert_eq!(
            claude["PreToolUse"][0]["matcher"],
            "Bash|Write|Edit|MultiEdit"
        );
        let gemini = entries(Agent::Gemini, &fill());
        assert_eq!(
            gemini["AfterAgent"][0]["hooks"][0]["timeout"], 15000,
            "Gemini counts milliseconds"
        );
        let codex = entries(
            Agent::Codex,
            &Fill {
                binary: PathBuf::from("/a b/hookjudge"),
                ..fill()
            },
        );
        assert_eq!(
            codex["Stop"][0]["hooks"][0]["command"],
            "'/a b/hookjudge' stop --agent codex --hook-timeout 15"
        );
        assert!(is_ours(&codex["Stop"][0]["hooks"][0]));
    }

    #[test]
    fn portable_entries_name_hookjudge_by_name() {
        for agent in Agent::ALL {
            let hooks = entries(
                agent,
                &Fill {
                    portable: true,
                    ..fill()
                },
            );
            let text = hooks.to_string();
            assert!(!text.contains("/opt/bin"), "{text}");
            for event in events_of(&hooks) {
                let handler = &hooks[&event][0]["hooks"][0];
                assert!(is_ours(handler), "{handler}");
                assert!(handler.get("args").is_none());
                let command = handler["command"].as_str().unwrap();
                assert!(
                    command.starts_with("command -v hookjudge >/dev/null 2>&1 && exec hookjudge "),
                    "{command}"
                );
            }
        }
    }

    #[test]
    fn only_our_binary_with_our_subcommand_is_ours() {
        for (handler, ours) in [
            (json!({"command": "/x/hookjudge", "args": ["stop"]}), true),
            (json!({"command": "hookjudge gate --agent codex"}), true),
            (json!({"command": "~/bin/hookjudge-notify stop"}), false),
            (
                json!({"command": "/x/hookjudge-notify", "args": ["stop"]}),
                false,
            ),
            (json!({"command": "/x/hookjudge", "args": ["log"]}), false),
            (
                json!({"command": "/usr/bin/other-tool", "args": ["stop"]}),
                false,
            ),
            (json!({"command": "notify-send hookjudge stop"}), false),
        ] {
            assert_eq!(is_ours(&handler), ours, "{handler}");
        }
    }

    #[test]
    fn merge_is_idempotent_and_remove_restores() {
        let original = "{\n    \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n    \"hooks\": {\n        \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"my-notify\" } ] } ]\n    }\n}\n";
        let hooks = entries(Agent::Claude, &fill());
        let once = merge(original, &hooks).unwrap();
        assert_eq!(
            merge(&once.text, &hooks).unwrap().text,
            once.text,
            "a second merge changes nothing"
        );
        let v: Value = serde_json::from_str(&once.text).unwrap();
        assert_eq!(
            v["hooks"]["Stop"][0]["hooks"][0]["command"], "my-notify",
            "the user's hook stays first"
        );
        assert!(is_ours(&v["hooks"]["Stop"][1]["hooks"][0]));
        let upgraded = merge(
            &once.text,
            &entries(
                Agent::Claude,
                &Fill {
                    binary: PathBuf::from("/new/hookjudge"),
                    ..fill()
                },
            ),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&upgraded.text).unwrap();
        assert_eq!(
            v["hooks"]["Stop"].as_array().unwrap().len(),
            2,
            "replaced in place"
        );
        assert_eq!(
            v["hooks"]["Stop"][1]["hooks"][0]["command"],
            "/new/hookjudge"
        );
        assert_eq!(
            remove(&upgraded.text, &events_of(&hooks), &once.created_members),
            original
        );
    }

    #[test]
    fn user_changes_to_our_entry_are_kept() {
        let hooks = entries(Agent::Claude, &fill());
        let once = merge("{\n  \"a\": 1\n}\n", &hooks).unwrap().text;
        let edited = once
            .replace(
                "\"matcher\": \"Bash|Write|Edit|MultiEdit\"",
                "\"matcher\": \"Bash|Shell\"",
            )
            .replacen("\"timeout\": 15", "\"timeout\": 90", 1);
        assert_ne!(edited, once);
        let again = merge(&edited, &hooks).unwrap();
        let v: Value = serde_json::from_str(&again.text).unwrap();
        assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "Bash|Shell");
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 90);
        assert_eq!(
            v["hooks"]["Stop"][0]["hooks"][0]["args"],
            json!(["stop", "--agent", "claude", "--hook-timeout", "90"]),
            "the hook's deadline follows the larger timeout"
        );
        assert_eq!(merge(&again.text, &hooks).unwrap().text, again.text);
        let lowered = once.replacen("\"timeout\": 15", "\"timeout\": 2", 1);
        let again = merge(&lowered, &hooks).unwrap();
        assert_eq!(again.text, once, "a timeout below the deadline is raised");
        assert!(again.notes[0].contains("from 2 to 15"), "{:?}", again.notes);
    }

    #[test]
    fn pre_existing_empty_containers_stay() {
        let original = "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n";
        let hooks = entries(Agent::Claude, &fill());
        let merged = merge(original, &hooks).unwrap();
        assert_eq!(
            merged.created_members,
            ["hooks.SubagentStop", "hooks.PreToolUse"]
        );
        assert_eq!(
            remove(&merged.text, &events_of(&hooks), &merged.created_members),
            original
        );
        let empty = "{\"hooks\": {}}";
        let merged = merge(empty, &hooks).unwrap();
        assert_eq!(
            remove(&merged.text, &events_of(&hooks), &merged.created_members),
            empty
        );
    }

    #[test]
    fn a_matcher_earlier_versions_wrote_is_upgraded_and_the_users_is_kept() {
        let mut hooks = entries(Agent::Claude, &fill());
        let old = merge("{\n  \"a\": 1\n}\n", &hooks).unwrap().text;
        hooks["PreToolUse"][0]["matcher"] = json!("Bash|Write|Edit|MultiEdit");
        let upgraded = merge(&old, &hooks).unwrap().text;
        let v: Value = serde_json::from_str(&upgraded).unwrap();
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["matcher"],
            "Bash|Write|Edit|MultiEdit"
        );
        let users = old.replace(
            "\"matcher\": \"Bash|Write|Edit|MultiEdit\"",
            "\"matcher\": \"Bash|Shell\"",
        );
        assert_eq!(merge(&users, &hooks).unwrap().text, users);
    }

    #[test]
    fn a_second_row_for_an_event_is_one_more_entry() {
        // Two gate entries in one event (shell, and file-writing tools): paired in order.
        let mut hooks = entries(Agent::Claude, &fill());
        let mut second = hooks["PreToolUse"][0].clone();
        second["matcher"] = json!("Write|Edit|MultiEdit");
        hooks["PreToolUse"].as_array_mut().unwrap().push(second);
        let original = "{\n  \"a\": 1\n}\n";
        let merged = merge(original, &hooks).unwrap();
        let once = merged.text;
        let v: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        let edited = once.replace("Write|Edit|MultiEdit", "Write|Edit");
        let again = merge(&edited, &hooks).unwrap().text;
        assert_eq!(
            again, edited,
            "the user's matcher on the second entry stays"
        );
        let events = events_of(&hooks);
        assert_eq!(remove(&again, &events, &merged.created_members), original);
    }

    #[test]
    fn wrong_shapes_and_duplicates_are_refused() {
        let hooks = entries(Agent::Claude, &fill());
        let err = |text: &str| merge(text, &hooks).unwrap_err().0;
        assert!(err(r#"{"hooks": "none"}"#).contains("`hooks` is a string"));
        assert!(err(r#"{"hooks": {"Stop": {}}}"#).contains("`hooks.Stop` is an object"));
        assert!(err("[]").contains("top level is an array"), "{}", err("[]"));
        let dup = "{\n  \"hooks\": {},\n  \"x\": 1,\n  \"hooks\": {}\n}";
        assert!(
            err(dup).contains("`hooks` appears 2 times (lines 2 and 4)"),
            "{}",
            err(dup)
        );
        let dup_event = "{\"hooks\": {\"Stop\": [], \"Stop\": []}}";
        assert!(err(dup_event).contains("`hooks.Stop` appears 2 times"));
    }
}
