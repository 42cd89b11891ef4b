//! The Stop hook's decision log line, [`crate::log::StopRecord`], as the hook builds and writes
//! it. The type is the log's; what it takes from a hook event is the hook's, so it is here.

use std::io::{self, Write};
use std::path::Path;

use crate::hook::event::{Event, Kind};
use crate::hook::log_session;
use crate::log::{Origin, Record, StopRecord};

/// A record of `event`, written now: who sent it, for which session and prompt.
pub fn of(event: &Event) -> StopRecord {
    let mut record = StopRecord::new();
    // An input without `cwd` (a hook fed by hand) is logged where the hook runs, which is where
    // its judges read the config: otherwise `log` and `stats` would show it in no repository.
    let cwd = event.origin.project_dir().to_string_lossy().into_owned();
    record.origin = Origin::now(Some(cwd));
    record.session = log_session(event);
    if let Kind::Stop(stop) = &event.kind {
        record.prompt = stop.prompt.clone();
        record.stop_hook_active = stop.stop_hook_active;
    }
    record
}

impl crate::hook::LogRecord for StopRecord {
    fn set_total_us(&mut self, total: u64) {
        self.timings_us.total = total;
    }

    /// Logged, then each error told on stderr too.
    fn write(self, dir: &Path) {
        let errors = self.errors.clone();
        crate::hook::write_log(dir, &Record::Stop(self));
        for error in &errors {
            let _ = writeln!(io::stderr(), "hookjudge: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::evaluate::{
        Decision, FailureKind, JudgeOutcome, Layer2Call, Reread, Verdict,
    };
    use crate::judge::layer1::Signal;
    use crate::log::StopAction;

    #[test]
    fn what_the_stop_hook_writes_reads_back_equal() {
        let mut record = StopRecord::new();
        record.session.agent = Some("codex".into());
        record.session.session = Some("s".into());
        record.action = StopAction::FailOpen;
        record.text = Some("done".into());
        record.timings_us.layer2 = 7;
        record.errors.push("e".into());
        record.judges.push(
            JudgeOutcome {
                judge: "commit".into(),
                layer1: Signal::Trigger,
                pattern: Some("push".into()),
                refused_bypass: None,
                verdict: Some(Verdict::Fail),
                decision: Decision::Allow,
                fields: None,
                reason: Some("timeout".into()),
                layer2: Some(Layer2Call {
                    provider: Some("openai".into()),
                    latency_ms: Some(12),
                    failure: Some(FailureKind::Timeout),
                    ..Layer2Call::default()
                }),
                asked: true,
                second_reading: Some(Reread::Withdrawn {
                    reason: "a plan for later".into(),
                }),
            }
            .into(),
        );
        let written = Record::Stop(record);
        let line = serde_json::to_string(&written).unwrap();
        let read: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(read, written, "{line}");
        let judge = &read.judges()[0];
        let layer2 = &judge.layer2.as_ref().unwrap().call;
        assert_eq!(
            (layer2.latency_ms, layer2.failure.clone()),
            (Some(12), Some(FailureKind::Timeout))
        );
        assert!(judge.woke());
        // The names and values the Stop hook has always written.
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["kind"], "stop");
        assert_eq!(
            value["judges"][0]["second_reading"]["outcome"], "withdrawn",
            "the second reading is logged: {line}"
        );
        assert_eq!(value["action"], "fail-open");
        assert_eq!(value["decision"], "allow");
        assert_eq!(value["agent"], "codex");
        assert_eq!(value["judges"][0]["layer1"], "trigger");
        assert_eq!(value["judges"][0]["layer2"]["provider"], "openai");
        assert_eq!(value["timings_us"]["layer2"], 7);
        for always in [
            "version",
            "event",
            "prompt",
            "cwd",
            "stop_hook_active",
            "text_bytes",
        ] {
            assert!(value.get(always).is_some(), "{always}: {line}");
        }
        for key in ["pattern", "verdict", "fields", "reason"] {
            assert!(value["judges"][0].get(key).is_some(), "{key}: {line}");
        }
    }
}
