use super::*;
use crate::gate::classify::Class;
use crate::gate::policy::{DecidedBy, Decision, Ruling};
use crate::judge::layer2::FailureKind;
use serde_json::{Value, json};

/// `line` read as a record and written back.
fn round_trip(line: &Value) -> (Record, Value) {
    let record: Record = serde_json::from_value(line.clone()).unwrap();
    let written = serde_json::to_value(&record).unwrap();
    (record, written)
}

/// A Stop line as 0.1.0 wrote it (and every version since).
fn stop_line() -> Value {
    json!({"ts": "2026-11-03T09:12:00.000Z", "kind": "stop", "version": "0.1.0", "agent": "claude",
        "event": "Stop", "session": "session-3", "prompt": "p1", "cwd": "/home/dev/project",
        "stop_hook_active": false, "decision": "block", "action": "block",
        "judges": [
            {"judge": "commit", "layer1": "trigger", "pattern": "\\bpush\\b", "verdict": "violation",
             "decision": "block", "fields": {"new_proposal": true}, "reason": "proposes a push",
             "layer2": {"provider": "openai", "model": "m", "cache": "miss", "format": "json_schema", "latency_ms": 712}},
            {"judge": "scope-check", "layer1": "quiet", "pattern": null, "verdict": null,
             "decision": "allow", "fields": null, "reason": null},
            {"judge": "shallow-bugfix", "layer1": "trigger", "pattern": "fixed",
             "refused_bypass": {"bypass": "root cause", "judge_directed": "ignore previous"},
             "verdict": "fail", "decision": "allow", "fields": null, "reason": "the LLM did not answer before the deadline",
             "layer2": {"provider": "openai", "latency_ms": 10000, "failure": "timeout"}}],
        "released": [], "provider": "openai (OPENAI_API_KEY is set)", "text_bytes": 27,
        "redactions": {"github-token": 1}, "text": "Done. I'll push to main now.",
        "transcript": {"path": "/t.jsonl", "boundary": "user_turn", "scanned_bytes": 900, "giant_lines": 0, "bad_lines": 1},
        "timings_us": {"total": 1200, "transcript": 100, "layer1": 300, "layer2": 712000}, "errors": []})
}

/// A gate line as 0.1.0 wrote it.
fn gate_line() -> Value {
    json!({"ts": "2026-11-03T09:13:00.000Z", "kind": "gate", "version": "0.1.0", "agent": "codex",
        "event": "PreToolUse", "session": "s", "cwd": "/home/dev/project", "command": "git push origin main",
        "action": "deny",
        "rulings": [{"class": "push", "command": "git push origin main", "decision": "deny", "decided_by": "evidence",
                     "reason": "hookjudge: no tests ran", "repo": "/home/dev/project", "facts": {"remote": "origin"},
                     "evidence": {"kind": "change_after_tests", "tool": "Edit", "last_test": null}}],
        "timings_us": 5400, "errors": [], "protect": "edits hookjudge's hook entry", "redactions": {"url-credentials": 1}})
}

/// A check line as 0.1.0 wrote it.
fn check_line() -> Value {
    json!({"ts": "2026-11-03T09:14:00.000Z", "kind": "check", "version": "0.1.0", "cwd": "/home/dev/project",
        "command": "git push (pre-push hook)", "action": "ask", "proceed": false, "decided_by": "no terminal",
        "rulings": [{"class": "push", "command": "git push origin abc:main", "decision": "ask", "decided_by": "facts",
                     "reason": "r", "repo": null, "facts": {"refs": []}}]})
}

#[test]
fn every_line_a_version_wrote_reads_typed_and_writes_back_whole() {
    for line in [stop_line(), gate_line(), check_line()] {
        let (_, written) = round_trip(&line);
        assert_eq!(written, line);
    }
    let (stop, _) = round_trip(&stop_line());
    let Record::Stop(r) = &stop else {
        panic!("{stop:?}")
    };
    assert_eq!(
        (r.action, r.decision, r.session.agent.as_deref()),
        (
            StopAction::Block,
            crate::judge::evaluate::Decision::Block,
            Some("claude")
        )
    );
    let layer2 = |i: usize| &r.judges[i].layer2.as_ref().unwrap().call;
    assert_eq!(
        (layer2(0).latency_ms, layer2(0).cache),
        (Some(712), Some(crate::judge::evaluate::CacheUse::Miss))
    );
    assert_eq!(layer2(2).failure, Some(FailureKind::Timeout));
    assert_eq!(r.timings_us.layer2, 712_000);
    assert!(r.rest.is_empty(), "every field is typed: {:?}", r.rest);
    let (gate, _) = round_trip(&gate_line());
    assert_eq!(gate.rulings()[0].decided_by, Some(DecidedBy::Evidence));
    assert_eq!(gate.action(), "deny");
    let (check, _) = round_trip(&check_line());
    let Record::Check(c) = &check else {
        panic!("{check:?}")
    };
    assert_eq!(
        (c.decided_by, c.proceed, check.agent()),
        (Some(CheckDecider::NoTerminal), false, None)
    );
}

#[test]
fn unknown_fields_survive_a_round_trip_at_every_level() {
    let mut line = stop_line();
    line["from_the_future"] = json!({"a": [1, 2]});
    line["judges"][0]["confidence"] = json!(0.9);
    line["judges"][0]["layer2"]["tokens"] = json!(321);
    line["timings_us"]["redaction"] = json!(4);
    line["transcript"]["encoding"] = json!("utf-8");
    let (record, written) = round_trip(&line);
    assert_eq!(written, line);
    let Record::Stop(r) = record else { panic!() };
    assert_eq!(r.rest["from_the_future"], json!({"a": [1, 2]}));
    let layer2 = r.judges[0].layer2.as_ref().unwrap();
    assert_eq!(layer2.rest["tokens"], json!(321));
    assert_eq!(layer2.call.provider.as_deref(), Some("openai"));
    let mut gate = gate_line();
    gate["sandbox"] = json!(true);
    gate["rulings"][0]["weight"] = json!(2);
    assert_eq!(round_trip(&gate).1, gate);
    let mut check = check_line();
    check["remote"] = json!("origin");
    assert_eq!(round_trip(&check).1, check);
}

#[test]
fn hand_written_and_minimal_lines_read() {
    // What tests and people write: only what the readers need.
    let stop = json!({"ts": "2026-11-30T10:00:00.000Z", "kind": "stop", "agent": "claude",
        "action": "allow", "judges": [{"judge": "commit", "verdict": "allow"}], "text": "t"});
    let (record, written) = round_trip(&stop);
    assert_eq!(
        (record.agent(), record.subject(), record.action()),
        (Some("claude"), "t", "allow")
    );
    // The judge's Layer 1 signal is not invented: unknown, it counts as woken.
    assert!(record.judges()[0].woke());
    // What the writers always write comes back, empty; nothing else is added.
    assert_eq!(written["session"], Value::Null);
    assert_eq!(written["judges"][0].get("layer1"), None);
    assert_eq!(written.get("version"), None);
    let gate = json!({"ts": "t", "kind": "gate", "command": "git push", "action": "ask",
        "rulings": [{"class": "push", "decision": "ask"}]});
    let (gate, _) = round_trip(&gate);
    assert_eq!(
        (
            gate.subject(),
            gate.rulings()[0].class,
            gate.rulings()[0].decided_by
        ),
        ("git push", Class::Push, None)
    );
    let check =
        json!({"ts": "t", "kind": "check", "command": "hookjudge check", "action": "silent"});
    assert_eq!(round_trip(&check).0.kind(), "check");
    // Lines the readers cannot use are not records (they are counted as bad lines).
    for bad in [
        json!({"ts": "t", "kind": "other"}),
        json!({"ts": "t", "kind": "stop"}),
        json!({"kind": "gate", "command": "c", "action": "deny"}),
        json!({"ts": "t", "kind": "gate", "command": "c", "action": "maybe"}),
    ] {
        assert!(
            serde_json::from_value::<Record>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn what_check_writes_reads_back_equal() {
    let ruling = Ruling {
        class: Class::Push,
        command: "git push".into(),
        decision: Decision::Ask,
        decided_by: DecidedBy::Facts,
        reason: "r".into(),
        repo: Some("/r".into()),
        facts: crate::gate::policy::RulingFacts::of(crate::gate::policy::Read::Push {
            refs: Vec::new(),
            pushed_paths: None,
            error: None,
        }),
        evidence: None,
    };
    let written = Record::Check(CheckRecord {
        origin: Origin::now(Some("/r".into())),
        command: "hookjudge check".into(),
        action: Decision::Ask,
        proceed: true,
        decided_by: Some(CheckDecider::UserYes),
        rulings: vec![ruling.into()],
        rest: serde_json::Map::new(),
    });
    let line = serde_json::to_string(&written).unwrap();
    assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), written);
    let value: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        (&value["decided_by"], &value["kind"], value.get("agent")),
        (&json!("user (--yes)"), &json!("check"), None)
    );
    assert_eq!(value["version"], env!("CARGO_PKG_VERSION"));
}
