//! `hookjudge judge`: judges a text directly, for tuning patterns and prompts.

use std::io::{self, Write};
use std::path::Path;

use serde_json::json;

use super::{ExitStatus, UserError};
use crate::cli::JudgeArgs;
use crate::config::Settings;
use crate::judge::claims::Grounded;
use crate::judge::evaluate::{Decision, Evaluation, Layer2, NoLayer2, Reread, evaluate};
use crate::judge::layer1::Signal;
use crate::llm::LlmJudge;
use crate::stop::session_facts;
use crate::support::dirs;

/// Judges a file or stdin with the configured judges. Exit 0 allow, 1 block, 2 error.
pub(super) fn judge(args: &JudgeArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let text = super::read_input(args.file.as_deref())?;
    let settings = Settings::load(&super::current_dir(), config)?;
    let panel = settings.panel(&args.judges)?;
    let request = match &args.request {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|e| {
            UserError::new(format!("cannot read the request `{}`: {e}", path.display()))
                .hint("`--request` names a file holding the user's request; drop it to judge the text alone")
        })?),
        None => None,
    };
    let llm = LlmJudge::new(&settings.llm, dirs::state_dir(), std::time::Instant::now())
        .with_request(request.as_deref());
    let layer2: &dyn Layer2 = if args.no_llm { &NoLayer2 } else { &llm };
    let facts = match &args.transcript {
        Some(path) => Some(
            session_facts::read(path, &settings, &super::current_dir()).map_err(|e| {
                UserError::new(format!("cannot read the session file `{}`: {e}", path.display()))
                    .hint("`--transcript` names an agent's session file (a Claude Code transcript, a Codex rollout or a Gemini session); drop it to judge the text alone")
            })?,
        ),
        None => None,
    };
    let grounded = Grounded::new(layer2, Box::new(move || facts.clone()));
    let evaluation = evaluate(&text, &panel, &grounded);
    if let Some(resolution) = llm.resolved().filter(|_| !args.json) {
        let _ = writeln!(io::stderr(), "llm: {}", resolution.why);
    }
    let mut out = io::stdout().lock();
    let written = if args.json {
        write_json(&mut out, &evaluation)
    } else {
        write_table(&mut out, &evaluation)
    };
    written.map_err(UserError::output)?;
    Ok(match evaluation.decision() {
        Decision::Block => ExitStatus::Attention,
        Decision::Allow => ExitStatus::Success,
    })
}

fn write_json(out: &mut dyn Write, evaluation: &Evaluation) -> io::Result<()> {
    let judges: Vec<_> = evaluation
        .outcomes
        .iter()
        .map(|o| {
            let mut v = json!({"judge": o.judge, "layer1": o.layer1, "pattern": o.pattern, "verdict": o.verdict,
                   "decision": o.decision, "fields": o.fields, "reason": o.reason});
            if let Some(refused) = &o.refused_bypass {
                v["refused_bypass"] = json!(refused);
            }
            if let Some(reread) = &o.second_reading {
                v["second_reading"] = json!(reread);
            }
            v
        })
        .collect();
    writeln!(
        out,
        "{}",
        json!({"decision": evaluation.decision(), "llm_calls": evaluation.llm_calls, "not_judged": evaluation.not_judged, "judges": judges})
    )
}

fn write_table(out: &mut dyn Write, evaluation: &Evaluation) -> io::Result<()> {
    let decision = match evaluation.decision() {
        Decision::Block => "block",
        Decision::Allow => "allow",
    };
    writeln!(out, "decision: {decision}")?;
    for o in &evaluation.outcomes {
        let signal = match o.layer1 {
            Signal::Quiet => "quiet",
            Signal::Trigger => "trigger",
            Signal::Bypass => "bypass",
        };
        let verdict = o
            .verdict
            .map(|v| {
                serde_json::to_value(v)
                    .unwrap()
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            })
            .unwrap_or_else(|| "-".into());
        write!(out, "  {:<28} {signal:<8} {verdict:<10}", o.judge)?;
        if let Some(pattern) = &o.pattern {
            write!(out, " /{pattern}/")?;
        }
        if let Some(refused) = &o.refused_bypass {
            write!(
                out,
                " (bypass /{}/ refused: judge-directed /{}/)",
                refused.bypass, refused.judge_directed
            )?;
        }
        if let Some(reason) = &o.reason {
            write!(out, " ({reason})")?;
        }
        match &o.second_reading {
            Some(Reread::Upheld { quote, .. }) => {
                write!(out, " [second reading upheld: \"{quote}\"]")?
            }
            Some(Reread::Withdrawn { reason }) => {
                write!(out, " [second reading withdrew it: {reason}]")?
            }
            Some(Reread::Failed { cause }) => write!(out, " [second reading failed: {cause}]")?,
            None => {}
        }
        writeln!(out)?;
    }
    if evaluation
        .outcomes
        .iter()
        .any(|o| o.verdict == Some(crate::judge::evaluate::Verdict::Unjudged))
    {
        writeln!(
            out,
            "\nnote: triggers were not judged (no LLM provider, or `--no-llm`); see `llm.provider` in the config"
        )?;
    }
    Ok(())
}
