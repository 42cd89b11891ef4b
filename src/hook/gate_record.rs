//! The gate's decision log line, [`crate::log::GateRecord`], as the gate builds and writes it,
//! and its redaction: command lines carry tokens in URLs, `-p` passwords and `Authorization`
//! headers, so the gate's record is redacted whatever `log.text` says.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::agent::Agent;
use crate::gate::evidence::Finding;
use crate::gate::policy::Decision;
use crate::hook::event::Event;
use crate::hook::log_session;
use crate::log::{GateRecord, Origin, Record, RulingEntry, Session};
use crate::redact::{redact, redact_json};

/// A silent record of `command` from `agent` (and `event`, when it could be read), written now.
pub fn new(agent: Agent, event: Option<&Event>, command: &str) -> GateRecord {
    let session = match event {
        Some(event) => log_session(event),
        None => Session::default(),
    };
    GateRecord {
        origin: Origin::now(event.and_then(|e| e.origin.cwd.clone())),
        session: Session {
            agent: Some(agent.name().to_owned()),
            ..session
        },
        command: command.to_owned(),
        action: Decision::Silent,
        rulings: Vec::new(),
        timings_us: 0,
        errors: Vec::new(),
        protect: None,
        redactions: BTreeMap::new(),
        rest: Map::new(),
    }
}

impl crate::hook::LogRecord for GateRecord {
    fn set_total_us(&mut self, total: u64) {
        self.timings_us = total;
    }

    fn write(self, dir: &Path) {
        crate::hook::write_log(dir, &Record::Gate(redacted(self)));
    }
}

/// The record as logged: redacted, with the counts per kind in `redactions`. When the command
/// line holds a secret, every text is redacted (reasons quote the command); otherwise only the
/// text that comes from elsewhere (errors, a judge's failure), so that a quiet record does not
/// pay for compiling rules its command never needed.
fn redacted(mut record: GateRecord) -> GateRecord {
    let command_has_secrets = redact(&record.command).total() > 0
        || record
            .rulings
            .iter()
            .any(|r| redact(&r.command).total() > 0);
    let mut counts = Counts::default();
    if command_has_secrets {
        counts.everything(&mut record);
    } else {
        record.errors.iter_mut().for_each(|e| counts.text(e));
        for ruling in &mut record.rulings {
            counts.facts_from_outside(&mut ruling.facts);
        }
    }
    record.redactions = counts.0;
    record
}

/// Secrets removed so far, per kind.
#[derive(Default)]
struct Counts(BTreeMap<String, usize>);

impl Counts {
    fn add(&mut self, counts: BTreeMap<String, usize>) {
        for (kind, n) in counts {
            *self.0.entry(kind).or_insert(0) += n;
        }
    }

    fn text(&mut self, text: &mut String) {
        let redacted = redact(text);
        if redacted.total() > 0 {
            *text = redacted.text;
            self.add(redacted.counts);
        }
    }

    fn optional(&mut self, text: &mut Option<String>) {
        if let Some(text) = text {
            self.text(text);
        }
    }

    fn path(&mut self, path: &mut PathBuf) {
        if let Some(text) = path.to_str() {
            let mut text = text.to_owned();
            self.text(&mut text);
            *path = PathBuf::from(text);
        }
    }

    fn json(&mut self, value: &mut Value) {
        self.add(redact_json(value));
    }

    /// Every text of the record (what hookjudge itself writes, the version and the time,
    /// holds none).
    fn everything(&mut self, record: &mut GateRecord) {
        self.optional(&mut record.origin.cwd);
        self.optional(&mut record.session.event);
        self.optional(&mut record.session.session);
        self.text(&mut record.command);
        record.errors.iter_mut().for_each(|e| self.text(e));
        self.optional(&mut record.protect);
        record.rulings.iter_mut().for_each(|r| self.ruling(r));
        record.rest.values_mut().for_each(|v| self.json(v));
    }

    fn ruling(&mut self, ruling: &mut RulingEntry) {
        self.text(&mut ruling.command);
        self.text(&mut ruling.reason);
        if let Some(repo) = &mut ruling.repo {
            self.path(repo);
        }
        self.json(&mut ruling.facts);
        if let Some(evidence) = &mut ruling.evidence {
            self.finding(evidence);
        }
        ruling.rest.values_mut().for_each(|v| self.json(v));
    }

    fn finding(&mut self, finding: &mut Finding) {
        match finding {
            Finding::FreshArtifact { path, .. }
            | Finding::FailedArtifact { path, .. }
            | Finding::StaleArtifact { path, .. } => self.path(path),
            Finding::WrittenArtifact { path, by } => {
                self.path(path);
                self.text(by);
            }
            Finding::TestRunAfterChange { command }
            | Finding::TestRunPending { command }
            | Finding::SessionWritten { command } => self.text(command),
            Finding::ChangeAfterTests { tool, last_test } => {
                self.text(tool);
                self.optional(last_test);
            }
            Finding::PartialAfterFailure { full, partial } => {
                self.text(full);
                self.text(partial);
            }
            Finding::HarnessEdited { file, by, command } => {
                self.text(file);
                self.text(by);
                self.text(command);
            }
            Finding::None => {}
        }
    }

    /// The facts of a ruling that come from outside hookjudge (errors, a judge's failure).
    fn facts_from_outside(&mut self, facts: &mut Value) {
        if let Some(facts) = facts.as_object_mut() {
            for (key, value) in facts.iter_mut() {
                if matches!(key.as_str(), "error" | "judge_failure" | "repository") {
                    self.json(value);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::classify::Class;
    use crate::gate::policy::{DecidedBy, Read, Ruling, RulingFacts};

    fn ruling(command: &str, evidence: Option<Finding>) -> RulingEntry {
        Ruling {
            class: Class::Push,
            command: command.into(),
            decision: Decision::Ask,
            decided_by: DecidedBy::Policy,
            reason: format!("pushes `{command}`"),
            repo: None,
            facts: RulingFacts::of(Read::NoRemote {
                remote: Some(command.into()),
                configured: None,
            }),
            evidence,
        }
        .into()
    }

    #[test]
    fn what_the_gate_writes_reads_back_equal_and_redacted() {
        let mut record = new(Agent::Gemini, None, "git push");
        record.action = Decision::Ask;
        record
            .errors
            .push("token ghp_R7vQ2mXk9LpT4wZs8NcY3bHd6JfG1aUe5KqW leaked".into());
        record.rulings.push(ruling("git push", None));
        let written = Record::Gate(redacted(record));
        let line = serde_json::to_string(&written).unwrap();
        assert!(!line.contains("R7vQ2mXk9LpT4wZs"), "{line}");
        let read: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(read, written, "{line}");
        let Record::Gate(gate) = &read else {
            panic!("{line}")
        };
        assert_eq!(
            (read.subject(), gate.action, read.agent()),
            ("git push", Decision::Ask, Some("gemini"))
        );
        assert_eq!(gate.redactions.values().sum::<usize>(), 1, "{line}");
        // The names and values the gate has always written.
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (&value["kind"], &value["action"]),
            (&"gate".into(), &"ask".into())
        );
        assert_eq!(value["rulings"][0]["decided_by"], "policy");
        for always in ["version", "event", "session", "cwd", "timings_us", "errors"] {
            assert!(value.get(always).is_some(), "{always}: {line}");
        }
        assert!(value["rulings"][0].get("repo").is_some(), "{line}");
    }

    #[test]
    fn a_secret_in_the_command_redacts_every_text_of_the_record() {
        let token = "ghp_R7vQ2mXk9LpT4wZs8NcY3bHd6JfG1aUe5KqW";
        let command = format!("git push https://{token}@github.com/o/r");
        let mut record = new(Agent::Claude, None, &command);
        record.protect = Some(format!("would run {command}"));
        let evidence = Finding::TestRunAfterChange {
            command: format!("GH_TOKEN={token} cargo test"),
        };
        record.rulings.push(ruling(&command, Some(evidence)));
        record
            .rest
            .insert("newer".into(), Value::String(token.into()));
        let line = serde_json::to_string(&Record::Gate(redacted(record))).unwrap();
        assert!(!line.contains("R7vQ2mXk9LpT4wZs"), "{line}");
        // Without a secret in the command, only what comes from elsewhere is redacted.
        let mut quiet = new(Agent::Claude, None, "git push");
        quiet.rulings.push(ruling("git push", None));
        quiet.rulings[0].reason = format!("says {token}");
        quiet.rulings[0].facts["error"] = Value::String(token.into());
        let quiet = redacted(quiet);
        assert!(quiet.rulings[0].reason.contains(token));
        assert!(!quiet.rulings[0].facts["error"].to_string().contains(token));
    }
}
