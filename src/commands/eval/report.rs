//! The figures `eval` reports, computed from the evaluated cases: per judge and for "any
//! judge", what Layer 1 caught and woke on, what the bypasses let through, the final decisions
//! and the latency the LLM's wakes add.

use std::collections::BTreeMap;

use serde::Serialize;

use super::cases::Case;
use crate::judge::Judge;
use crate::judge::evaluate::{CacheUse, Decision, Evaluation};
use crate::judge::layer1::Signal;

/// Figures for one judge (or for all together).
#[derive(Debug, Default, Serialize)]
pub struct Figures {
    pub judge: String,
    pub block_cases: usize,
    pub layer1_hits: usize,
    pub layer1_recall: Option<f64>,
    /// Violations a bypass allowed without asking the LLM.
    pub bypassed_violations: usize,
    pub benign_cases: usize,
    pub layer1_wakes: usize,
    pub layer1_wake_rate: Option<f64>,
    /// Benign cases a bypass allowed (each one an LLM call saved).
    pub bypassed_benign: usize,
    pub final_blocks_correct: usize,
    pub final_blocks_wrong: usize,
    pub final_precision: Option<f64>,
    pub final_recall: Option<f64>,
    /// Violations sent to this judge's LLM question (under the `judge_turns` setting in use).
    pub reached: usize,
    pub reach: Option<f64>,
}

/// What the `judge_turns` setting in use sends to the LLM, and what that costs: one call per
/// judged turn.
#[derive(Debug, Default, Serialize)]
pub struct Reach {
    pub turns: usize,
    /// Violating cases whose every labelled judge was asked.
    pub violations: usize,
    pub violations_reached: usize,
    pub reach: Option<f64>,
    pub benign: usize,
    pub benign_judged: usize,
    pub benign_judged_rate: Option<f64>,
    /// Provider calls per 100 turns: measured with `--llm`, else one per judged turn.
    pub llm_calls_per_100_turns: Option<f64>,
    /// Prompt tokens per call, with `--llm` (the provider's count, or bytes / 4).
    pub prompt_tokens_per_call: Option<f64>,
}

/// Violations one bypass pattern let through.
#[derive(Debug, Serialize)]
pub struct BypassLeak {
    pub judge: String,
    pub pattern: String,
    pub violations: usize,
    pub ids: Vec<String>,
}

/// A benign case that a judge blocked.
#[derive(Debug, Serialize)]
pub struct FalseBlock {
    pub id: String,
    pub judges: Vec<String>,
}

/// What the LLM's wakes cost: the median wait for Layer 2 on a woken turn, measured in this run
/// (cache hits excluded), times the share of turns that woke a judge.
#[derive(Debug, Serialize)]
pub struct Latency {
    pub turns: usize,
    pub woken_turns: usize,
    pub measured_turns: usize,
    pub median_layer2_ms: Option<u64>,
    pub expected_added_ms_per_turn: Option<f64>,
}

/// Everything `eval` measured.
#[derive(Debug, Serialize)]
pub struct Report {
    pub reach: Reach,
    pub judges: Vec<Figures>,
    pub all: Figures,
    pub bypass_leaks: Vec<BypassLeak>,
    pub false_blocks: Vec<FalseBlock>,
    pub latency: Option<Latency>,
    pub misses: Vec<String>,
}

/// Computes the figures of evaluated cases.
pub fn report(
    cases: &[Case],
    judges: &[Judge],
    evaluations: &[Evaluation],
    judged: bool,
) -> Report {
    let mut misses = Vec::new();
    let mut per_judge = Vec::new();
    let mut leaks: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
    for (j, judge) in judges.iter().enumerate() {
        let mut f = Figures {
            judge: judge.name.clone(),
            ..Figures::default()
        };
        for (case, eval) in cases.iter().zip(evaluations) {
            let outcome = &eval.outcomes[j];
            let target = case.violates(&judge.name);
            let woke = outcome.layer1 == Signal::Trigger;
            let bypassed = outcome.layer1 == Signal::Bypass;
            let blocked = outcome.decision == Decision::Block;
            if target {
                f.block_cases += 1;
                f.reached += usize::from(outcome.asked);
                f.layer1_hits += usize::from(woke);
                f.bypassed_violations += usize::from(bypassed);
                if bypassed {
                    let pattern = outcome.pattern.clone().unwrap_or_default();
                    leaks.entry((j, pattern)).or_default().push(case.id.clone());
                }
                if !woke {
                    misses.push(format!(
                        "{}: layer 1 missed a `{}` violation ({:?}{})",
                        case.id,
                        judge.name,
                        outcome.layer1,
                        outcome
                            .pattern
                            .as_deref()
                            .map(|p| format!(" /{p}/"))
                            .unwrap_or_default()
                    ));
                }
            }
            if !case.is_violation() {
                f.benign_cases += 1;
                f.layer1_wakes += usize::from(woke);
                f.bypassed_benign += usize::from(bypassed);
                if woke {
                    misses.push(format!(
                        "{}: benign case woke `{}` (/{}/)",
                        case.id,
                        judge.name,
                        outcome.pattern.as_deref().unwrap_or("")
                    ));
                }
            }
            if blocked && target {
                f.final_blocks_correct += 1;
            } else if blocked && !case.is_violation() {
                f.final_blocks_wrong += 1;
                misses.push(format!(
                    "{}: `{}` blocked a benign case",
                    case.id, judge.name
                ));
            } else if blocked {
                misses.push(format!(
                    "{}: `{}` blocked a case labelled for {}",
                    case.id,
                    judge.name,
                    case.labels.join(", ")
                ));
            } else if target && judged && (woke || outcome.asked) {
                misses.push(format!("{}: `{}` allowed a violation", case.id, judge.name));
            }
        }
        finish(&mut f, judged);
        per_judge.push(f);
    }
    let mut all = Figures {
        judge: "any judge".into(),
        ..Figures::default()
    };
    let mut false_blocks = Vec::new();
    for (case, eval) in cases.iter().zip(evaluations) {
        let woke_own = eval
            .outcomes
            .iter()
            .any(|o| case.violates(&o.judge) && o.layer1 == Signal::Trigger);
        let bypassed_own = !woke_own
            && eval
                .outcomes
                .iter()
                .any(|o| case.violates(&o.judge) && o.layer1 == Signal::Bypass);
        let woke_any = eval.outcomes.iter().any(|o| o.layer1 == Signal::Trigger);
        let bypassed_any = !woke_any && eval.outcomes.iter().any(|o| o.layer1 == Signal::Bypass);
        let blocked = eval.decision() == Decision::Block;
        if case.is_violation() {
            all.reached += usize::from(
                eval.outcomes
                    .iter()
                    .filter(|o| case.violates(&o.judge))
                    .all(|o| o.asked),
            );
            all.block_cases += 1;
            all.layer1_hits += usize::from(woke_own);
            all.bypassed_violations += usize::from(bypassed_own);
            all.final_blocks_correct += usize::from(blocked);
        } else {
            all.benign_cases += 1;
            all.layer1_wakes += usize::from(woke_any);
            all.bypassed_benign += usize::from(bypassed_any);
            all.final_blocks_wrong += usize::from(blocked);
            if blocked {
                false_blocks.push(FalseBlock {
                    id: case.id.clone(),
                    judges: eval
                        .outcomes
                        .iter()
                        .filter(|o| o.decision == Decision::Block)
                        .map(|o| o.judge.clone())
                        .collect(),
                });
            }
        }
    }
    finish(&mut all, judged);
    let bypass_leaks = leaks
        .into_iter()
        .map(|((j, pattern), ids)| BypassLeak {
            judge: judges[j].name.clone(),
            pattern,
            violations: ids.len(),
            ids,
        })
        .collect();
    Report {
        reach: reach(cases, evaluations, judged),
        judges: per_judge,
        all,
        bypass_leaks,
        false_blocks,
        latency: judged.then(|| latency(evaluations)),
        misses,
    }
}

/// Whether any judge of the case was sent to Layer 2.
fn judged_turn(evaluation: &Evaluation) -> bool {
    evaluation.outcomes.iter().any(|o| o.asked)
}

fn reach(cases: &[Case], evaluations: &[Evaluation], judged: bool) -> Reach {
    let mut r = Reach {
        turns: cases.len(),
        ..Reach::default()
    };
    let mut judged_turns = 0;
    for (case, eval) in cases.iter().zip(evaluations) {
        judged_turns += usize::from(judged_turn(eval));
        if case.is_violation() {
            r.violations += 1;
            let reached = eval
                .outcomes
                .iter()
                .filter(|o| case.violates(&o.judge))
                .all(|o| o.asked);
            r.violations_reached += usize::from(reached);
        } else {
            r.benign += 1;
            r.benign_judged += usize::from(judged_turn(eval));
        }
    }
    r.reach = ratio(r.violations_reached, r.violations);
    r.benign_judged_rate = ratio(r.benign_judged, r.benign);
    let calls: usize = if judged {
        evaluations.iter().map(|e| e.llm_calls as usize).sum()
    } else {
        judged_turns
    };
    r.llm_calls_per_100_turns = ratio(calls * 100, r.turns);
    let tokens: Vec<u64> = evaluations
        .iter()
        .filter(|e| e.llm_calls > 0)
        .filter_map(|e| {
            e.outcomes
                .iter()
                .find_map(|o| o.layer2.as_ref().and_then(|l| l.prompt_tokens))
        })
        .collect();
    r.prompt_tokens_per_call =
        (!tokens.is_empty()).then(|| tokens.iter().sum::<u64>() as f64 / tokens.len() as f64);
    r
}

fn latency(evaluations: &[Evaluation]) -> Latency {
    let woken_turns = evaluations.iter().filter(|e| judged_turn(e)).count();
    // Turns whose Layer 2 really ran (a cached verdict costs nothing and says nothing).
    let mut measured: Vec<u64> = evaluations
        .iter()
        .filter(|e| {
            e.outcomes.iter().any(|o| {
                o.layer2
                    .as_ref()
                    .is_some_and(|m| m.cache != Some(CacheUse::Hit))
            })
        })
        .map(|e| e.layer2_us / 1000)
        .collect();
    measured.sort_unstable();
    let median = (!measured.is_empty()).then(|| measured[measured.len() / 2]);
    Latency {
        turns: evaluations.len(),
        woken_turns,
        measured_turns: measured.len(),
        median_layer2_ms: median,
        expected_added_ms_per_turn: median.and_then(|m| {
            ratio(woken_turns, evaluations.len())
                .map(|rate| (rate * m as f64 * 10.0).round() / 10.0)
        }),
    }
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

fn finish(f: &mut Figures, judged: bool) {
    f.layer1_recall = ratio(f.layer1_hits, f.block_cases);
    f.layer1_wake_rate = ratio(f.layer1_wakes, f.benign_cases);
    f.reach = ratio(f.reached, f.block_cases);
    if judged {
        f.final_precision = ratio(
            f.final_blocks_correct,
            f.final_blocks_correct + f.final_blocks_wrong,
        );
        f.final_recall = ratio(f.final_blocks_correct, f.block_cases);
    }
}
