//! `hookjudge replay`: re-judges logged texts under the current config and lists the decisions
//! that would change, so that a pattern or prompt edit can be checked against real traffic.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{Value, json};

use super::{ExitStatus, UserError};
use crate::cli::ReplayArgs;
use crate::config::{Settings, dirs};
use crate::judge::evaluate::{Layer2, NoLayer2, Verdict, evaluate};
use crate::llm::LlmJudge;
use crate::time::Zone;

/// What a judge made of a text: its Layer 1 signal and whether it would block.
fn summary(signal: &str, verdict: Option<&str>) -> String {
    match verdict {
        Some(v) => format!("{signal}/{v}"),
        None => signal.to_owned(),
    }
}

/// Re-judges logged Stop texts and prints the differences.
pub(super) fn replay(args: &ReplayArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let settings = Settings::load(&super::current_dir(), config)?;
    let judges = settings.judges(&args.judges)?;
    let read = super::read_log(
        &settings,
        args.since.as_deref(),
        Zone::from_utc_flag(args.utc),
    )?;
    let with_text: Vec<&Value> = read
        .records
        .iter()
        .filter(|r| r["kind"] == "stop" && r["text"].is_string())
        .collect();
    let records = &with_text[with_text.len().saturating_sub(args.limit)..];
    if records.is_empty() {
        return Err(UserError::new(format!("no logged response texts to replay in `{}`", settings.log_dir.display()))
            .hint("texts are logged when `log.text` is true (the default); let the Stop hook run for a while first"));
    }
    let mut changes = Vec::new();
    for record in records {
        let text = record["text"].as_str().unwrap_or("");
        let llm = LlmJudge::new(&settings.llm, dirs::state_dir(), std::time::Instant::now());
        let layer2: &dyn Layer2 = if args.no_llm { &NoLayer2 } else { &llm };
        let evaluation = evaluate(text, &judges, layer2);
        for outcome in &evaluation.outcomes {
            let old = record["judges"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|j| j["judge"] == outcome.judge.as_str());
            let old_summary = old
                .map(|j| summary(j["layer1"].as_str().unwrap_or("?"), j["verdict"].as_str()))
                .unwrap_or_else(|| "absent".into());
            let verdict = outcome.verdict.map(|v| {
                serde_json::to_value(v)
                    .unwrap()
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            });
            let signal = serde_json::to_value(outcome.layer1)
                .unwrap()
                .as_str()
                .unwrap_or("")
                .to_owned();
            let mut new_summary = summary(&signal, verdict.as_deref());
            // Without the LLM, compare Layer 1 alone.
            let old_cmp = if args.no_llm {
                old.map(|j| j["layer1"].as_str().unwrap_or("?").to_owned())
                    .unwrap_or_else(|| "absent".into())
            } else {
                old_summary.clone()
            };
            let new_cmp = if args.no_llm {
                signal.clone()
            } else {
                new_summary.clone()
            };
            if old_cmp != new_cmp {
                if outcome.verdict == Some(Verdict::Violation) {
                    new_summary.push_str(" (would block)");
                }
                changes.push(json!({"ts": record["ts"], "session": record["session"], "judge": outcome.judge,
                    "before": old_summary, "after": new_summary, "pattern": outcome.pattern, "text": text}));
            }
        }
    }
    let mut out = io::stdout().lock();
    let result = (|| -> io::Result<()> {
        if args.json {
            for c in &changes {
                writeln!(out, "{c}")?;
            }
            return Ok(());
        }
        writeln!(
            out,
            "replayed {} logged responses with {} judge(s); {} outcome(s) changed",
            records.len(),
            judges.len(),
            changes.len()
        )?;
        for c in &changes {
            let text: String = c["text"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let text: String = text.chars().take(70).collect();
            writeln!(
                out,
                "  {}  {:<28} {} -> {}  {}",
                &c["ts"].as_str().unwrap_or("")[..19.min(c["ts"].as_str().unwrap_or("").len())],
                c["judge"].as_str().unwrap_or(""),
                c["before"].as_str().unwrap_or(""),
                c["after"].as_str().unwrap_or(""),
                text
            )?;
        }
        Ok(())
    })();
    result.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}
