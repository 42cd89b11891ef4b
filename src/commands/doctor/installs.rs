//! The doctor's checks of what `init` installed: each agent's settings file in every scope
//! (entries present, the program found, timeouts above the hook's deadline), the same hooks
//! installed twice, and the git pre-push hook.

use std::path::{Path, PathBuf};

use super::report::{Check, check};
use crate::agent::Agent;
use crate::config::Settings;
use crate::install::settings::{self as entries, Installed, Scope};
use crate::install::{ErrorKind, files, githook};
use crate::support::jsonc::{self, Encoding};

/// Every agent's settings file in every scope that runs hookjudge (or is not JSON), the
/// agents whose hooks run twice, and "no hooks" when none does.
pub(super) fn settings_checks(
    root: &Path,
    home: &Path,
    binary: &Path,
    loaded: &Settings,
) -> Vec<Check> {
    let mut checks = Vec::new();
    let mut any_installed = false;
    let mut seen = Vec::new();
    for agent in Agent::INSTALLABLE {
        for scope in [Scope::Project, Scope::Local, Scope::User] {
            let path = entries::settings_path(agent, scope, root, home);
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            let mut scope = scope;
            let name = format!("{} ({} scope)", agent.display_name(), scope.name());
            let raw = match files::read(&path) {
                Ok(Some(raw)) => raw,
                Ok(None) => continue,
                // A file the agent cannot read either: its hooks do not run.
                Err(e) => {
                    let detail = match e.kind {
                        ErrorKind::NotText => format!(
                            "`{}` is not UTF-8 text, so {} cannot read it",
                            path.display(),
                            agent.display_name()
                        ),
                        _ => e.to_string(),
                    };
                    checks.push(check(
                        name,
                        false,
                        detail,
                        Some(format!("fix `{}` by hand", path.display())),
                    ));
                    continue;
                }
            };
            let body = Encoding::decode(&raw).1;
            if let Err(e) = jsonc::parse(&body) {
                checks.push(check(
                    name,
                    false,
                    format!(
                        "`{}` is not valid JSON (line {}, column {}: {})",
                        path.display(),
                        e.line,
                        e.column,
                        e.message
                    ),
                    Some(format!("fix `{}` by hand", path.display())),
                ));
                continue;
            }
            let found = entries::installed(agent, &body);
            if found.is_empty() {
                continue;
            }
            any_installed = true;
            // Codex's and Gemini's local install shares the project file: entries naming this
            // machine's binary by path are a local install.
            if scope == Scope::Project
                && path == entries::settings_path(agent, Scope::Local, root, home)
                && found.iter().any(|f| Path::new(&f.program).is_absolute())
            {
                scope = Scope::Local;
            }
            let name = format!("{} ({} scope)", agent.display_name(), scope.name());
            checks.push(entries_check(
                agent, scope, &path, &found, binary, loaded, name,
            ));
        }
    }
    for agent in Agent::INSTALLABLE {
        let scopes: Vec<Scope> = [Scope::Project, Scope::Local, Scope::User]
            .into_iter()
            .filter(|s| {
                let p = entries::settings_path(agent, *s, root, home);
                std::fs::read_to_string(&p).is_ok_and(|raw| {
                    !entries::installed(agent, &Encoding::decode(&raw).1).is_empty()
                })
            })
            .collect();
        let mut distinct: Vec<PathBuf> = scopes
            .iter()
            .map(|s| entries::settings_path(agent, *s, root, home))
            .collect();
        distinct.dedup();
        if distinct.len() > 1 {
            let files: Vec<String> = distinct
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect();
            // Keep the first in precedence (team files first), remove the others.
            let mut fixed = vec![distinct[0].clone()];
            let mut fixes = Vec::new();
            for s in &scopes {
                let p = entries::settings_path(agent, *s, root, home);
                if !fixed.contains(&p) {
                    fixes.push(format!(
                        "hookjudge uninstall --agent {} --scope {}",
                        agent.name(),
                        s.name()
                    ));
                    fixed.push(p);
                }
            }
            checks.push(check(
                format!("{} installs", agent.display_name()),
                false,
                format!(
                    "{} each run hookjudge, so each hook runs {} times",
                    files.join(" and "),
                    distinct.len()
                ),
                Some(fixes.join("; ")),
            ));
        }
    }
    checks.extend(owned_checks(root, home, &mut any_installed));
    if !any_installed {
        checks.push(check(
            "hooks",
            false,
            format!(
                "no agent settings under `{}` or `~` run hookjudge",
                root.display()
            ),
            Some("hookjudge init".into()),
        ));
    }
    checks
}

/// The agents whose hooks run hookjudge here: an entry of ours in any scope's settings file,
/// or our plugin file.
pub(super) fn installed_agents(root: &Path, home: &Path) -> Vec<Agent> {
    Agent::INIT
        .into_iter()
        .filter(|&agent| {
            let in_settings = Agent::INSTALLABLE.contains(&agent)
                && [Scope::Project, Scope::Local, Scope::User]
                    .into_iter()
                    .any(|scope| {
                        let path = entries::settings_path(agent, scope, root, home);
                        files::read(&path).ok().flatten().is_some_and(|raw| {
                            !entries::installed(agent, &Encoding::decode(&raw).1).is_empty()
                        })
                    });
            let plugin = [Scope::Project, Scope::User].into_iter().any(|scope| {
                entries::owned_path(agent, scope, root, home)
                    .and_then(|path| files::read(&path).ok().flatten())
                    .is_some_and(|text| entries::is_owned_text(&text))
            });
            in_settings || plugin
        })
        .collect()
}

/// Our git pre-push hook, when there is one: whether it runs this binary.
pub(super) fn git_hook_check(root: &Path, binary: &Path) -> Option<Check> {
    let dir = githook::hooks_dir(root).ok()?;
    let hook = dir.join("pre-push");
    let text = std::fs::read_to_string(&hook).ok()?;
    if !text.contains(githook::MARKER) {
        return None;
    }
    let program = githook::program_of(&text).unwrap_or_default();
    let (ok, state, fix) = match locate(&program, binary) {
        Located::Here => (true, String::new(), None),
        Located::Missing(why) => (
            false,
            format!(" is not installed here: {why}"),
            Some(install_fix(&program)),
        ),
        Located::Elsewhere(other) => (
            false,
            format!(
                " points elsewhere: it runs `{}`, not this binary",
                other.display()
            ),
            Some(if program == "hookjudge" {
                "put this hookjudge first on PATH".to_string()
            } else {
                "hookjudge init --git-hook".into()
            }),
        ),
    };
    Some(check(
        "git pre-push hook",
        ok,
        format!("`{}`{state}", hook.display()),
        fix,
    ))
}

/// Where an entry's program is, seen from this machine.
enum Located {
    /// This binary.
    Here,
    /// Not on this machine: why.
    Missing(String),
    /// Another binary.
    Elsewhere(PathBuf),
}

/// `hookjudge` by name is looked up on PATH; an absolute path is checked as it is.
fn locate(program: &str, binary: &Path) -> Located {
    let found = if Path::new(program).is_absolute() {
        Path::new(program)
            .is_file()
            .then(|| PathBuf::from(program))
            .ok_or_else(|| {
                format!("the entry names `{program}`, which does not exist on this machine")
            })
    } else {
        on_path(program).ok_or_else(|| {
            format!(
                "the entry runs `{program}` from PATH, and there is none on this machine's PATH"
            )
        })
    };
    match found {
        Err(why) => Located::Missing(why),
        Ok(p) if p.canonicalize().unwrap_or_else(|_| p.clone()) == binary => Located::Here,
        Ok(p) => Located::Elsewhere(p),
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn install_fix(program: &str) -> String {
    if program == "hookjudge" {
        "install hookjudge so that it is on PATH (`cargo install --locked --path .` in its source, or `install/install.sh`); the committed entries need no change".into()
    } else {
        "hookjudge init (rewrites the entries with this binary's path)".into()
    }
}

/// One settings file's entries: all events present, the program found, timeouts above the
/// hook's deadline.
fn entries_check(
    agent: Agent,
    scope: Scope,
    path: &Path,
    found: &[Installed],
    binary: &Path,
    settings: &Settings,
    name: String,
) -> Check {
    let init = format!(
        "hookjudge init --agent {} --scope {}",
        agent.name(),
        scope.name()
    );
    let missing: Vec<String> = entries::events(agent)
        .into_iter()
        .filter(|e| !found.iter().any(|f| &f.event == e))
        .collect();
    if !missing.is_empty() {
        return check(
            name,
            false,
            format!("`{}` lacks {}", path.display(), missing.join(", ")),
            Some(init),
        );
    }
    for entry in found {
        match locate(&entry.program, binary) {
            Located::Here => {}
            Located::Missing(why) => {
                return check(
                    name,
                    false,
                    format!("`{}` is not installed here: {why}", path.display()),
                    Some(install_fix(&entry.program)),
                );
            }
            Located::Elsewhere(other) => {
                let fix = if entry.program == "hookjudge" {
                    format!(
                        "put `{}` first on PATH, or remove the other one",
                        binary.display()
                    )
                } else {
                    init
                };
                return check(
                    name,
                    false,
                    format!(
                        "`{}` points elsewhere: it runs `{}`, not this binary (`{}`)",
                        path.display(),
                        other.display(),
                        binary.display()
                    ),
                    Some(fix),
                );
            }
        }
    }
    for entry in found {
        let (deadline_ms, key) = match entry.args.first().map(String::as_str) {
            Some("gate") => (settings.gate.timeout_ms, "gate.timeout_ms"),
            _ => (settings.llm.timeout_ms, "llm.timeout_ms"),
        };
        let Some(timeout_s) = entry.timeout_s else {
            continue;
        };
        if timeout_s * 1000.0 >= (deadline_ms + entries::CLAMP_MARGIN_MS) as f64 {
            continue;
        }
        let needed = entries::settings_timeout_s(deadline_ms);
        let clamped = entries::clamp_deadline_ms(deadline_ms, Some(timeout_s as u64));
        let fix = if scope == Scope::Project {
            format!(
                "{init}, then commit `{}` (sets it to {needed} s); or lower `{key}`",
                path.display()
            )
        } else {
            format!("{init} (sets it to {needed} s); or lower `{key}`")
        };
        return check(
            name,
            false,
            format!(
                "`{}`: the {} timeout is {timeout_s} s, below what `{key}` = {deadline_ms} needs ({needed} s); the hook cuts its deadline to {clamped} ms",
                path.display(),
                entry.event
            ),
            Some(fix),
        );
    }
    check(
        name,
        true,
        format!("`{}`: all entries present", path.display()),
        None,
    )
}

/// The files of ours `init` writes whole (OpenCode's plugin, Cline's hook script): present,
/// runnable, and the program they name found.
fn owned_checks(root: &Path, home: &Path, any_installed: &mut bool) -> Vec<Check> {
    let mut checks = Vec::new();
    for agent in Agent::INIT {
        for scope in [Scope::Project, Scope::User] {
            let Some(path) = entries::owned_path(agent, scope, root, home) else {
                continue;
            };
            let Ok(Some(text)) = files::read(&path) else {
                continue;
            };
            if !entries::is_owned_text(&text) {
                continue;
            }
            *any_installed = true;
            let program = entries::owned_program(&text).unwrap_or_default();
            let found = !Path::new(&program).is_absolute() || Path::new(&program).is_file();
            // Cline runs its hook file as a program: a script that lost its mode never runs.
            let script = text.starts_with("#!");
            let runnable = !script || is_executable(&path);
            let kind = if script { "hook script" } else { "plugin" };
            let detail = if !runnable {
                format!(
                    "`{}` is not executable, so {} does not run it",
                    path.display(),
                    agent.display_name()
                )
            } else if found {
                format!(
                    "`{}`: {kind} present; hookjudge reads no {} session, so a command is judged on the repository's facts and test artifacts",
                    path.display(),
                    agent.display_name()
                )
            } else {
                format!(
                    "`{}` runs `{program}`, which does not exist",
                    path.display()
                )
            };
            checks.push(check(
                format!("{} ({} scope)", agent.display_name(), scope.name()),
                found && runnable,
                detail,
                Some(if runnable {
                    format!(
                        "hookjudge init --agent {} --scope {}",
                        agent.name(),
                        scope.name()
                    )
                } else {
                    format!("chmod +x '{}'", path.display())
                }),
            ));
        }
    }
    checks
}

/// Whether the file at `path` may be run as a program.
fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}
