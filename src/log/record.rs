//! One decision log line as a type: [`Record`] is what `log`, `stats`, `replay` and `check`
//! read back, with serde, instead of indexing untyped JSON. The fields the readers use are
//! typed; everything else a hook wrote is kept in `rest`, so a record read and written again
//! (`hookjudge log --json`) loses nothing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One line of the decision log, by its `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Record {
    /// A judged response (the Stop hook).
    Stop(StopRecord),
    /// A gated command (the PreToolUse hook).
    Gate(GateRecord),
    /// `hookjudge check` or the pre-push hook: the fields of a gated command.
    Check(GateRecord),
}

/// When and where a record was written, and for which agent and session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    pub ts: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// What the Stop hook logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopRecord {
    #[serde(flatten)]
    pub origin: Origin,
    /// `allow`, `block`, `release` or `fail-open`.
    pub action: String,
    #[serde(default)]
    pub judges: Vec<JudgeEntry>,
    /// Judges whose block the loop breaker released.
    #[serde(default)]
    pub released: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default)]
    pub timings_us: Timings,
    #[serde(default)]
    pub errors: Vec<String>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// Microseconds spent, of which the readers use Layer 2's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    #[serde(default)]
    pub layer2: u64,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// One judge's outcome in a Stop record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeEntry {
    pub judge: String,
    /// `quiet`, `trigger` or `bypass`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer1: Option<String>,
    /// `allow`, `violation`, `unjudged` or `fail`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer2: Option<Layer2Entry>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl JudgeEntry {
    /// Whether the judge's trigger matched (or it failed trying).
    pub fn woke(&self) -> bool {
        self.layer1.as_deref() != Some("quiet") || self.verdict.as_deref() == Some("fail")
    }
}

/// A judge's LLM call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layer2Entry {
    /// `hit` when a cached verdict was reused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// The failure kind (`timeout`, `http`, …) when the call gave no usable answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// What the gate (or `check`) logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    #[serde(flatten)]
    pub origin: Origin,
    pub command: String,
    /// `silent`, `deny` or `ask`.
    pub action: String,
    #[serde(default)]
    pub rulings: Vec<RulingEntry>,
    /// `check` logs none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// One class found in a gated command and what was decided for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RulingEntry {
    pub class: String,
    pub decision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl Record {
    /// The logged `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Record::Stop(_) => "stop",
            Record::Gate(_) => "gate",
            Record::Check(_) => "check",
        }
    }

    /// When and where it was written.
    pub fn origin(&self) -> &Origin {
        match self {
            Record::Stop(r) => &r.origin,
            Record::Gate(r) | Record::Check(r) => &r.origin,
        }
    }

    pub fn ts(&self) -> &str {
        &self.origin().ts
    }

    /// The logged action (see [`crate::outcome::word`] for the word shown).
    pub fn action(&self) -> &str {
        match self {
            Record::Stop(r) => &r.action,
            Record::Gate(r) | Record::Check(r) => &r.action,
        }
    }

    pub fn agent(&self) -> Option<&str> {
        self.origin().agent.as_deref()
    }

    pub fn cwd(&self) -> Option<&str> {
        self.origin().cwd.as_deref()
    }

    /// The judged text, or the gated command.
    pub fn subject(&self) -> &str {
        match self {
            Record::Stop(r) => r.text.as_deref().unwrap_or(""),
            Record::Gate(r) | Record::Check(r) => &r.command,
        }
    }

    /// The judges of a Stop record (none for the others).
    pub fn judges(&self) -> &[JudgeEntry] {
        match self {
            Record::Stop(r) => &r.judges,
            _ => &[],
        }
    }

    /// The rulings of a gate or check record (none for Stop).
    pub fn rulings(&self) -> &[RulingEntry] {
        match self {
            Record::Gate(r) | Record::Check(r) => &r.rulings,
            Record::Stop(_) => &[],
        }
    }

    pub fn errors(&self) -> &[String] {
        match self {
            Record::Stop(r) => &r.errors,
            Record::Gate(r) | Record::Check(r) => &r.errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_record_reads_typed_and_writes_back_whole() {
        let line = json!({"ts": "2026-12-01T10:00:00Z", "kind": "stop", "version": "0.1.0",
            "agent": "claude", "action": "block", "stop_hook_active": false,
            "judges": [{"judge": "commit", "layer1": "trigger", "verdict": "violation",
                        "decision": "block", "pattern": "done", "layer2": {"latency_ms": 12, "model": "m"}}],
            "released": [], "timings_us": {"total": 5, "layer2": 3}, "errors": []});
        let record: Record = serde_json::from_value(line.clone()).unwrap();
        let Record::Stop(stop) = &record else {
            panic!("{record:?}")
        };
        assert_eq!(stop.judges[0].verdict.as_deref(), Some("violation"));
        assert_eq!(stop.judges[0].layer2.as_ref().unwrap().latency_ms, Some(12));
        assert_eq!(stop.timings_us.layer2, 3);
        assert_eq!(serde_json::to_value(&record).unwrap(), line);
        let gate: Record = serde_json::from_value(json!({"ts": "t", "kind": "gate",
            "command": "git push", "action": "ask", "rulings": [{"class": "push", "decision": "ask"}]}))
        .unwrap();
        assert_eq!(
            (gate.subject(), gate.rulings()[0].class.as_str()),
            ("git push", "push")
        );
        assert!(serde_json::from_value::<Record>(json!({"ts": "t", "kind": "other"})).is_err());
    }
}
