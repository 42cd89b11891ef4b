//! The judges' run on one Stop: Layer 1, then one LLM call for the judges the turn concerns,
//! grounded in the session's facts, with the outcomes written into the record.

use std::time::Instant;

use super::no_llm;
use super::response::Request;
use super::session_facts::Session;
use crate::config::Settings;
use crate::judge::claims::Grounded;
use crate::judge::evaluate::{Panel, evaluate};
use crate::llm::LlmJudge;
use crate::log::StopRecord;
use crate::support::dirs;
use crate::transcript;

/// What one run of the judges reads.
pub struct Run<'a> {
    /// The judged text, redacted.
    pub text: &'a str,
    /// The user's request, context for the LLM.
    pub request: Request,
    pub session: Session<'a>,
    pub panel: &'a Panel,
    pub settings: &'a Settings,
    /// The LLM's deadline (milliseconds), below the agent's timeout for the hook.
    pub llm_timeout_ms: u64,
    /// When the hook started, which the LLM's deadline counts from.
    pub started: Instant,
}

/// Runs the judges on `run.text` (Layer 1, then the LLM for the judges the turn concerns, with
/// the user's request as context) into `record`. Returns what to tell the human when no LLM
/// could judge: none is configured or found, or it cannot be reached.
pub fn run_judges(run: Run, record: &mut StopRecord) -> Option<String> {
    let Run {
        text,
        request,
        session,
        panel,
        settings,
        llm_timeout_ms,
        started,
    } = run;
    let mut llm_settings = settings.llm.clone();
    llm_settings.timeout_ms = llm_timeout_ms;
    let layer2 = LlmJudge::new(&llm_settings, dirs::state_dir(), started);
    let layer2 = match request {
        Request::Known(request) => layer2.with_request(request.as_deref()),
        Request::InRollout(path) => {
            let options = settings.transcript;
            layer2.with_request_from(Box::new(move || {
                transcript::turn_text(&path, options).map(|turn| turn.user_request)
            }))
        }
    };
    // The session's facts settle claims without an LLM where they can; read only when a
    // judge that uses them wakes.
    let grounded = Grounded::new(&layer2, Box::new(move || session.facts(settings)));
    let evaluation = evaluate(text, panel, &grounded);
    if let Some(e) = layer2.request_error() {
        record.errors.push(format!(
            "cannot read the user's request from the rollout: {e}"
        ));
    }
    record.provider = layer2.resolved().map(|r| r.why.clone());
    record.timings_us.layer1 = evaluation.layer1_us;
    record.timings_us.layer2 = evaluation.layer2_us;
    record.llm_calls = Some(evaluation.llm_calls);
    record.not_judged = evaluation.not_judged.map(str::to_owned);
    record.judges = evaluation.outcomes.into_iter().map(Into::into).collect();
    no_llm::no_llm_note(layer2.resolved(), record)
}
