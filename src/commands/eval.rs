//! `hookjudge eval`: runs labelled cases through the judges and reports, per judge, Layer 1
//! recall on block cases, Layer 1 wake rate on benign cases and, when an LLM judges, the
//! precision and recall of the final decisions.

use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ExitStatus, UserError};
use crate::cli::EvalArgs;
use crate::config::Settings;
use crate::config::dirs;
use crate::judge::Judge;
use crate::judge::evaluate::{Decision, Evaluation, Layer2, NoLayer2, evaluate};
use crate::judge::layer1::Signal;
use crate::llm::LlmJudge;

/// One labelled case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    pub text: String,
    /// The judge that should block, or that this benign case targets; `none` for a case every
    /// judge should pass.
    pub judge: String,
    pub expect: Expect,
    /// The fields a good model would return; documentation for people reading the cases.
    #[serde(default)]
    #[allow(dead_code)]
    pub fields: Option<Value>,
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
    pub benign_cases: usize,
    pub layer1_wakes: usize,
    pub layer1_wake_rate: Option<f64>,
    pub final_blocks_correct: usize,
    pub final_blocks_wrong: usize,
    pub final_precision: Option<f64>,
    pub final_recall: Option<f64>,
}

/// Reads cases from JSONL, naming the line of any bad one.
pub fn read_cases(path: &Path) -> Result<Vec<Case>, UserError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UserError::new(format!("cannot read `{}`: {e}", path.display())))?;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line).map_err(|e| {
            UserError::new(format!("`{}` line {}: {e}", path.display(), n + 1))
                .hint(r#"each line is {"id": "...", "text": "...", "judge": "NAME" or "none", "expect": "block" or "allow"}"#)
        })?;
        cases.push(case);
    }
    Ok(cases)
}

/// Evaluates every case, returning per-judge figures, overall figures and the misses.
pub fn run_cases(
    cases: &[Case],
    judges: &[Judge],
    layer2: &dyn Fn() -> Box<dyn Layer2>,
    judged: bool,
) -> (Vec<Figures>, Figures, Vec<String>) {
    let evaluations: Vec<Evaluation> = cases
        .iter()
        .map(|c| evaluate(&c.text, judges, layer2().as_ref()))
        .collect();
    let mut misses = Vec::new();
    let mut per_judge = Vec::new();
    for (j, judge) in judges.iter().enumerate() {
        let mut f = Figures {
            judge: judge.name.clone(),
            ..Figures::default()
        };
        for (case, eval) in cases.iter().zip(&evaluations) {
            let outcome = &eval.outcomes[j];
            let target = case.judge == judge.name && case.expect == Expect::Block;
            let woke = outcome.layer1 == Signal::Trigger;
            let blocked = outcome.decision == Decision::Block;
            if target {
                f.block_cases += 1;
                f.layer1_hits += usize::from(woke);
                if !woke {
                    misses.push(format!(
                        "{}: layer 1 missed a block case ({:?})",
                        case.id, outcome.layer1
                    ));
                }
            }
            if case.expect == Expect::Allow {
                f.benign_cases += 1;
                f.layer1_wakes += usize::from(woke);
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
            } else if blocked && (case.expect == Expect::Allow || case.judge == judge.name) {
                f.final_blocks_wrong += 1;
                misses.push(format!(
                    "{}: `{}` blocked a case labelled {:?}",
                    case.id, judge.name, case.expect
                ));
            } else if target && judged && !blocked {
                misses.push(format!(
                    "{}: `{}` allowed a block case",
                    case.id, judge.name
                ));
            }
        }
        finish(&mut f, judged);
        per_judge.push(f);
    }
    let mut all = Figures {
        judge: "all".into(),
        ..Figures::default()
    };
    for (case, eval) in cases.iter().zip(&evaluations) {
        let woke_own = eval
            .outcomes
            .iter()
            .any(|o| o.judge == case.judge && o.layer1 == Signal::Trigger);
        let woke_any = eval.outcomes.iter().any(|o| o.layer1 == Signal::Trigger);
        let blocked = eval.decision() == Decision::Block;
        match case.expect {
            Expect::Block => {
                all.block_cases += 1;
                all.layer1_hits += usize::from(woke_own);
                all.final_blocks_correct += usize::from(blocked);
            }
            Expect::Allow => {
                all.benign_cases += 1;
                all.layer1_wakes += usize::from(woke_any);
                all.final_blocks_wrong += usize::from(blocked);
            }
        }
    }
    finish(&mut all, judged);
    (per_judge, all, misses)
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

/// Runs `hookjudge eval`.
pub(super) fn eval(args: &EvalArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cases = read_cases(&args.cases)?;
    let settings = Settings::load(&super::current_dir(), config)?;
    let judges = settings.judges(&[])?;
    if let Some(case) = cases
        .iter()
        .find(|c| c.judge != "none" && !judges.iter().any(|j| j.name == c.judge))
    {
        return Err(UserError::new(format!(
            "case `{}` names judge `{}`, which is not enabled",
            case.id, case.judge
        ))
        .hint("enable the judge in your config, or label the case with `none`"));
    }
    let llm = settings.llm.clone();
    let layer2 = move || -> Box<dyn Layer2> {
        if args.llm {
            Box::new(LlmJudge::new(
                &llm,
                dirs::state_dir(),
                std::time::Instant::now(),
            ))
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
    let (per_judge, all, misses) = run_cases(&cases, &judges, &layer2, args.llm);
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(
            out,
            "{}",
            json!({"cases": cases.len(), "layer2": provider, "judges": per_judge, "all": all, "misses": misses})
        )
    } else {
        write_table(
            &mut out,
            cases.len(),
            &provider,
            &per_judge,
            &all,
            args.misses.then_some(misses.as_slice()),
        )
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
    per_judge: &[Figures],
    all: &Figures,
    misses: Option<&[String]>,
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
        "{:<28} {:>14} {:>8} {:>16} {:>9} {:>8} {:>8}",
        "judge", "L1 recall", "", "L1 wake (benign)", "", "final P", "final R"
    )?;
    for f in per_judge.iter().chain(std::iter::once(all)) {
        writeln!(
            out,
            "{:<28} {:>14} {:>8} {:>16} {:>9} {:>8} {:>8}",
            f.judge,
            format!("{}/{}", f.layer1_hits, f.block_cases),
            pct(f.layer1_recall),
            format!("{}/{}", f.layer1_wakes, f.benign_cases),
            pct(f.layer1_wake_rate),
            pct(f.final_precision),
            pct(f.final_recall),
        )?;
    }
    if let Some(misses) = misses {
        writeln!(out, "\n{} misses", misses.len())?;
        for m in misses {
            writeln!(out, "  {m}")?;
        }
    }
    Ok(())
}
