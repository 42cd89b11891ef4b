//! The doctor's checks of the LLM: which provider the judges use, what can be checked about it
//! offline (the key's variable, the CLI on PATH, the model name's form), and with `--online`
//! one real call to it, timed.

use std::path::Path;
use std::time::Instant;

use super::report::{Check, check, info, warning};
use crate::config::Settings;
use crate::judge::claims::Grounded;
use crate::judge::evaluate::{Decision, JudgeTurns, Verdict, evaluate};
use crate::llm::resolve::{Backend, find_on_path};
use crate::llm::{LlmJudge, ProviderKind};
use crate::support::dirs;
use crate::transcript::facts::TurnFacts;

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
            // Nothing is broken: hookjudge runs, its Stop judges are off, and the person is told
            // (here, and once per session in the agent). A warning, not a problem.
            _ => warning(
                "llm",
                format!(
                    "{}; the Stop judges are off (commit triggers go unjudged) and the gate asks you where it would ask the judge",
                    resolution.why
                ),
                format!("set `llm.provider` in your own config ({CHOOSING})"),
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

/// The turn `--online` sends: one that could hold a violation, so every judge is asked.
const SAMPLE_TURN: &str = "The refactor is done. I'll push to main now.";

/// One real call to the provider, timed: the question the Stop hook sends at the end of a
/// turn, every enabled judge in one combined prompt, so that a provider (a `command` script
/// above all) that answers the hook is the one that passes here.
fn call(settings: &Settings) -> Check {
    let mut panel = match settings.panel(&[]) {
        Ok(panel) => panel,
        Err(e) => {
            return check(
                "llm call",
                false,
                format!("the judges do not build, so nothing was sent: {e}"),
                Some("`hookjudge config check` names the key to fix".into()),
            );
        }
    };
    if panel.judges.is_empty() {
        return check(
            "llm call",
            false,
            "no Stop judge is enabled; nothing to call with",
            None,
        );
    }
    // Every judge, whatever `stop.judge_turns` says: the call must carry all of them.
    panel.judge_turns = JudgeTurns::All;
    let mut llm = settings.llm.clone();
    llm.cache_seconds = 0;
    let started = Instant::now();
    let layer2 = LlmJudge::new(&llm, dirs::state_dir(), started);
    // As the hook runs it in an agent's session: the session's facts decide which judges go
    // into the call (here a session with nothing done yet).
    let grounded = Grounded::new(&layer2, Box::new(|| Some(TurnFacts::default())));
    let evaluation = evaluate(SAMPLE_TURN, &panel, &grounded);
    let ms = started.elapsed().as_millis();
    let backend = layer2.resolved().and_then(|r| r.backend.as_ref());
    let provider = backend.map(Backend::provider).unwrap_or("the provider");
    let fix = backend.map(call_fix);
    let asked: Vec<_> = evaluation
        .outcomes
        .iter()
        .filter(|o| o.layer2.is_some())
        .collect();
    if asked.is_empty() {
        return check("llm call", false, "no provider", None);
    }
    let failed: Vec<_> = asked
        .iter()
        .filter(|o| o.verdict == Some(Verdict::Fail))
        .collect();
    // The call's own record: how many judges shared it, the format the server took.
    let meta = asked
        .iter()
        .filter_map(|o| o.layer2.clone())
        .find(|m| m.provider.is_some())
        .unwrap_or_default();
    let judges = meta.shared_by.map_or(asked.len(), |n| n as usize);
    let calls = evaluation.llm_calls;
    if failed.len() == judges
        && let Some(cause) = failed[0].reason.as_deref()
        && failed.iter().all(|o| o.reason.as_deref() == Some(cause))
    {
        return check(
            "llm call",
            false,
            format!("{provider} failed after {ms} ms: {cause}"),
            fix,
        );
    }
    if !failed.is_empty() {
        let parts: Vec<String> = failed
            .iter()
            .map(|o| {
                format!(
                    "`{}`: {}",
                    o.judge,
                    o.reason.as_deref().unwrap_or("no answer")
                )
            })
            .collect();
        return check(
            "llm call",
            false,
            format!(
                "{provider} answered in {ms} ms, but not for every judge ({} of {judges} unusable; the Stop hook lets those judges allow): {}",
                failed.len(),
                parts.join("; ")
            ),
            fix,
        );
    }
    let format = meta
        .format
        .map(|f| format!(", response format `{f}` works"))
        .unwrap_or_default();
    let rejected = meta
        .format_rejected
        .map(|f| format!(" (`{f}` was rejected)"))
        .unwrap_or_default();
    let blocking: Vec<&str> = asked
        .iter()
        .filter(|o| o.decision == Decision::Block)
        .map(|o| o.judge.as_str())
        .collect();
    let verdict = if blocking.is_empty() {
        "no judge blocks it".to_string()
    } else {
        format!("it blocks for {}", blocking.join(", "))
    };
    check(
        "llm call",
        true,
        format!(
            "{provider} answered in {ms} ms the question the Stop hook sends ({judges} judges in {calls} call{}){format}{rejected}; on \"{SAMPLE_TURN}\" {verdict}",
            if calls == 1 { "" } else { "s" }
        ),
        None,
    )
}

/// Where to look when the call fails: the settings that make up this kind of provider.
fn call_fix(backend: &Backend) -> String {
    match backend {
        Backend::OpenAi { .. } | Backend::Anthropic { .. } => {
            "check `llm.base_url`, `llm.model` and the key's variable (`llm.api_key_env`)".into()
        }
        Backend::Command {
            name: name @ ("codex" | "claude"),
            ..
        } => format!(
            "check that `{name}` works on its own (installed, logged in, `llm.model` available to it), or choose another `llm.provider`"
        ),
        Backend::Command { .. } => "check `llm.command`: the program reads the prompt on stdin and prints one JSON object with a member per judge, every judge present, as the prompt's line starting \"Answer with exactly one JSON object\" says (README, \"Choosing the LLM\")".into(),
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
