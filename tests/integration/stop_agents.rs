//! The Stop judges for Qwen Code and Factory Droid, whose `Stop` carries the last assistant
//! message (Droid's real client names it in its session file instead) and blocks with
//! `{"decision":"block","reason"}`: an unverified "I'll commit and push now" is blocked once, and the loop breaker lets the same turn end on the next Stop. Agents
//! Copilot CLI's `agentStop` carries no text either: it is read from the session file the input
//! names, as Factory Droid's is.

use serde_json::{Value, json};

use crate::harness::{Home, command_llm_config};

const COMMIT_REASON: &str = "hookjudge [commit]: You proposed to commit, push or deploy without reporting verification first. Run the checks this change needs (tests, build), report their results, and only then ask to commit or push.\nIf this does not apply to your response, say why in one sentence; you will not be blocked for it again on this prompt.";

const PUSH_NOW: &str = "All done. I'll commit and push now.";

/// Qwen Code's `Stop`, as Qwen Code 0.15.10 sends it: `stop_hook_active` is `true` on every
/// Stop, the first included, so the loop breaker counts a whole session as one prompt.
fn qwen_stop(_active: bool) -> Value {
    json!({"session_id": "q1", "transcript_path": "/nonexistent/q1.jsonl", "cwd": "/nonexistent",
        "hook_event_name": "Stop", "timestamp": "2026-12-01T09:31:00.000Z", "stop_hook_active": true,
        "last_assistant_message": PUSH_NOW})
}

/// Factory Droid's `Stop` (Claude-style).
fn droid_stop(active: bool) -> Value {
    json!({"session_id": "d1", "transcript_path": "/nonexistent/d1.jsonl", "cwd": "/nonexistent",
        "permission_mode": "auto-medium", "hook_event_name": "Stop", "stop_hook_active": active,
        "last_assistant_message": PUSH_NOW})
}

fn stop(home: &Home, args: &[&str], input: &Value) -> String {
    let out = home.cmd(args).stdin(input.to_string()).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

#[test]
fn an_unverified_push_is_blocked_once_then_released() {
    for (agent, input) in [
        ("qwen", qwen_stop as fn(bool) -> Value),
        ("droid", droid_stop),
    ] {
        let home = Home::new();
        home.user_config(&command_llm_config(
            r#"{"new_proposal": true, "verification_reported": false, "reason": "push"}"#,
        ));
        let args = ["stop", "--agent", agent];
        assert_eq!(
            stop(&home, &args, &input(false)),
            format!(
                "{}\n",
                json!({"decision": "block", "reason": COMMIT_REASON})
            ),
            "{agent}"
        );
        let log = home.last_log();
        assert_eq!(
            (log["agent"].as_str(), log["action"].as_str()),
            (Some(agent), Some("block"))
        );
        // The agent went on and stopped again with the same reply: the turn ends, with a note.
        let again: Value = serde_json::from_str(&stop(&home, &args, &input(true))).unwrap();
        assert!(again.get("decision").is_none(), "{agent}: {again}");
        assert!(
            again["systemMessage"]
                .as_str()
                .unwrap()
                .contains("`commit` still objects"),
            "{agent}: {again}"
        );
        assert_eq!(home.last_log()["action"], "release", "{agent}");
    }
}

#[test]
fn droid_stop_reads_the_final_message_from_its_session_file() {
    // Droid 0.215's `Stop` carries no text: `message_id` names the assistant message that
    // ended the turn in the session file `transcript_path` (the shapes as the real client
    // writes them, tests/e2e).
    let home = Home::new();
    home.user_config(&command_llm_config(
        r#"{"new_proposal": true, "verification_reported": false, "reason": "push"}"#,
    ));
    let session = home.path().join("d1.jsonl");
    let lines = [
        json!({"type": "session_start", "id": "d1", "title": "continue", "version": 2, "cwd": "/nonexistent"}),
        json!({"type": "message", "id": "u1", "message": {"role": "user", "content": [{"type": "text", "text": "continue"}]}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "message": {"role": "assistant",
            "content": [{"type": "text", "text": PUSH_NOW}], "modelId": "custom:Fake-0"}}),
        json!({"type": "message", "id": "h1", "parentId": "a1", "message": {"role": "user", "content": [],
            "visibility": "user_only", "hookEventName": "Stop"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&session, text).unwrap();
    let input = |message_id: &str| {
        json!({"session_id": "d1", "transcript_path": session, "cwd": "/nonexistent",
            "permission_mode": "auto-high", "hook_event_name": "Stop", "message_id": message_id,
            "stop_hook_active": false, "tool_execution_count": 0, "elapsed_time": 72})
    };
    assert_eq!(
        stop(&home, &["stop", "--agent", "droid"], &input("a1")),
        format!(
            "{}\n",
            json!({"decision": "block", "reason": COMMIT_REASON})
        )
    );
    assert_eq!(home.last_log()["agent"], "droid");
    // Detected from the payload too.
    let fresh = Home::new();
    fresh.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    let out = stop(&fresh, &["stop"], &input("a1"));
    assert_eq!(fresh.last_log()["agent"], "droid", "{out}");
    // A message id the file does not hold has no text to judge.
    assert_eq!(
        stop(&fresh, &["stop", "--agent", "droid"], &input("zz")),
        ""
    );
}

/// A Copilot CLI session file's lines, in the shape Copilot CLI 1.0.102 writes them.
fn copilot_line(kind: &str, data: Value) -> String {
    format!(
        "{}\n",
        json!({"type": kind, "data": data, "id": format!("e-{kind}"), "timestamp": "t", "parentId": null})
    )
}

fn copilot_said(id: &str, text: &str) -> String {
    copilot_line(
        "assistant.message",
        json!({"messageId": id, "content": text, "toolRequests": [], "turnId": "0"}),
    )
}

/// The `hook.start` line of the `agentStop` call the tests send (at its `timestamp`): the
/// Stop hook waits for it before it reads the file.
fn copilot_hook() -> String {
    format!(
        "{}\n",
        json!({"type": "hook.start", "data": {"hookType": "agentStop", "input": {"sessionId": "c1"}},
               "id": "h", "timestamp": "2026-12-03T13:12:58.013Z", "parentId": null})
    )
}

fn copilot_user(id: &str, text: &str) -> String {
    copilot_line(
        "user.message",
        json!({"content": text, "transformedContent": text, "messageId": id, "interactionId": "i1"}),
    )
}

#[test]
fn copilot_agent_stop_reads_its_session_blocks_once_then_the_loop_breaker_releases() {
    let home = Home::new();
    home.user_config(&command_llm_config(
        r#"{"new_proposal": true, "verification_reported": false, "reason": "push"}"#,
    ));
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    let mut session = copilot_line(
        "session.start",
        json!({"sessionId": "c1", "copilotVersion": "1.0.102"}),
    ) + &copilot_user("u1", "continue")
        + &copilot_said("m1", PUSH_NOW)
        + &copilot_hook();
    std::fs::write(&events, &session).unwrap();
    // As Copilot CLI 1.0.102 sends it: no text, and `stop_hook_active` false after a block too.
    let input = json!({"sessionId": "c1", "timestamp": 1_796_303_578_013_u64, "cwd": "/nonexistent",
        "transcriptPath": events, "stopReason": "end_turn", "stop_hook_active": false});
    let args = ["stop", "--agent", "copilot"];
    assert_eq!(
        stop(&home, &args, &input),
        format!(
            "{}\n",
            json!({"decision": "block", "reason": COMMIT_REASON})
        )
    );
    let log = home.last_log();
    assert_eq!(
        (
            log["agent"].as_str(),
            log["action"].as_str(),
            log["event"].as_str()
        ),
        (Some("copilot"), Some("block"), Some("agentStop"))
    );
    // The reason came back as the next message and the model said the same: the same prompt,
    // so the loop breaker lets the turn end (with a note for the person).
    session += &copilot_user("u2", COMMIT_REASON);
    session += &copilot_said("m2", PUSH_NOW);
    session += &copilot_hook();
    std::fs::write(&events, &session).unwrap();
    let again: Value = serde_json::from_str(&stop(&home, &args, &input)).unwrap();
    assert!(again.get("decision").is_none(), "{again}");
    assert_eq!(home.last_log()["action"], "release");
    // A new prompt of the person's is judged afresh; detected from the payload too.
    session += &copilot_user("u3", "and the docs?");
    session += &copilot_said("m3", PUSH_NOW);
    session += &copilot_hook();
    std::fs::write(&events, &session).unwrap();
    assert_eq!(
        stop(&home, &["stop"], &input),
        format!(
            "{}\n",
            json!({"decision": "block", "reason": COMMIT_REASON})
        )
    );
    // No session file: no text to judge.
    let mut missing = input.clone();
    missing["transcriptPath"] = json!("/nonexistent/events.jsonl");
    assert_eq!(stop(&home, &args, &missing), "");
}

/// Cursor's common fields with `event`'s own.
fn cursor(event: &str, fields: Value) -> Value {
    let mut v = json!({"conversation_id": "cv1", "generation_id": "g1", "model": "m",
        "hook_event_name": event, "cursor_version": "3.7.21", "workspace_roots": ["/nonexistent"],
        "user_email": null, "transcript_path": null});
    v.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    v
}

#[test]
fn cursor_judges_the_kept_response_at_stop_and_continues_with_a_followup() {
    let home = Home::new();
    home.user_config(&command_llm_config(
        r#"{"new_proposal": true, "verification_reported": false, "reason": "push"}"#,
    ));
    let respond = cursor("afterAgentResponse", json!({"text": PUSH_NOW}));
    // The response is kept, not answered nor logged.
    assert_eq!(stop(&home, &["stop"], &respond), "");
    assert!(home.log().is_empty());
    let end = |loop_count: u64, status: &str| {
        cursor("stop", json!({"status": status, "loop_count": loop_count}))
    };
    assert_eq!(
        stop(&home, &["stop", "--agent", "cursor"], &end(0, "completed")),
        format!("{}\n", json!({"followup_message": COMMIT_REASON}))
    );
    assert_eq!(home.last_log()["agent"], "cursor");
    assert_eq!(home.last_log()["action"], "block");
    // The agent answered the follow-up with the same reply: the loop breaker ends the turn.
    assert_eq!(stop(&home, &["stop"], &respond), "");
    assert_eq!(stop(&home, &["stop"], &end(1, "completed")), "");
    assert_eq!(home.last_log()["action"], "release");
    // A turn the person aborted is not sent back to work.
    let fresh = Home::new();
    fresh.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    assert_eq!(stop(&fresh, &["stop"], &respond), "");
    assert_eq!(stop(&fresh, &["stop"], &end(0, "aborted")), "");
}
