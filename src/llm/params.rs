//! Optional request parameters of chat-completions calls, and which ones a server refuses.
//!
//! OpenAI's reasoning models answer HTTP 400 "Unsupported parameter" for `max_tokens` and for a
//! `temperature` other than the default, and other servers refuse what they do not know. The
//! request leaves out what a model is known to refuse; when a server still answers 400 naming
//! one of these parameters, the call is retried once without it, and the refusal is remembered
//! per server and model in the state directory, as the working `response_format` is.

use std::path::Path;

use serde_json::{Value, json};

use super::Failure;
use super::memory::ServerMemory;
use crate::support::statefile;

/// Parameters a request may carry that a server may refuse; every other key is required.
pub const OPTIONAL: &[&str] = &["temperature", "max_completion_tokens", "reasoning_effort"];

/// Whether `model` is a reasoning model (OpenAI's `o1`, `o3`, `o4-mini`, `gpt-5*`, also behind a
/// router prefix such as `openai/`): these take only the default temperature, and their reasoning
/// counts against `max_completion_tokens`.
pub fn is_reasoning_model(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let mut chars = name.chars();
    name.starts_with("gpt-5")
        || (chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit()))
}

/// The optional parameters to send to `model`, minus those in `omit`.
pub fn optional_for(model: &str, omit: &[String]) -> Vec<(&'static str, Value)> {
    let wanted: Vec<(&'static str, Value)> = if is_reasoning_model(model) {
        // Room for a little reasoning before the short JSON answer; the least effort offered.
        vec![
            ("max_completion_tokens", json!(2000)),
            ("reasoning_effort", json!("low")),
        ]
    } else {
        vec![
            ("temperature", json!(0)),
            ("max_completion_tokens", json!(400)),
        ]
    };
    wanted
        .into_iter()
        .filter(|(name, _)| !omit.iter().any(|o| o == name))
        .collect()
}

/// The optional parameter a failed request was refused for, if the failure names one that
/// `body` carries: HTTP 400 or 422 whose error names it (`error.param`, or the message).
pub fn refused(failure: &Failure, body: &Value) -> Option<&'static str> {
    let Failure::Http { status, body: text } = failure else {
        return None;
    };
    if !matches!(status, 400 | 422) {
        return None;
    }
    let sent = |name: &&'static str| body.get(*name).is_some();
    let named = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v["error"]["param"].as_str().map(str::to_owned));
    if let Some(param) = named {
        return OPTIONAL.iter().copied().filter(sent).find(|p| *p == param);
    }
    let lower = text.to_ascii_lowercase();
    let refusal = [
        "unsupported",
        "not supported",
        "unrecognized",
        "unknown",
        "not permitted",
        "extra inputs",
        "does not support",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if !refusal {
        return None;
    }
    OPTIONAL
        .iter()
        .copied()
        .filter(sent)
        .find(|p| lower.contains(p))
}

/// The parameters a server and model refused before, kept in the state directory.
pub struct RefusedMemory(ServerMemory);

impl RefusedMemory {
    pub fn new(state_dir: &Path, base_url: &str, model: &str) -> RefusedMemory {
        RefusedMemory(ServerMemory::new(
            state_dir,
            "refused-params.json",
            base_url,
            model,
        ))
    }

    /// What this server and model refused, or nothing when unknown.
    pub fn recall(&self) -> Vec<String> {
        self.0
            .recall()
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|p| OPTIONAL.contains(p))
            .map(str::to_owned)
            .collect()
    }

    /// Records the full list of refused parameters.
    pub fn remember(&self, refused: &[String]) -> Result<(), statefile::Error> {
        self.0.remember(json!(refused))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, body: &str) -> Failure {
        Failure::Http {
            status,
            body: body.into(),
        }
    }

    #[test]
    fn reasoning_models_get_no_temperature() {
        for m in ["gpt-5-mini", "o3", "o4-mini", "openai/gpt-5", "O1-preview"] {
            assert!(is_reasoning_model(m), "{m}");
            assert!(
                optional_for(m, &[])
                    .iter()
                    .all(|(k, _)| *k != "temperature")
            );
        }
        for m in [
            "gpt-4o-mini",
            "llama3.1:8b",
            "qwen2.5",
            "openai/gpt-4.1",
            "olmo-2",
        ] {
            assert!(!is_reasoning_model(m), "{m}");
        }
        let sent = optional_for("gpt-4o-mini", &["temperature".into()]);
        assert_eq!(sent, [("max_completion_tokens", json!(400))]);
    }

    #[test]
    fn a_refusal_names_a_parameter_that_was_sent() {
        let body = json!({"model": "m", "temperature": 0, "max_completion_tokens": 400});
        let openai = r#"{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}"#;
        assert_eq!(refused(&http(400, openai), &body), Some("temperature"));
        let plain =
            "Unsupported parameter: 'max_completion_tokens' is not supported with this model.";
        assert_eq!(
            refused(&http(400, plain), &body),
            Some("max_completion_tokens")
        );
        // Not sent, not a 400, or not a refusal: no retry.
        assert_eq!(
            refused(
                &http(400, "Unsupported parameter: 'reasoning_effort'"),
                &body
            ),
            None
        );
        assert_eq!(refused(&http(500, plain), &body), None);
        assert_eq!(
            refused(&http(400, "temperature too high, try again"), &body),
            None
        );
        assert_eq!(refused(&Failure::Timeout, &body), None);
    }

    #[test]
    fn refusals_are_remembered_per_server_and_model() {
        let dir = tempfile::tempdir().unwrap();
        let m = RefusedMemory::new(dir.path(), "http://x", "m");
        assert!(m.recall().is_empty());
        m.remember(&["temperature".into()]).unwrap();
        assert_eq!(
            RefusedMemory::new(dir.path(), "http://x", "m").recall(),
            ["temperature"]
        );
        assert!(
            RefusedMemory::new(dir.path(), "http://x", "other")
                .recall()
                .is_empty()
        );
    }
}
