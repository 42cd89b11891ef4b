//! `hookjudge init` and `hookjudge uninstall`: put our hook entries into agents' settings (and
//! the git pre-push hook), or take exactly those out again.
//!
//! `init` plans every file first (reads, validates, merges) and writes only when every plan
//! succeeded; a write that fails puts back the files already written. What it changed is
//! recorded (see [`record`]) so that `uninstall` restores files byte for byte.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{ExitStatus, UserError};
use crate::agent::Agent;
use crate::cli::{AgentChoice, InitArgs, ScopeArg, UninstallArgs};
use crate::config::{self, Settings, dirs};
use crate::install::jsonedit::Encoding;
use crate::install::record::{self, Before, Record};
use crate::install::settings::{self as entries, Fill, Scope};
use crate::install::{files, githook, ignore};

/// Where the editor schema goes, relative to the repository root (ignored by git).
pub const SCHEMA_FILE: &str = ".hookjudge/schema.json";

/// The per-repository config written where none exists (what makes hookjudge stricter for
/// this repository goes here; the LLM and the log belong in the user's own config). `init`
/// trusts it, since it wrote it (see [`crate::trust::INIT_WRITTEN`]).
pub const REPO_CONFIG: &str = r#"{
  "$schema": "./.hookjudge/schema.json",
  "gate": {},
  "judges": {}
}
"#;

fn scope(arg: ScopeArg) -> Scope {
    match arg {
        ScopeArg::Project => Scope::Project,
        ScopeArg::Local => Scope::Local,
        ScopeArg::User => Scope::User,
    }
}

fn home() -> Result<PathBuf, UserError> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            UserError::new("`HOME` is not set").hint("set `HOME`, or use `--scope project`")
        })
}

/// The running binary, which the entries will call.
pub fn binary() -> Result<PathBuf, UserError> {
    let exe = std::env::current_exe()
        .map_err(|e| UserError::new(format!("cannot tell where the hookjudge binary is: {e}")))?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

struct Target {
    root: PathBuf,
    home: PathBuf,
    scope: Scope,
    agents: Vec<Agent>,
    explicit: bool,
}

fn target(
    agent: Option<AgentChoice>,
    scope_arg: ScopeArg,
    force: bool,
    removing: bool,
) -> Result<Target, UserError> {
    let cwd = super::current_dir();
    let scope = scope(scope_arg);
    let home = home()?;
    let root = match config::repo_root(&cwd) {
        Some(root) => root,
        None if scope == Scope::User || force || removing => cwd.clone(),
        None => {
            return Err(UserError::new(format!("`{}` is not inside a git repository", cwd.display()))
                .hint("run `hookjudge init` in your project, or pass `--force` to install here anyway, or `--scope user` for every project"));
        }
    };
    let (agents, explicit) = match agent {
        Some(AgentChoice::All) => (Agent::ALL.to_vec(), true),
        Some(AgentChoice::Claude) => (vec![Agent::Claude], true),
        Some(AgentChoice::Codex) => (vec![Agent::Codex], true),
        Some(AgentChoice::Gemini) => (vec![Agent::Gemini], true),
        None if removing => (Agent::ALL.to_vec(), false),
        None => {
            let present: Vec<Agent> = Agent::ALL
                .into_iter()
                .filter(|a| entries::agent_folder(*a, scope, &root, &home).is_dir())
                .collect();
            (
                if present.is_empty() {
                    vec![Agent::Claude]
                } else {
                    present
                },
                false,
            )
        }
    };
    Ok(Target {
        root,
        home,
        scope,
        agents,
        explicit,
    })
}

/// A path as the user should read it: relative to the repository when inside it (outside user
/// scope), absolute otherwise, with the symlink target when the file is a link.
fn shown(path: &Path, t: &Target) -> String {
    let name = match path.strip_prefix(&t.root) {
        Ok(p) if t.scope != Scope::User => p.display().to_string(),
        _ => path.display().to_string(),
    };
    let real = files::resolve(path);
    if real != path {
        format!("{name} -> {}", real.display())
    } else {
        name
    }
}

/// A file's bytes, `None` when it does not exist.
fn read_raw(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            format!(
                "`{}` is not UTF-8 text; it was left untouched",
                path.display()
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read `{}`: {e}", path.display())),
    }
}

/// One file `init` will write.
struct Planned {
    /// The file as named (before following symlinks), for messages.
    name: String,
    /// The file written (symlinks followed).
    path: PathBuf,
    old: Option<String>,
    new: String,
    /// What is in it, for the summary line.
    what: String,
    /// Recorded for `uninstall` (everything but `.hookjudge.json`, which stays).
    record: bool,
    created_members: Vec<String>,
    has_ours_before: bool,
}

/// The settings file of one agent with our entries merged in, or why not.
fn plan_settings(
    agent: Agent,
    path: &Path,
    fill: &Fill,
    t: &Target,
) -> Result<(Planned, Vec<String>), String> {
    let real = files::resolve(path);
    let name = shown(path, t);
    let old = read_raw(&real)?;
    files::check_writable(&real)?;
    let hooks = entries::entries(agent, fill);
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
    let merged = entries::merge(&body, &hooks).map_err(|e| format!("`{name}`: {}", e.0))?;
    let new = match fresh {
        false => encoding.encode(&merged.text),
        true => format!(
            "{}\n",
            crate::install::jsonedit::render(
                &serde_json::json!({ "hooks": hooks }),
                Some("  "),
                ""
            )
        ),
    };
    let created_members = match fresh {
        false => merged.created_members,
        true => {
            let mut c = vec!["hooks".to_owned()];
            c.extend(events.iter().map(|e| format!("hooks.{e}")));
            c
        }
    };
    let has_ours_before = old
        .as_deref()
        .is_some_and(|raw| !entries::installed(agent, &Encoding::decode(raw).1).is_empty());
    Ok((
        Planned {
            name,
            path: real,
            old,
            new,
            what: events.join(", "),
            record: true,
            created_members,
            has_ours_before,
        },
        merged.notes,
    ))
}

/// The ignore file for this scope: `.gitignore` in team mode, else the clone's own exclude.
fn ignore_file(t: &Target) -> Option<PathBuf> {
    match t.scope {
        Scope::User => None,
        Scope::Project => Some(t.root.join(".gitignore")),
        Scope::Local => {
            let repo = gix::discover(&t.root).ok()?;
            Some(repo.common_dir().join("info/exclude"))
        }
    }
}

fn schema_text() -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&crate::config_schema::schema()).expect("schema serialises")
    )
}

/// Installs for each chosen agent.
pub(super) fn init(args: &InitArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    refuse_inside_agent("init")?;
    let t = target(args.agent, args.scope, args.force, false)?;
    if args.require && t.scope != Scope::Project {
        return Err(UserError::new("`--require` is for team mode")
            .hint("use `hookjudge init --scope project --require`"));
    }
    let binary = binary()?;
    let mut warnings = Vec::new();
    let settings = match Settings::load(&t.root, config) {
        Ok(s) => {
            for problem in crate::config_check::problems(&s) {
                warnings.push(format!("{problem} ({})", problem.hint()));
            }
            s
        }
        Err(e) => {
            warnings.push(format!("{e}; the entries use the default timeouts"));
            Settings::defaults()
        }
    };
    let fill = Fill {
        binary: binary.clone(),
        stop_timeout_ms: settings.llm.timeout_ms,
        gate_timeout_ms: settings.gate.timeout_ms,
        portable: t.scope.portable(),
        required: args.require,
    };

    // Plan every file; write nothing until all of them can be written.
    let mut plans: Vec<Planned> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    // Changes to hookjudge's own hooks already installed, which need the person's yes.
    let mut replaced: Vec<String> = Vec::new();
    let mut installed_for = Vec::new();
    let mut seen = Vec::new();
    for agent in &t.agents {
        let path = entries::settings_path(*agent, t.scope, &t.root, &t.home);
        if seen.contains(&files::resolve(&path)) {
            continue;
        }
        seen.push(files::resolve(&path));
        match plan_settings(*agent, &path, &fill, &t) {
            Ok((plan, merge_notes)) => {
                notes.extend(
                    merge_notes
                        .into_iter()
                        .map(|n| format!("{}: {n}", plan.name)),
                );
                installed_for.push(*agent);
                plans.push(plan);
            }
            Err(e) => errors.push(e),
        }
    }
    for agent in &installed_for {
        for (scope, path) in entries::installed_elsewhere(*agent, t.scope, &t.root, &t.home) {
            notes.push(format!(
                "`{}` runs hookjudge too, so {} would run each hook twice; `hookjudge uninstall --agent {} --scope {}` removes those entries",
                path.display(),
                entries::display_name(*agent),
                agent.name(),
                scope.name()
            ));
        }
    }
    if t.scope == Scope::Local && installed_for.iter().any(|a| *a != Agent::Claude) {
        notes.push("Codex CLI and Gemini CLI have no per-checkout settings file, so their entries are in your user settings and run in every project; `--scope project` writes the repository's".into());
    }
    if t.scope != Scope::User {
        let repo_config = t.root.join(config::REPO_FILE);
        if let Ok(Some(text)) = read_raw(&repo_config)
            && !text.contains("\"$schema\"")
        {
            notes.push(format!(
                "add `\"$schema\": \"./{SCHEMA_FILE}\"` to `{}` and editors check it as you type",
                config::REPO_FILE
            ));
        }
        if !repo_config.exists() {
            plans.push(Planned {
                name: config::REPO_FILE.into(),
                path: repo_config,
                old: None,
                new: REPO_CONFIG.into(),
                what: "per-repository config; `$schema` lets editors check it".into(),
                record: false,
                created_members: Vec::new(),
                has_ours_before: false,
            });
        }
        let schema = t.root.join(SCHEMA_FILE);
        let old = read_raw(&schema).unwrap_or(None);
        let new = schema_text();
        if old.as_deref() != Some(&new) {
            plans.push(Planned {
                name: SCHEMA_FILE.into(),
                path: schema,
                old,
                new,
                what: "the config's JSON Schema, for editors; ignored by git".into(),
                record: true,
                created_members: Vec::new(),
                has_ours_before: false,
            });
        }
    }
    if let Some(path) = ignore_file(&t) {
        let claude_local = t.scope == Scope::Local && installed_for.contains(&Agent::Claude);
        match read_raw(&path) {
            Ok(old) => {
                if let Some(new) = ignore::add(old.as_deref(), &ignore::lines(claude_local)) {
                    plans.push(Planned {
                        name: shown(&path, &t),
                        path: files::resolve(&path),
                        old,
                        new,
                        what: "ignores hookjudge's local files".into(),
                        record: true,
                        created_members: Vec::new(),
                        has_ours_before: false,
                    });
                }
            }
            Err(e) => errors.push(e),
        }
    }
    let git_hook = if args.git_hook {
        match githook::hooks_dir(&t.root) {
            Ok(dir) => {
                // A hook in a committed folder names hookjudge by name; one in `.git/hooks` is
                // this clone's own, whatever the scope.
                let program = if githook::is_shared(&dir, &t.root) {
                    githook::Program::OnPath {
                        required: args.require,
                    }
                } else {
                    githook::Program::Absolute(binary.clone())
                };
                match githook::install(&dir, &program, true) {
                    Ok(outcome) => {
                        if outcome == githook::Installed::Updated {
                            replaced.push(format!(
                                "  replace  {}  (hookjudge's pre-push hook)",
                                shown(&dir.join("pre-push"), &t)
                            ));
                        }
                        Some((dir, program))
                    }
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                }
            }
            Err(e) => {
                errors.push(format!("{e} (`--git-hook` needs a git repository)"));
                None
            }
        }
    } else {
        None
    };
    if !errors.is_empty() {
        let mut message = String::from("nothing was written:");
        for e in &errors {
            message.push_str(&format!("\n  {e}"));
        }
        return Err(UserError::new(message)
            .hint("fix the files named above, then run `hookjudge init` again"));
    }

    let mut out = io::stdout().lock();
    if args.dry_run {
        for plan in &plans {
            let _ = write!(
                out,
                "{}",
                files::diff(&plan.path, plan.old.as_deref().unwrap_or(""), &plan.new)
            );
        }
        if let Some((dir, program)) = &git_hook {
            let hook = dir.join("pre-push");
            let old = std::fs::read_to_string(&hook).unwrap_or_default();
            let _ = write!(
                out,
                "{}",
                files::diff(&hook, &old, &githook::script(program))
            );
        }
        let _ = writeln!(out, "(dry run: nothing was written)");
        return Ok(ExitStatus::Success);
    }

    // Adding hooks where there were none only makes hookjudge stricter, so a script may do it;
    // changing the hooks already there (another binary, other timeouts) may weaken them, so
    // only the person at the terminal may.
    replaced.extend(
        plans
            .iter()
            .filter(|p| p.has_ours_before && p.old.as_deref() != Some(p.new.as_str()))
            .map(|p| format!("  replace  {}  (hookjudge's entries already there)", p.name)),
    );
    if !replaced.is_empty() {
        let mut tty = super::trust::person_for("init")?;
        tty.say(&format!(
            "hookjudge init would change hookjudge's existing installation:\n{}\n(see them with `hookjudge init --dry-run`)\n",
            replaced.join("\n")
        ));
        if !tty.confirm("Replace them?") {
            let _ = writeln!(out, "hookjudge init: nothing was written");
            return Ok(ExitStatus::Attention);
        }
    }
    let mut lines = write_all(&plans, &t)?;
    // Only a repository config init wrote itself is trusted; a cloned one never is.
    let repo_config = t.root.join(config::REPO_FILE);
    if plans
        .iter()
        .any(|p| p.path == repo_config && p.old.is_none())
    {
        // What init wrote is what is trusted, never what the file holds by now.
        crate::trust::trust_content(&repo_config, REPO_CONFIG.as_bytes())
            .map_err(|e| UserError::new(e.to_string()))?;
    } else if let Some(report) = &settings.repo_report {
        lines.push(format!(
            "  untrusted  {}  ({})",
            config::REPO_FILE,
            report.message()
        ));
    }
    if let Some((dir, program)) = &git_hook {
        let outcome = githook::install(dir, program, false).map_err(UserError::new)?;
        let name = shown(&dir.join("pre-push"), &t);
        let how = match program {
            githook::Program::OnPath { .. } => "; runs `hookjudge` from PATH",
            githook::Program::Absolute(_) => "",
        };
        lines.push(match outcome {
            githook::Installed::Created => format!("  created    {name}  (git pre-push{how})"),
            githook::Installed::Updated => format!("  updated    {name}  (git pre-push{how})"),
            githook::Installed::Unchanged => format!("  unchanged  {name}"),
            githook::Installed::Chained => format!(
                "  created    {name}  (the hook that was there runs after it, as `{}`{how})",
                githook::PREVIOUS
            ),
        });
    }
    for plan in &plans {
        if plan.old.as_deref() == Some(plan.new.as_str()) {
            lines.push(format!(
                "  unchanged  {}  ({} already installed)",
                plan.name, plan.what
            ));
        }
    }

    let agents: Vec<&str> = installed_for
        .iter()
        .map(|a| entries::display_name(*a))
        .collect();
    let _ = writeln!(
        out,
        "hookjudge init: {} ({} scope) in {}",
        agents.join(", "),
        t.scope.name(),
        t.root.display()
    );
    for line in &lines {
        let _ = writeln!(out, "{line}");
    }
    for note in notes.iter().chain(&warnings) {
        let _ = writeln!(out, "note: {note}");
    }
    if t.scope.portable() {
        let _ = writeln!(
            out,
            "note: team mode: the committed entries run whatever `hookjudge` is first on each teammate's PATH; a teammate without it {}",
            if args.require {
                "is asked before every shell command and cannot push"
            } else {
                "is told it is missing and is not blocked (`--require` changes that)"
            }
        );
    }
    if installed_for.contains(&Agent::Codex) {
        let _ = writeln!(
            out,
            "note: Codex skips new hooks until you trust them: open `/hooks` in Codex and trust the hookjudge entries"
        );
    }
    let resolution = crate::llm::resolve::resolve(
        &settings.llm,
        &dirs::state_dir(),
        &crate::llm::resolve::process_env,
    );
    let next = match resolution.backend {
        Some(b) => format!(
            "next: the judges will use {} ({}); check it with `hookjudge doctor --online`",
            b.describe(),
            resolution.why.trim_start_matches("auto: ")
        ),
        None => format!(
            "next: no LLM provider found, so triggers are only logged; set `llm.provider` in your own config `{}` (see `hookjudge config schema`), then run `hookjudge doctor --online`",
            dirs::config_file().display()
        ),
    };
    let _ = writeln!(out, "{next}");
    Ok(ExitStatus::Success)
}

/// Writes every planned file, or none: a failed write puts back those already written.
fn write_all(plans: &[Planned], t: &Target) -> Result<Vec<String>, UserError> {
    let state = dirs::state_dir();
    let mut lines = Vec::new();
    let mut done: Vec<(&Planned, Option<PathBuf>)> = Vec::new();
    for plan in plans {
        if plan.old.as_deref() == Some(plan.new.as_str()) {
            continue;
        }
        let created_dirs = plan
            .path
            .parent()
            .map(record::missing_dirs)
            .unwrap_or_default();
        match files::write(&plan.path, &plan.new, plan.old.is_some()) {
            Ok(backup) => {
                if plan.record {
                    let mut r = record::updated(
                        record::load(&state, &plan.path),
                        &plan.path,
                        plan.old.as_deref(),
                        &plan.new,
                        plan.has_ours_before,
                    );
                    for m in &plan.created_members {
                        if !r.created_members.contains(m) {
                            r.created_members.push(m.clone());
                        }
                    }
                    r.created_dirs.extend(created_dirs);
                    r.backups.extend(backup.clone());
                    if let Err(e) = record::save(&state, &r) {
                        lines.push(format!("  warning    {e}"));
                    }
                }
                done.push((plan, backup));
            }
            Err(e) => {
                let mut undone = Vec::new();
                for (p, backup) in done.iter().rev() {
                    let restored = match &p.old {
                        Some(old) => files::write(&p.path, old, false).map(|_| ()),
                        None => std::fs::remove_file(&p.path).map_err(|e| e.to_string()),
                    };
                    if let Some(b) = backup {
                        let _ = std::fs::remove_file(b);
                    }
                    if p.record {
                        record::forget(&state, &p.path);
                    }
                    undone.push(match restored {
                        Ok(()) => format!("`{}` was put back", p.name),
                        Err(e) => format!("`{}` could not be put back: {e}", p.name),
                    });
                }
                let mut message = e;
                if !undone.is_empty() {
                    message.push_str(&format!(" ({})", undone.join("; ")));
                }
                return Err(UserError::new(message)
                    .hint("make the file writable, or see the changes with `--dry-run`"));
            }
        }
    }
    for (plan, backup) in done {
        let verb = if plan.old.is_some() {
            "updated"
        } else {
            "created"
        };
        let backup = backup
            .map(|b| format!("; backup: {}", shown(&b, t)))
            .unwrap_or_default();
        lines.push(format!(
            "  {verb:<9}  {}  ({}{backup})",
            plan.name, plan.what
        ));
    }
    Ok(lines)
}

/// What `uninstall` did to one file.
enum Undone {
    Restored,
    Removed,
    Edited,
}

/// Takes our part out of one file: the original bytes when nothing changed since `init`,
/// otherwise only our entries (`surgical`). `None` when there was nothing of ours.
fn undo(
    path: &Path,
    dry_run: bool,
    out: &mut dyn Write,
    surgical: &dyn Fn(&str, &[String]) -> String,
) -> Result<Option<Undone>, UserError> {
    let state = dirs::state_dir();
    let real = files::resolve(path);
    let rec: Option<Record> = record::load(&state, &real);
    let Some(current) = read_raw(&real).map_err(UserError::new)? else {
        record::forget(&state, &real);
        return Ok(None);
    };
    let created = rec.as_ref().is_some_and(|r| r.before == Before::Absent);
    let members: &[String] = rec.as_ref().map_or(&[], |r| &r.created_members);
    let (new, undone) = match &rec {
        Some(r) if r.written == current => match &r.before {
            Before::Absent => (None, Undone::Removed),
            Before::Bytes(b) => (Some(b.clone()), Undone::Restored),
            Before::Unknown => (Some(surgical(&current, members)), Undone::Edited),
        },
        _ => {
            let new = surgical(&current, members);
            if created && is_empty_object(&new) {
                (None, Undone::Removed)
            } else {
                (Some(new), Undone::Edited)
            }
        }
    };
    if new.as_deref() == Some(current.as_str()) {
        if !dry_run {
            record::forget(&state, &real);
        }
        return Ok(None);
    }
    if dry_run {
        let _ = write!(
            out,
            "{}",
            files::diff(&real, &current, new.as_deref().unwrap_or(""))
        );
        return Ok(Some(undone));
    }
    match &new {
        None => {
            std::fs::remove_file(&real)
                .map_err(|e| UserError::new(format!("cannot remove `{}`: {e}", real.display())))?;
            for dir in rec.iter().flat_map(|r| r.created_dirs.iter().rev()) {
                // Only when empty: never a folder the user has put something in since.
                let _ = std::fs::remove_dir(dir);
            }
        }
        Some(text) => {
            let exact = matches!(undone, Undone::Restored);
            files::write(&real, text, !exact).map_err(UserError::new)?;
        }
    }
    if matches!(undone, Undone::Restored | Undone::Removed) {
        for backup in rec.iter().flat_map(|r| &r.backups) {
            let _ = std::fs::remove_file(backup);
        }
    }
    record::forget(&state, &real);
    Ok(Some(undone))
}

fn is_empty_object(text: &str) -> bool {
    crate::install::jsonedit::parse(&Encoding::decode(text).1).is_ok_and(
        |p| matches!(&p.root.kind, crate::install::jsonedit::Kind::Object(m) if m.is_empty()),
    )
}

/// Removes our entries and our git hook.
///
/// Removing hooks switches protection off, so it is only for the person at the terminal:
/// without `--dry-run`, the removals are shown and confirmed on the controlling terminal
/// first (see [`crate::human::person`]); nothing else (a script, an agent's tool, a job left
/// in the background) can answer.
pub(super) fn uninstall(args: &UninstallArgs) -> Result<ExitStatus, UserError> {
    refuse_inside_agent("uninstall")?;
    let t = target(args.agent, args.scope, true, true)?;
    if args.dry_run {
        return uninstall_pass(&t, true, &mut io::stdout().lock());
    }
    // What would go, found by a dry pass, so that the question names it.
    let mut preview = Vec::new();
    let removes = removals(&t, &mut preview)?;
    if removes.is_empty() {
        return uninstall_pass(&t, false, &mut io::stdout().lock());
    }
    let mut tty = super::trust::person_for("uninstall")?;
    tty.say(&format!(
        "hookjudge uninstall ({} scope in {}) would take hookjudge's hooks out:\n{}\n",
        t.scope.name(),
        t.root.display(),
        removes.join("\n")
    ));
    if !tty.confirm("Remove them, so that hookjudge no longer checks these agents?") {
        let _ = writeln!(io::stdout(), "hookjudge uninstall: nothing was removed");
        return Ok(ExitStatus::Attention);
    }
    uninstall_pass(&t, false, &mut io::stdout().lock())
}

/// The lines a dry pass of `uninstall` reports: what it would remove.
fn removals(t: &Target, diff: &mut Vec<u8>) -> Result<Vec<String>, UserError> {
    let mut lines = Vec::new();
    uninstall_changes(t, true, diff, &mut lines)?;
    Ok(lines)
}

fn uninstall_pass(t: &Target, dry_run: bool, out: &mut dyn Write) -> Result<ExitStatus, UserError> {
    let mut lines = Vec::new();
    uninstall_changes(t, dry_run, out, &mut lines)?;
    report_uninstall(t, dry_run, out, &lines);
    Ok(ExitStatus::Success)
}

/// Takes out (or, with `dry_run`, shows the diff of taking out) every file's part of ours and
/// the git hook; one line per file for the summary.
fn uninstall_changes(
    t: &Target,
    dry_run: bool,
    out: &mut dyn Write,
    lines: &mut Vec<String>,
) -> Result<(), UserError> {
    let mut seen = Vec::new();
    let mut files_to_undo: Vec<(PathBuf, Option<Agent>)> = Vec::new();
    for agent in &t.agents {
        let path = entries::settings_path(*agent, t.scope, &t.root, &t.home);
        if !seen.contains(&files::resolve(&path)) {
            seen.push(files::resolve(&path));
            files_to_undo.push((path, Some(*agent)));
        }
    }
    if t.agent_all_or_default() {
        if let Some(ignore) = ignore_file(t) {
            files_to_undo.push((ignore, None));
        }
        // The schema serves every scope: it goes with the last install in this repository.
        if t.scope != Scope::User {
            files_to_undo.push((t.root.join(SCHEMA_FILE), None));
        }
    }
    for (path, agent) in &files_to_undo {
        if agent.is_none()
            && path.ends_with(SCHEMA_FILE)
            && Agent::ALL.into_iter().any(|a| {
                !entries::installed_elsewhere(a, t.scope, &t.root, &t.home).is_empty()
                    || read_raw(&entries::settings_path(a, t.scope, &t.root, &t.home))
                        .ok()
                        .flatten()
                        .is_some_and(|raw| {
                            !entries::installed(a, &Encoding::decode(&raw).1).is_empty()
                        })
            })
        {
            continue;
        }
        let surgical = |text: &str, members: &[String]| -> String {
            match agent {
                Some(agent) => {
                    let (encoding, body) = Encoding::decode(text);
                    if crate::install::jsonedit::parse(&body).is_err() {
                        return text.to_owned();
                    }
                    encoding.encode(&entries::remove(&body, &entries::events(*agent), members))
                }
                None if path.ends_with(SCHEMA_FILE) => text.to_owned(),
                None => ignore::remove(text),
            }
        };
        if let Some(agent) = agent {
            // A file that is not JSON is reported, never rewritten.
            if let Ok(Some(raw)) = read_raw(&files::resolve(path))
                && let Err(e) = crate::install::jsonedit::parse(&Encoding::decode(&raw).1)
            {
                return Err(UserError::new(format!(
                    "`{}` is not valid JSON (line {}, column {}: {}); it was left untouched",
                    shown(path, t),
                    e.line,
                    e.column,
                    e.message
                ))
                .hint(format!(
                    "fix the file, then run `hookjudge uninstall --agent {}` again",
                    agent.name()
                )));
            }
        }
        let name = shown(path, t);
        match undo(path, dry_run, out, &surgical)? {
            None => {}
            Some(Undone::Restored) => lines.push(format!(
                "  restored   {name}  (as it was before `hookjudge init`)"
            )),
            Some(Undone::Removed) => lines.push(format!(
                "  removed    {name}  (`hookjudge init` had created it)"
            )),
            Some(Undone::Edited) => lines.push(format!(
                "  updated    {name}  (hookjudge's entries removed)"
            )),
        }
    }
    if let Ok(dir) = githook::hooks_dir(&t.root)
        && githook::uninstall(&dir, dry_run).map_err(UserError::new)?
    {
        let restored = if dir.join("pre-push").exists() || dir.join(githook::PREVIOUS).exists() {
            " (the previous hook is back)"
        } else {
            ""
        };
        lines.push(format!(
            "  removed    {}{restored}",
            shown(&dir.join("pre-push"), t)
        ));
    }
    Ok(())
}

fn report_uninstall(t: &Target, dry_run: bool, out: &mut dyn Write, lines: &[String]) {
    if dry_run {
        let _ = writeln!(out, "(dry run: nothing was written)");
        return;
    }
    if lines.is_empty() {
        let _ = writeln!(
            out,
            "hookjudge uninstall: nothing of hookjudge's was installed ({} scope) in {}",
            t.scope.name(),
            t.root.display()
        );
        for agent in &t.agents {
            for (scope, path) in entries::installed_elsewhere(*agent, t.scope, &t.root, &t.home) {
                let _ = writeln!(
                    out,
                    "note: `{}` runs hookjudge; `hookjudge uninstall --agent {} --scope {}` removes it",
                    path.display(),
                    agent.name(),
                    scope.name()
                );
            }
        }
    } else {
        let _ = writeln!(
            out,
            "hookjudge uninstall: {} scope in {}",
            t.scope.name(),
            t.root.display()
        );
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        if t.scope != Scope::User {
            let _ = writeln!(
                out,
                "note: `{}` and the decision log were kept; delete them yourself if you no longer want them",
                config::REPO_FILE
            );
        }
    }
}

impl Target {
    /// Whether every agent is being removed (then the files shared by all go too).
    fn agent_all_or_default(&self) -> bool {
        !self.explicit || self.agents.len() == Agent::ALL.len()
    }
}

/// Installing or removing hookjudge's hooks is the user's choice, never an agent's: refused
/// when the process runs inside an agent's tool (its environment markers or an agent among
/// the parent processes), as `trust` and `approve` are.
fn refuse_inside_agent(command: &str) -> Result<(), UserError> {
    match crate::human::inside_agent() {
        Some(why) => Err(UserError::new(format!(
            "`hookjudge {command}` is for you to run in your own terminal, not for an agent ({why})"
        ))
        .hint(format!(
            "open a terminal outside the agent and run `hookjudge {command}` there"
        ))),
        None => Ok(()),
    }
}
