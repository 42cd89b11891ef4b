//! The doctor's checks of the config: every layer loads and every judge builds, and whether
//! the repository's config applies as written.

use std::path::Path;

use super::report::{Check, check, info};
use crate::config::trust::Standing;
use crate::config::{self, Settings};

/// The config's checks, and the settings the other checks use (the defaults when the config
/// cannot be used).
pub(super) fn config_checks(cwd: &Path, config: Option<&Path>) -> (Vec<Check>, Settings) {
    let mut checks = Vec::new();
    let settings = match Settings::load(cwd, config) {
        Ok(s) if !crate::config::check::problems(&s).is_empty() => {
            let problems = crate::config::check::problems(&s);
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
            let fix = Some(super::super::config_fix(&e));
            checks.push(check("config", false, e.to_string(), fix));
            None
        }
    };
    let settings = settings.unwrap_or_else(Settings::defaults);
    (checks, settings)
}

/// Whether the repository's config applies as written, and if not, what is ignored.
pub(super) fn repo_trust(settings: &Settings, root: &Path) -> Check {
    let file = root.join(config::REPO_FILE);
    match &settings.repo_report {
        // Nothing in it can weaken hookjudge, so all of it applies: worth knowing, not a fault.
        Some(report) if report.ignored.is_empty() && report.standing != Standing::Unparsable => {
            info(
                "repository config",
                format!(
                    "`{}` is not trusted here, and all of it applies: nothing in it can weaken hookjudge",
                    file.display()
                ),
            )
        }
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
