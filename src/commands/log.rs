//! `hookjudge log`: recent decisions from the decision log, as a table sized to the terminal or
//! as JSON lines.
//!
//! Times are local unless `--utc`; outcomes use the words of [`crate::outcome`]; a fail-open
//! row is followed by its cause, so "see `hookjudge log`" in a hook message leads somewhere.

use std::io::{self, Write};
use std::path::Path;

use super::{ExitStatus, UserError};
use crate::cli::LogArgs;
use crate::config::Settings;
use crate::judge::evaluate::Verdict;
use crate::judge::layer1::Signal;
use crate::log::Record;
use crate::outcome;
use crate::term::{self, cell};
use crate::time::{Timestamp, Zone};

/// Column widths of the fixed columns: time (`YYYY-MM-DD HH:MM`), agent, outcome.
const TIME_WIDTH: usize = 16;
const AGENT_WIDTH: usize = 6;
const OUTCOME_WIDTH: usize = 9;
const GAP: &str = "  ";
/// The "judges woken" column takes what its cells need, between these bounds, and at most
/// two fifths of the flexible space; the text takes the rest.
const WOKEN_MIN: usize = 12;
const WOKEN_MAX: usize = 34;

/// Shows recent decisions, newest last.
pub(super) fn log(args: &LogArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let settings = Settings::load(&super::current_dir(), config)?;
    let zone = Zone::from_utc_flag(args.utc);
    let read = super::read_log(&settings, args.since.as_deref(), zone)?;
    let selected: Vec<&Record> = read.records.iter().filter(|r| keep(r, args)).collect();
    let shown = &selected[selected.len().saturating_sub(args.limit)..];
    let mut out = io::stdout().lock();
    let result = (|| -> io::Result<()> {
        if args.json {
            for r in shown {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(r).map_err(io::Error::other)?
                )?;
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
        let table = Table::new(term::width(), shown.iter().map(|r| woken(r)));
        writeln!(out, "{}", table.header(zone))?;
        for r in shown {
            for line in table.rows(r, zone) {
                writeln!(out, "{line}")?;
            }
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

fn keep(r: &Record, args: &LogArgs) -> bool {
    if args.blocks && !matches!(outcome::of(r), "block" | "release" | "deny" | "ask") {
        return false;
    }
    if let Some(judge) = &args.judge {
        let woke = r
            .judges()
            .iter()
            .any(|j| j.judge == *judge && j.layer1 != Some(Signal::Quiet));
        if !woke {
            return false;
        }
    }
    true
}

/// Verdicts in the order they are listed in the "judges woken" cell: what explains the
/// outcome first, so that a cut cell still shows it.
const VERDICT_ORDER: [&str; 4] = ["violation", "fail", "unjudged", "allow"];

/// The "judges woken" cell: each woken judge with its verdict, or for the gate each class
/// found with what was decided for it.
fn woken(r: &Record) -> String {
    let mut judged: Vec<(usize, String)> = r
        .judges()
        .iter()
        .filter(|j| j.woke())
        .map(|j| {
            let verdict = j
                .verdict
                .map(Verdict::name)
                .unwrap_or(j.layer1.map_or("?", Signal::name));
            let rank = VERDICT_ORDER
                .iter()
                .position(|v| *v == verdict)
                .unwrap_or(VERDICT_ORDER.len());
            (rank, format!("{}:{verdict}", j.judge))
        })
        .collect();
    judged.sort_by_key(|(rank, _)| *rank);
    let mut woken: Vec<String> = judged.into_iter().map(|(_, cell)| cell).collect();
    woken.extend(
        r.rulings()
            .iter()
            .map(|x| format!("{}:{}", x.class.name(), outcome::word(x.decision.name()))),
    );
    if woken.is_empty() {
        "-".to_string()
    } else {
        woken.join(",")
    }
}

/// The table's layout for one terminal width.
struct Table {
    width: usize,
    woken: usize,
    text: usize,
}

impl Table {
    fn new(width: usize, cells: impl Iterator<Item = String>) -> Table {
        let fixed = TIME_WIDTH + AGENT_WIDTH + OUTCOME_WIDTH + 4 * GAP.len();
        let flexible = width.saturating_sub(fixed);
        let needed = cells.map(|c| term::display_width(&c)).max().unwrap_or(0);
        let woken = needed
            .clamp(WOKEN_MIN, WOKEN_MAX)
            .min((flexible * 2 / 5).max(WOKEN_MIN));
        Table {
            width,
            woken,
            text: flexible.saturating_sub(woken).max(1),
        }
    }

    fn header(&self, zone: Zone) -> String {
        let time = format!("time ({})", zone.label());
        self.line(&time, "agent", "outcome", "judges woken", "text")
    }

    fn line(&self, time: &str, agent: &str, outcome: &str, woken: &str, text: &str) -> String {
        let line = [
            cell(time, TIME_WIDTH),
            cell(agent, AGENT_WIDTH),
            cell(outcome, OUTCOME_WIDTH),
            cell(woken, self.woken),
            term::truncate(text, self.text),
        ]
        .join(GAP);
        line.trim_end().to_owned()
    }

    /// The record's row, and for a fail-open the line with its cause.
    fn rows(&self, r: &Record, zone: Zone) -> Vec<String> {
        let ts = r.ts();
        let time = Timestamp::parse(ts).map_or_else(|| ts.to_owned(), |t| t.minute_in(zone));
        let text = r.subject();
        let mut rows = vec![self.line(
            &time,
            r.agent().unwrap_or("-"),
            outcome::of(r),
            &woken(r),
            text,
        )];
        if let Some((cause, detail)) = outcome::fail_open_cause(r) {
            let indent = " ".repeat(TIME_WIDTH + GAP.len());
            let because = format!("because ({cause}) {detail}");
            let room = self.width.saturating_sub(indent.len());
            rows.push(format!("{indent}{}", term::truncate(&because, room)));
        }
        rows
    }
}
