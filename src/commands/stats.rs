//! `hookjudge stats`: summarises the decision log, per judge and overall.

use std::io::{self, Write};
use std::path::Path;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Value, json};

use super::{ExitStatus, UserError};
use crate::cli::StatsArgs;
use crate::config::Settings;
use crate::time::{Timestamp, parse_since};

#[derive(Debug, Default, Serialize)]
struct JudgeStats {
    woken: usize,
    bypassed: usize,
    unjudged: usize,
    violations: usize,
    failures: usize,
    blocks: usize,
    released: usize,
}

/// Prints the summary.
pub(super) fn stats(args: &StatsArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let settings = Settings::load(&super::current_dir(), config)?;
    let since = args
        .since
        .as_deref()
        .map(|s| parse_since(s, Timestamp::now()))
        .transpose()
        .map_err(UserError::new)?;
    let read = crate::log::read(&settings.log_dir, since).map_err(|e| {
        UserError::new(format!(
            "cannot read the decision log in `{}`: {e}",
            settings.log_dir.display()
        ))
    })?;
    let stops: Vec<&Value> = read
        .records
        .iter()
        .filter(|r| r["kind"] == "stop")
        .collect();
    let count = |action: &str| stops.iter().filter(|r| r["action"] == action).count();
    let mut per_judge: IndexMap<String, JudgeStats> = IndexMap::new();
    for r in &stops {
        let released: Vec<&str> = r["released"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for j in r["judges"].as_array().into_iter().flatten() {
            let name = j["judge"].as_str().unwrap_or("?");
            let s = per_judge.entry(name.to_owned()).or_default();
            match j["layer1"].as_str() {
                Some("trigger") => s.woken += 1,
                Some("bypass") => s.bypassed += 1,
                _ => {}
            }
            match j["verdict"].as_str() {
                Some("unjudged") => s.unjudged += 1,
                Some("violation") => s.violations += 1,
                Some("fail") => s.failures += 1,
                _ => {}
            }
            s.blocks += usize::from(j["decision"] == "block");
            s.released += usize::from(released.contains(&name));
        }
    }
    let responses = stops.len();
    let summary = json!({
        "responses": responses,
        "blocks": count("block"),
        "releases": count("release"),
        "fail_opens": count("fail-open"),
        "allowed": count("allow"),
        "judges": per_judge,
        "log_dir": settings.log_dir,
        "bad_lines": read.bad_lines,
    });
    let mut out = io::stdout().lock();
    let result = (|| -> io::Result<()> {
        if args.json {
            return writeln!(out, "{summary}");
        }
        writeln!(
            out,
            "responses judged: {responses}   blocks: {}   loop-breaker releases: {}   fail-opens: {}",
            count("block"),
            count("release"),
            count("fail-open")
        )?;
        if responses == 0 {
            writeln!(
                out,
                "\nno Stop decisions logged in `{}` yet",
                settings.log_dir.display()
            )?;
            return Ok(());
        }
        writeln!(
            out,
            "\n{:<28} {:>7} {:>7} {:>7} {:>9} {:>9} {:>6} {:>7} {:>8}",
            "judge",
            "woken",
            "wake %",
            "bypass",
            "unjudged",
            "violation",
            "fail",
            "blocks",
            "released"
        )?;
        for (name, s) in &per_judge {
            writeln!(
                out,
                "{name:<28} {:>7} {:>6.1}% {:>7} {:>9} {:>9} {:>6} {:>7} {:>8}",
                s.woken,
                100.0 * s.woken as f64 / responses as f64,
                s.bypassed,
                s.unjudged,
                s.violations,
                s.failures,
                s.blocks,
                s.released
            )?;
        }
        Ok(())
    })();
    result.map_err(|e| UserError::new(format!("cannot write output: {e}")))?;
    Ok(ExitStatus::Success)
}
