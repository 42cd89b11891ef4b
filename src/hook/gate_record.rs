//! The decision log line the gate writes (read back as [`crate::log::GateRecord`]), and its
//! redaction: command lines carry tokens in URLs, `-p` passwords and `Authorization` headers,
//! so the gate's record is redacted whatever `log.text` says.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::agent::Agent;
use crate::gate::policy::{Decision, Ruling};
use crate::hook::event::Event;
use crate::time::Timestamp;

/// One gate decision, as logged.
#[derive(Debug, Serialize)]
pub struct GateRecord {
    pub ts: String,
    pub kind: &'static str,
    pub version: &'static str,
    pub agent: Option<&'static str>,
    pub event: Option<String>,
    pub session: Option<String>,
    pub cwd: Option<String>,
    pub command: String,
    pub action: Decision,
    pub rulings: Vec<Ruling>,
    pub timings_us: u64,
    pub errors: Vec<String>,
    /// What a denied action would have done against hookjudge itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protect: Option<String>,
}

impl GateRecord {
    /// A silent record of `command` from `agent` (and `event`, when it could be read).
    pub fn new(agent: Agent, event: Option<&Event>, command: &str) -> GateRecord {
        GateRecord {
            ts: Timestamp::now().rfc3339(),
            kind: "gate",
            version: env!("CARGO_PKG_VERSION"),
            agent: Some(agent.name()),
            event: event.and_then(|e| e.origin.name.clone()),
            session: event.and_then(|e| e.origin.session.clone()),
            cwd: event.and_then(|e| e.origin.cwd.clone()),
            command: command.to_owned(),
            action: Decision::Silent,
            rulings: Vec::new(),
            timings_us: 0,
            errors: Vec::new(),
            protect: None,
        }
    }
}

impl crate::hook::LogRecord for GateRecord {
    fn set_total_us(&mut self, total: u64) {
        self.timings_us = total;
    }

    fn write(&self, dir: &Path) {
        crate::hook::write_log(dir, &redacted(self));
    }
}

/// The record as logged, redacted, with the counts per kind. When the command line holds a
/// secret, every string is redacted (reasons quote the command); otherwise only the text that
/// comes from elsewhere (errors, a judge's failure), so that a quiet record does not pay for
/// compiling rules its command never needed.
fn redacted(record: &GateRecord) -> Value {
    use crate::redact::{redact, redact_json};
    let mut value = serde_json::to_value(record).unwrap_or(Value::Null);
    let command_has_secrets = redact(&record.command).total() > 0
        || record
            .rulings
            .iter()
            .any(|r| redact(&r.command).total() > 0);
    let counts = if command_has_secrets {
        redact_json(&mut value)
    } else {
        let mut counts = BTreeMap::new();
        let mut outside: Vec<&mut Value> = Vec::new();
        if let Some(record) = value.as_object_mut() {
            for (key, v) in record.iter_mut() {
                match key.as_str() {
                    "errors" => outside.push(v),
                    "rulings" => rulings_facts(v, &mut outside),
                    _ => {}
                }
            }
        }
        for v in outside {
            for (kind, n) in redact_json(v) {
                *counts.entry(kind).or_insert(0) += n;
            }
        }
        counts
    };
    if !counts.is_empty() {
        value["redactions"] = serde_json::json!(counts);
    }
    value
}

/// The facts of each ruling that come from outside hookjudge (errors, a judge's failure).
fn rulings_facts<'v>(rulings: &'v mut Value, out: &mut Vec<&'v mut Value>) {
    if let Some(rulings) = rulings.as_array_mut() {
        for facts in rulings.iter_mut().filter_map(|r| r.get_mut("facts")) {
            if let Some(facts) = facts.as_object_mut() {
                out.extend(
                    facts
                        .iter_mut()
                        .filter(|(k, _)| {
                            matches!(k.as_str(), "error" | "judge_failure" | "repository")
                        })
                        .map(|(_, v)| v),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::classify::Class;
    use crate::gate::policy::DecidedBy;
    use crate::log::Record;

    #[test]
    fn what_the_gate_writes_the_log_reads_typed_and_redacted() {
        let mut record = GateRecord::new(Agent::Gemini, None, "git push");
        record.action = Decision::Ask;
        record
            .errors
            .push("token ghp_R7vQ2mXk9LpT4wZs8NcY3bHd6JfG1aUe5KqW leaked".into());
        record.rulings.push(Ruling {
            class: Class::Push,
            command: "git push".into(),
            decision: Decision::Ask,
            decided_by: DecidedBy::Policy,
            reason: "r".into(),
            repo: None,
            facts: serde_json::json!({}),
            evidence: None,
        });
        let line = redacted(&record).to_string();
        assert!(!line.contains("R7vQ2mXk9LpT4wZs"), "{line}");
        let Record::Gate(read) = serde_json::from_str::<Record>(&line).unwrap() else {
            panic!("{line}")
        };
        assert_eq!(
            (read.command.as_str(), read.action.as_str()),
            ("git push", "ask")
        );
        assert_eq!(read.origin.agent.as_deref(), Some("gemini"));
        let ruling = &read.rulings[0];
        assert_eq!(
            (
                ruling.class.as_str(),
                ruling.decision.as_str(),
                ruling.decided_by.as_deref()
            ),
            ("push", "ask", Some("policy"))
        );
        assert!(read.rest.contains_key("redactions"), "{line}");
    }
}
