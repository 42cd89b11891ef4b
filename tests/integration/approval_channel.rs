//! The approval path reaches the person in Codex and Gemini CLI: a command held back for them
//! comes with a `systemMessage` (shown to the person, not given to the model) naming
//! `hookjudge approve`, while the deny the agent reads never says how to approve.

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, pre_tool_use};
use crate::harness::Home;

/// The gate's answer to `input`.
fn gate(home: &Home, input: String) -> Value {
    home.cmd(&["gate"]).stdin(input).output().json()
}

#[test]
fn the_person_is_told_how_to_approve_and_the_agent_is_not() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "unverified change");
    // A judge that cannot answer: a human decides.
    home.user_config(
        &json!({"llm": {"provider": "command", "command": ["sh", "-c", "exit 3"]}}).to_string(),
    );
    let codex = gate(&home, pre_tool_use(&repo.work, "git push", true, None));
    let gemini = gate(
        &home,
        json!({"session_id": "g", "cwd": repo.work, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "git push"}}).to_string(),
    );
    for (agent, answer, told) in [
        (
            "codex",
            &codex,
            &codex["hookSpecificOutput"]["permissionDecisionReason"],
        ),
        ("gemini", &gemini, &gemini["reason"]),
    ] {
        let told = told.as_str().unwrap();
        assert!(
            told.contains("Stop here and ask the user") && !told.contains("hookjudge approve"),
            "{agent}: {told}"
        );
        let shown = answer["systemMessage"]
            .as_str()
            .unwrap_or_else(|| panic!("{agent}: {answer}"));
        assert!(
            shown.contains("run `hookjudge approve` in your own terminal"),
            "{agent}: {shown}"
        );
    }
    assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(gemini["decision"], "deny");
    // Claude Code asks the person itself; a plain deny teaches nothing either.
    let claude = gate(&home, pre_tool_use(&repo.work, "git push", false, None));
    assert_eq!(claude["hookSpecificOutput"]["permissionDecision"], "ask");
    assert_eq!(claude.get("systemMessage"), None);
    home.user_config(r#"{"gate": {"push": "deny"}}"#);
    let denied = gate(&home, pre_tool_use(&repo.work, "git push", true, None));
    assert_eq!(denied.get("systemMessage"), None, "{denied}");
}
