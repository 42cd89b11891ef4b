//! `hookjudge doctor`: is everything in place? Each problem comes with the command that fixes it.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use serde_json::{Value, json};

use super::{ExitStatus, UserError};
use crate::agent::Agent;
use crate::cli::DoctorArgs;
use crate::config::{self, Settings, dirs};
use crate::install::githook;
use crate::install::jsonedit::{self, Encoding};
use crate::install::settings::{self as entries, Installed, Scope};
use crate::judge::evaluate::{Answer, Layer2};
use crate::llm::LlmJudge;

#[derive(Debug, Serialize)]
struct Check {
    name: String,
    ok: bool,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

fn check(
    name: impl Into<String>,
    ok: bool,
    detail: impl Into<String>,
    fix: Option<String>,
) -> Check {
    Check {
        name: name.into(),
        ok,
        detail: detail.into(),
        fix: if ok { None } else { fix },
    }
}

/// Runs every check and prints the report.
pub(super) fn doctor(args: &DoctorArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let root = config::repo_root(&cwd).unwrap_or_else(|| cwd.clone());
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let binary = super::init::binary()?;
    let mut checks = vec![check(
        "binary",
        true,
        format!(
            "{} (version {})",
            binary.display(),
            env!("CARGO_PKG_VERSION")
        ),
        None,
    )];

    let loaded = Settings::load(&cwd, config).unwrap_or_else(|_| Settings::defaults());
    let mut any_installed = false;
    let mut seen = Vec::new();
    for agent in Agent::ALL {
        for scope in [Scope::Project, Scope::Local, Scope::User] {
            let path = entries::settings_path(agent, scope, &root, &home);
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            let Ok(raw) = std::fs::read_to_string(&path) else {
                continue;
            };
            let name = format!("{} ({} scope)", entries::display_name(agent), scope.name());
            let body = Encoding::decode(&raw).1;
            if let Err(e) = jsonedit::parse(&body) {
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
            checks.push(entries_check(
                agent, scope, &path, &found, &binary, &loaded, name,
            ));
        }
    }
    for agent in Agent::ALL {
        let scopes: Vec<Scope> = [Scope::Project, Scope::Local, Scope::User]
            .into_iter()
            .filter(|s| {
                let p = entries::settings_path(agent, *s, &root, &home);
                std::fs::read_to_string(&p).is_ok_and(|raw| {
                    !entries::installed(agent, &Encoding::decode(&raw).1).is_empty()
                })
            })
            .collect();
        let mut distinct: Vec<PathBuf> = scopes
            .iter()
            .map(|s| entries::settings_path(agent, *s, &root, &home))
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
                let p = entries::settings_path(agent, *s, &root, &home);
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
                format!("{} installs", entries::display_name(agent)),
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
    if let Ok(dir) = githook::hooks_dir(&root) {
        let hook = dir.join("pre-push");
        if let Ok(text) = std::fs::read_to_string(&hook)
            && text.contains(githook::MARKER)
        {
            let program = githook::program_of(&text).unwrap_or_default();
            let (ok, state, fix) = match locate(&program, &binary) {
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
            checks.push(check(
                "git pre-push hook",
                ok,
                format!("`{}`{state}", hook.display()),
                fix,
            ));
        }
    }

    let settings = match Settings::load(&cwd, config) {
        Ok(s) if !crate::config_check::problems(&s).is_empty() => {
            let problems = crate::config_check::problems(&s);
            let list: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
            checks.push(check(
                "config",
                false,
                list.join("; "),
                Some(problems[0].hint()),
            ));
            Some(s)
        }
        Ok(s) => match s.judges(&[]) {
            Ok(judges) => {
                let files: Vec<String> = s
                    .files
                    .iter()
                    .map(|f| format!("`{}`", f.display()))
                    .collect();
                let from = if files.is_empty() {
                    "built-in defaults only".to_string()
                } else {
                    files.join(", ")
                };
                checks.push(check(
                    "config",
                    true,
                    format!("valid; {} judges enabled; from {from}", judges.len()),
                    None,
                ));
                let gate = s.gate_judge();
                let notes = judges
                    .iter()
                    .chain(gate.iter().flatten())
                    .flat_map(|j| &j.notes);
                for note in notes {
                    checks.push(check(
                        "config",
                        false,
                        note.clone(),
                        Some("rename the field in your judge's `block_when`".into()),
                    ));
                }
                if let Err(e) = gate {
                    checks.push(check(
                        "gate judge",
                        false,
                        format!("{e}; the gate asks a human instead of judging"),
                        Some("fix `judges.gate-verification` in your config".into()),
                    ));
                }
                Some(s)
            }
            Err(e) => {
                checks.push(check(
                    "config",
                    false,
                    e.to_string(),
                    Some("fix the judge named above in your config".into()),
                ));
                None
            }
        },
        Err(e) => {
            let fix = Some(super::config_fix(&e));
            checks.push(check("config", false, e.to_string(), fix));
            None
        }
    };
    let settings = settings.unwrap_or_else(Settings::defaults);
    checks.push(repo_trust(&settings, &root));
    checks.extend(hooks_switched_off(&root, &home));
    checks.extend(env_files_that_move_hookjudge(&cwd, &root, &home));

    let resolution = crate::llm::resolve::resolve(
        &settings.llm,
        &dirs::state_dir(),
        &crate::llm::resolve::process_env,
    );
    let provider = match &resolution.backend {
        Some(b) => format!("{} ({})", b.describe(), resolution.why),
        None => resolution.why.clone(),
    };
    checks.push(check(
        "llm",
        resolution.backend.is_some(),
        provider,
        Some(
            "set `llm.provider` in your own config (`hookjudge config path`; see the README's \"Choosing the LLM\")"
                .into(),
        ),
    ));
    if args.online && resolution.backend.is_some() {
        checks.push(online(&settings));
    }

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

    let problems = checks.iter().filter(|c| !c.ok).count();
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(out, "{}", json!({"ok": problems == 0, "checks": checks}))
    } else {
        (|| {
            for c in &checks {
                writeln!(
                    out,
                    "{} {:<24} {}",
                    if c.ok { "ok " } else { "!! " },
                    c.name,
                    c.detail
                )?;
                if let Some(fix) = &c.fix {
                    writeln!(out, "    fix: {fix}")?;
                }
            }
            if problems == 0 {
                writeln!(out, "\nall good")
            } else {
                writeln!(
                    out,
                    "\n{problems} problem(s); each comes with the command that fixes it"
                )
            }
        })()
    };
    written.map_err(UserError::output)?;
    Ok(if problems == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Attention
    })
}

/// Whether the repository's config applies as written, and if not, what is ignored.
fn repo_trust(settings: &Settings, root: &Path) -> Check {
    let file = root.join(config::REPO_FILE);
    match &settings.repo_report {
        Some(report) => {
            let mut detail = report.message();
            if !report.applied.is_empty() {
                detail.push_str(&format!(
                    " Applied anyway (only stricter): {}.",
                    report.applied.join(", ")
                ));
            }
            check(
                "repository config",
                false,
                detail,
                Some(format!(
                    "review `{}`, then run `hookjudge trust` in `{}` yourself",
                    file.display(),
                    root.display()
                )),
            )
        }
        None if file.exists() => check(
            "repository config",
            true,
            format!("`{}` is trusted", file.display()),
            None,
        ),
        None => check("repository config", true, "none", None),
    }
}

/// Settings that switch every hook off, including files `init` does not manage.
fn hooks_switched_off(root: &Path, home: &Path) -> Vec<Check> {
    let files = [
        (root.join(".claude/settings.json"), "disableAllHooks"),
        (root.join(".claude/settings.local.json"), "disableAllHooks"),
        (home.join(".claude/settings.json"), "disableAllHooks"),
        (root.join(".gemini/settings.json"), "hooksConfig.enabled"),
        (home.join(".gemini/settings.json"), "hooksConfig.enabled"),
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
fn env_files_that_move_hookjudge(cwd: &Path, root: &Path, home: &Path) -> Vec<Check> {
    use crate::gate::protect::env_files;
    let mut files = Vec::new();
    for dir in cwd.ancestors() {
        files.push(dir.join(".gemini/.env"));
        files.push(dir.join(".env"));
        if dir == root || dir == home {
            break;
        }
    }
    let codex_home = std::env::var_os("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map_or_else(|| home.join(".codex"), PathBuf::from);
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

/// One real call to the provider with the `commit` judge.
fn online(settings: &Settings) -> Check {
    let Ok(judges) = settings.judges(&["commit".to_string()]) else {
        return check(
            "llm call",
            false,
            "the `commit` judge is disabled; nothing to call with",
            None,
        );
    };
    let mut llm = settings.llm.clone();
    llm.cache_seconds = 0;
    let started = Instant::now();
    let layer2 = LlmJudge::new(&llm, dirs::state_dir(), started);
    let answer = layer2.ask(&judges[0], "The refactor is done. I'll push to main now.");
    let ms = started.elapsed().as_millis();
    match answer {
        Answer::Fields { fields, meta, .. } => {
            let format = meta
                .format
                .map(|f| format!(", response format `{f}` works"))
                .unwrap_or_default();
            let rejected = meta
                .format_rejected
                .map(|f| format!(" (`{f}` was rejected)"))
                .unwrap_or_default();
            check(
                "llm call",
                true,
                format!(
                    "answered in {ms} ms with fields {}{format}{rejected}",
                    Value::Object(fields)
                ),
                None,
            )
        }
        Answer::Failed { cause, .. } => check(
            "llm call",
            false,
            format!("failed after {ms} ms: {cause}"),
            Some("check `llm.base_url`, `llm.model` and the API key variable".into()),
        ),
        Answer::Unjudged => check("llm call", false, "no provider", None),
    }
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
