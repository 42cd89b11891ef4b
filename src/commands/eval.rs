//! `hookjudge eval`: runs labelled cases through the judges and reports, per judge and for "any
//! judge", Layer 1 recall on violations, Layer 1 wake rate on benign cases, the violations each
//! bypass let through and, when an LLM judges, the precision and recall of the final decisions,
//! the benign cases it blocked and the latency its wakes add to a turn.
//!
//! Two case formats are read, line by line:
//! - fixtures: `{"id", "text", "judge": NAME or "none", "expect": "block" or "allow"}` (a case
//!   with `"expect": "allow"` and a judge name is a hard negative of that judge);
//! - labelled real messages: `{"id", "text", "turn_text", "labels": [NAME, ...]}`, where
//!   `labels` lists every judge that should block (empty for a benign message).
//!
//! `--text FIELD` picks the field that is judged (`text` by default, `turn_text` for the whole
//! turn as the Stop hook sees it for Claude Code). A string field `user` (real messages) or
//! `request` is the user's request the message answers: with `--llm` it is framed as context,
//! as the Stop hook does with the prompt that started the turn.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{ExitStatus, UserError};
use crate::cli::EvalArgs;
use crate::config::Settings;
use crate::config::dirs;
use crate::judge::Judge;
use crate::judge::evaluate::{CacheUse, Decision, Evaluation, Layer2, NoLayer2, evaluate};
use crate::judge::layer1::Signal;
use crate::llm::LlmJudge;

/// One labelled case.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub text: String,
    /// The judges that should block this case; empty for a benign case.
    pub labels: Vec<String>,
    /// The judge a fixture case names (its violation, or the judge a hard negative targets).
    pub target: Option<String>,
    /// The user's request the text answers (`request`, or `user` in real-message sets).
    pub request: Option<String>,
}

impl Case {
    fn is_violation(&self) -> bool {
        !self.labels.is_empty()
    }

    fn violates(&self, judge: &str) -> bool {
        self.labels.iter().any(|l| l == judge)
    }
}

/// A case line as written, in either format.
#[derive(Debug, Deserialize)]
struct RawCase {
    id: String,
    judge: Option<String>,
    expect: Option<Expect>,
    labels: Option<Vec<String>>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    Block,
    Allow,
}

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
    pub judges: Vec<Figures>,
    pub all: Figures,
    pub bypass_leaks: Vec<BypassLeak>,
    pub false_blocks: Vec<FalseBlock>,
    pub latency: Option<Latency>,
    pub misses: Vec<String>,
}

const FORMATS_HINT: &str = r#"each line is {"id", "text", "judge": NAME or "none", "expect": "block" or "allow"} or {"id", "text", "labels": [NAME, ...]} (labels: the judges that should block; [] for benign)"#;

/// Reads cases from JSONL, judging the string field `field` of each, naming the line of any
/// bad one.
pub fn read_cases(path: &Path, field: &str) -> Result<Vec<Case>, UserError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UserError::new(format!("cannot read `{}`: {e}", path.display())))?;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("`{}` line {}", path.display(), n + 1);
        let raw: RawCase = serde_json::from_str(line)
            .map_err(|e| UserError::new(format!("{}: {e}", at())).hint(FORMATS_HINT))?;
        let text = match raw.rest.get(field) {
            Some(Value::String(text)) => text.clone(),
            Some(_) => {
                return Err(UserError::new(format!(
                    "{}: `{field}` is not a string",
                    at()
                )));
            }
            None => {
                return Err(
                    UserError::new(format!("{}: the case has no `{field}`", at())).hint(
                        if field == "text" {
                            FORMATS_HINT
                        } else {
                            "`--text` names the field to judge; drop it to judge `text`"
                        },
                    ),
                );
            }
        };
        let (labels, target) = match (raw.labels, raw.judge, raw.expect) {
            (Some(labels), None, None) => (labels, None),
            (None, Some(judge), Some(expect)) => {
                let target = (judge != "none").then_some(judge);
                let labels = match (expect, &target) {
                    (Expect::Block, Some(judge)) => vec![judge.clone()],
                    (Expect::Block, None) => {
                        return Err(UserError::new(format!(
                            "{}: a case that expects a block names the judge that blocks, not `none`",
                            at()
                        )));
                    }
                    (Expect::Allow, _) => Vec::new(),
                };
                (labels, target)
            }
            _ => {
                return Err(UserError::new(format!(
                    "{}: a case has either `labels` or both `judge` and `expect`",
                    at()
                ))
                .hint(FORMATS_HINT));
            }
        };
        let request = ["request", "user"]
            .iter()
            .find_map(|k| raw.rest.get(*k).and_then(Value::as_str))
            .map(str::to_owned);
        cases.push(Case {
            id: raw.id,
            text,
            labels,
            target,
            request,
        });
    }
    Ok(cases)
}

/// Evaluates every case on `jobs` threads, calling `progress(done)` after each one.
pub fn evaluate_all(
    cases: &[Case],
    judges: &[Judge],
    layer2: &(dyn Fn(Option<&str>) -> Box<dyn Layer2> + Sync),
    jobs: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<Evaluation> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Evaluation>>> =
        Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, cases.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let layer2 = layer2(case.request.as_deref());
                    let evaluation = evaluate(&case.text, judges, layer2.as_ref());
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(evaluation);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|e| e.expect("every case was evaluated"))
        .collect()
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
            } else if target && judged && woke {
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
        judges: per_judge,
        all,
        bypass_leaks,
        false_blocks,
        latency: judged.then(|| latency(evaluations)),
        misses,
    }
}

fn latency(evaluations: &[Evaluation]) -> Latency {
    let woken_turns = evaluations
        .iter()
        .filter(|e| e.outcomes.iter().any(|o| o.layer1 == Signal::Trigger))
        .count();
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
    if judged {
        f.final_precision = ratio(
            f.final_blocks_correct,
            f.final_blocks_correct + f.final_blocks_wrong,
        );
        f.final_recall = ratio(f.final_blocks_correct, f.block_cases);
    }
}

/// Progress on stderr: a line rewritten in place on a terminal, a line per tenth otherwise.
struct Progress {
    total: usize,
    terminal: bool,
    shown_tenths: AtomicUsize,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            terminal: io::stderr().is_terminal(),
            shown_tenths: AtomicUsize::new(0),
        }
    }

    fn update(&self, done: usize) {
        let mut err = io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\reval: {done}/{} cases judged", self.total);
            if done == self.total {
                let _ = writeln!(err);
            }
        } else {
            let tenths = done * 10 / self.total.max(1);
            if self.shown_tenths.fetch_max(tenths, Ordering::Relaxed) < tenths {
                let _ = writeln!(err, "eval: {done}/{} cases judged", self.total);
            }
        }
    }
}

/// Runs `hookjudge eval`.
pub(super) fn eval(args: &EvalArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cases = read_cases(&args.cases, &args.text)?;
    let settings = Settings::load(&super::current_dir(), config)?;
    let judges = settings.judges(&[])?;
    if let Some((case, judge)) = cases.iter().find_map(|c| {
        c.labels
            .iter()
            .chain(&c.target)
            .find(|l| !judges.iter().any(|j| j.name == **l))
            .map(|l| (c, l))
    }) {
        return Err(UserError::new(format!(
            "case `{}` names judge `{judge}`, which is not enabled",
            case.id
        ))
        .hint("enable the judge in your config, or relabel the case"));
    }
    let llm = settings.llm.clone();
    let layer2 = move |request: Option<&str>| -> Box<dyn Layer2> {
        if args.llm {
            Box::new(
                LlmJudge::new(&llm, dirs::state_dir(), std::time::Instant::now())
                    .with_request(request),
            )
        } else {
            Box::new(NoLayer2)
        }
    };
    let provider = if args.llm {
        let resolution = crate::llm::resolve::resolve(
            &settings.llm,
            &dirs::state_dir(),
            &crate::llm::resolve::process_env,
        );
        if resolution.backend.is_none() {
            return Err(UserError::new(format!("`--llm` needs an LLM provider, and none is available: {}", resolution.why))
                .hint("set `llm.provider` (and `llm.base_url` or an API key) in your config, or drop `--llm`"));
        }
        resolution.backend.map(|b| b.describe()).unwrap_or_default()
    } else {
        "none".to_string()
    };
    let progress = Progress::new(cases.len());
    let show = |done: usize| {
        if args.llm {
            progress.update(done);
        }
    };
    let jobs = if args.llm { args.jobs } else { 1 };
    let evaluations = evaluate_all(&cases, &judges, &layer2, jobs, &show);
    let report = report(&cases, &judges, &evaluations, args.llm);
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(
            out,
            "{}",
            json!({"cases": cases.len(), "text": args.text, "layer2": provider, "judges": report.judges, "all": report.all, "bypass_leaks": report.bypass_leaks, "false_blocks": report.false_blocks, "latency": report.latency, "misses": report.misses})
        )
    } else {
        write_table(&mut out, cases.len(), &provider, &report, args.misses)
    };
    written.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

fn pct(r: Option<f64>) -> String {
    r.map(|r| format!("{:.1}%", r * 100.0))
        .unwrap_or_else(|| "-".into())
}

fn write_table(
    out: &mut dyn Write,
    cases: usize,
    provider: &str,
    report: &Report,
    misses: bool,
) -> io::Result<()> {
    if provider == "none" {
        writeln!(
            out,
            "{cases} cases, Layer 1 only (final precision and recall need `--llm`)\n"
        )?;
    } else {
        writeln!(out, "{cases} cases, Layer 2: {provider}\n")?;
    }
    writeln!(
        out,
        "{:<28} {:>9} {:>7} {:>9} {:>7} {:>8} {:>8} {:>8}",
        "judge", "L1 recall", "", "L1 wake", "", "bypass", "final P", "final R"
    )?;
    for f in report.judges.iter().chain(std::iter::once(&report.all)) {
        writeln!(
            out,
            "{:<28} {:>9} {:>7} {:>9} {:>7} {:>8} {:>8} {:>8}",
            f.judge,
            format!("{}/{}", f.layer1_hits, f.block_cases),
            pct(f.layer1_recall),
            format!("{}/{}", f.layer1_wakes, f.benign_cases),
            pct(f.layer1_wake_rate),
            format!("{}+{}", f.bypassed_violations, f.bypassed_benign),
            pct(f.final_precision),
            pct(f.final_recall),
        )?;
    }
    writeln!(
        out,
        "\nL1 recall: violations that woke their judge; L1 wake: benign cases that woke it;\nbypass: violations + benign cases a bypass allowed without the LLM."
    )?;
    for leak in &report.bypass_leaks {
        writeln!(
            out,
            "bypass /{}/ of `{}` let {} violation(s) through: {}",
            leak.pattern,
            leak.judge,
            leak.violations,
            leak.ids.join(", ")
        )?;
    }
    if let Some(latency) = &report.latency {
        writeln!(
            out,
            "\nfalse blocks on benign cases: {}{}",
            report.false_blocks.len(),
            if report.false_blocks.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    report
                        .false_blocks
                        .iter()
                        .map(|b| format!("{} by {}", b.id, b.judges.join("+")))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        )?;
        match (latency.median_layer2_ms, latency.expected_added_ms_per_turn) {
            (Some(median), Some(added)) => writeln!(
                out,
                "latency: {}/{} turns woke a judge; median Layer 2 wait {median} ms ({} uncached turns); expected added latency {added} ms per turn",
                latency.woken_turns, latency.turns, latency.measured_turns
            )?,
            _ => writeln!(
                out,
                "latency: {}/{} turns woke a judge; no uncached Layer 2 call to measure",
                latency.woken_turns, latency.turns
            )?,
        }
    }
    if misses {
        writeln!(out, "\n{} misses", report.misses.len())?;
        for m in &report.misses {
            writeln!(out, "  {m}")?;
        }
    }
    Ok(())
}
