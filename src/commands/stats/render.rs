//! The rendering half of `hookjudge stats`: the counts as text wrapped to the terminal, each
//! count saying what it counts.

use std::io::{self, Write};

use indexmap::IndexMap;
use serde_json::Value;

use super::count::{Counts, Day, JudgeStats};
use crate::log::outcome;
use crate::support::term;
use crate::support::time::Zone;

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

/// Writes the summary as text: `summary` is what `--json` prints, `counts` what it was made of,
/// `where_logged` the log directory (and repository filter) named when nothing was logged.
pub fn write_text(
    out: &mut dyn Write,
    counts: &Counts,
    summary: &Value,
    zone: Zone,
    where_logged: &str,
) -> io::Result<()> {
    let responses = counts.stops.len();
    let (days, gates, checks) = (&counts.days, &counts.gates, &counts.checks);
    let (per_judge, fail_open_causes) = (&counts.per_judge, &counts.fail_open_causes);
    let count = |word: &str| counts.responses(word);
    let width = term::width();
    let period = match (days.first(), days.last()) {
        (Some(first), Some(last)) => {
            format!(", {} to {} ({})", first.day, last.day, zone.label())
        }
        _ => String::new(),
    };
    say(
        out,
        width,
        &format!(
            "{responses} responses judged, {} gated commands, {} checks{period}",
            gates.len(),
            checks.len()
        ),
    )?;
    if counts.is_empty() {
        say(
            out,
            width,
            &format!("no decisions logged in {where_logged} yet"),
        )?;
        return Ok(());
    }
    if responses > 0 {
        say(out, width, "")?;
        say(
            out,
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
        write_judges(out, width, per_judge, responses)?;
    }
    let l2 = &summary["layer2"];
    if l2["calls"].as_u64().unwrap_or(0) + l2["cache_hits"].as_u64().unwrap_or(0) > 0 {
        say(out, width, "")?;
        let ms = |v: &Value| v.as_u64().map_or("-".into(), |v| format!("{v} ms"));
        say(
            out,
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
                out,
                width,
                &format!("  {tokens:.0} prompt tokens per call{estimated}"),
            )?;
        }
        say(
            out,
            width,
            &format!(
                "  latency per call (the provider's answer): p50 {}, p95 {}",
                ms(&l2["latency_ms_p50"]),
                ms(&l2["latency_ms_p95"]),
            ),
        )?;
        say(
            out,
            width,
            &format!(
                "  per response, on average: {:.1} ms in LLM calls; {:.1} ms for Layer 2 in all \
                 (the calls, the wait for the session file's last lines, reading the session)",
                l2["mean_llm_ms_per_response"].as_f64().unwrap_or(0.0),
                l2["mean_added_ms_per_response"].as_f64().unwrap_or(0.0)
            ),
        )?;
        if let Some(failures) = l2["failures"].as_object().filter(|f| !f.is_empty()) {
            let list: Vec<String> = failures.iter().map(|(k, v)| format!("{v} {k}")).collect();
            say(
                out,
                width,
                &format!("  failed calls by cause: {}", list.join(", ")),
            )?;
        }
    }
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let g = &summary["gate"];
    if g["commands"].as_u64().unwrap_or(0) > 0 {
        say(out, width, "")?;
        say(
            out,
            width,
            &format!(
                "Gate, per gated command ({}): {} allow, {} deny, {} ask",
                g["commands"], g["allow"], g["deny"], g["ask"]
            ),
        )?;
        say(
            out,
            width,
            &format!(
                "  {:<14} {:>6} {:>6} {:>6} {:>6}",
                "class", "seen", "allow", "deny", "ask"
            ),
        )?;
        for (class, c) in g["classes"].as_object().into_iter().flatten() {
            say(
                out,
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
            out,
            width,
            &format!("  decided by (per class found): {}", by.join(", ")),
        )?;
        for (value, meaning) in DECIDED_BY_MEANINGS {
            if g["decided_by"].get(value).is_some() {
                say(out, width, &format!("    {value}: {meaning}"))?;
            }
        }
    }
    let c = &summary["checks"];
    if !checks.is_empty() {
        say(out, width, "")?;
        say(
            out,
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
        say(out, width, "")?;
        write_trend(out, days, zone)?;
    }
    Ok(())
}

/// The `decided_by` values that leave a command to a person, and why each did: told apart,
/// since one is a setting to change and the other a failure to look into.
const DECIDED_BY_MEANINGS: [(&str, &str); 2] = [
    (
        "no-llm",
        "no LLM provider is configured, so no judge read the session and a person was asked",
    ),
    (
        "judge-failed",
        "the gate's judge could not answer (its call failed, it does not build, or the session \
         had nothing to read), so a person was asked",
    ),
];

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
