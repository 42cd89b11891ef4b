//! Which boundary keeps each agent's commands off hookjudge's own files: the agent's own
//! sandbox (Claude Code's, with hookjudge's anchors in its write-deny list; Codex CLI's, see
//! [`super::codex_boundary`]), hookjudge's
//! (`boundary.mode` `landlock`), or none, and what to do to get one.
//!
//! Only the agents hookjudge is installed for are shown. "None" is a warning with what to run,
//! not a problem: it is the default, and the gate's reading of command lines still protects
//! what it can see.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::report::{Check, check, warning};
use crate::agent::Agent;
use crate::boundary::{Mode, Plan};
use crate::config::Settings;
use crate::install::settings::{SANDBOX_HINT, SandboxPaths, Scope, settings_path};
use crate::support::jsonc::{self, Encoding};

/// One check per agent whose hooks are installed (`agents`): a boundary matters only where
/// hookjudge runs.
pub(super) fn boundary_checks(
    root: &Path,
    home: &Path,
    binary: &Path,
    settings: &Settings,
    agents: &[Agent],
) -> Vec<Check> {
    if agents.is_empty() {
        return Vec::new();
    }
    let plan = crate::boundary::plan(root, binary);
    let landlock = settings.boundary == Mode::Landlock;
    let landlock_works = landlock && probe(binary, root);
    let claude_sandbox = claude_sandbox(root, home, &plan);
    let sandbox_unavailable = match claude_sandbox {
        Sandbox::Off => None,
        _ => crate::install::settings::sandbox_unavailable(),
    };
    agents
        .iter()
        .map(|&agent| {
            let name = format!("boundary ({})", agent.display_name());
            if landlock_works && !agent.takes_rewrite() {
                return warning(
                    name,
                    format!(
                        "none: `boundary.mode` is `landlock`, but {} runs its own command line, not the one its hook hands back, so its commands run outside hookjudge's boundary and only the gate's reading of command lines protects hookjudge's files",
                        agent.display_name()
                    ),
                    format!(
                        "run it with an agent whose hook can hand back a command ({}), or under a user of its own that cannot write hookjudge's files",
                        Agent::ALL
                            .iter()
                            .filter(|a| a.takes_rewrite())
                            .map(|a| a.display_name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            if landlock_works {
                let mut how = "hookjudge's own: each shell command runs under `hookjudge run-confined`, where hookjudge's files are read-only".to_owned();
                if agent == Agent::Cline {
                    // Its hooks are one file for both clients; only the CLI takes a command back.
                    how.push_str(" (Cline CLI 3; the VS Code extension's hooks cannot hand back a command, so its commands run outside the boundary)");
                }
                return check(name, true, &how, None);
            }
            if landlock {
                return check(
                    name,
                    false,
                    "`boundary.mode` is `landlock`, but `hookjudge run-confined` cannot set up the boundary here, so every shell command fails",
                    Some(
                        "run `hookjudge run-confined -- true` to see why; or set `boundary.mode` to `agent` or `off`"
                            .into(),
                    ),
                );
            }
            if agent == Agent::Codex {
                return super::codex_boundary::codex_check(root, home, binary);
            }
            if agent == Agent::Claude {
                if !matches!(claude_sandbox, Sandbox::Off)
                    && let Some(why) = &sandbox_unavailable
                {
                    return check(
                        name,
                        false,
                        format!(
                            "Claude Code's sandbox is on, but cannot start here: {why}; with `sandbox.failIfUnavailable` Claude Code refuses to start, without it its commands run unsandboxed"
                        ),
                        Some(SANDBOX_HINT.replace(", then run it again", "")),
                    );
                }
                match &claude_sandbox {
                    Sandbox::Covers { escapable: true } => {
                        return warning(
                            name,
                            "Claude Code's sandbox, with hookjudge's files in `sandbox.filesystem.denyWrite`, but `sandbox.allowUnsandboxedCommands` is not false: a command the model asks to run outside it (`dangerouslyDisableSandbox`) runs there once allowed (a person's yes, or `bypassPermissions` mode)",
                            "set `\"allowUnsandboxedCommands\": false` in the `sandbox` block (`hookjudge init --boundary agent` does)",
                        );
                    }
                    Sandbox::Covers { .. } => {
                        return check(
                            name,
                            true,
                            "Claude Code's sandbox, with hookjudge's files in `sandbox.filesystem.denyWrite`",
                            None,
                        );
                    }
                    Sandbox::Misses(missing) => {
                        return check(
                            name,
                            false,
                            format!(
                                "Claude Code's sandbox is on, but its `sandbox.filesystem.denyWrite` leaves hookjudge's files writable: {}",
                                missing.join(", ")
                            ),
                            Some(format!(
                                "run `hookjudge init --boundary agent`, which adds them, or add to `.claude/settings.local.json`:\n{}",
                                sandbox_snippet(root, binary)
                            )),
                        );
                    }
                    Sandbox::Off => {}
                }
            }
            let fix = match agent {
                Agent::Claude => format!(
                    "run `hookjudge init --boundary agent` (Claude Code's sandbox on), or set `{{\"boundary\": {{\"mode\": \"landlock\"}}}}` in `{}`; the first adds this to `.claude/settings.local.json`:\n{}",
                    crate::support::dirs::config_file().display(),
                    sandbox_snippet(root, binary)
                ),
                _ => format!(
                    "set `{{\"boundary\": {{\"mode\": \"landlock\"}}}}` in `{}` (its own sandbox leaves the work tree's `.git` writable)",
                    crate::support::dirs::config_file().display()
                ),
            };
            warning(
                name,
                "none: only the gate's reading of command lines protects hookjudge's files, and a write it cannot see (a program that builds the path, a copy over the state dir) switches hookjudge off",
                fix,
            )
        })
        .collect()
}

/// Whether `hookjudge run-confined -- true` works in `dir`.
fn probe(binary: &Path, dir: &Path) -> bool {
    std::process::Command::new(binary)
        .args(["run-confined", "--", "true"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

enum Sandbox {
    Off,
    /// On, with every anchor in the write-deny list; `escapable` when a command may still
    /// ask to run outside it (`allowUnsandboxedCommands` not false; its default is true).
    Covers {
        escapable: bool,
    },
    /// On, with these anchors writable.
    Misses(Vec<String>),
}

/// Claude Code's sandbox as the project, local and user settings set it.
fn claude_sandbox(root: &Path, home: &Path, plan: &Plan) -> Sandbox {
    let (mut enabled, mut escapable) = (false, true);
    let mut denied: Vec<PathBuf> = Vec::new();
    for scope in [Scope::User, Scope::Project, Scope::Local] {
        let path = settings_path(Agent::Claude, scope, root, home);
        // Settings files are JSONC: comments and trailing commas are Claude Code's too.
        let Some(v) = std::fs::read_to_string(&path).ok().and_then(|t| {
            let (_, body) = Encoding::decode(&t);
            jsonc::parse(&body).ok().map(|p| p.value(&p.root))
        }) else {
            continue;
        };
        // A later scope's value wins, as in Claude Code.
        if let Some(on) = v["sandbox"]["enabled"].as_bool() {
            enabled = on;
        }
        if let Some(allow) = v["sandbox"]["allowUnsandboxedCommands"].as_bool() {
            escapable = allow;
        }
        let base = path
            .parent()
            .and_then(Path::parent)
            .unwrap_or(root)
            .to_path_buf();
        for entry in v["sandbox"]["filesystem"]["denyWrite"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            denied.push(claude_path(entry, home, &base));
        }
    }
    if !enabled {
        return Sandbox::Off;
    }
    let missing: Vec<String> = plan
        .read_only
        .iter()
        .filter(|a| !denied.iter().any(|d| a.path.starts_with(d)))
        .map(|a| format!("`{}`", a.path.display()))
        .collect();
    if missing.is_empty() {
        Sandbox::Covers { escapable }
    } else {
        Sandbox::Misses(missing)
    }
}

/// A path as Claude Code's sandbox settings read it: `//abs`, `~/in-home`, `/in-settings-dir`,
/// otherwise relative to the settings' project.
fn claude_path(entry: &str, home: &Path, base: &Path) -> PathBuf {
    if let Some(abs) = entry.strip_prefix("//") {
        PathBuf::from("/").join(abs)
    } else if let Some(rel) = entry.strip_prefix("~/") {
        home.join(rel)
    } else if let Some(rel) = entry.strip_prefix('/') {
        base.join(rel)
    } else {
        base.join(entry.trim_start_matches("./"))
    }
}

/// Claude Code's sandbox settings that keep its commands off hookjudge's files: what
/// `hookjudge init --boundary agent` writes, pretty-printed (one path a line) for a person to
/// paste. The report keeps its lines as they are (see the report's wrapping).
fn sandbox_snippet(root: &Path, binary: &Path) -> String {
    let paths = SandboxPaths::for_root(root, binary);
    serde_json::to_string_pretty(&json!({"sandbox": paths.block()})).expect("JSON serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_paths_resolve_as_its_sandbox_settings_say() {
        let (home, base) = (Path::new("/h"), Path::new("/p"));
        assert_eq!(claude_path("//etc/x", home, base), Path::new("/etc/x"));
        assert_eq!(claude_path("~/.codex", home, base), Path::new("/h/.codex"));
        assert_eq!(claude_path("/build", home, base), Path::new("/p/build"));
        assert_eq!(
            claude_path("./.git/hooks", home, base),
            Path::new("/p/.git/hooks")
        );
    }
}
