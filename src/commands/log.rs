//! `hookjudge log`: recent decisions from the decision log, as a table or as JSON lines.

use std::io::{self, Write};
use std::path::Path;

use serde_json::Value;

use super::{ExitStatus, UserError};
use crate::cli::LogArgs;
use crate::config::Settings;

/// Shows recent decisions, newest last.
pub(super) fn log(args: &LogArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let settings = Settings::load(&super::current_dir(), config)?;
    let read = super::read_log(&settings, args.since.as_deref())?;
    let selected: Vec<&Value> = read.records.iter().filter(|r| keep(r, args)).collect();
    let shown = &selected[selected.len().saturating_sub(args.limit)..];
    let mut out = io::stdout().lock();
    let result = (|| -> io::Result<()> {
        if args.json {
            for r in shown {
                writeln!(out, "{r}")?;
            }
            return Ok(());
        }
        if shown.is_empty() {
            writeln!(
                out,
                "no decisions logged in `{}`{}",
                settings.log_dir.display(),
                if args.since.is_some() {
                    " in that period"
                } else {
                    ""
                }
            )?;
            return Ok(());
        }
        writeln!(
            out,
            "{:<19}  {:<6}  {:<9}  {:<34}  text",
            "time (UTC)", "agent", "action", "judges woken"
        )?;
        for r in shown {
            writeln!(out, "{}", row(r))?;
        }
        if selected.len() > shown.len() {
            writeln!(
                out,
                "({} earlier decisions not shown; use `-n` or `--since`)",
                selected.len() - shown.len()
            )?;
        }
        Ok(())
    })();
    if read.bad_lines > 0 {
        let _ = writeln!(
            io::stderr(),
            "warning: skipped {} unreadable log lines",
            read.bad_lines
        );
    }
    result.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

fn keep(r: &Value, args: &LogArgs) -> bool {
    if args.blocks
        && !matches!(
            r["action"].as_str(),
            Some("block" | "release" | "deny" | "ask")
        )
    {
        return false;
    }
    if let Some(judge) = &args.judge {
        let woke = judges(r)
            .any(|j| j["judge"].as_str() == Some(judge) && j["layer1"].as_str() != Some("quiet"));
        if !woke {
            return false;
        }
    }
    true
}

fn judges(r: &Value) -> impl Iterator<Item = &Value> {
    r["judges"].as_array().into_iter().flatten()
}

fn row(r: &Value) -> String {
    let ts = r["ts"].as_str().unwrap_or("");
    let time = ts.get(..19).unwrap_or(ts).replace('T', " ");
    let mut woken: Vec<String> = judges(r)
        .filter(|j| j["layer1"].as_str() != Some("quiet") || j["verdict"].as_str() == Some("fail"))
        .map(|j| {
            format!(
                "{}:{}",
                j["judge"].as_str().unwrap_or("?"),
                j["verdict"]
                    .as_str()
                    .unwrap_or(j["layer1"].as_str().unwrap_or("?"))
            )
        })
        .collect();
    // Gate records: the classes found and what was decided for each.
    woken.extend(r["rulings"].as_array().into_iter().flatten().map(|x| {
        format!(
            "{}:{}",
            x["class"].as_str().unwrap_or("?"),
            x["decision"].as_str().unwrap_or("?")
        )
    }));
    let woken = if woken.is_empty() {
        "-".to_string()
    } else {
        woken.join(",")
    };
    let text: String = r["text"]
        .as_str()
        .or(r["command"].as_str())
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let text = if text.chars().count() > 60 {
        format!("{}…", text.chars().take(59).collect::<String>())
    } else {
        text
    };
    format!(
        "{time:<19}  {:<6}  {:<9}  {:<34}  {text}",
        r["agent"].as_str().unwrap_or("-"),
        r["action"].as_str().unwrap_or("-"),
        woken
    )
}
