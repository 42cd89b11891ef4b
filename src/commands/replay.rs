//! `hookjudge replay`: re-judges logged texts under the current config and lists the decisions
//! that would change, so that a pattern or prompt edit can be checked against real traffic.
//!
//! Without an LLM (`--no-llm`, or none configured) only Layer 1 is compared: a trigger that
//! stays a trigger is no change, whatever the LLM said when it was logged. With an LLM, at most
//! `--jobs` responses are judged at once and progress goes to stderr.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde::Serialize;

use crate::log::{Record, StopRecord};

use super::{ExitStatus, UserError};
use crate::cli::ReplayArgs;
use crate::config::Settings;
use crate::judge::evaluate::{Layer2, NoLayer2, Panel, Verdict, evaluate};
use crate::judge::layer1::Signal;
use crate::llm::LlmJudge;
use crate::support::dirs;
use crate::support::term;
use crate::support::time::{Timestamp, Zone};

/// Progress lines while the LLM judges: one per this share of the work, in percent.
const PROGRESS_STEP_PERCENT: usize = 10;

/// One judge whose outcome on a logged text differs now, as `--json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Change {
    /// When the text was logged.
    ts: String,
    session: Option<String>,
    judge: String,
    before: String,
    after: String,
    /// The pattern that woke the judge now.
    pattern: Option<String>,
    text: String,
}

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
    let panel = settings.panel(&args.judges)?;
    let zone = Zone::from_utc_flag(args.utc);
    let read = super::read_log(&settings, args.since.as_deref(), zone)?;
    let with_text: Vec<&StopRecord> = read
        .records
        .iter()
        .filter_map(|r| match r {
            Record::Stop(stop) if stop.text.is_some() => Some(stop),
            _ => None,
        })
        .collect();
    let records = &with_text[with_text.len().saturating_sub(args.limit)..];
    let mut out = io::stdout().lock();
    if records.is_empty() {
        if !args.json {
            writeln!(
                out,
                "no logged response texts to replay in `{}`{}\n(texts are logged while `log.text` is true, the default)",
                settings.log_dir.display(),
                if args.since.is_some() { " in that period" } else { "" }
            )
            .map_err(UserError::output)?;
        }
        return Ok(ExitStatus::Success);
    }
    let llm_available = !args.no_llm
        && LlmJudge::new(&settings.llm, dirs::state_dir(), Instant::now())
            .resolution()
            .backend
            .is_some();
    let changes = if llm_available {
        rejudge_with_llm(records, &panel, &settings, usize::from(args.jobs))
    } else {
        records
            .iter()
            .flat_map(|r| changes(r, &panel, &NoLayer2, true))
            .collect()
    };
    let result = (|| -> io::Result<()> {
        if args.json {
            for c in &changes {
                let line = serde_json::to_string(c).map_err(io::Error::other)?;
                writeln!(out, "{line}")?;
            }
            return Ok(());
        }
        writeln!(
            out,
            "replayed {} logged responses with {} judge(s){}; {} outcome(s) changed",
            records.len(),
            panel.judges.len(),
            if llm_available {
                ""
            } else {
                " (no LLM: Layer 1 only)"
            },
            changes.len()
        )?;
        let width = term::width();
        for c in &changes {
            let time = Timestamp::parse(&c.ts).map_or_else(String::new, |t| t.minute_in(zone));
            let change = format!("{}: {} -> {}  {}", c.judge, c.before, c.after, c.text);
            let prefix = format!("  {time}  ");
            let room = width.saturating_sub(term::display_width(&prefix));
            writeln!(out, "{prefix}{}", term::truncate(&change, room))?;
        }
        Ok(())
    })();
    result.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

/// Re-judges `records` with the configured LLM, `jobs` at a time, reporting progress on
/// stderr. Changes come back in log order.
fn rejudge_with_llm(
    records: &[&StopRecord],
    panel: &Panel,
    settings: &Settings,
    jobs: usize,
) -> Vec<Change> {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Vec<Change>>> = Mutex::new(vec![Vec::new(); records.len()]);
    let total = records.len();
    let progress = Mutex::new(0usize);
    let _ = writeln!(
        io::stderr(),
        "replay: re-judging {total} responses with the LLM, {} at a time",
        jobs.min(total)
    );
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(total) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(record) = records.get(i) else {
                        break;
                    };
                    // One deadline per response, as the hook has.
                    let llm = LlmJudge::new(&settings.llm, dirs::state_dir(), Instant::now());
                    let found = changes(record, panel, &llm, false);
                    if let Ok(mut results) = results.lock() {
                        results[i] = found;
                    }
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    let step = finished * 100 / total / PROGRESS_STEP_PERCENT;
                    if let Ok(mut reported) = progress.lock()
                        && (step > *reported || finished == total)
                    {
                        *reported = step;
                        let _ = writeln!(
                            io::stderr(),
                            "replay: {finished}/{total} responses judged ({:.1} s)",
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// The outcomes of `record` that differ under `judges` now. `layer1_only` compares the
/// Layer 1 signals alone (the LLM's logged verdicts cannot be reproduced without one).
fn changes(
    record: &StopRecord,
    panel: &Panel,
    layer2: &dyn Layer2,
    layer1_only: bool,
) -> Vec<Change> {
    let text = record.text.as_deref().unwrap_or("");
    let evaluation = evaluate(text, panel, layer2);
    let mut changes = Vec::new();
    for outcome in &evaluation.outcomes {
        let old = record.judges.iter().find(|j| j.judge == outcome.judge);
        let old_signal = old.map_or("absent", |j| j.layer1.map_or("?", Signal::name));
        let old_summary = old.map_or_else(
            || "absent".into(),
            |j| summary(old_signal, j.verdict.map(Verdict::name)),
        );
        let signal = outcome.layer1.name();
        let (before, mut after) = if layer1_only {
            (old_signal.to_owned(), signal.to_owned())
        } else {
            (
                old_summary,
                summary(signal, outcome.verdict.map(Verdict::name)),
            )
        };
        if before != after {
            if outcome.verdict == Some(Verdict::Violation) {
                after.push_str(" (would block)");
            }
            changes.push(Change {
                ts: record.origin.ts.clone(),
                session: record.session.session.clone(),
                judge: outcome.judge.clone(),
                before,
                after,
                pattern: outcome.pattern.clone(),
                text: text.to_owned(),
            });
        }
    }
    changes
}
