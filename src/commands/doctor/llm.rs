//! The doctor's checks of the LLM: which provider the judges use, what can be checked about it
//! offline (the key's variable, the CLI on PATH, the model name's form), and with `--online`
//! one real call to it, timed.

use std::path::Path;
use std::time::Instant;

use serde_json::Value;

use super::report::{Check, check, info};
use crate::config::Settings;
use crate::judge::evaluate::{Answer, Layer2};
use crate::llm::resolve::{Backend, find_on_path};
use crate::llm::{LlmJudge, ProviderKind};
use crate::support::dirs;

const CHOOSING: &str =
    "see the README's \"Choosing the LLM\"; `hookjudge config path` shows your config file";

/// The provider found, the offline checks of it, and with `online` a call to it.
pub(super) fn llm_checks(settings: &Settings, online: bool) -> Vec<Check> {
    let mut checks = Vec::new();
    let resolution = crate::llm::resolve::resolve(
        &settings.llm,
        &dirs::state_dir(),
        &crate::llm::resolve::process_env,
    );
    let Some(backend) = &resolution.backend else {
        checks.push(match settings.llm.provider {
            // A choice, not a fault: commit triggers are logged unjudged.
            ProviderKind::None => info("llm", resolution.why.clone()),
            ProviderKind::Command => check(
                "llm",
                false,
                resolution.why.clone(),
                Some("set `llm.command` to the program and its arguments, e.g. `[\"llm\", \"-m\", \"gpt-4o-mini\"]`".into()),
            ),
            _ => check(
                "llm",
                false,
                format!("{}; commit triggers go unjudged", resolution.why),
                Some(format!("set `llm.provider` in your own config ({CHOOSING})")),
            ),
        });
        return checks;
    };
    let problem = offline_problem(backend);
    let described = format!("{} ({})", backend.describe(), resolution.why);
    match problem {
        Some((why, fix)) => checks.push(check(
            "llm",
            false,
            format!("{described}: {why}"),
            Some(fix),
        )),
        None => checks.push(check("llm", true, described, None)),
    }
    if let Some(model) = &settings.llm.model
        && let Some(why) = model_form_problem(model)
    {
        checks.push(check(
            "llm model",
            false,
            format!("`llm.model` is `{model}`: {why}"),
            Some("set `llm.model` to the provider's model name, e.g. `gpt-5-mini` or `claude-haiku-4-5`".into()),
        ));
    }
    if online {
        checks.push(call(settings));
    }
    checks
}

/// What is wrong with the provider that can be seen without calling it, and how to fix it.
fn offline_problem(backend: &Backend) -> Option<(String, String)> {
    match backend {
        Backend::OpenAi {
            missing_key: Some(variable),
            ..
        }
        | Backend::Anthropic {
            missing_key: Some(variable),
            ..
        } => Some((
            format!("`{variable}` is not set or empty, so no request can be sent"),
            format!("set {variable} or llm.api_key_env (the variable that holds the key)"),
        )),
        Backend::Command { name, argv, .. } => {
            let program = argv.first()?;
            let found = if Path::new(program).is_absolute() {
                Path::new(program).is_file()
            } else {
                let path = std::env::var("PATH").unwrap_or_default();
                find_on_path(program, &path).is_some()
            };
            if found {
                return None;
            }
            let fix = match *name {
                "codex" => "install the Codex CLI so that `codex` is on PATH, or choose another `llm.provider`".to_string(),
                "claude" => "install Claude Code so that `claude` is on PATH, or choose another `llm.provider`".to_string(),
                _ => format!("install `{program}`, or set `llm.command` to a program that exists"),
            };
            Some((format!("`{program}` is not on PATH"), fix))
        }
        _ => None,
    }
}

/// Why `model` cannot be a model name: names are one word of letters, digits and `.-_:/@`.
fn model_form_problem(model: &str) -> Option<&'static str> {
    if model.trim().is_empty() {
        Some("it is empty")
    } else if model.chars().any(char::is_whitespace) {
        Some("a model name has no spaces")
    } else if !model
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ".-_:/@".contains(c))
    {
        Some("a model name holds only letters, digits and `.-_:/@`")
    } else {
        None
    }
}

/// One real call to the provider with the `commit` judge, timed.
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
    let provider = layer2
        .resolved()
        .and_then(|r| r.backend.as_ref())
        .map(|b| b.provider())
        .unwrap_or("the provider");
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
                    "{provider} answered in {ms} ms with fields {}{format}{rejected}",
                    Value::Object(fields)
                ),
                None,
            )
        }
        Answer::Failed { cause, .. } => check(
            "llm call",
            false,
            format!("{provider} failed after {ms} ms: {cause}"),
            Some(
                "check `llm.base_url`, `llm.model` and the key's variable (`llm.api_key_env`)"
                    .into(),
            ),
        ),
        Answer::Unjudged => check("llm call", false, "no provider", None),
    }
}

#[cfg(test)]
mod tests {
    use super::model_form_problem;

    #[test]
    fn model_names_are_one_word() {
        for good in [
            "gpt-5-mini",
            "claude-haiku-4-5",
            "qwen2.5:7b",
            "meta/llama-3.1@v2",
        ] {
            assert_eq!(model_form_problem(good), None, "{good}");
        }
        for bad in ["", "gpt 5", "gpt-5-mini\n", "модель"] {
            assert!(model_form_problem(bad).is_some(), "{bad:?}");
        }
    }
}
