//! The counting half of `hookjudge stats`: outcomes per response, per judge, of Layer 2 and
//! of the gate, fail-opens by cause, and the per-day trend, from the log's records.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Value, json};

use crate::gate::policy::DecidedBy;
use crate::judge::evaluate::{CacheUse, Decision, Verdict};
use crate::judge::layer1::Signal;
use crate::log::Record;
use crate::log::cause::Cause;
use crate::log::outcome;
use crate::support::time::{Timestamp, Zone};

#[derive(Debug, Default, Serialize)]
pub struct JudgeStats {
    pub woken: usize,
    pub bypassed: usize,
    pub unjudged: usize,
    pub violations: usize,
    pub failures: usize,
    pub blocks: usize,
    pub released: usize,
}

/// One day of the trend (a day in the zone the user reads times in).
#[derive(Debug, Default, Serialize)]
pub struct Day {
    pub day: String,
    /// Stop decisions.
    pub responses: usize,
    /// Responses in which at least one judge's trigger matched.
    pub woken: usize,
    pub blocks: usize,
    pub fail_opens: usize,
    /// Gated commands, and what the gate did with them.
    pub gated: usize,
    pub gate_allow: usize,
    pub gate_deny: usize,
    pub gate_ask: usize,
}

/// What the log's records count up to.
pub struct Counts<'a> {
    /// The Stop hook's records, the gate's and `check`'s, oldest first.
    pub stops: Vec<&'a Record>,
    pub gates: Vec<&'a Record>,
    pub checks: Vec<&'a Record>,
    pub per_judge: IndexMap<String, JudgeStats>,
    /// Fail-opens per cause, the most frequent first.
    pub fail_open_causes: IndexMap<&'static str, usize>,
    pub days: Vec<Day>,
}

impl<'a> Counts<'a> {
    /// Counts `records`, with days in `zone`.
    pub fn of(records: &'a [Record], zone: Zone) -> Counts<'a> {
        let of_kind = |keep: fn(&Record) -> bool| -> Vec<&'a Record> {
            records.iter().filter(|r| keep(r)).collect()
        };
        let stops = of_kind(|r| matches!(r, Record::Stop(_)));
        let checks = of_kind(|r| matches!(r, Record::Check(_)));
        let gates = of_kind(|r| matches!(r, Record::Gate(_)));
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
        for (cause, _) in stops.iter().filter_map(|r| Cause::of(r)) {
            *fail_open_causes.entry(cause.label()).or_default() += 1;
        }
        fail_open_causes.sort_by(|_, a, _, b| b.cmp(a));
        Counts {
            stops,
            gates,
            checks,
            per_judge,
            fail_open_causes,
            days: trend(records, zone),
        }
    }

    /// Whether no record was read.
    pub fn is_empty(&self) -> bool {
        self.stops.is_empty() && self.gates.is_empty() && self.checks.is_empty()
    }

    /// The responses whose outcome is `word`.
    pub fn responses(&self, word: &str) -> usize {
        self.stops.iter().filter(|r| outcome::of(r) == word).count()
    }
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
pub fn gate_summary(gates: &[&Record]) -> Value {
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
pub fn check_summary(checks: &[&Record]) -> Value {
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
/// Two means per response: the LLM calls' own time (the latencies the percentiles are taken
/// from, summed), and the whole Layer 2 step as the hook timed it, which also holds the wait
/// for the session file's last lines and the reading of the session.
///
/// A response logged with `llm_calls` made that many calls, shared by its judges (their
/// `layer2` facts are the call's); a 0.1 line has none, and each judge's uncached `layer2` was
/// its own call.
pub fn layer2_summary(stops: &[&Record]) -> Value {
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
            .filter_map(|l2| l2.call.failure.clone())
            .map(|kind| Cause::Llm(kind).label())
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
    let llm_ms: u64 = latencies.iter().sum();
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
    let mean_llm_ms = if stops.is_empty() {
        0.0
    } else {
        llm_ms as f64 / stops.len() as f64
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
        "mean_llm_ms_per_response": mean_llm_ms,
        "mean_added_ms_per_response": mean_added_ms,
    })
}
