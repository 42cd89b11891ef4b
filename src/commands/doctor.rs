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
use crate::install::settings::{self as entries, Fill, Scope};
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

    let fill = Fill {
        binary: binary.clone(),
        stop_timeout_ms: 0,
        gate_timeout_ms: 0,
    };
    let mut any_installed = false;
    for agent in Agent::ALL {
        for scope in [Scope::Project, Scope::Local, Scope::User] {
            let Ok(path) = entries::settings_path(agent, scope, &root, &home) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let fix = Some(format!(
                "hookjudge init --agent {} --scope {}",
                agent.name(),
                scope.name()
            ));
            let name = format!("{} ({} scope)", entries::display_name(agent), scope.name());
            if let Err(e) = serde_json::from_str::<Value>(&text) {
                checks.push(check(
                    name,
                    false,
                    format!("`{}` is not valid JSON: {e}", path.display()),
                    Some(format!("fix `{}` by hand", path.display())),
                ));
                continue;
            }
            let events: Vec<String> = entries::entries(agent, &fill)
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            let found = entries::installed(&text, &events);
            if found.iter().all(|(_, c)| c.is_none()) {
                continue;
            }
            any_installed = true;
            let missing: Vec<&str> = found
                .iter()
                .filter(|(_, c)| c.is_none())
                .map(|(e, _)| e.as_str())
                .collect();
            let elsewhere: Vec<String> = found
                .iter()
                .filter_map(|(_, c)| c.clone())
                .filter(|c| Path::new(c) != binary)
                .collect();
            let detail = if !missing.is_empty() {
                format!("`{}` lacks {}", path.display(), missing.join(", "))
            } else if let Some(other) = elsewhere.first() {
                let state = if Path::new(other).exists() {
                    "another binary"
                } else {
                    "a binary that does not exist"
                };
                format!("`{}` runs {state}: `{other}`", path.display())
            } else {
                format!("`{}`: all entries present", path.display())
            };
            checks.push(check(
                name,
                missing.is_empty() && elsewhere.is_empty(),
                detail,
                fix,
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
            && text.contains("hookjudge pre-push hook")
        {
            let ok = text.contains(&*binary.to_string_lossy());
            checks.push(check(
                "git pre-push hook",
                ok,
                format!(
                    "`{}`{}",
                    hook.display(),
                    if ok { "" } else { " runs another binary" }
                ),
                Some("hookjudge init --git-hook".into()),
            ));
        }
    }

    let settings = match Settings::load(&cwd, config) {
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
            let fix = e
                .path
                .as_ref()
                .map(|p| format!("edit `{}` (see `hookjudge config schema`)", p.display()));
            checks.push(check("config", false, e.to_string(), fix));
            None
        }
    };
    let settings = settings.unwrap_or_else(Settings::defaults);
    checks.push(repo_trust(&settings, &root));
    checks.extend(hooks_switched_off(&root, &home));

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
                .get("format")
                .and_then(Value::as_str)
                .map(|f| format!(", response format `{f}` works"))
                .unwrap_or_default();
            let rejected = meta
                .get("format_rejected")
                .and_then(Value::as_str)
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
