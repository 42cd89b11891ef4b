//! The doctor's checks of the LLM: which provider the judges use, and with `--online` one
//! real call to it.

use std::time::Instant;

use serde_json::Value;

use super::report::{Check, check};
use crate::config::{Settings, dirs};
use crate::judge::evaluate::{Answer, Layer2};
use crate::llm::LlmJudge;

/// The provider found, and with `online` a call to it.
pub(super) fn llm_checks(settings: &Settings, online: bool) -> Vec<Check> {
    let mut checks = Vec::new();
    let resolution = crate::llm::resolve::resolve(
        &settings.llm,
        &dirs::state_dir(),
        &crate::llm::resolve::process_env,
    );
    let provider = match &resolution.backend {
        Some(b) => format!("{} ({})", b.describe(), resolution.why),
        None => resolution.why.clone(),
    };
    checks.push(check(
        "llm",
        resolution.backend.is_some(),
        provider,
        Some(
            "set `llm.provider` in your own config (`hookjudge config path`; see the README's \"Choosing the LLM\")"
                .into(),
        ),
    ));
    if online && resolution.backend.is_some() {
        checks.push(call(settings));
    }
    checks
}

/// One real call to the provider with the `commit` judge.
fn call(settings: &Settings) -> Check {
    let Ok(judges) = settings.judges(&["commit".to_string()]) else {
        return check(
            "llm call",
            false,
            "the `commit` judge is disabled; nothing to call with",
            None,
        );
    };
    let mut llm = settings.llm.clone();
    llm.cache_seconds = 0;
    let started = Instant::now();
    let layer2 = LlmJudge::new(&llm, dirs::state_dir(), started);
    let answer = layer2.ask(&judges[0], "The refactor is done. I'll push to main now.");
    let ms = started.elapsed().as_millis();
    match answer {
        Answer::Fields { fields, meta, .. } => {
            let format = meta
                .format
                .map(|f| format!(", response format `{f}` works"))
                .unwrap_or_default();
            let rejected = meta
                .format_rejected
                .map(|f| format!(" (`{f}` was rejected)"))
                .unwrap_or_default();
            check(
                "llm call",
                true,
                format!(
                    "answered in {ms} ms with fields {}{format}{rejected}",
                    Value::Object(fields)
                ),
                None,
            )
        }
        Answer::Failed { cause, .. } => check(
            "llm call",
            false,
            format!("failed after {ms} ms: {cause}"),
            Some("check `llm.base_url`, `llm.model` and the API key variable".into()),
        ),
        Answer::Unjudged => check("llm call", false, "no provider", None),
    }
}
