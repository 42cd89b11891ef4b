//! The Stop-hook contract for each agent, byte for byte.
//!
//! Contract: `hookjudge stop` always exits 0. It prints nothing when the turn may end quietly,
//! `{"decision":"block","reason":…}` (Claude Code, Codex) or `{"decision":"deny","reason":…}`
//! (Gemini) when a judge blocks, and `{"systemMessage":…}` when it lets the turn end but the
//! human should know something.

use serde_json::json;

use crate::harness::{
    Home, assistant_line, claude_stop, command_llm_config, tool_result_line, user_line,
};

const COMMIT_REASON: &str = "hookjudge [commit]: You proposed to commit, push or deploy without reporting verification first. Run the checks this change needs (tests, build), report their results, and only then ask to commit or push.\nIf this does not apply to your response, say why in one sentence; you will not be blocked for it again on this prompt.";

fn transcript(home: &Home, name: &str, lines: &[String]) -> std::path::PathBuf {
    let path = home.path().join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn claude_stop_blocks_an_unverified_push_proposal() {
    let home = Home::new();
    home.user_config(&command_llm_config(
        r#"{"new_proposal": true, "verification_reported": false, "reason": "proposes a push"}"#,
    ));
    let t = transcript(
        &home,
        "t.jsonl",
        &[
            user_line("refactor the loader"),
            assistant_line("a1", "Looking at the loader."),
            tool_result_line("ok"),
        ],
    );
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s1",
            &t,
            "Refactor done. Shall I commit and push to main?",
            false,
        ))
        .output();
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout,
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
            log["decision"].as_str()
        ),
        (Some("claude"), Some("block"), Some("block"))
    );
    assert_eq!(log["judges"][0]["verdict"], "violation");
    assert_eq!(log["judges"][0]["layer2"]["provider"], "command");
    assert_eq!(
        log["text"],
        "Looking at the loader.\n\nRefactor done. Shall I commit and push to main?"
    );
}

#[test]
fn codex_stop_uses_the_same_block_shape() {
    let home = Home::new();
    home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    let input = json!({"session_id":"c1","turn_id":"t1","transcript_path":null,"cwd":"/nonexistent","hook_event_name":"Stop",
        "model":"gpt-fake","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"All done. I'll commit and push now."});
    let out = home.cmd(&["stop"]).stdin(input.to_string()).output();
    assert_eq!(
        (out.code, out.stdout.clone()),
        (
            0,
            format!(
                "{}\n",
                json!({"decision": "block", "reason": COMMIT_REASON})
            )
        )
    );
    assert_eq!(home.last_log()["agent"], "codex");
}

#[test]
fn gemini_after_agent_denies_and_reads_prompt_response() {
    let home = Home::new();
    home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    let input = json!({"session_id":"g1","transcript_path":"/nonexistent.json","cwd":"/nonexistent","hook_event_name":"AfterAgent",
        "timestamp":"2026-11-30T18:00:00Z","prompt":"refactor it","prompt_response":"Step one done.\nAll done. I'll commit and push now.","stop_hook_active":false});
    let out = home.cmd(&["stop"]).stdin(input.to_string()).output();
    assert_eq!(
        (out.code, out.stdout.clone()),
        (
            0,
            format!("{}\n", json!({"decision": "deny", "reason": COMMIT_REASON}))
        )
    );
    let log = home.last_log();
    assert_eq!(
        (log["agent"].as_str(), log["text"].as_str()),
        (
            Some("gemini"),
            Some("Step one done.\nAll done. I'll commit and push now.")
        )
    );
}

#[test]
fn subagent_stop_reads_the_subagent_transcript() {
    let home = Home::new();
    home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    let parent = transcript(
        &home,
        "parent.jsonl",
        &[
            user_line("go"),
            assistant_line("p1", "Parent says: I'll push to main now."),
        ],
    );
    let sub = transcript(
        &home,
        "agent-x.jsonl",
        &[
            user_line("explore"),
            assistant_line("s1", "Found three call sites."),
        ],
    );
    let input = json!({"session_id":"s","transcript_path":parent,"cwd":"/nonexistent","hook_event_name":"SubagentStop","stop_hook_active":false,
        "agent_id":"x","agent_type":"Explore","agent_transcript_path":sub,"last_assistant_message":"Analysis complete."});
    let out = home.cmd(&["stop"]).stdin(input.to_string()).output();
    out.assert_silent_allow();
    let log = home.last_log();
    assert_eq!(log["event"], "SubagentStop");
    assert_eq!(log["text"], "Found three call sites.\n\nAnalysis complete.");
}

#[test]
fn quiet_text_makes_no_llm_call_and_no_output() {
    let home = Home::new();
    let marker = home.path().join("llm-called");
    home.user_config(&json!({"llm": {"provider": "command", "command": ["sh", "-c", format!("touch {}; echo '{{\"new_proposal\": true}}'", marker.display())]}}).to_string());
    let t = transcript(&home, "t.jsonl", &[user_line("explain the loader")]);
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s1",
            &t,
            "The loader reads the file, parses TOML and validates it.",
            false,
        ))
        .output();
    out.assert_silent_allow();
    assert!(
        !marker.exists(),
        "the LLM must not be called for a quiet text"
    );
    let log = home.last_log();
    assert_eq!(log["action"], "allow");
    assert!(
        log["judges"]
            .as_array()
            .unwrap()
            .iter()
            .all(|j| j["layer1"] == "quiet")
    );
    assert!(
        log.get("provider").is_none(),
        "no provider detection on the quiet path"
    );
}

#[test]
fn an_allow_verdict_and_a_bypass_end_the_turn_silently() {
    let home = Home::new();
    // "48 passed" also wakes `unverified-claim`, which the session (no run in it) leaves to
    // the LLM: the canned answer allows for both.
    home.user_config(&command_llm_config(
        r#"{"new_proposal": false, "claims_success": false, "reason": "past report"}"#,
    ));
    let t = transcript(&home, "t.jsonl", &[user_line("go")]);
    home.cmd(&["stop"])
        .stdin(claude_stop(
            "s1",
            &t,
            "Shall I push the branch I pushed yesterday again?",
            false,
        ))
        .output()
        .assert_silent_allow();
    assert_eq!(home.last_log()["judges"][0]["verdict"], "allow");
    home.cmd(&["stop"])
        .stdin(claude_stop(
            "s2",
            &t,
            "All tests PASS (48 passed, 0 failed). Shall I commit?",
            false,
        ))
        .output()
        .assert_silent_allow();
    assert_eq!(home.last_log()["judges"][0]["layer1"], "bypass");
}

#[test]
fn the_recursion_guard_exits_at_once() {
    let home = Home::new();
    home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    for var in ["HOOKJUDGE_ACTIVE", "STOP_HOOK_LLM_JUDGE_ACTIVE"] {
        let out = home
            .cmd(&["stop"])
            .env(var, "1")
            .stdin(claude_stop(
                "s",
                std::path::Path::new(""),
                "I'll push now.",
                false,
            ))
            .output();
        out.assert_silent_allow();
    }
    assert!(home.log().is_empty(), "a guarded call logs nothing");
}

#[test]
fn a_command_provider_that_runs_hookjudge_stop_does_not_recurse() {
    // The judge's own CLI runs its Stop hook, which is hookjudge again: the guard must stop it.
    let home = Home::new();
    let script = format!(
        "input=$(cat); echo '{}' | {} stop > {}/inner.out; echo '{{\"new_proposal\": true}}'",
        claude_stop(
            "inner",
            std::path::Path::new(""),
            "Shall I push now?",
            false
        ),
        crate::harness::BIN,
        home.path().display()
    );
    home.user_config(
        &json!({"llm": {"provider": "command", "command": ["sh", "-c", script]}}).to_string(),
    );
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "outer",
            std::path::Path::new(""),
            "I'll push to main now.",
            false,
        ))
        .output();
    assert_eq!(out.json()["decision"], "block");
    assert_eq!(
        std::fs::read_to_string(home.path().join("inner.out")).unwrap(),
        "",
        "the inner hook exited at once"
    );
    assert_eq!(home.log().len(), 1, "only the outer call is logged");
}

#[test]
fn agent_flag_overrides_detection() {
    let home = Home::new();
    home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    // A Claude-shaped input rendered for Gemini because the entry says so.
    let out = home
        .cmd(&["stop", "--agent", "gemini"])
        .stdin(claude_stop(
            "s",
            std::path::Path::new(""),
            "I'll push now.",
            false,
        ))
        .output();
    assert_eq!(out.json()["decision"], "deny");
}
