//! Why a Stop failed open, as a type: carried from where the failure happens (a judge's LLM
//! call, its pattern, the hook's input, arguments or config, a panic) to the log line, and read
//! back from the line by `log` and `stats`.
//!
//! A fail-open line names its cause in a field of its own, `cause`, by a stable key
//! ([`Cause::key`]): rewording an error message changes nothing `stats` counts. A judge's
//! failed call also logs its [`FailureKind`] in `layer2.failure`, which says which LLM failure
//! it was. Lines written before the field existed are read as they always were: a judge's
//! failure by its entry, a failure before any judge ran by the words its logged error begins
//! with ([`HOOK_ERRORS`]); the writers are still held to those words
//! (`StopRecord::fail_open` checks each message it is given against its cause in debug
//! builds), so old and new lines say the same.

use crate::judge::evaluate::Verdict;
use crate::judge::layer2::FailureKind;
use crate::log::{JudgeEntry, Record, StopAction};

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
/// hook input": each input error words it its own way. Read only for lines without a `cause`
/// field, which versions before it wrote.
pub const HOOK_ERRORS: [(&str, Cause); 6] = [
    ("internal error", Cause::Internal),
    ("bad arguments", Cause::BadArguments),
    ("cannot read stdin", Cause::BadInput),
    ("hook input", Cause::BadInput),
    ("cannot tell which agent", Cause::BadInput),
    ("no hook input", Cause::BadInput),
];

/// Each cause's key in a fail-open line's `cause` field, but an LLM failure's (`llm`, whose
/// kind is in its judge's `layer2.failure`): the one spelling writers write and readers read.
const KEYS: [(&str, Cause); 5] = [
    ("bad_pattern", Cause::BadPattern),
    ("internal", Cause::Internal),
    ("bad_arguments", Cause::BadArguments),
    ("bad_input", Cause::BadInput),
    ("config", Cause::Config),
];

/// The key of an LLM failure in the `cause` field.
const LLM_KEY: &str = "llm";

impl Cause {
    /// The key logged in a fail-open line's `cause` field (`bad_input`, `llm`).
    pub fn key(&self) -> &'static str {
        match self {
            Cause::Llm(_) => LLM_KEY,
            known => KEYS
                .iter()
                .find(|(_, cause)| cause == known)
                .map_or("", |(key, _)| key),
        }
    }

    /// The cause a logged key names, but an LLM failure's, which its judge says (`None` for
    /// `llm` and for a key this version does not know).
    fn of_key(key: &str) -> Option<Cause> {
        KEYS.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, cause)| cause.clone())
    }

    /// The cause of a judge's failure: its call's kind, or without a failed call its pattern.
    pub fn of_judge(judge: &JudgeEntry) -> Cause {
        let kind = judge.layer2.as_ref().and_then(|l| l.call.failure.clone());
        kind.map_or(Cause::BadPattern, Cause::Llm)
    }

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
    /// before the deadline`). `None` unless it did. The `cause` field says it; a line without
    /// one (or with a key this version does not know) is read by its failed judge or the
    /// beginning of its error, as before the field existed.
    pub fn of(record: &Record) -> Option<(Cause, String)> {
        let Record::Stop(stop) = record else {
            return None;
        };
        if stop.action != StopAction::FailOpen {
            return None;
        }
        let error = stop
            .errors
            .first()
            .map_or("no cause logged", String::as_str);
        let keyed = stop.cause.as_deref().and_then(Cause::of_key);
        let failed = stop
            .judges
            .iter()
            .find(|j| j.verdict == Some(Verdict::Fail));
        // A failed judge's entry says which failure it was and why; its key says only `llm`
        // or `bad_pattern`.
        match (keyed, failed) {
            (Some(cause), _) if cause != Cause::BadPattern => Some((cause, error.to_owned())),
            (_, Some(judge)) => {
                let reason = judge.reason.as_deref().unwrap_or("no reason logged");
                Some((Cause::of_judge(judge), format!("{}: {reason}", judge.judge)))
            }
            (keyed, None) => Some((
                keyed.unwrap_or_else(|| Cause::of_hook_error(error)),
                error.to_owned(),
            )),
        }
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
    fn the_cause_field_says_the_cause_whatever_the_message() {
        // Messages reworded, or in words no prefix knows: the field decides.
        for (key, error, cause) in [
            (
                "bad_input",
                "the agent sent nothing readable",
                Cause::BadInput,
            ),
            ("internal", "hookjudge crashed: boom", Cause::Internal),
            ("bad_arguments", "unexpected flag --x", Cause::BadArguments),
            (
                "config",
                "cannot read stdin (a config error worded oddly)",
                Cause::Config,
            ),
        ] {
            let line = stop(json!({"action": "fail-open", "cause": key, "errors": [error]}));
            assert_eq!(Cause::of(&line), Some((cause, error.to_owned())), "{key}");
        }
        // A judge's failure: the key says a judge failed, its entry which failure and why.
        let llm = stop(json!({"action": "fail-open", "cause": "llm", "judges": [
            {"judge": "commit", "verdict": "fail", "reason": "slow", "layer2": {"failure": "timeout"}}]}));
        assert_eq!(
            Cause::of(&llm),
            Some((Cause::Llm(FailureKind::Timeout), "commit: slow".into()))
        );
        let pattern = stop(
            json!({"action": "fail-open", "cause": "bad_pattern", "judges": [
            {"judge": "commit", "verdict": "fail", "reason": "regex too big"}]}),
        );
        assert_eq!(Cause::of(&pattern).unwrap().0, Cause::BadPattern);
    }

    #[test]
    fn a_line_without_the_field_is_read_by_its_error_as_before() {
        for (error, cause) in [
            ("cannot read stdin: gone", Cause::BadInput),
            ("hook input too large", Cause::BadInput),
            ("bad arguments for `hookjudge stop`: x", Cause::BadArguments),
            ("internal error: boom", Cause::Internal),
            ("`.hookjudge.json`: unknown key `x`", Cause::Config),
        ] {
            let old = stop(json!({"action": "fail-open", "errors": [error]}));
            assert_eq!(Cause::of(&old), Some((cause, error.to_owned())));
        }
        // A key a newer version wrote and this one does not know: read as an old line.
        let newer = stop(
            json!({"action": "fail-open", "cause": "cosmic_ray", "errors": ["internal error: x"]}),
        );
        assert_eq!(Cause::of(&newer).unwrap().0, Cause::Internal);
        let empty = stop(json!({"action": "fail-open"}));
        assert_eq!(
            Cause::of(&empty),
            Some((Cause::Config, "no cause logged".into()))
        );
    }

    #[test]
    fn what_fail_open_writes_is_read_back_by_its_key() {
        let mut record = crate::log::StopRecord::new();
        record.fail_open(Cause::BadInput, "hook input too large".into());
        let line = serde_json::to_value(Record::Stop(record)).unwrap();
        assert_eq!(line["cause"], "bad_input");
        // Reworded after it was written, the line still counts under its cause.
        let mut reworded = line.clone();
        reworded["errors"] = json!(["the input was more than the hook reads"]);
        let read: Record = serde_json::from_value(reworded).unwrap();
        assert_eq!(Cause::of(&read).unwrap().0, Cause::BadInput);
        // An allowed Stop names no cause.
        let allowed = serde_json::to_value(Record::Stop(crate::log::StopRecord::new())).unwrap();
        assert!(allowed.get("cause").is_none(), "{allowed}");
    }

    #[test]
    fn every_key_is_spelled_as_logged() {
        // The keys are the log's format: once written, never respelled.
        let keys = [
            (Cause::Llm(FailureKind::Timeout), "llm"),
            (Cause::Llm(FailureKind::Other("x".into())), "llm"),
            (Cause::BadPattern, "bad_pattern"),
            (Cause::Internal, "internal"),
            (Cause::BadArguments, "bad_arguments"),
            (Cause::BadInput, "bad_input"),
            (Cause::Config, "config"),
        ];
        for (cause, key) in keys {
            assert_eq!(cause.key(), key);
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
