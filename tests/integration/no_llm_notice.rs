//! With no LLM to judge (none configured, none found, or one that cannot be reached), the
//! person learns it in the agent's own UI: the Stop hook's first judged turn of a session
//! carries a `systemMessage` saying so and naming the one setting that fixes it, and later
//! turns of the session stay silent.

use serde_json::{Value, json};

use crate::harness::{Home, Outcome};

const TEXT: &str = "Refactored the loader and updated the tests. Shall I push it to main?";

/// The Stop input of each agent, for session `session`.
fn inputs(session: &str) -> [(&'static str, Value); 3] {
    [
        (
            "claude",
            json!({"session_id": session, "transcript_path": "", "cwd": "/nonexistent", "hook_event_name": "Stop",
                "stop_hook_active": false, "last_assistant_message": TEXT}),
        ),
        (
            "codex",
            json!({"session_id": session, "turn_id": "t1", "transcript_path": null, "cwd": "/nonexistent",
                "hook_event_name": "Stop", "model": "gpt-fake", "permission_mode": "default",
                "stop_hook_active": false, "last_assistant_message": TEXT}),
        ),
        (
            "gemini",
            json!({"session_id": session, "transcript_path": "/nonexistent.json", "cwd": "/nonexistent",
                "hook_event_name": "AfterAgent", "timestamp": "2026-11-30T18:00:00Z", "prompt": "refactor it",
                "prompt_response": TEXT, "stop_hook_active": false}),
        ),
    ]
}

fn stop(home: &Home, input: &Value) -> Outcome {
    home.cmd(&["stop"]).stdin(input.to_string()).output()
}

/// The notice of `out`, which must be the whole answer (no decision).
#[track_caller]
fn notice(out: &Outcome) -> String {
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert!(v.get("decision").is_none(), "{v}");
    v["systemMessage"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn no_provider_is_told_once_per_session_in_every_agent() {
    for config in [
        json!({"llm": {"provider": "none"}}),
        // `auto` finds nothing in the test's environment (no key, no CLI, no local server).
        json!({}),
    ] {
        let home = Home::new();
        home.user_config(&config.to_string());
        // Each agent's first Stop of a session says it; its next one in the session does not.
        for (i, agent) in ["claude", "codex", "gemini"].into_iter().enumerate() {
            let session = format!("{agent}-session");
            let (_, input) = &inputs(&session)[i];
            let message = notice(&stop(&home, input));
            assert!(
                message.starts_with("hookjudge is not judging: no LLM")
                    && message.contains("`llm.provider`"),
                "{agent} {config}: {message}"
            );
            assert_eq!(home.last_log()["agent"], agent);
            let out = stop(&home, input);
            assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{agent} {config}");
        }
    }
}

#[test]
fn an_unreachable_provider_is_told_once_per_session() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = Home::new();
    home.user_config(
        &json!({"llm": {"provider": "openai", "base_url": format!("http://127.0.0.1:{port}/v1"), "model": "m"}})
            .to_string(),
    );
    // One session, seen by each agent's hook in turn.
    for (agent, input) in inputs("u1") {
        let out = stop(&home, &input);
        let message = notice(&out);
        let told =
            message.contains("hookjudge is not judging") && message.contains("`llm.base_url`");
        // Only the first Stop of the session names the fix; every one still says it could not
        // judge.
        assert_eq!(told, agent == "claude", "{agent}: {message}");
        assert!(message.contains("could not judge"), "{agent}: {message}");
    }
}
