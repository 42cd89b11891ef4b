//! `hookjudge init` and `hookjudge uninstall`: put our hook entries into agents' settings (and
//! the git pre-push hook), or take exactly those out again.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{ExitStatus, UserError};
use crate::agent::Agent;
use crate::cli::{AgentChoice, InitArgs, ScopeArg, UninstallArgs};
use crate::config::{self, Settings, dirs};
use crate::install::settings::{self as entries, Fill, Scope};
use crate::install::{files, githook};

/// The per-repository config written where none exists (what makes hookjudge stricter for
/// this repository goes here; the LLM and the log belong in the user's own config). `init`
/// trusts it, since it wrote it (see [`crate::trust::INIT_WRITTEN`]).
pub const REPO_CONFIG: &str = r#"{
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

fn relative(path: &Path, root: &Path, home: &Path) -> String {
    if let Ok(p) = path.strip_prefix(root) {
        return p.display().to_string();
    }
    if let Ok(p) = path.strip_prefix(home) {
        return format!("~/{}", p.display());
    }
    path.display().to_string()
}

fn read_settings(path: &Path) -> Result<Option<String>, UserError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(UserError::new(format!(
                "cannot read `{}`: {e}",
                path.display()
            )));
        }
    };
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&text) {
        return Err(UserError::new(format!(
            "`{}` is not valid JSON (line {}, column {}: {e}); it was left untouched",
            path.display(),
            e.line(),
            e.column()
        ))
        .hint("fix the file, then run the command again"));
    }
    Ok(Some(text))
}

/// Installs for each chosen agent.
pub(super) fn init(args: &InitArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let t = target(args.agent, args.scope, args.force, false)?;
    let binary = binary()?;
    let settings = Settings::load(&t.root, config).unwrap_or_else(|_| Settings::defaults());
    let fill = Fill {
        binary: binary.clone(),
        stop_timeout_ms: settings.llm.timeout_ms,
        gate_timeout_ms: settings.gate.timeout_ms,
    };
    let mut out = io::stdout().lock();
    let mut lines: Vec<String> = Vec::new();
    let mut installed_for = Vec::new();
    for agent in &t.agents {
        let path = match entries::settings_path(*agent, t.scope, &t.root, &t.home) {
            Ok(p) => p,
            Err(e) if t.explicit => return Err(UserError::new(e)),
            Err(_) => continue,
        };
        let old = read_settings(&path)?;
        let hooks = entries::entries(*agent, &fill);
        let new = match &old {
            Some(text) => entries::merge(text, &hooks).map_err(|e| {
                UserError::new(format!("cannot merge into `{}`: {}", path.display(), e.0)).hint(
                    "fix or remove that key, then run `hookjudge init` again (nothing was written)",
                )
            })?,
            None => format!(
                "{}\n",
                crate::install::jsonedit::render(
                    &serde_json::json!({ "hooks": hooks }),
                    Some("  "),
                    ""
                )
            ),
        };
        let events: Vec<&str> = hooks
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let name = relative(&path, &t.root, &t.home);
        installed_for.push(*agent);
        if old.as_deref() == Some(new.as_str()) {
            lines.push(format!(
                "  unchanged  {name}  ({} already installed)",
                events.join(", ")
            ));
            continue;
        }
        if args.dry_run {
            let _ = write!(
                out,
                "{}",
                files::diff(&path, old.as_deref().unwrap_or(""), &new)
            );
            continue;
        }
        let backup = files::write(&path, &new).map_err(|e| {
            UserError::new(e).hint("make the file writable, or see the change with `--dry-run`")
        })?;
        let verb = if old.is_some() { "updated" } else { "created" };
        let backup = backup
            .map(|b| format!("; backup: {}", relative(&b, &t.root, &t.home)))
            .unwrap_or_default();
        lines.push(format!(
            "  {verb:<9}  {name}  ({}{backup})",
            events.join(", ")
        ));
    }
    if t.scope != Scope::User {
        let path = t.root.join(config::REPO_FILE);
        if !path.exists() {
            if args.dry_run {
                let _ = write!(out, "{}", files::diff(&path, "", REPO_CONFIG));
            } else {
                files::write(&path, REPO_CONFIG).map_err(UserError::new)?;
                // Only a file init wrote itself is trusted; a cloned one never is.
                crate::trust::trust(&path).map_err(UserError::new)?;
                lines.push(format!("  created    {}  (per-repository config, trusted; `hookjudge config schema` describes every key)", config::REPO_FILE));
            }
        } else if let Some(report) = &settings.repo_report {
            lines.push(format!(
                "  untrusted  {}  ({})",
                config::REPO_FILE,
                report.message()
            ));
        }
    }
    if args.git_hook {
        let dir = githook::hooks_dir(&t.root)
            .map_err(|e| UserError::new(e).hint("`--git-hook` needs a git repository"))?;
        let outcome = githook::install(&dir, &binary, args.dry_run).map_err(UserError::new)?;
        let name = relative(&dir.join("pre-push"), &t.root, &t.home);
        lines.push(match outcome {
            githook::Installed::Created => format!("  created    {name}"),
            githook::Installed::Updated => format!("  updated    {name}"),
            githook::Installed::Unchanged => format!("  unchanged  {name}"),
            githook::Installed::Chained => format!(
                "  created    {name}  (the hook that was there runs after it, as `{}`)",
                githook::PREVIOUS
            ),
        });
    }
    if args.dry_run {
        let _ = writeln!(out, "(dry run: nothing was written)");
        return Ok(ExitStatus::Success);
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
    if installed_for.contains(&Agent::Codex) {
        let _ = writeln!(
            out,
            "note: Codex skips new hooks until you trust them: open `/hooks` in Codex and trust the two hookjudge entries"
        );
    }
    let resolution = crate::llm::resolve::resolve(
        &settings.llm,
        &dirs::state_dir(),
        &crate::llm::resolve::process_env,
    );
    let next = match resolution.backend {
        Some(b) => format!("next: the judges will use {} ({}); check it with `hookjudge doctor --online`", b.describe(), resolution.why.trim_start_matches("auto: ")),
        None => "next: no LLM provider found, so triggers are only logged; set `llm.provider` in your own config `{}` (see `hookjudge config schema`), then run `hookjudge doctor --online`".replace("{}", &dirs::config_file().display().to_string()),
    };
    let _ = writeln!(out, "{next}");
    Ok(ExitStatus::Success)
}

/// Removes our entries and our git hook.
pub(super) fn uninstall(args: &UninstallArgs) -> Result<ExitStatus, UserError> {
    let t = target(args.agent, args.scope, true, true)?;
    let mut out = io::stdout().lock();
    let mut lines = Vec::new();
    let fill = Fill {
        binary: PathBuf::from("hookjudge"),
        stop_timeout_ms: 0,
        gate_timeout_ms: 0,
    };
    for agent in &t.agents {
        let Ok(path) = entries::settings_path(*agent, t.scope, &t.root, &t.home) else {
            continue;
        };
        let Some(old) = read_settings(&path)? else {
            continue;
        };
        let events: Vec<String> = entries::entries(*agent, &fill)
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let new = entries::remove(&old, &events);
        if new == old {
            continue;
        }
        let name = relative(&path, &t.root, &t.home);
        if args.dry_run {
            let _ = write!(out, "{}", files::diff(&path, &old, &new));
            continue;
        }
        files::write(&path, &new).map_err(UserError::new)?;
        lines.push(format!("  updated    {name}  (hookjudge entries removed)"));
    }
    if let Ok(dir) = githook::hooks_dir(&t.root)
        && githook::uninstall(&dir, args.dry_run).map_err(UserError::new)?
    {
        let restored = if dir.join("pre-push").exists() || dir.join(githook::PREVIOUS).exists() {
            " (the previous hook is back)"
        } else {
            ""
        };
        lines.push(format!(
            "  removed    {}{restored}",
            relative(&dir.join("pre-push"), &t.root, &t.home)
        ));
    }
    if args.dry_run {
        let _ = writeln!(out, "(dry run: nothing was written)");
        return Ok(ExitStatus::Success);
    }
    if lines.is_empty() {
        let _ = writeln!(
            out,
            "hookjudge uninstall: nothing of hookjudge's was installed ({} scope) in {}",
            t.scope.name(),
            t.root.display()
        );
    } else {
        let _ = writeln!(
            out,
            "hookjudge uninstall: {} scope in {}",
            t.scope.name(),
            t.root.display()
        );
        for line in &lines {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(
            out,
            "note: `{}` and the decision log were kept; delete them yourself if you no longer want them",
            config::REPO_FILE
        );
    }
    Ok(ExitStatus::Success)
}
