//! The notice that no LLM judges: which is missing (none configured or found, or it cannot be
//! reached) and the one setting that fixes it, told to the human once per session.

use std::path::Path;

use crate::judge::layer2::FailureKind;
use crate::llm::Resolution;
use crate::log::StopRecord;

/// The notice key that says no LLM judges, told once per session.
const NO_LLM_NOTICE: &str = "no-llm";

/// What the human is told, once per session, when asked judges got no LLM: which is missing
/// and the one setting that fixes it.
pub fn no_llm_note(resolution: Option<&Resolution>, record: &StopRecord) -> Option<String> {
    let resolution = resolution?;
    if resolution.backend.is_none() {
        return Some(format!(
            "hookjudge is not judging: no LLM ({}). Set `llm.provider` in your config (`hookjudge config path` shows where; for example {{\"llm\": {{\"provider\": \"anthropic\"}}}}), then check it with `hookjudge doctor --online`.",
            resolution.why
        ));
    }
    let unreachable = record.judges.iter().find(|j| {
        j.layer2
            .as_ref()
            .is_some_and(|l| l.call.failure == Some(FailureKind::Connect))
    })?;
    Some(format!(
        "hookjudge is not judging: {}. Fix `llm.base_url` in your config (or start the server), then check it with `hookjudge doctor --online`.",
        unreachable
            .reason
            .as_deref()
            .unwrap_or("the LLM cannot be reached")
    ))
}

/// Whether the no-LLM notice is new to `session` (a ledger that cannot be read repeats it:
/// better than hiding it).
pub fn told_first(state_dir: &Path, session: &str, record: &mut StopRecord) -> bool {
    super::ledger::first_in_session(state_dir, session, NO_LLM_NOTICE).unwrap_or_else(|e| {
        record.errors.push(format!(
            "session ledger unavailable ({e}); the no-LLM notice may repeat"
        ));
        true
    })
}
