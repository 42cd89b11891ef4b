//! The gate's line and `hookjudge check`'s: the command, what was decided for each gated
//! action in it, and what was done.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Origin, Session};
use crate::gate::classify::Class;
use crate::gate::evidence::Finding;
use crate::gate::policy::{DecidedBy, Decision, Ruling};

/// A gated command (the PreToolUse hook).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    #[serde(flatten)]
    pub origin: Origin,
    #[serde(flatten)]
    pub session: Session,
    pub command: String,
    pub action: Decision,
    #[serde(default)]
    pub rulings: Vec<RulingEntry>,
    /// Microseconds the whole call took.
    #[serde(default)]
    pub timings_us: u64,
    #[serde(default)]
    pub errors: Vec<String>,
    /// What a denied action would have done against hookjudge itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protect: Option<String>,
    /// Secrets removed from the record before it was logged, per kind.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: BTreeMap<String, usize>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// `hookjudge check`, by hand or as git's pre-push hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRecord {
    #[serde(flatten)]
    pub origin: Origin,
    /// `hookjudge check`, or `git push (pre-push hook)`.
    pub command: String,
    pub action: Decision,
    /// Whether the commit or push went ahead.
    #[serde(default)]
    pub proceed: bool,
    /// Who let it go ahead, or why it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<CheckDecider>,
    #[serde(default)]
    pub rulings: Vec<RulingEntry>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// Who decided whether a checked commit or push goes ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckDecider {
    /// Nothing needed attention.
    #[serde(rename = "facts")]
    Facts,
    /// The user passed `--yes`.
    #[serde(rename = "user (--yes)")]
    UserYes,
    /// The user answered on the terminal.
    #[serde(rename = "user (terminal)")]
    UserTerminal,
    /// `--no-input` or `--json`: nobody was asked.
    #[serde(rename = "no input")]
    NoInput,
    /// Nobody could be asked.
    #[serde(rename = "no terminal")]
    NoTerminal,
}

/// One gated action found in a command and what was decided for it: [`Ruling`] as logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RulingEntry {
    pub class: Class,
    #[serde(default)]
    pub command: String,
    pub decision: Decision,
    /// Every writer logs it; a hand-written line may not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub repo: Option<PathBuf>,
    /// The facts the decision rests on, as the gate gathered them for this class.
    #[serde(default)]
    pub facts: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Finding>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl From<Ruling> for RulingEntry {
    fn from(ruling: Ruling) -> RulingEntry {
        RulingEntry {
            class: ruling.class,
            command: ruling.command,
            decision: ruling.decision,
            decided_by: Some(ruling.decided_by),
            reason: ruling.reason,
            repo: ruling.repo,
            // As the ruling serialises them: the log reads any line ever written, so its
            // facts stay plain JSON.
            facts: serde_json::to_value(&ruling.facts).unwrap_or_default(),
            evidence: ruling.evidence,
            rest: Map::new(),
        }
    }
}
