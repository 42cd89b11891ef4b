//! What `init` will write, worked out before anything is written: every agent's settings file
//! with our entries merged in, the per-repository config, the editor schema, the ignore lines
//! and the git hook. Every file is read, validated and merged first, so that one file that
//! cannot be changed means none is.

use std::path::{Path, PathBuf};

use super::settings::{self, Fill, Scope};
use super::target::Target;
use super::{Error, ErrorKind, codex_boundary, files, githook, ignore};
use crate::agent::Agent;
use crate::config;
use crate::support::jsonc::{self, Encoding};

/// Where the editor schema goes, relative to the repository root (ignored by git).
pub const SCHEMA_FILE: &str = ".hookjudge/schema.json";

/// The per-repository config written where none exists (what makes hookjudge stricter for
/// this repository goes here; the LLM and the log belong in the user's own config). `init`
/// trusts it, since it wrote it (see [`crate::config::trust::INIT_WRITTEN`]). It names no `$schema`:
/// the file is committed, and the schema file is not, so a clone would point at nothing;
/// editors are pointed at the schema by their own settings (see the README).
pub const REPO_CONFIG: &str = r#"{
  "gate": {},
  "judges": {}
}
"#;

/// The text of the editor schema file.
pub fn schema_text() -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&crate::config::schema::schema()).expect("schema serialises")
    )
}

/// One file `init` will write.
#[derive(Debug)]
pub struct Planned {
    /// The file as named (before following symlinks), for messages.
    pub name: String,
    /// The file written (symlinks followed).
    pub path: PathBuf,
    pub old: Option<String>,
    pub new: String,
    /// What is in it, for the summary line.
    pub what: String,
    /// Recorded for `uninstall` (everything but `.hookjudge.json`, which stays).
    pub record: bool,
    pub created_members: Vec<String>,
    /// The file held entries of ours before (so changing them needs a person's yes).
    pub has_ours_before: bool,
    /// Every change to our entries already there only makes them stricter: a missing event
    /// added, a timeout raised. Anyone may make that change (`doctor`'s fix for a too-low
    /// timeout runs without a terminal).
    pub only_stricter: bool,
    /// What the change does to our entries already there, for the person's question.
    pub change: String,
    /// A script the agent runs as a program (Cline's hook), so made executable.
    pub executable: bool,
}

impl Planned {
    /// Whether writing it changes nothing.
    pub fn unchanged(&self) -> bool {
        self.old.as_deref() == Some(self.new.as_str())
    }

    /// A file of ours, not recorded as merged into.
    fn whole(name: String, path: PathBuf, old: Option<String>, new: String, what: &str) -> Self {
        Planned {
            name,
            path,
            old,
            new,
            what: what.into(),
            record: true,
            created_members: Vec::new(),
            has_ours_before: false,
            only_stricter: false,
            change: String::new(),
            executable: false,
        }
    }
}

/// The git pre-push hook `init --git-hook` will install.
#[derive(Debug)]
pub struct HookPlan {
    pub dir: PathBuf,
    pub program: githook::Program,
    /// What installing it will do.
    pub outcome: githook::Installed,
}

/// Everything `init` will write, and what it could not plan.
#[derive(Debug, Default)]
pub struct Plan {
    pub files: Vec<Planned>,
    /// The agents whose settings file is planned.
    pub agents: Vec<Agent>,
    /// What the user should know (entries elsewhere, …).
    pub notes: Vec<String>,
    pub git_hook: Option<HookPlan>,
    /// The files that cannot be written; when there is one, nothing may be.
    pub errors: Vec<Error>,
}

/// What `init` is asked to install beyond the settings entries.
#[derive(Debug, Clone)]
pub struct Options {
    pub git_hook: bool,
    /// Team mode's `--require`: a teammate without hookjudge is stopped, not told.
    pub require: bool,
    /// `--boundary agent`: Claude Code's sandbox, on, with these paths denied.
    pub sandbox: Option<settings::SandboxPaths>,
    /// `--boundary agent`: Codex's sandbox, on (see [`super::codex_boundary`]).
    pub codex_sandbox: Option<codex_boundary::CodexSandbox>,
}

/// Plans every file for `t`, writing nothing.
pub fn plan(t: &Target, fill: &Fill, binary: &Path, options: Options) -> Plan {
    let mut plan = Plan::default();
    for (agent, path) in t.settings_files() {
        let shared_file = path == settings::settings_path(agent, Scope::Project, &t.root, &t.home);
        if t.scope == Scope::Local && shared_file && t.tracked(&path) {
            plan.notes.push(format!(
                "{}: `{}` is committed in this repository, so a local install would change everyone's file; left alone (`--scope project` installs for the team, `--scope user` for you in every project)",
                agent.display_name(),
                t.shown(&path)
            ));
            continue;
        }
        let sandbox = options.sandbox.as_ref().filter(|_| agent == Agent::Claude);
        match plan_settings(agent, &path, fill, t, sandbox) {
            Ok((planned, merge_notes)) => {
                plan.notes.extend(
                    merge_notes
                        .into_iter()
                        .map(|n| format!("{}: {n}", planned.name)),
                );
                plan.agents.push(agent);
                plan.files.push(planned);
            }
            Err(e) => plan.errors.push(e),
        }
    }
    let mut codex_config_created = false;
    if let Some(cs) = &options.codex_sandbox
        && plan.agents.contains(&Agent::Codex)
    {
        match codex_boundary::plan_config(t, cs) {
            Ok((planned, notes)) => {
                plan.notes
                    .extend(notes.into_iter().map(|n| format!("{}: {n}", planned.name)));
                codex_config_created = planned.old.is_none();
                plan.files.push(planned);
            }
            Err(e) => plan.errors.push(e),
        }
    }
    for agent in t.agents.clone() {
        if let Some(path) = t.owned_file(agent) {
            match plan_owned(agent, &path, fill, t) {
                Ok(planned) => {
                    plan.agents.push(agent);
                    plan.files.push(planned);
                }
                Err(e) => plan.errors.push(e),
            }
        }
    }
    for agent in &plan.agents {
        if t.owned_file(*agent).is_some() {
            continue;
        }
        for (scope, path) in settings::installed_elsewhere(*agent, t.scope, &t.root, &t.home) {
            plan.notes.push(format!(
                "`{}` runs hookjudge too, so {} would run each hook twice; `hookjudge uninstall --agent {} --scope {}` removes those entries",
                path.display(),
                agent.display_name(),
                agent.name(),
                scope.name()
            ));
        }
    }
    for agent in &plan.agents {
        if let Some(note) = trust_note(*agent, t.scope) {
            plan.notes.push(note.into());
        }
    }
    if t.scope != Scope::User {
        plan_repo_files(t, &mut plan);
    }
    if let Some(path) = t.ignore_file() {
        let local: &[Agent] = if t.scope == Scope::Local {
            &plan.agents
        } else {
            &[]
        };
        let mut lines = ignore::lines(local);
        // A Codex config `init` creates in a local install is this machine's, as its hooks are.
        if codex_config_created && t.scope == Scope::Local {
            lines.push(ignore::CODEX_CONFIG_LINE.to_owned());
        }
        match files::read(&path) {
            Ok(old) => {
                if let Some(new) = ignore::add(old.as_deref(), &lines) {
                    plan.files.push(Planned::whole(
                        t.shown(&path),
                        files::resolve(&path),
                        old,
                        new,
                        "ignores hookjudge's local files",
                    ));
                }
            }
            Err(e) => plan.errors.push(e),
        }
    }
    if options.git_hook {
        match plan_git_hook(t, binary, options.require) {
            Ok(hook) => plan.git_hook = Some(hook),
            Err(e) => plan.errors.push(e),
        }
    }
    plan
}

/// What the agent asks before it runs hooks from a file in the repository, which a person
/// should know after `init` (Claude Code's workspace trust covers every file, so no note).
/// Each row says where the fact comes from.
fn trust_note(agent: Agent, scope: Scope) -> Option<&'static str> {
    match (agent, scope) {
        (_, Scope::User) | (Agent::Claude, _) => None,
        (Agent::Codex, _) => Some(
            "Codex CLI reads a repository's `.codex/hooks.json` only in a project you trust (it asks when you first open one)",
        ),
        (Agent::Gemini, _) => Some(
            "Gemini CLI runs a repository's `.gemini/settings.json` hooks after warning about new ones; accept them when it asks",
        ),
        (Agent::Qwen, _) => Some(
            "Qwen Code runs a repository's `.qwen/settings.json` hooks only in a folder you trust",
        ),
        // github/docs hooks-reference.md: repository hooks, unlike policy hooks, depend on the
        // folder's trust state.
        (Agent::Copilot, _) => Some(
            "Copilot CLI runs a repository's `.github/hooks/*.json` only in a folder you trust (it asks when you first start it there)",
        ),
        // docs.cline.bot customization/hooks: the extension runs hooks once turned on in its
        // settings; the CLI (3.0.65, tests/e2e) runs them with no setting.
        (Agent::Cline, _) => Some(
            "Cline's VS Code extension runs `.clinerules/hooks/PreToolUse` only with hooks turned on in its settings (and not on Windows); the Cline CLI runs it as it is",
        ),
        // charmbracelet/crush docs/hooks/README.md: project hooks load with the config, no prompt.
        (Agent::Crush, _) => Some(
            "Crush runs a project's `crush.json` hooks without asking; restart Crush to load them",
        ),
        _ => None,
    }
}

/// The per-repository config (when there is none) and the editor schema (when it changed).
fn plan_repo_files(t: &Target, plan: &mut Plan) {
    let repo_config = t.root.join(config::REPO_FILE);
    if !repo_config.exists() {
        plan.files.push(Planned {
            record: false,
            ..Planned::whole(
                config::REPO_FILE.into(),
                repo_config,
                None,
                REPO_CONFIG.into(),
                "per-repository config, for the team: what makes hookjudge stricter here",
            )
        });
    }
    let schema = t.root.join(SCHEMA_FILE);
    // The schema is ours and generated: one that cannot be read is written afresh.
    let old = files::read(&schema).unwrap_or(None);
    let new = schema_text();
    if old.as_deref() != Some(&new) {
        plan.files.push(Planned::whole(
            SCHEMA_FILE.into(),
            schema,
            old,
            new,
            "the config's JSON Schema, for editors; ignored by git",
        ));
    }
}

/// The settings file of one agent with our entries merged in, or why not.
fn plan_settings(
    agent: Agent,
    path: &Path,
    fill: &Fill,
    t: &Target,
    sandbox: Option<&settings::SandboxPaths>,
) -> Result<(Planned, Vec<String>), Error> {
    let real = files::resolve(path);
    let name = t.shown(path);
    let old = files::read(&real)?;
    files::check_writable(&real)?;
    let hooks = settings::entries(agent, fill);
    let events: Vec<&str> = hooks
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    // An empty file (`touch settings.json`) is an empty object to every agent.
    let fresh = old.as_deref().is_none_or(|raw| raw.trim().is_empty());
    let (encoding, body) = match &old {
        Some(raw) if !fresh => Encoding::decode(raw),
        _ => (Encoding::default(), "{}\n".to_owned()),
    };
    let merge_error = |e| Error::new(&real, ErrorKind::Merge(e));
    let mut merged = settings::merge(&body, &hooks).map_err(merge_error)?;
    let mut text = match fresh {
        false => merged.text.clone(),
        true => format!(
            "{}\n",
            jsonc::render(&settings::fresh_file(agent, &hooks), Some("  "), "")
        ),
    };
    let mut created_members = match fresh {
        false => std::mem::take(&mut merged.created_members),
        true => {
            let mut c = vec!["hooks".to_owned()];
            c.extend(events.iter().map(|e| format!("hooks.{e}")));
            c
        }
    };
    let mut what = events.join(", ");
    if let Some(paths) = sandbox {
        let boxed = settings::merge_sandbox(&text, paths).map_err(merge_error)?;
        if boxed.text != text {
            what.push_str("; sandbox on, hookjudge's files in its `denyWrite`");
        }
        text = boxed.text;
        created_members.extend(boxed.created_members);
        merged.notes.extend(boxed.notes);
    }
    let new = match fresh {
        false => encoding.encode(&text),
        true => text,
    };
    let before = old
        .as_deref()
        .map(|raw| settings::installed(agent, &Encoding::decode(raw).1))
        .unwrap_or_default();
    let has_ours_before = !before.is_empty();
    let after = settings::installed(agent, &Encoding::decode(&new).1);
    let only_stricter = has_ours_before && only_stricter(&before, &after);
    let change = change(&before, &after);
    Ok((
        Planned {
            name,
            path: real,
            old,
            new,
            what,
            record: true,
            created_members,
            has_ours_before,
            only_stricter,
            change,
            executable: false,
        },
        merged.notes,
    ))
}

/// Whether `after` keeps every entry of `before` as it was (the same event, program and
/// subcommand) with a timeout no lower: then the change only adds or raises.
fn only_stricter(before: &[settings::Installed], after: &[settings::Installed]) -> bool {
    // `--hook-timeout N` follows the settings timeout; the timeout is compared on its own.
    let words = |e: &settings::Installed| -> Vec<String> {
        let mut words = Vec::new();
        let mut args = e.args.iter();
        while let Some(arg) = args.next() {
            if arg == "--hook-timeout" {
                args.next();
            } else {
                words.push(arg.clone());
            }
        }
        words
    };
    let mut unmatched: Vec<&settings::Installed> = after.iter().collect();
    before.iter().all(|old| {
        let same = unmatched.iter().position(|new| {
            new.event == old.event
                && new.program == old.program
                && words(new) == words(old)
                && match (old.timeout_s, new.timeout_s) {
                    (Some(o), Some(n)) => n >= o,
                    (Some(_), None) => false,
                    (None, None) => true,
                    // The agent's default may be longer than what is set now.
                    (None, Some(_)) => false,
                }
        });
        same.map(|i| unmatched.remove(i)).is_some()
    })
}

/// What replacing `before` with `after` changes, in words: another program, lower timeouts.
fn change(before: &[settings::Installed], after: &[settings::Installed]) -> String {
    let mut changes = Vec::new();
    for old in before {
        let Some(new) = after.iter().find(|n| n.event == old.event) else {
            changes.push(format!("removes the {} entry", old.event));
            continue;
        };
        if new.program != old.program {
            changes.push(format!(
                "{} runs `{}` instead of `{}`",
                old.event, new.program, old.program
            ));
        } else if let (Some(o), Some(n)) = (old.timeout_s, new.timeout_s)
            && n < o
        {
            changes.push(format!(
                "lowers the {} timeout from {o} s to {n} s",
                old.event
            ));
        }
    }
    changes.dedup();
    if changes.is_empty() {
        "changes hookjudge's entries already there".into()
    } else {
        changes.join("; ")
    }
}

/// A file `init` writes whole (OpenCode's plugin, Cline's script); one there that is not ours
/// is refused.
fn plan_owned(agent: Agent, path: &Path, fill: &Fill, t: &Target) -> Result<Planned, Error> {
    let real = files::resolve(path);
    let old = files::read(&real)?;
    if old
        .as_deref()
        .is_some_and(|text| !settings::is_owned_text(text))
    {
        return Err(Error::new(&real, ErrorKind::NotOurs));
    }
    files::check_writable(&real)?;
    let new = settings::owned_text(agent, fill).expect("agents with an owned file have its text");
    // Cline runs its hook file as a program; OpenCode loads its plugin.
    let script = new.starts_with("#!");
    Ok(Planned {
        has_ours_before: old.is_some(),
        executable: script,
        ..Planned::whole(
            t.shown(path),
            real,
            old,
            new,
            &format!(
                "{} {}",
                agent.display_name(),
                if script { "hook script" } else { "plugin" }
            ),
        )
    })
}

/// The git hook, found through a dry install.
fn plan_git_hook(t: &Target, binary: &Path, require: bool) -> Result<HookPlan, Error> {
    let dir = githook::hooks_dir(&t.root)?;
    // A hook in a committed folder names hookjudge by name; one in `.git/hooks` is this
    // clone's own, whatever the scope.
    let program = if githook::is_shared(&dir, &t.root) {
        githook::Program::OnPath { required: require }
    } else {
        githook::Program::Absolute(binary.to_path_buf())
    };
    let outcome = githook::install(&dir, &program, true)?;
    Ok(HookPlan {
        dir,
        program,
        outcome,
    })
}
