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

mod cases;
mod report;
mod table;

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use super::{ExitStatus, UserError};
use crate::cli::EvalArgs;
use crate::config::Settings;
use crate::judge::evaluate::{Evaluation, Layer2, NoLayer2, Panel, evaluate};
use crate::llm::LlmJudge;
use crate::support::dirs;
use cases::{Case, read_cases};
use report::report;
use table::write_table;

/// Evaluates every case on `jobs` threads, calling `progress(done)` after each one.
pub fn evaluate_all(
    cases: &[Case],
    panel: &Panel,
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
                    let evaluation = evaluate(&case.text, panel, layer2.as_ref());
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
    let mut panel = settings.panel(&[])?;
    if let Some(setting) = args.judge_turns {
        panel.judge_turns = setting;
    }
    let judges = &panel.judges;
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
    let evaluations = evaluate_all(&cases, &panel, &layer2, jobs, &show);
    let report = report(&cases, judges, &evaluations, args.llm);
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(
            out,
            "{}",
            json!({"cases": cases.len(), "text": args.text, "layer2": provider, "judge_turns": panel.judge_turns, "reach": report.reach, "judges": report.judges, "all": report.all, "bypass_leaks": report.bypass_leaks, "false_blocks": report.false_blocks, "latency": report.latency, "misses": report.misses})
        )
    } else {
        write_table(
            &mut out,
            cases.len(),
            &provider,
            &report,
            panel.judge_turns.name(),
            args.misses,
        )
    };
    written.map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}
