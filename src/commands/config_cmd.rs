//! `hookjudge config show|check|path|schema`: the effective config with each value's source,
//! whether every file applies as written, the files consulted, and a JSON Schema for editors.

use std::io::{self, Write};
use std::path::Path;

use indexmap::IndexMap;
use serde_json::json;

use super::{ExitStatus, UserError};
use crate::cli::{ConfigArgs, ConfigCommand};
use crate::config::Settings;
use crate::config::schema::schema;
use crate::config::show::{effective, sourced};
use crate::config::trust::{Report, Standing};
use crate::install::plan::{SCHEMA_FILE, schema_text};

pub(super) fn config(args: &ConfigArgs, explicit: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let mut out = io::stdout().lock();
    let mut problems = Vec::new();
    let mut ignored = false;
    let result = match &args.command {
        ConfigCommand::Path => {
            let mut r = Ok(());
            for layer in Settings::layers(&cwd, explicit) {
                let state = if layer.path.exists() {
                    "found"
                } else {
                    "not found"
                };
                let (kind, path) = (layer.kind.label(), layer.path.display());
                r = r.and(writeln!(out, "{kind:<11} {path}  ({state})"));
            }
            r
        }
        ConfigCommand::Schema { write: false } => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&schema()).expect("schema serialises")
        ),
        ConfigCommand::Schema { write: true } => {
            let root = crate::support::paths::repo_root(&cwd).unwrap_or_else(|| cwd.clone());
            let path = root.join(SCHEMA_FILE);
            crate::install::files::write(&path, &schema_text(), false)?;
            writeln!(
                out,
                "wrote {} (git-ignored); point your editor's JSON schema setting for `{}` at it",
                path.display(),
                crate::config::REPO_FILE
            )
        }
        ConfigCommand::Check => {
            let settings = Settings::load(&cwd, explicit)?;
            problems = crate::config::check::problems(&settings);
            let mut r = Ok(());
            for layer in Settings::layers(&cwd, explicit) {
                let path = &layer.path;
                let state = match &settings.repo_report {
                    Some(report) if &report.path == path => {
                        if ignores(report) {
                            ignored = true;
                        }
                        report.message()
                    }
                    _ if settings.files.contains(path) => "applies".to_string(),
                    _ => continue,
                };
                r = r.and(writeln!(
                    out,
                    "{:<11} {}: {state}",
                    layer.kind.label(),
                    path.display()
                ));
            }
            if settings.files.is_empty() && settings.repo_report.is_none() {
                r = r.and(writeln!(
                    out,
                    "no config files; the built-in defaults apply"
                ));
            }
            r
        }
        ConfigCommand::Show { json } => {
            let settings = Settings::load(&cwd, explicit)?;
            problems = crate::config::check::problems(&settings);
            let sourced = sourced(&settings);
            if *json {
                let sources: IndexMap<&str, &Path> = sourced
                    .iter()
                    .filter_map(|(k, _, l)| Some((k.as_str(), l.as_ref()?.path.as_path())))
                    .collect();
                let effective = effective(&settings);
                writeln!(
                    out,
                    "{}",
                    json!({"effective": effective, "sources": sources, "files": settings.files})
                )
            } else {
                let mut r = Ok(());
                for (key, value, layer) in &sourced {
                    let from = match layer {
                        Some(layer) => layer.path.display().to_string(),
                        None => "default".into(),
                    };
                    r = r.and(writeln!(out, "{key} = {value}  ({from})"));
                }
                if let Some(report) = &settings.repo_report {
                    r = r.and(writeln!(out, "\nnote: {}", report.message()));
                }
                // A file ignored whole is not "shown": say so in the exit status too.
                ignored = settings
                    .repo_report
                    .as_ref()
                    .is_some_and(|r| r.standing == Standing::Unparsable);
                r
            }
        }
    };
    result.map_err(UserError::output)?;
    // The values are shown first, then what is wrong with them.
    if let Some(first) = problems.first() {
        let list: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
        return Err(UserError::new(format!(
            "the config has {} problem(s):\n{}",
            problems.len(),
            list.join("\n")
        ))
        .hint(first.hint()));
    }
    Ok(if ignored {
        ExitStatus::Attention
    } else {
        ExitStatus::Success
    })
}

/// Whether the repository file is not applied as written: ignored whole, or keys of it
/// ignored until it is trusted.
fn ignores(report: &Report) -> bool {
    report.standing == Standing::Unparsable || !report.ignored.is_empty()
}
