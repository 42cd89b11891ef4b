//! `hookjudge config show|path|schema`: the effective config with each value's source, the files
//! consulted, and a JSON Schema for editors.

use std::io::{self, Write};
use std::path::Path;

use indexmap::IndexMap;
use serde_json::json;

use super::{ExitStatus, UserError};
use crate::cli::{ConfigArgs, ConfigCommand};
use crate::config::Settings;
use crate::config_schema::schema;
use crate::config_source::{effective, sourced};
use crate::install::plan::{SCHEMA_FILE, schema_text};

pub(super) fn config(args: &ConfigArgs, explicit: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let mut out = io::stdout().lock();
    let mut problems = Vec::new();
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
            let root = crate::config::repo_root(&cwd).unwrap_or_else(|| cwd.clone());
            let path = root.join(SCHEMA_FILE);
            crate::install::files::write(&path, &schema_text(), false)?;
            writeln!(
                out,
                "wrote {}; `\"$schema\": \"./{}\"` in `{}` points editors at it",
                path.display(),
                SCHEMA_FILE,
                crate::config::REPO_FILE
            )
        }
        ConfigCommand::Show { json } => {
            let settings = Settings::load(&cwd, explicit)?;
            problems = crate::config_check::problems(&settings);
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
    Ok(ExitStatus::Success)
}
