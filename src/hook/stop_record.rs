//! The decision log line the Stop hook writes (read back as [`crate::log::StopRecord`]).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::hook::event::{Event, Kind};
use crate::judge::evaluate::{Decision, JudgeOutcome};
use crate::time::Timestamp;
use crate::transcript::Boundary;

/// What the Stop hook did, as logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Nothing objected.
    Allow,
    /// At least one judge blocked and the loop breaker admitted it.
    Block,
    /// Judges blocked but the loop breaker let the turn end.
    Release,
    /// Something failed and the turn was allowed to end because of it.
    FailOpen,
}

/// One decision log line for a Stop.
#[derive(Debug, Serialize)]
pub struct StopRecord {
    pub ts: String,
    pub kind: &'static str,
    pub version: &'static str,
    pub agent: Option<&'static str>,
    pub event: Option<String>,
    pub session: Option<String>,
    pub prompt: Option<String>,
    pub cwd: Option<String>,
    pub stop_hook_active: bool,
    pub decision: Decision,
    pub action: Action,
    pub judges: Vec<JudgeOutcome>,
    pub released: Vec<String>,
    /// Which LLM provider judged, and why it was chosen (only when a judge triggered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    pub text_bytes: usize,
    /// Secrets removed from the text before judging, per kind.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: BTreeMap<String, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TranscriptInfo>,
    pub timings_us: Timings,
    pub errors: Vec<String>,
}

/// What reading the transcript found.
#[derive(Debug, Serialize)]
pub struct TranscriptInfo {
    pub path: PathBuf,
    pub boundary: Boundary,
    pub scanned_bytes: u64,
    pub giant_lines: u32,
    pub bad_lines: u32,
}

/// Microseconds spent, in all and per step.
#[derive(Debug, Default, Serialize)]
pub struct Timings {
    pub total: u64,
    pub transcript: u64,
    pub layer1: u64,
    pub layer2: u64,
}

impl StopRecord {
    /// A record of nothing yet: allowed, no judge, no input read.
    pub fn new() -> StopRecord {
        StopRecord {
            ts: Timestamp::now().rfc3339(),
            kind: "stop",
            version: env!("CARGO_PKG_VERSION"),
            agent: None,
            event: None,
            session: None,
            prompt: None,
            cwd: None,
            stop_hook_active: false,
            decision: Decision::Allow,
            action: Action::Allow,
            judges: Vec::new(),
            released: Vec::new(),
            provider: None,
            text_bytes: 0,
            redactions: BTreeMap::new(),
            text: None,
            transcript: None,
            timings_us: Timings::default(),
            errors: Vec::new(),
        }
    }

    /// A record of `event`: who sent it, for which session and prompt.
    pub fn of(event: &Event) -> StopRecord {
        let mut record = StopRecord::new();
        record.agent = Some(event.agent.name());
        record.event = event.origin.name.clone();
        record.session = event.origin.session.clone();
        record.cwd = event.origin.cwd.clone();
        if let Kind::Stop(stop) = &event.kind {
            record.prompt = stop.prompt.clone();
            record.stop_hook_active = stop.stop_hook_active;
        }
        record
    }

    /// Marks the Stop as failed open because of `error`.
    pub fn fail_open(&mut self, error: String) {
        self.action = Action::FailOpen;
        self.decision = Decision::Allow;
        self.errors.push(error);
    }
}

impl Default for StopRecord {
    fn default() -> StopRecord {
        StopRecord::new()
    }
}

impl crate::hook::LogRecord for StopRecord {
    fn set_total_us(&mut self, total: u64) {
        self.timings_us.total = total;
    }

    /// Logged, then each error told on stderr too.
    fn write(&self, dir: &Path) {
        crate::hook::write_log(dir, self);
        for error in &self.errors {
            let _ = writeln!(io::stderr(), "hookjudge: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::evaluate::{JudgeOutcome, Verdict};
    use crate::judge::layer1::Signal;
    use crate::log::Record;

    #[test]
    fn what_the_stop_hook_writes_the_log_reads_typed() {
        let mut record = StopRecord::new();
        record.agent = Some("codex");
        record.session = Some("s".into());
        record.action = Action::FailOpen;
        record.text = Some("done".into());
        record.timings_us.layer2 = 7;
        record.errors.push("e".into());
        record.judges.push(JudgeOutcome {
            judge: "commit".into(),
            layer1: Signal::Trigger,
            pattern: Some("push".into()),
            refused_bypass: None,
            verdict: Some(Verdict::Fail),
            decision: Decision::Allow,
            fields: None,
            reason: Some("timeout".into()),
            layer2: None,
        });
        let line = serde_json::to_string(&record).unwrap();
        let Record::Stop(read) = serde_json::from_str::<Record>(&line).unwrap() else {
            panic!("{line}")
        };
        assert_eq!(read.origin.agent.as_deref(), Some("codex"));
        assert_eq!(read.origin.session.as_deref(), Some("s"));
        assert_eq!(read.action, "fail-open");
        assert_eq!(read.text.as_deref(), Some("done"));
        assert_eq!(
            (read.timings_us.layer2, &read.errors[..]),
            (7, &["e".to_string()][..])
        );
        let judge = &read.judges[0];
        assert_eq!(
            (
                judge.layer1.as_deref(),
                judge.verdict.as_deref(),
                judge.decision.as_deref()
            ),
            (Some("trigger"), Some("fail"), Some("allow"))
        );
        assert!(judge.woke());
    }
}
