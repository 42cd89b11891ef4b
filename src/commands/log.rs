//! `hookjudge log`: recent decisions from the decision log, as a table sized to the terminal or
//! as JSON lines.
//!
//! Times are local unless `--utc`; outcomes use the words of [`crate::log::outcome`]; a fail-open
//! row is followed by its cause, so "see `hookjudge log`" in a hook message leads somewhere.

use std::io::{self, Write};
use std::path::Path;

use super::repo_filter::{RepoFilter, Repositories, short_name};
use super::{ExitStatus, UserError};
use crate::cli::LogArgs;
use crate::config::Settings;
use crate::gate::classify::Class;
use crate::gate::policy::{DecidedBy, Decision};
use crate::judge::evaluate::Verdict;
use crate::judge::layer1::Signal;
use crate::log::cause::Cause;
use crate::log::outcome;
use crate::log::{Record, RulingEntry};
use crate::support::term::{self, cell};
use crate::support::time::{Timestamp, Zone};

/// Column widths of the fixed columns: time (`YYYY-MM-DD HH:MM`), repository, agent, outcome.
/// The repository column is shown when rows may come from several repositories and the
/// terminal has room for it.
const TIME_WIDTH: usize = 16;
const REPO_WIDTH: usize = 12;
const REPO_MIN_TERMINAL: usize = 72;
const AGENT_WIDTH: usize = 6;
const OUTCOME_WIDTH: usize = 9;
const GAP: &str = "  ";
/// The "judges woken" column takes what its cells need, between these bounds, and at most
/// two fifths of the flexible space; the text takes the rest.
const WOKEN_MIN: usize = 12;
const WOKEN_MAX: usize = 34;

/// Shows recent decisions, newest last.
pub(super) fn log(args: &LogArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let settings = Settings::load(&cwd, config)?;
    let filter = RepoFilter::choose(args.repo.as_deref(), &cwd)?;
    let zone = Zone::from_utc_flag(args.utc);
    let read = super::read_log(&settings, args.since.as_deref(), zone)?;
    if let Some(name) = &args.judge {
        known_judge(name, &settings, &read.records)?;
    }
    let mut repos = Repositories::default();
    let selected: Vec<&Record> = read
        .records
        .iter()
        .filter(|r| keep(r, args) && repos.keeps(&filter, r))
        .collect();
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
                "no decisions logged in `{}`{}{}",
                settings.log_dir.display(),
                filter.describe(),
                if args.since.is_some() {
                    " in that period"
                } else {
                    ""
                }
            )?;
            return Ok(());
        }
        let several = matches!(filter, RepoFilter::All);
        let table = Table::new(term::width(), several, shown.iter().map(|r| woken(r)));
        writeln!(out, "{}", table.header(zone))?;
        for r in shown {
            let repo = short_name(repos.of(r).as_deref());
            for line in table.rows(r, &repo, zone) {
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

/// `name` is a judge of the config or of the log; otherwise the error lists the config's
/// judges, with the closest name.
fn known_judge(name: &str, settings: &Settings, records: &[Record]) -> Result<(), UserError> {
    let logged = || {
        records
            .iter()
            .flat_map(Record::judges)
            .any(|j| j.judge == name)
    };
    match settings.judges(&[name.to_owned()]) {
        Ok(_) => Ok(()),
        Err(_) if logged() => Ok(()),
        Err(e) => {
            let known: Vec<String> = settings
                .judges(&[])
                .map(|js| js.into_iter().map(|j| j.name).collect())
                .unwrap_or_default();
            let hint =
                match crate::support::suggest::closest(name, known.iter().map(String::as_str)) {
                    Some(close) => format!("did you mean `--judge {close}`?"),
                    None => "`hookjudge config show` lists the judges".to_string(),
                };
            Err(UserError::from(e).hint(hint))
        }
    }
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

/// The "judges woken" cell of a Stop record: each woken judge with its verdict ("-" for the
/// gate's and `check`'s records, whose classes lead their text instead).
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
    let woken: Vec<String> = judged.into_iter().map(|(_, cell)| cell).collect();
    if woken.is_empty() {
        "-".to_string()
    } else {
        woken.join(",")
    }
}

/// The text column: the judged response, or the command led by the classes found in it and
/// what was decided for each (`push:deny git push origin main`), with why an allowed one ran
/// when that is worth telling apart (`push:allow (approved) git push origin main`).
fn subject(r: &Record) -> String {
    let classes: Vec<String> = r
        .rulings()
        .iter()
        .map(|x| {
            let word = outcome::word(x.decision.name());
            match allowed_because(x) {
                Some(why) => format!("{}:{word} ({why})", x.class.name()),
                None => format!("{}:{word}", x.class.name()),
            }
        })
        .collect();
    if classes.is_empty() {
        r.subject().to_owned()
    } else {
        format!("{} {}", classes.join(","), r.subject())
    }
}

/// Why a command the gate let run ran, when it is not the plain case (nothing objected): the
/// user approved it with `hookjudge approve`, or a push had nothing to publish.
fn allowed_because(ruling: &RulingEntry) -> Option<&'static str> {
    if ruling.decision != Decision::Silent {
        return None;
    }
    match ruling.decided_by? {
        DecidedBy::Approval => Some("approved"),
        DecidedBy::Facts if ruling.class == Class::Push && publishes_nothing(&ruling.facts) => {
            Some("nothing to push")
        }
        _ => None,
    }
}

/// Whether a push's logged refs send no commit the remote lacks.
fn publishes_nothing(facts: &serde_json::Value) -> bool {
    facts["refs"]
        .as_array()
        .is_some_and(|refs| refs.iter().all(|r| r["ahead"]["count"].as_u64() == Some(0)))
}

/// The table's layout for one terminal width.
struct Table {
    width: usize,
    /// 0 when the repository column is not shown.
    repo: usize,
    woken: usize,
    text: usize,
}

impl Table {
    fn new(width: usize, several_repos: bool, cells: impl Iterator<Item = String>) -> Table {
        let repo = if several_repos && width >= REPO_MIN_TERMINAL {
            REPO_WIDTH
        } else {
            0
        };
        let repo_gap = if repo > 0 { GAP.len() } else { 0 };
        let fixed = TIME_WIDTH + repo + repo_gap + AGENT_WIDTH + OUTCOME_WIDTH + 4 * GAP.len();
        let flexible = width.saturating_sub(fixed);
        let needed = cells.map(|c| term::display_width(&c)).max().unwrap_or(0);
        let woken = needed
            .clamp(WOKEN_MIN, WOKEN_MAX)
            .min((flexible * 2 / 5).max(WOKEN_MIN));
        Table {
            width,
            repo,
            woken,
            text: flexible.saturating_sub(woken).max(1),
        }
    }

    fn header(&self, zone: Zone) -> String {
        let time = format!("time ({})", zone.label());
        self.line([
            &time,
            "repository",
            "agent",
            "outcome",
            "judges woken",
            "text",
        ])
    }

    /// One line: time, repository, agent, outcome, judges woken, text.
    fn line(&self, [time, repo, agent, outcome, woken, text]: [&str; 6]) -> String {
        let mut cells = vec![cell(time, TIME_WIDTH)];
        if self.repo > 0 {
            cells.push(cell(repo, self.repo));
        }
        cells.extend([
            cell(agent, AGENT_WIDTH),
            cell(outcome, OUTCOME_WIDTH),
            cell(woken, self.woken),
            term::truncate(text, self.text),
        ]);
        let line = cells.join(GAP);
        line.trim_end().to_owned()
    }

    /// The record's row, and for a fail-open the line with its cause.
    fn rows(&self, r: &Record, repo: &str, zone: Zone) -> Vec<String> {
        let ts = r.ts();
        let time = Timestamp::parse(ts).map_or_else(|| ts.to_owned(), |t| t.minute_in(zone));
        let text = subject(r);
        let mut rows = vec![self.line([
            &time,
            repo,
            r.agent().unwrap_or("-"),
            outcome::of(r),
            &woken(r),
            &text,
        ])];
        if let Some((cause, detail)) = Cause::of(r) {
            let indent = " ".repeat(TIME_WIDTH + GAP.len());
            let because = format!("because ({}) {detail}", cause.label());
            let room = self.width.saturating_sub(indent.len());
            rows.push(format!("{indent}{}", term::truncate(&because, room)));
        }
        rows
    }
}
