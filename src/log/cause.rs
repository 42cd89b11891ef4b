//! Why a Stop failed open, as a type: carried from where the failure happens (a judge's LLM
//! call, its pattern, the hook's input, arguments or config, a panic) to the log line, and read
//! back from the line by `log` and `stats`.
//!
//! The log's lines do not name the cause in a field of its own: a judge's failed call logs its
//! [`FailureKind`] in `layer2.failure`, and a failure before any judge ran logs its error
//! message first in `errors`. Those messages begin with words that say the cause
//! ([`HOOK_ERRORS`]); the writers are held to them (`StopRecord::fail_open` checks each
//! message it is given against its cause in debug builds, and the hook's tests check every
//! message it writes), so a reworded message either keeps its cause or fails a test.

use crate::judge::evaluate::Verdict;
use crate::judge::layer2::FailureKind;
use crate::log::Record;

/// Why a Stop failed open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// A judge's LLM call gave no usable answer.
    Llm(FailureKind),
    /// A judge failed without an LLM call: in Layer 1, its pattern.
    BadPattern,
    /// The hook panicked.
    Internal,
    /// The hook's own command line is wrong.
    BadArguments,
    /// The hook input could not be read or is no agent's.
    BadInput,
    /// The config, or a judge in it, does not load.
    Config,
}

/// How each failure before any judge ran begins its logged error (the hook's input errors,
/// the panic, the usage error; anything else is the config's). Several beginnings say "bad
/// hook input": each input error words it its own way.
pub const HOOK_ERRORS: [(&str, Cause); 6] = [
    ("internal error", Cause::Internal),
    ("bad arguments", Cause::BadArguments),
    ("cannot read stdin", Cause::BadInput),
    ("hook input", Cause::BadInput),
    ("cannot tell which agent", Cause::BadInput),
    ("no hook input", Cause::BadInput),
];

impl Cause {
    /// The cause as counted and shown (`deadline`, `bad hook input`).
    pub fn label(&self) -> &'static str {
        match self {
            Cause::Llm(kind) => match kind {
                FailureKind::Timeout => "deadline",
                FailureKind::Http => "provider error",
                FailureKind::Connect => "provider unreachable",
                FailureKind::Unparseable => "unusable answer",
                FailureKind::Missing => "LLM program missing",
                FailureKind::Process => "LLM program failed",
                FailureKind::Config => "LLM config",
                FailureKind::Other(_) => "LLM failure",
            },
            Cause::BadPattern => "bad pattern",
            Cause::Internal => "internal error",
            Cause::BadArguments => "bad hook arguments",
            Cause::BadInput => "bad hook input",
            Cause::Config => "config",
        }
    }

    /// The cause of a failure before any judge ran, from its logged error.
    pub fn of_hook_error(error: &str) -> Cause {
        HOOK_ERRORS
            .iter()
            .find(|(start, _)| error.starts_with(start))
            .map_or(Cause::Config, |(_, cause)| cause.clone())
    }

    /// Why `record` failed open, and the logged detail (`commit: the LLM did not answer
    /// before the deadline`). `None` unless it did.
    pub fn of(record: &Record) -> Option<(Cause, String)> {
        if record.action() != "fail-open" {
            return None;
        }
        let failed = record
            .judges()
            .iter()
            .find(|j| j.verdict == Some(Verdict::Fail));
        if let Some(judge) = failed {
            let kind = judge.layer2.as_ref().and_then(|l| l.call.failure.clone());
            let cause = kind.map_or(Cause::BadPattern, Cause::Llm);
            let reason = judge.reason.as_deref().unwrap_or("no reason logged");
            return Some((cause, format!("{}: {reason}", judge.judge)));
        }
        let error = record
            .errors()
            .first()
            .map_or("no cause logged", String::as_str);
        Some((Cause::of_hook_error(error), error.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stop(mut v: serde_json::Value) -> Record {
        v["kind"] = json!("stop");
        v["ts"] = json!("2026-12-01T10:00:00Z");
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn causes_come_from_the_judge_or_the_hook() {
        let timeout = stop(json!({"action": "fail-open", "judges": [
            {"judge": "scope-check", "verdict": "allow"},
            {"judge": "commit", "verdict": "fail", "reason": "the LLM did not answer before the deadline",
             "layer2": {"failure": "timeout"}}]}));
        let (cause, detail) = Cause::of(&timeout).unwrap();
        assert_eq!(cause, Cause::Llm(FailureKind::Timeout));
        assert_eq!(
            (cause.label(), detail.as_str()),
            (
                "deadline",
                "commit: the LLM did not answer before the deadline"
            )
        );
        let pattern = stop(json!({"action": "fail-open", "judges": [
            {"judge": "commit", "verdict": "fail", "reason": "regex too big"}]}));
        assert_eq!(Cause::of(&pattern).unwrap().0, Cause::BadPattern);
        let newer = stop(json!({"action": "fail-open", "judges": [
            {"judge": "commit", "verdict": "fail", "layer2": {"failure": "quota"}}]}));
        assert_eq!(Cause::of(&newer).unwrap().0.label(), "LLM failure");
        let panic =
            stop(json!({"action": "fail-open", "judges": [], "errors": ["internal error: boom"]}));
        assert_eq!(Cause::of(&panic).unwrap().0, Cause::Internal);
        let config =
            stop(json!({"action": "fail-open", "errors": ["`.hookjudge.json`: unknown key `x`"]}));
        assert_eq!(Cause::of(&config).unwrap().0, Cause::Config);
        assert_eq!(Cause::of(&stop(json!({"action": "block"}))), None);
    }

    #[test]
    fn a_failed_call_counts_by_its_kind_not_its_message() {
        // The reason is the provider's message, which changes with every provider and version;
        // the kind alone says the cause.
        for reason in [
            "cannot reach the LLM server: connection refused",
            "the server went away",
        ] {
            let line = stop(json!({"action": "fail-open", "judges": [
                {"judge": "commit", "verdict": "fail", "reason": reason,
                 "layer2": {"failure": "connect"}}]}));
            assert_eq!(Cause::of(&line).unwrap().0.label(), "provider unreachable");
        }
    }

    #[test]
    fn every_label_is_the_one_shown_before() {
        // The words `stats` and `log` have always shown, per logged kind or message.
        let shown = [
            (Cause::Llm(FailureKind::Timeout), "deadline"),
            (Cause::Llm(FailureKind::Http), "provider error"),
            (Cause::Llm(FailureKind::Connect), "provider unreachable"),
            (Cause::Llm(FailureKind::Unparseable), "unusable answer"),
            (Cause::Llm(FailureKind::Missing), "LLM program missing"),
            (Cause::Llm(FailureKind::Process), "LLM program failed"),
            (Cause::Llm(FailureKind::Config), "LLM config"),
            (Cause::Llm(FailureKind::Other("x".into())), "LLM failure"),
            (Cause::BadPattern, "bad pattern"),
            (Cause::Internal, "internal error"),
            (Cause::BadArguments, "bad hook arguments"),
            (Cause::BadInput, "bad hook input"),
            (Cause::Config, "config"),
        ];
        for (cause, label) in shown {
            assert_eq!(cause.label(), label);
        }
    }
}
