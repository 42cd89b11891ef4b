//! `hookjudge stats`: summarises the decision log: outcomes per response, per judge, of Layer 2
//! and of the gate, and a per-day trend, each count saying what it counts.
//!
//! A response can wake several judges, so per-judge counts (judge runs) and per-response counts
//! (outcomes) differ; the text says which is which. Fail-opens are broken down by cause. The
//! counting is [`count`]'s, the text [`render`]'s; `--json` prints the counts as they are.

use std::io::{self, Write};
use std::path::Path;

use serde_json::json;

use super::repo_filter::{RepoFilter, Repositories};
use super::{ExitStatus, UserError};
use crate::cli::StatsArgs;
use crate::config::Settings;
use crate::support::time::Zone;

mod count;
mod render;

use count::{Counts, check_summary, gate_summary, layer2_summary};

/// Prints the summary.
pub(super) fn stats(args: &StatsArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let settings = Settings::load(&cwd, config)?;
    let filter = RepoFilter::choose(args.repo.as_deref(), &cwd)?;
    let zone = Zone::from_utc_flag(args.utc);
    let mut read = super::read_log(&settings, args.since.as_deref(), zone)?;
    let mut repos = Repositories::default();
    read.records.retain(|r| repos.keeps(&filter, r));
    let counts = Counts::of(&read.records, zone);
    let summary = json!({
        "responses": counts.stops.len(),
        "blocks": counts.responses("block"),
        "releases": counts.responses("release"),
        "fail_opens": counts.responses("fail-open"),
        "fail_open_causes": counts.fail_open_causes,
        "allowed": counts.responses("allow"),
        "judges": counts.per_judge,
        "layer2": layer2_summary(&counts.stops),
        "gate": gate_summary(&counts.gates),
        "checks": check_summary(&counts.checks),
        "days": counts.days,
        "zone": zone.label(),
        "log_dir": settings.log_dir,
        "bad_lines": read.bad_lines,
    });
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(out, "{summary}")
    } else {
        let where_logged = format!("`{}`{}", settings.log_dir.display(), filter.describe());
        render::write_text(&mut out, &counts, &summary, zone, &where_logged)
    };
    written.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}
