//! Both hook entries on the same plumbing: one stdin cap with one oversize rule, one panic path
//! that keeps the panic's message, each ending in its own failure direction (Stop lets the turn
//! end, the gate leaves the command to a human).

use serde_json::Value;

use crate::gate_repo::pre_tool_use;
use crate::harness::{Home, claude_stop};

/// The cap on hook stdin, in bytes, for every entry.
const CAP: usize = 64 << 20;

/// `json` (an object) padded with a field of spaces to `CAP + 1` bytes.
fn oversized(json: &str) -> Vec<u8> {
    let mut bytes = json.trim_end_matches('}').as_bytes().to_vec();
    bytes.extend_from_slice(br#","pad":""#);
    bytes.resize(CAP - 1, b' ');
    bytes.extend_from_slice(br#""}"#);
    assert_eq!(bytes.len(), CAP + 1);
    bytes
}

/// Runs `hook` (`stop` or `gate`) on `stdin`, forced to panic when `panic`, and returns its
/// answer and the record it logged.
fn run(home: &Home, hook: &str, stdin: Vec<u8>, panic: bool) -> (Value, Value) {
    let mut cmd = home.cmd(&[hook]);
    if panic {
        cmd = cmd.env("HOOKJUDGE_DEBUG_PANIC", hook);
    }
    let out = cmd.stdin(stdin).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    (out.json(), home.last_log())
}

/// The Stop hook fails open: no block.
fn stop_answer(home: &Home, stdin: Vec<u8>, panic: bool) -> (Value, Value) {
    let (answer, record) = run(home, "stop", stdin, panic);
    assert!(
        answer.get("decision").is_none(),
        "Stop fails open: {answer}"
    );
    (answer, record)
}

/// The gate fails safe: a human decides.
fn gate_answer(home: &Home, stdin: Vec<u8>, panic: bool) -> (Value, Value) {
    let (answer, record) = run(home, "gate", stdin, panic);
    let decision = &answer["hookSpecificOutput"]["permissionDecision"];
    assert_eq!(decision, "ask", "the gate fails safe: {answer}");
    (answer, record)
}

#[test]
fn an_oversized_input_is_the_same_outcome_for_both_hooks() {
    let home = Home::new();
    let expected = format!("hook input is larger than {CAP} bytes");
    let stop = claude_stop("s", std::path::Path::new(""), "done", false);
    let (answer, record) = stop_answer(&home, oversized(&stop), false);
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("too large"),
        "{answer}"
    );
    assert_eq!(record["errors"][0], expected.as_str());
    let gate = pre_tool_use(&home.work(), "git push", false, None);
    let (answer, record) = gate_answer(&home, oversized(&gate), false);
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(reason.contains(&expected), "{reason}");
    assert_eq!(record["errors"][0], expected.as_str());
    // Just under the cap, the same inputs are read whole.
    let mut fits = gate.trim_end_matches('}').as_bytes().to_vec();
    fits.extend_from_slice(br#","pad":""#);
    fits.resize(CAP - 2, b' ');
    fits.extend_from_slice(br#""}"#);
    let (_, record) = gate_answer(&home, fits, false);
    assert_eq!(record["command"], "git push");
    assert!(
        !record["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().contains("larger than")),
        "{record}"
    );
}

#[test]
fn a_panic_keeps_its_message_in_both_hooks() {
    let home = Home::new();
    let stop = claude_stop("s", std::path::Path::new(""), "done", false);
    let (answer, record) = stop_answer(&home, stop.into_bytes(), true);
    let error = record["errors"][0].as_str().unwrap().to_owned();
    assert!(
        error.starts_with("internal error: HOOKJUDGE_DEBUG_PANIC=stop was set at src/"),
        "{error}"
    );
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("HOOKJUDGE_DEBUG_PANIC=stop was set"),
        "{answer}"
    );
    let gate = pre_tool_use(&home.work(), "git push", false, None);
    let (answer, record) = gate_answer(&home, gate.into_bytes(), true);
    let error = record["errors"][0].as_str().unwrap().to_owned();
    assert!(
        error.starts_with("internal error: HOOKJUDGE_DEBUG_PANIC=gate was set at src/"),
        "{error}"
    );
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("HOOKJUDGE_DEBUG_PANIC=gate was set"),
        "{reason}"
    );
}

#[test]
fn a_log_that_cannot_be_written_is_told_by_both_hooks() {
    let home = Home::new();
    // The log dir's place is taken by a file: appending fails.
    let logs = home.log_dir();
    std::fs::create_dir_all(logs.parent().unwrap()).unwrap();
    std::fs::write(&logs, "not a directory").unwrap();
    let stop = claude_stop("s", std::path::Path::new(""), "done", false);
    let out = home.cmd(&["stop"]).stdin(stop).output();
    assert!(
        out.stderr.contains("cannot write the decision log"),
        "{}",
        out.stderr
    );
    // A usage error on the gate's command line is logged through the same writer.
    let gate = pre_tool_use(&home.work(), "git push", false, None);
    let out = home.cmd(&["gate", "--bogus"]).stdin(gate).output();
    assert!(
        out.stderr.contains("cannot write the decision log"),
        "{}",
        out.stderr
    );
}

#[test]
fn unreadable_input_is_the_same_error_for_both_hooks() {
    let home = Home::new();
    for (stdin, expected) in [
        (
            &b""[..],
            "no hook input on stdin (expected the agent's hook JSON)",
        ),
        (&b"not json"[..], "hook input is not the JSON object"),
    ] {
        let (answer, record) = stop_answer(&home, stdin.to_vec(), false);
        assert!(
            answer["systemMessage"]
                .as_str()
                .unwrap()
                .contains("could not read the hook input"),
            "{answer}"
        );
        let stop_error = record["errors"][0].as_str().unwrap().to_owned();
        assert!(stop_error.starts_with(expected), "{stop_error}");
        let (answer, record) = gate_answer(&home, stdin.to_vec(), false);
        assert_eq!(record["errors"][0].as_str(), Some(stop_error.as_str()));
        let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains(&stop_error), "{reason}");
    }
}
