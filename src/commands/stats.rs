//! `hookjudge stats`: summarises the decision log, per judge and overall.

use std::io::{self, Write};
use std::path::Path;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Value, json};

use super::{ExitStatus, UserError};
use crate::cli::StatsArgs;
use crate::config::Settings;

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
    let read = super::read_log(&settings, args.since.as_deref())?;
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
    let layer2 = layer2_summary(&stops);
    let gates: Vec<&Value> = read
        .records
        .iter()
        .filter(|r| r["kind"] == "gate")
        .collect();
    let gate = gate_summary(&gates);
    let summary = json!({
        "responses": responses,
        "blocks": count("block"),
        "releases": count("release"),
        "fail_opens": count("fail-open"),
        "allowed": count("allow"),
        "judges": per_judge,
        "layer2": layer2,
        "gate": gate,
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
        let l2 = &summary["layer2"];
        writeln!(
            out,
            "\nLayer 2: {} calls, {} cache hits, latency p50 {} ms, p95 {} ms, mean added per response {:.1} ms",
            l2["calls"],
            l2["cache_hits"],
            l2["latency_ms_p50"],
            l2["latency_ms_p95"],
            l2["mean_added_ms_per_response"].as_f64().unwrap_or(0.0)
        )?;
        if let Some(failures) = l2["failures"].as_object().filter(|f| !f.is_empty()) {
            let list: Vec<String> = failures.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            writeln!(out, "Layer 2 failures by cause: {}", list.join(", "))?;
        }
        let g = &summary["gate"];
        if g["commands"].as_u64().unwrap_or(0) > 0 {
            writeln!(
                out,
                "\ngate: {} gated commands, {} denied, {} asked, {} passed",
                g["commands"], g["deny"], g["ask"], g["silent"]
            )?;
            for (class, c) in g["classes"].as_object().into_iter().flatten() {
                writeln!(
                    out,
                    "  {class:<14} {:>4} seen, {:>4} denied, {:>4} asked",
                    c["seen"], c["deny"], c["ask"]
                )?;
            }
        }
        Ok(())
    })();
    result.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

/// Gated commands by action and by class.
fn gate_summary(gates: &[&Value]) -> Value {
    let count = |action: &str| gates.iter().filter(|r| r["action"] == action).count();
    let mut classes: IndexMap<String, IndexMap<&str, usize>> = IndexMap::new();
    let mut decided_by: IndexMap<String, usize> = IndexMap::new();
    for ruling in gates
        .iter()
        .flat_map(|r| r["rulings"].as_array().into_iter().flatten())
    {
        let c = classes
            .entry(ruling["class"].as_str().unwrap_or("?").to_owned())
            .or_default();
        *c.entry("seen").or_default() += 1;
        *c.entry("deny").or_default() += usize::from(ruling["decision"] == "deny");
        *c.entry("ask").or_default() += usize::from(ruling["decision"] == "ask");
        *decided_by
            .entry(ruling["decided_by"].as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
    }
    json!({"commands": gates.len(), "deny": count("deny"), "ask": count("ask"), "silent": count("silent"), "classes": classes, "decided_by": decided_by})
}

/// Layer 2 calls, cache hits, latency percentiles, failures by cause, mean added latency.
fn layer2_summary(stops: &[&Value]) -> Value {
    let mut latencies: Vec<u64> = Vec::new();
    let mut hits = 0;
    let mut failures: IndexMap<String, usize> = IndexMap::new();
    for j in stops
        .iter()
        .flat_map(|r| r["judges"].as_array().into_iter().flatten())
    {
        let l2 = &j["layer2"];
        if !l2.is_object() {
            continue;
        }
        if l2["cache"] == "hit" {
            hits += 1;
            continue;
        }
        latencies.push(l2["latency_ms"].as_u64().unwrap_or(0));
        if let Some(cause) = l2["failure"].as_str() {
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
        .map(|r| r["timings_us"]["layer2"].as_u64().unwrap_or(0))
        .sum();
    let mean_added_ms = if stops.is_empty() {
        0.0
    } else {
        added_us as f64 / 1000.0 / stops.len() as f64
    };
    json!({
        "calls": latencies.len(),
        "cache_hits": hits,
        "latency_ms_p50": pct(0.5),
        "latency_ms_p95": pct(0.95),
        "failures": failures,
        "mean_added_ms_per_response": mean_added_ms,
    })
}
