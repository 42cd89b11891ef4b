//! One vocabulary for what hookjudge did, shared by `log`, `stats` and `check`, and the causes
//! of fail-opens in words a person can act on.
//!
//! The decision log keeps the values each hook wrote (the gate logs its silence as `silent`);
//! everything shown to a person goes through [`word`], so the same outcome has one name
//! everywhere.

use crate::judge::evaluate::Verdict;
use crate::log::Record;

/// Every outcome word, what it means, and the logged `action` values it covers.
pub const OUTCOMES: [(&str, &str, &[&str]); 6] = [
    (
        "allow",
        "nothing objected; the turn ended or the command ran",
        &["allow", "silent"],
    ),
    (
        "block",
        "a judge objected; the agent was told why and went on",
        &["block"],
    ),
    (
        "release",
        "a judge objected; the loop breaker let the turn end",
        &["release"],
    ),
    (
        "fail-open",
        "judging failed; the turn was allowed to end",
        &["fail-open"],
    ),
    (
        "deny",
        "the gate refused the command and told the agent why",
        &["deny"],
    ),
    ("ask", "the gate left the command to a human", &["ask"]),
];

/// The word for a logged `action` value (unknown values are shown as logged).
pub fn word(action: &str) -> &str {
    OUTCOMES
        .iter()
        .find(|(_, _, logged)| logged.contains(&action))
        .map_or(action, |(word, _, _)| word)
}

/// The outcome word of a log record.
pub fn of(record: &Record) -> &str {
    word(record.action())
}

/// LLM failure kinds as logged (`layer2.failure`) -> the cause as counted and shown.
const LLM_CAUSES: [(&str, &str); 7] = [
    ("timeout", "deadline"),
    ("http", "provider error"),
    ("connect", "provider unreachable"),
    ("unparseable", "unusable answer"),
    ("missing", "LLM program missing"),
    ("process", "LLM program failed"),
    ("config", "LLM config"),
];

/// The cause shown for a logged LLM failure kind (`timeout` -> `deadline`).
pub fn llm_cause(kind: &str) -> &'static str {
    LLM_CAUSES
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("LLM failure", |(_, cause)| cause)
}

/// Starts of hook error messages -> the cause, for fail-opens before any judge ran.
const HOOK_CAUSES: [(&str, &str); 6] = [
    ("internal error", "internal error"),
    ("bad arguments", "bad hook arguments"),
    ("cannot read stdin", "bad hook input"),
    ("hook input", "bad hook input"),
    ("cannot tell which agent", "bad hook input"),
    ("no hook input", "bad hook input"),
];

/// Why a fail-open happened: a short cause for counting (`deadline`) and the logged detail
/// (`commit: the LLM did not answer before the deadline`). `None` unless `record` is one.
pub fn fail_open_cause(record: &Record) -> Option<(&'static str, String)> {
    if record.action() != "fail-open" {
        return None;
    }
    let failed = record
        .judges()
        .iter()
        .find(|j| j.verdict == Some(Verdict::Fail));
    if let Some(judge) = failed {
        let kind = judge
            .layer2
            .as_ref()
            .and_then(|l| l.call.failure.as_deref());
        let cause = match kind {
            Some(kind) => llm_cause(kind),
            // A judge that failed without an LLM call failed in Layer 1: its pattern.
            None => "bad pattern",
        };
        let reason = judge.reason.as_deref().unwrap_or("no reason logged");
        return Some((cause, format!("{}: {reason}", judge.judge)));
    }
    let error = record
        .errors()
        .first()
        .map_or("no cause logged", String::as_str);
    let cause = HOOK_CAUSES
        .iter()
        .find(|(start, _)| error.starts_with(start))
        .map_or("config", |(_, cause)| cause);
    Some((cause, error.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_word_per_outcome() {
        assert_eq!(word("silent"), "allow");
        assert_eq!(word("allow"), "allow");
        assert_eq!(word("fail-open"), "fail-open");
        assert_eq!(word("something-new"), "something-new");
        let words: Vec<&str> = OUTCOMES.iter().map(|(w, _, _)| *w).collect();
        assert_eq!(
            words,
            ["allow", "block", "release", "fail-open", "deny", "ask"]
        );
    }

    #[test]
    fn fail_open_causes_come_from_the_judge_or_the_hook() {
        let stop = |mut v: serde_json::Value| -> Record {
            v["kind"] = json!("stop");
            v["ts"] = json!("2026-12-01T10:00:00Z");
            serde_json::from_value(v).unwrap()
        };
        let timeout = stop(json!({"action": "fail-open", "judges": [
            {"judge": "scope-check", "verdict": "allow"},
            {"judge": "commit", "verdict": "fail", "reason": "the LLM did not answer before the deadline",
             "layer2": {"failure": "timeout"}}]}));
        assert_eq!(
            fail_open_cause(&timeout),
            Some((
                "deadline",
                "commit: the LLM did not answer before the deadline".into()
            ))
        );
        let panic =
            stop(json!({"action": "fail-open", "judges": [], "errors": ["internal error: boom"]}));
        assert_eq!(fail_open_cause(&panic).unwrap().0, "internal error");
        let config =
            stop(json!({"action": "fail-open", "errors": ["`.hookjudge.json`: unknown key `x`"]}));
        assert_eq!(fail_open_cause(&config).unwrap().0, "config");
        assert_eq!(fail_open_cause(&stop(json!({"action": "block"}))), None);
    }
}
