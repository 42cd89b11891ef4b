//! `hookjudge stats`: summarises the decision log: outcomes per response, per judge, of Layer 2
//! and of the gate, and a per-day trend, each count saying what it counts.
//!
//! A response can wake several judges, so per-judge counts (judge runs) and per-response counts
//! (outcomes) differ; the text says which is which. Fail-opens are broken down by cause.

use std::io::{self, Write};
use std::path::Path;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Value, json};

use super::repo_filter::{RepoFilter, Repositories};
use super::{ExitStatus, UserError};
use crate::cli::StatsArgs;
use crate::config::Settings;
use crate::gate::policy::DecidedBy;
use crate::judge::evaluate::{CacheUse, Decision, Verdict};
use crate::judge::layer1::Signal;
use crate::log::Record;
use crate::log::outcome;
use crate::support::term;
use crate::support::time::{Timestamp, Zone};

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

/// One day of the trend (a day in the zone the user reads times in).
#[derive(Debug, Default, Serialize)]
struct Day {
    day: String,
    /// Stop decisions.
    responses: usize,
    /// Responses in which at least one judge's trigger matched.
    woken: usize,
    blocks: usize,
    fail_opens: usize,
    /// Gated commands, and what the gate did with them.
    gated: usize,
    gate_allow: usize,
    gate_deny: usize,
    gate_ask: usize,
}

/// At most this many days are listed in the trend (the most recent).
const MAX_TREND_DAYS: usize = 62;

/// Per-judge columns after the name: header, width, and what the column counts.
const JUDGE_COLUMNS: [(&str, usize); 7] = [
    ("woken", 5),
    ("wake%", 6),
    ("bypass", 6),
    ("unjudged", 8),
    ("fail", 5),
    ("blocks", 6),
    ("release", 7),
];

/// Prints the summary.
pub(super) fn stats(args: &StatsArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let settings = Settings::load(&cwd, config)?;
    let filter = RepoFilter::choose(args.repo.as_deref(), &cwd)?;
    let zone = Zone::from_utc_flag(args.utc);
    let mut read = super::read_log(&settings, args.since.as_deref(), zone)?;
    let mut repos = Repositories::default();
    read.records.retain(|r| repos.keeps(&filter, r));
    let stops: Vec<&Record> = read
        .records
        .iter()
        .filter(|r| matches!(r, Record::Stop(_)))
        .collect();
    let checks: Vec<&Record> = read
        .records
        .iter()
        .filter(|r| matches!(r, Record::Check(_)))
        .collect();
    let count = |word: &str| stops.iter().filter(|r| outcome::of(r) == word).count();
    let mut per_judge: IndexMap<String, JudgeStats> = IndexMap::new();
    for r in &stops {
        let released: &[String] = match r {
            Record::Stop(stop) => &stop.released,
            _ => &[],
        };
        for j in r.judges() {
            let s = per_judge.entry(j.judge.clone()).or_default();
            match j.layer1 {
                Some(Signal::Trigger) => s.woken += 1,
                Some(Signal::Bypass) => s.bypassed += 1,
                Some(Signal::Quiet) | None => {}
            }
            match j.verdict {
                Some(Verdict::Unjudged) => s.unjudged += 1,
                Some(Verdict::Violation) => s.violations += 1,
                Some(Verdict::Fail) => s.failures += 1,
                Some(Verdict::Allow) | None => {}
            }
            s.blocks += usize::from(j.decision == Decision::Block);
            s.released += usize::from(released.contains(&j.judge));
        }
    }
    let mut fail_open_causes: IndexMap<&str, usize> = IndexMap::new();
    for (cause, _) in stops.iter().filter_map(|r| outcome::fail_open_cause(r)) {
        *fail_open_causes.entry(cause).or_default() += 1;
    }
    fail_open_causes.sort_by(|_, a, _, b| b.cmp(a));
    let responses = stops.len();
    let layer2 = layer2_summary(&stops);
    let gates: Vec<&Record> = read
        .records
        .iter()
        .filter(|r| matches!(r, Record::Gate(_)))
        .collect();
    let gate = gate_summary(&gates);
    let days = trend(&read.records, zone);
    let summary = json!({
        "responses": responses,
        "blocks": count("block"),
        "releases": count("release"),
        "fail_opens": count("fail-open"),
        "fail_open_causes": fail_open_causes,
        "allowed": count("allow"),
        "judges": per_judge,
        "layer2": layer2,
        "gate": gate,
        "checks": check_summary(&checks),
        "days": days,
        "zone": zone.label(),
        "log_dir": settings.log_dir,
        "bad_lines": read.bad_lines,
    });
    let mut out = io::stdout().lock();
    let result = (|| -> io::Result<()> {
        if args.json {
            return writeln!(out, "{summary}");
        }
        let width = term::width();
        let period = match (days.first(), days.last()) {
            (Some(first), Some(last)) => {
                format!(", {} to {} ({})", first.day, last.day, zone.label())
            }
            _ => String::new(),
        };
        say(
            &mut out,
            width,
            &format!(
                "{responses} responses judged, {} gated commands, {} checks{period}",
                gates.len(),
                checks.len()
            ),
        )?;
        if read.records.is_empty() {
            say(
                &mut out,
                width,
                &format!(
                    "no decisions logged in `{}`{} yet",
                    settings.log_dir.display(),
                    filter.describe()
                ),
            )?;
            return Ok(());
        }
        if responses > 0 {
            say(&mut out, width, "")?;
            say(
                &mut out,
                width,
                &format!("Stop hook, per response ({responses}):"),
            )?;
            let causes: Vec<String> = fail_open_causes
                .iter()
                .map(|(cause, n)| format!("{n} {cause}"))
                .collect();
            for (word, meaning, _) in &outcome::OUTCOMES[..4] {
                let mut line = format!("  {word:<9} {:>6}  {meaning}", count(word));
                if *word == "fail-open" && !causes.is_empty() {
                    line.push_str(&format!("; by cause: {}", causes.join(", ")));
                }
                for line in term::wrap(&line, width, &" ".repeat(19)) {
                    writeln!(out, "{line}")?;
                }
            }
            write_judges(&mut out, width, &per_judge, responses)?;
        }
        let l2 = &summary["layer2"];
        if l2["calls"].as_u64().unwrap_or(0) + l2["cache_hits"].as_u64().unwrap_or(0) > 0 {
            say(&mut out, width, "")?;
            let ms = |v: &Value| v.as_u64().map_or("-".into(), |v| format!("{v} ms"));
            say(
                &mut out,
                width,
                &format!(
                    "Layer 2 (LLM): {} calls ({:.1} per 100 responses), {} answered from the cache",
                    l2["calls"],
                    l2["calls_per_100_responses"].as_f64().unwrap_or(0.0),
                    l2["cache_hits"],
                ),
            )?;
            if let Some(tokens) = l2["prompt_tokens_per_call"].as_f64() {
                let estimated = if l2["prompt_tokens_estimated"] == true {
                    " (some estimated as bytes / 4: the provider reported no usage)"
                } else {
                    ""
                };
                say(
                    &mut out,
                    width,
                    &format!("  {tokens:.0} prompt tokens per call{estimated}"),
                )?;
            }
            say(
                &mut out,
                width,
                &format!(
                    "  latency p50 {}, p95 {}; adds {:.1} ms per response on average",
                    ms(&l2["latency_ms_p50"]),
                    ms(&l2["latency_ms_p95"]),
                    l2["mean_added_ms_per_response"].as_f64().unwrap_or(0.0)
                ),
            )?;
            if let Some(failures) = l2["failures"].as_object().filter(|f| !f.is_empty()) {
                let list: Vec<String> = failures.iter().map(|(k, v)| format!("{v} {k}")).collect();
                say(
                    &mut out,
                    width,
                    &format!("  failed calls by cause: {}", list.join(", ")),
                )?;
            }
        }
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        let g = &summary["gate"];
        if g["commands"].as_u64().unwrap_or(0) > 0 {
            say(&mut out, width, "")?;
            say(
                &mut out,
                width,
                &format!(
                    "Gate, per gated command ({}): {} allow, {} deny, {} ask",
                    g["commands"], g["allow"], g["deny"], g["ask"]
                ),
            )?;
            say(
                &mut out,
                width,
                &format!(
                    "  {:<14} {:>6} {:>6} {:>6} {:>6}",
                    "class", "seen", "allow", "deny", "ask"
                ),
            )?;
            for (class, c) in g["classes"].as_object().into_iter().flatten() {
                say(
                    &mut out,
                    width,
                    &format!(
                        "  {} {:>6} {:>6} {:>6} {:>6}",
                        term::cell(class, 14),
                        n(&c["seen"]),
                        n(&c["allow"]),
                        n(&c["deny"]),
                        n(&c["ask"])
                    ),
                )?;
            }
            let by: Vec<String> = g["decided_by"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{v} {k}"))
                .collect();
            say(
                &mut out,
                width,
                &format!("  decided by (per class found): {}", by.join(", ")),
            )?;
        }
        let c = &summary["checks"];
        if !checks.is_empty() {
            say(&mut out, width, "")?;
            say(
                &mut out,
                width,
                &format!(
                    "`hookjudge check` and the pre-push hook ({}): {} allow, {} deny, {} ask; {} went ahead",
                    checks.len(),
                    c["allow"],
                    c["deny"],
                    c["ask"],
                    c["proceeded"]
                ),
            )?;
        }
        if !days.is_empty() {
            say(&mut out, width, "")?;
            write_trend(&mut out, &days, zone)?;
        }
        Ok(())
    })();
    result.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

/// Writes `text` wrapped to the terminal, continuation lines indented.
fn say(out: &mut dyn Write, width: usize, text: &str) -> io::Result<()> {
    for line in term::wrap(text, width, "    ") {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The per-judge table, the name column sized to the terminal, and what each column counts.
fn write_judges(
    out: &mut dyn Write,
    width: usize,
    per_judge: &IndexMap<String, JudgeStats>,
    responses: usize,
) -> io::Result<()> {
    let numbers: usize = JUDGE_COLUMNS.iter().map(|(_, w)| w + 1).sum();
    let longest = per_judge
        .keys()
        .map(|n| term::display_width(n))
        .max()
        .unwrap_or(5);
    let name_width = longest.clamp(5, width.saturating_sub(numbers).max(5));
    writeln!(
        out,
        "\nJudges, per judge run (a response can wake several):"
    )?;
    let mut header = term::cell("judge", name_width);
    for (title, w) in JUDGE_COLUMNS {
        header.push_str(&format!(" {title:>w$}"));
    }
    writeln!(out, "{header}")?;
    for (name, s) in per_judge {
        let wake = format!("{:.1}%", 100.0 * s.woken as f64 / responses.max(1) as f64);
        let values = [
            s.woken.to_string(),
            wake,
            s.bypassed.to_string(),
            s.unjudged.to_string(),
            s.failures.to_string(),
            s.blocks.to_string(),
            s.released.to_string(),
        ];
        let mut row = term::cell(name, name_width);
        for ((_, w), v) in JUDGE_COLUMNS.iter().zip(values) {
            row.push_str(&format!(" {v:>w$}"));
        }
        writeln!(out, "{row}")?;
    }
    for line in term::wrap(
        "woken: a trigger matched, so the LLM was asked; bypass: a bypass matched too; unjudged: woken but no LLM configured; fail: judging failed; blocks: violations sent to the agent as a block; release: violations the loop breaker let through",
        width,
        "  ",
    ) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The per-day table.
fn write_trend(out: &mut dyn Write, days: &[Day], zone: Zone) -> io::Result<()> {
    let shown = &days[days.len().saturating_sub(MAX_TREND_DAYS)..];
    writeln!(
        out,
        "Per day ({}): responses, those that woke a judge, outcomes; gated commands",
        zone.label()
    )?;
    writeln!(
        out,
        "{:<10} {:>9} {:>6} {:>6} {:>9}  {:>5} {:>5} {:>5} {:>5}",
        "day", "responses", "woken", "blocks", "fail-open", "gated", "allow", "deny", "ask"
    )?;
    for d in shown {
        writeln!(
            out,
            "{:<10} {:>9} {:>6} {:>6} {:>9}  {:>5} {:>5} {:>5} {:>5}",
            d.day,
            d.responses,
            d.woken,
            d.blocks,
            d.fail_opens,
            d.gated,
            d.gate_allow,
            d.gate_deny,
            d.gate_ask
        )?;
    }
    if shown.len() < days.len() {
        writeln!(
            out,
            "({} earlier days not shown; use `--since` or `--json`)",
            days.len() - shown.len()
        )?;
    }
    Ok(())
}

/// Counts per day in `zone`, every day from the first record's to the last's (quiet days
/// included, so that a trend shows as one).
fn trend(records: &[Record], zone: Zone) -> Vec<Day> {
    let mut by_day: IndexMap<String, Day> = IndexMap::new();
    for r in records {
        let Some(ts) = Timestamp::parse(r.ts()) else {
            continue;
        };
        let day = ts.day_in(zone);
        let d = by_day.entry(day.clone()).or_insert_with(|| Day {
            day,
            ..Day::default()
        });
        match r {
            Record::Stop(stop) => {
                d.responses += 1;
                d.woken += usize::from(
                    stop.judges
                        .iter()
                        .any(|j| j.layer1 == Some(Signal::Trigger)),
                );
                d.blocks += usize::from(outcome::of(r) == "block");
                d.fail_opens += usize::from(outcome::of(r) == "fail-open");
            }
            Record::Gate(_) => {
                d.gated += 1;
                match outcome::of(r) {
                    "allow" => d.gate_allow += 1,
                    "deny" => d.gate_deny += 1,
                    "ask" => d.gate_ask += 1,
                    _ => {}
                }
            }
            Record::Check(_) => {}
        }
    }
    by_day.sort_keys();
    let (Some(first), Some(last)) = (
        by_day.first().map(|(k, _)| k.clone()),
        by_day.last().map(|(k, _)| k.clone()),
    ) else {
        return Vec::new();
    };
    let mut days = Vec::new();
    let mut day = first;
    while day <= last {
        let next = Timestamp::next_day(&day);
        days.push(by_day.shift_remove(&day).unwrap_or_else(|| Day {
            day: day.clone(),
            ..Day::default()
        }));
        match next {
            Some(next) => day = next,
            None => break,
        }
    }
    days
}

/// Gated commands by outcome and by class.
fn gate_summary(gates: &[&Record]) -> Value {
    let count = |word: &str| gates.iter().filter(|r| outcome::of(r) == word).count();
    let mut classes: IndexMap<String, IndexMap<&str, usize>> = IndexMap::new();
    let mut decided_by: IndexMap<String, usize> = IndexMap::new();
    for ruling in gates.iter().flat_map(|r| r.rulings()) {
        let c = classes.entry(ruling.class.name().to_owned()).or_default();
        let word = outcome::word(ruling.decision.name());
        *c.entry("seen").or_default() += 1;
        for w in ["allow", "deny", "ask"] {
            *c.entry(w).or_default() += usize::from(word == w);
        }
        let by = ruling.decided_by.map_or("?", DecidedBy::name);
        *decided_by.entry(by.to_owned()).or_default() += 1;
    }
    json!({"commands": gates.len(), "allow": count("allow"), "deny": count("deny"), "ask": count("ask"), "classes": classes, "decided_by": decided_by})
}

/// `check` runs and pre-push hook runs: what was decided, and how many went ahead.
fn check_summary(checks: &[&Record]) -> Value {
    let count = |word: &str| checks.iter().filter(|r| outcome::of(r) == word).count();
    let proceeded = checks
        .iter()
        .filter(|r| matches!(r, Record::Check(c) if c.proceed))
        .count();
    json!({"runs": checks.len(), "allow": count("allow"), "deny": count("deny"), "ask": count("ask"), "proceeded": proceeded})
}

/// Layer 2 calls, cache hits, latency percentiles, failures by cause, mean added latency,
/// calls per 100 responses and prompt tokens per call.
///
/// A response logged with `llm_calls` made that many calls, shared by its judges (their
/// `layer2` facts are the call's); a 0.1 line has none, and each judge's uncached `layer2` was
/// its own call.
fn layer2_summary(stops: &[&Record]) -> Value {
    let mut latencies: Vec<u64> = Vec::new();
    let mut hits = 0;
    let mut failures: IndexMap<String, usize> = IndexMap::new();
    let mut calls = 0u64;
    let (mut tokens, mut tokens_counted, mut tokens_estimated) = (0u64, 0u64, 0u64);
    for r in stops {
        let Record::Stop(stop) = r else { continue };
        let judged: Vec<_> = stop
            .judges
            .iter()
            .filter_map(|j| j.layer2.as_ref())
            .collect();
        let (fresh, cached): (Vec<_>, Vec<_>) = judged
            .iter()
            .partition(|l2| l2.call.cache != Some(CacheUse::Hit));
        // One entry per call: the shared call once, or each judge's own call in a 0.1 line.
        let per_call: Vec<&&crate::log::Layer2Entry> = match stop.llm_calls {
            Some(n) => fresh.iter().take(n as usize).collect(),
            None => fresh.iter().collect(),
        };
        hits += match stop.llm_calls {
            Some(_) => usize::from(!cached.is_empty()),
            None => cached.len(),
        };
        calls += per_call.len() as u64;
        for l2 in &per_call {
            latencies.push(l2.call.latency_ms.unwrap_or(0));
            if let Some(n) = l2.call.prompt_tokens {
                tokens += n;
                tokens_counted += 1;
                tokens_estimated += u64::from(l2.call.prompt_tokens_estimated == Some(true));
            }
        }
        let mut causes: Vec<&str> = fresh
            .iter()
            .filter_map(|l2| l2.call.failure.as_deref())
            .map(outcome::llm_cause)
            .collect();
        if stop.llm_calls.is_some() {
            // A judge whose part of a shared answer failed counts once per cause and call.
            causes.sort_unstable();
            causes.dedup();
        }
        for cause in causes {
            *failures.entry(cause.to_owned()).or_default() += 1;
        }
    }
    latencies.sort_unstable();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * p).round() as usize)
            .copied()
    };
    let added_us: u64 = stops
        .iter()
        .map(|r| match r {
            Record::Stop(stop) => stop.timings_us.layer2,
            _ => 0,
        })
        .sum();
    let mean_added_ms = if stops.is_empty() {
        0.0
    } else {
        added_us as f64 / 1000.0 / stops.len() as f64
    };
    let per_100 = if stops.is_empty() {
        0.0
    } else {
        calls as f64 * 100.0 / stops.len() as f64
    };
    json!({
        "calls": calls,
        "calls_per_100_responses": per_100,
        "prompt_tokens_per_call": (tokens_counted > 0).then(|| tokens as f64 / tokens_counted as f64),
        "prompt_tokens_estimated": tokens_estimated > 0,
        "cache_hits": hits,
        "latency_ms_p50": pct(0.5),
        "latency_ms_p95": pct(0.95),
        "failures": failures,
        "mean_added_ms_per_response": mean_added_ms,
    })
}
