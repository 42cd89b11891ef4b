//! The Stop hook's line: what was judged, each judge's outcome, and how the Stop ended.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Origin, Session};
use crate::judge::evaluate::{Decision, JudgeOutcome, Layer2Call, RefusedBypass, Verdict};
use crate::judge::layer1::Signal;
use crate::log::cause::Cause;
use crate::transcript::Boundary;

/// A judged response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopRecord {
    #[serde(flatten)]
    pub origin: Origin,
    #[serde(flatten)]
    pub session: Session,
    /// The user's prompt id, which the loop breaker counts blocks per.
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub stop_hook_active: bool,
    /// What the agent was told: block, or let the turn end.
    #[serde(default = "allow")]
    pub decision: Decision,
    pub action: StopAction,
    /// Why the Stop failed open, by its key ([`Cause::key`]); absent otherwise, and in lines
    /// written before the field existed, whose cause is read from their judges and errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    #[serde(default)]
    pub judges: Vec<JudgeEntry>,
    /// Judges whose block the loop breaker released.
    #[serde(default)]
    pub released: Vec<String>,
    /// Which LLM provider judged, and why it was chosen (only when a judge triggered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The provider calls the turn cost (0 or 1: the judges share one call); absent in 0.1
    /// lines, where each judge with an uncached `layer2` made its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_calls: Option<u32>,
    /// Why the turn went to Layer 1 alone under `stop.judge_turns: "all"`, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<String>,
    #[serde(default)]
    pub text_bytes: usize,
    /// Secrets removed from the text before judging, per kind.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: BTreeMap<String, usize>,
    /// The judged text, redacted (while `log.text` is true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TranscriptInfo>,
    #[serde(default)]
    pub timings_us: Timings,
    #[serde(default)]
    pub errors: Vec<String>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

fn allow() -> Decision {
    Decision::Allow
}

/// How a Stop ended, as logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopAction {
    /// Nothing objected.
    Allow,
    /// At least one judge blocked and the loop breaker admitted it.
    Block,
    /// Judges blocked but the loop breaker let the turn end.
    Release,
    /// Something failed and the turn was allowed to end because of it.
    FailOpen,
}

impl StopAction {
    /// The logged value.
    pub fn name(self) -> &'static str {
        match self {
            StopAction::Allow => "allow",
            StopAction::Block => "block",
            StopAction::Release => "release",
            StopAction::FailOpen => "fail-open",
        }
    }
}

/// What reading the transcript found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptInfo {
    pub path: PathBuf,
    pub boundary: Boundary,
    pub scanned_bytes: u64,
    pub giant_lines: u32,
    pub bad_lines: u32,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// Microseconds spent, in all and per step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    #[serde(default)]
    pub total: u64,
    #[serde(default)]
    pub transcript: u64,
    #[serde(default)]
    pub layer1: u64,
    #[serde(default)]
    pub layer2: u64,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// One judge's outcome in a Stop record: [`JudgeOutcome`] as logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeEntry {
    pub judge: String,
    /// What Layer 1 found (every writer logs it; a hand-written line may not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer1: Option<Signal>,
    /// The trigger or bypass pattern that decided Layer 1.
    #[serde(default)]
    pub pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_bypass: Option<RefusedBypass>,
    #[serde(default)]
    pub verdict: Option<Verdict>,
    #[serde(default = "allow")]
    pub decision: Decision,
    /// The fields the LLM returned.
    #[serde(default)]
    pub fields: Option<Map<String, Value>>,
    /// The model's explanation, or why judging failed.
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer2: Option<Layer2Entry>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl JudgeEntry {
    /// Whether the judge's trigger matched (or it failed trying).
    pub fn woke(&self) -> bool {
        self.layer1 != Some(Signal::Quiet) || self.verdict == Some(Verdict::Fail)
    }
}

impl From<JudgeOutcome> for JudgeEntry {
    fn from(outcome: JudgeOutcome) -> JudgeEntry {
        JudgeEntry {
            judge: outcome.judge,
            layer1: Some(outcome.layer1),
            pattern: outcome.pattern,
            refused_bypass: outcome.refused_bypass,
            verdict: outcome.verdict,
            decision: outcome.decision,
            fields: outcome.fields,
            reason: outcome.reason,
            layer2: outcome.layer2.map(Layer2Entry::from),
            // Kept as written: only `stats` and people read it back.
            rest: outcome
                .second_reading
                .and_then(|r| serde_json::to_value(r).ok())
                .map(|r| Map::from_iter([("second_reading".to_owned(), r)]))
                .unwrap_or_default(),
        }
    }
}

/// A judge's LLM call as logged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Layer2Entry {
    #[serde(flatten)]
    pub call: Layer2Call,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl From<Layer2Call> for Layer2Entry {
    fn from(call: Layer2Call) -> Layer2Entry {
        Layer2Entry {
            call,
            rest: Map::new(),
        }
    }
}

impl StopRecord {
    /// A record of nothing yet, written now: allowed, no judge, no input read.
    pub fn new() -> StopRecord {
        StopRecord {
            origin: Origin::now(None),
            session: Session::default(),
            prompt: None,
            stop_hook_active: false,
            decision: Decision::Allow,
            action: StopAction::Allow,
            cause: None,
            judges: Vec::new(),
            released: Vec::new(),
            provider: None,
            llm_calls: None,
            not_judged: None,
            text_bytes: 0,
            redactions: BTreeMap::new(),
            text: None,
            transcript: None,
            timings_us: Timings::default(),
            errors: Vec::new(),
            rest: Map::new(),
        }
    }

    /// Marks the Stop as failed open because of `error`, a failure before any judge ran whose
    /// cause is `cause`. The cause is logged by its key, and the message after it. Lines from
    /// before the key are read by the message's beginning ([`Cause::of_hook_error`]): a debug
    /// build holds every writer to it, so that old and new lines say the same.
    pub fn fail_open(&mut self, cause: Cause, error: String) {
        debug_assert_eq!(
            Cause::of_hook_error(&error),
            cause,
            "a fail-open's error must begin with its cause's words: {error}"
        );
        self.action = StopAction::FailOpen;
        self.decision = Decision::Allow;
        self.cause = Some(cause.key().to_owned());
        self.errors.push(error);
    }

    /// Marks the Stop as failed open because a judge failed: the first failed judge's cause
    /// is logged by its key (its entry says which failure).
    pub fn judges_failed(&mut self) {
        let failed = self
            .judges
            .iter()
            .find(|j| j.verdict == Some(Verdict::Fail));
        self.action = StopAction::FailOpen;
        self.cause = failed.map(|j| Cause::of_judge(j).key().to_owned());
    }
}

impl Default for StopRecord {
    fn default() -> StopRecord {
        StopRecord::new()
    }
}
