//! The doctor's checks of the surroundings: settings that switch every hook off, env files
//! that move hookjudge's config, state or binary, and the folders it writes.

use std::path::Path;

use serde_json::Value;

use super::report::{Check, check};
use crate::agent::Agent;
use crate::config::Settings;
use crate::install::settings::{Scope, codex_home, settings_path};
use crate::support::dirs;

/// Settings that switch every hook off, including files `init` does not manage.
pub(super) fn hooks_switched_off(root: &Path, home: &Path) -> Vec<Check> {
    let path = |agent, scope| settings_path(agent, scope, root, home);
    let files = [
        (path(Agent::Claude, Scope::Project), "disableAllHooks"),
        (path(Agent::Claude, Scope::Local), "disableAllHooks"),
        (path(Agent::Claude, Scope::User), "disableAllHooks"),
        (path(Agent::Gemini, Scope::Project), "hooksConfig.enabled"),
        (path(Agent::Gemini, Scope::User), "hooksConfig.enabled"),
    ];
    let mut checks = Vec::new();
    for (path, key) in files {
        let Some(v) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        else {
            continue;
        };
        let off = match key {
            "disableAllHooks" => v["disableAllHooks"] == Value::Bool(true),
            _ => v["hooksConfig"]["enabled"] == Value::Bool(false),
        };
        if off {
            checks.push(check(
                "hooks switched off",
                false,
                format!(
                    "`{}` sets `{key}`, so no hook runs, hookjudge's included",
                    path.display()
                ),
                Some(format!("remove `{key}` from `{}`", path.display())),
            ));
        }
    }
    checks
}

/// The env files the agent CLIs load into their environment (and so into every hook's) that
/// set a variable moving hookjudge's config, state or binary (see
/// [`crate::gate::protect::env_files`]): from the working directory up to the repository
/// root (`.env`, `.gemini/.env`), then the user's (`~/.gemini/.env`, `~/.env`,
/// `$CODEX_HOME/.env`).
pub(super) fn env_files_that_move_hookjudge(cwd: &Path, root: &Path, home: &Path) -> Vec<Check> {
    use crate::gate::protect::env_files;
    let mut files = Vec::new();
    for dir in cwd.ancestors() {
        files.push(dir.join(".gemini/.env"));
        files.push(dir.join(".env"));
        if dir == root || dir == home {
            break;
        }
    }
    let codex_home = codex_home(home);
    files.extend([
        home.join(".gemini/.env"),
        home.join(".env"),
        codex_home.join(".env"),
    ]);
    let mut seen = Vec::new();
    files.retain(|f| {
        let new = !seen.contains(f);
        seen.push(f.clone());
        new
    });
    let mut checks = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let lines = env_files::settings_in(&text);
        if lines.is_empty() {
            continue;
        }
        let names: Vec<String> = lines
            .iter()
            .map(|l| format!("`{}`", l.split('=').next().unwrap_or("").trim()))
            .collect();
        checks.push(check(
            "agent env file",
            false,
            format!(
                "`{}` sets {}; the agent CLIs load it into the hooks' environment, so it moves hookjudge's config, state or binary",
                path.display(),
                names.join(", ")
            ),
            Some(format!(
                "remove those lines from `{}` unless you put them there yourself",
                path.display()
            )),
        ));
    }
    checks
}

/// The log and state folders can be written.
pub(super) fn writable_dirs(settings: &Settings) -> Vec<Check> {
    let mut checks = Vec::new();
    for (name, dir) in [
        ("log dir", settings.log_dir.clone()),
        ("state dir", dirs::state_dir()),
    ] {
        let result = std::fs::create_dir_all(&dir).and_then(|()| {
            let probe = dir.join(format!(".doctor-{}", std::process::id()));
            std::fs::write(&probe, b"ok")?;
            std::fs::remove_file(probe)
        });
        let fix = Some(format!(
            "make `{}` writable, or set `log.dir`",
            dir.display()
        ));
        checks.push(check(
            name,
            result.is_ok(),
            match result {
                Ok(()) => format!("`{}` is writable", dir.display()),
                Err(e) => format!("`{}`: {e}", dir.display()),
            },
            fix,
        ));
    }
    checks
}
