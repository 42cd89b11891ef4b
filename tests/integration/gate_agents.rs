//! The gate for the agents beside Claude Code, Codex and Gemini CLI, fed their hook payloads in
//! the shapes their documentation and schemas give, in a real repository one commit ahead of a
//! real bare remote: a `git push` with no test evidence is stopped, in each agent's own answer
//! (byte for byte), detected from the payload as well as named by `--agent`; a plain command
//! costs nothing (Cline, which blocks on no output, is told `{"cancel":false}`). Cline CLI 3,
//! whose `cancel` ends the whole run unexplained, is refused in place: its command is replaced
//! by one that prints the reason and fails.

use std::path::Path;

use serde_json::{Value, json};

use crate::gate_repo::GitFixture;
use crate::harness::Home;

const ASK_THE_USER: &str = "A person must decide on this command, and this hook cannot ask them. Stop here and ask the user whether to run it; do not retry it or work around it. Once the user says they approved it, run exactly the same command again.";

/// Each agent's pre-shell payload for `command` run in `cwd`, as its documentation gives it.
pub(crate) fn payload(agent: &str, cwd: &Path, command: &str) -> Value {
    match agent {
        // Qwen Code `PreToolUse` (docs/users/features/hooks.md).
        "qwen" => json!({"session_id": "q1", "transcript_path": "/nonexistent/q1.json", "cwd": cwd,
            "hook_event_name": "PreToolUse", "timestamp": "2026-12-01T09:30:57.315Z", "permission_mode": "default",
            "tool_name": "run_shell_command", "tool_input": {"command": command, "description": "push"},
            "tool_use_id": "call_1", "tool_call_id": "call_1"}),
        // Factory Droid `PreToolUse`, as Droid 0.215 sends it (Claude-style; the shell tool is
        // `Execute`, with its risk fields).
        "droid" => {
            json!({"session_id": "d1", "transcript_path": "/nonexistent/d1.jsonl", "cwd": cwd,
            "permission_mode": "auto-high", "hook_event_name": "PreToolUse", "tool_name": "Execute",
            "tool_input": {"command": command, "riskLevelReason": "publishes the branch", "riskLevel": "high"}})
        }
        // Factory Droid with camelCase common fields, as some integrations describe it.
        "droid-camel" => {
            json!({"sessionId": "d1", "transcriptPath": "/nonexistent/d1.jsonl", "cwd": cwd,
            "permissionMode": "auto-medium", "hookEventName": "PreToolUse", "tool_name": "Execute",
            "tool_input": {"command": command}})
        }
        // Copilot CLI `preToolUse`, as Copilot CLI 1.0.102 sends it (tests/e2e): `toolArgs`
        // is an object.
        "copilot" => json!({"sessionId": "c1", "timestamp": 1_764_581_457_315_u64, "cwd": cwd,
            "toolName": "bash", "toolArgs": {"command": command, "description": "push"}}),
        // Copilot CLI with `toolArgs` a JSON string, as its hooks reference gives it.
        "copilot-string" => {
            json!({"sessionId": "c1", "timestamp": 1_764_581_457_315_u64, "cwd": cwd,
            "toolName": "bash", "toolArgs": json!({"command": command, "description": "push"}).to_string()})
        }
        // Cursor `beforeShellExecution` (common fields, then `command`, `cwd`).
        "cursor" => json!({"conversation_id": "cv1", "generation_id": "g1", "model": "m",
            "hook_event_name": "beforeShellExecution", "cursor_version": "3.7.21", "workspace_roots": [cwd],
            "user_email": null, "transcript_path": null, "command": command, "cwd": cwd}),
        // Crush `PreToolUse` (docs/hooks/README.md).
        "crush" => {
            json!({"event": "PreToolUse", "session_id": "cr1", "cwd": cwd, "tool_name": "bash",
            "tool_input": {"command": command, "description": "push"}})
        }
        // Cline `PreToolUse` (hook-reference.mdx): no `cwd`, the workspace roots instead.
        "cline" => {
            json!({"clineVersion": "3.36.0", "hookName": "PreToolUse", "timestamp": "1764581457315",
            "taskId": "t1", "workspaceRoots": [cwd], "userId": "u",
            "preToolUse": {"toolName": "execute_command", "parameters": {"command": command, "requires_approval": "false"}}})
        }
        // Cline CLI 3.0.65's `PreToolUse` file hook, as the real CLI sent it (tests/e2e): the
        // event is `tool_call`, the shell tool `run_commands` with an array of commands, typed in
        // `tool_call.input` and JSON-encoded in `preToolUse.parameters`.
        "cline-cli" => {
            json!({"clineVersion": "", "timestamp": "2026-12-03T12:12:41.862Z", "taskId": "conv_1",
            "sessionContext": {"rootSessionId": "1"}, "workspaceRoots": [cwd],
            "workspaceInfo": {"rootPath": cwd, "hint": "repo"}, "userId": "unknown", "agent_id": "agent_1",
            "parent_agent_id": null, "hookName": "tool_call", "iteration": 1,
            "tool_call": {"id": "call_1", "name": "run_commands", "input": {"commands": [command]}},
            "preToolUse": {"toolName": "run_commands", "parameters": {"commands": json!([command]).to_string()}}})
        }
        // What the generated OpenCode plugin sends for `tool.execute.before` on `bash`.
        "opencode" => json!({"hook_event_name": "PreToolUse", "session_id": "o1", "cwd": cwd,
            "tool_name": "bash", "tool_input": {"command": command}}),
        other => panic!("no payload for {other}"),
    }
}

/// The gate's stdout and the agent the log names.
fn gate(home: &Home, agent: Option<&str>, stdin: &Value) -> (String, String) {
    let mut args = vec!["gate"];
    if let Some(agent) = agent {
        args.extend(["--agent", agent]);
    }
    let out = home.cmd(&args).stdin(stdin.to_string()).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "", "nothing on stderr");
    (
        out.stdout,
        home.last_log()["agent"].as_str().unwrap_or("").to_owned(),
    )
}

/// The reason the gate gives for the push, in Claude Code's answer (the reference shape).
pub(crate) fn reference_reason(home: &Home, repo: &GitFixture) -> String {
    let claude = json!({"session_id": "s", "cwd": repo.work, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "git push origin main"}});
    let (out, _) = gate(home, Some("claude"), &claude);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
    v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Each agent's exact answer when a person must decide on the push.
pub(crate) fn expected(agent: &str, reason: &str) -> Value {
    let told = format!("{reason} {ASK_THE_USER}");
    match agent {
        // Qwen Code turns an ask into a deny in headless runs: the agent is told to ask.
        "qwen" => {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": told}})
        }
        // `droid exec` runs what a hook asks about as if allowed: the agent is told to ask.
        "droid" => {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": told}})
        }
        // Copilot CLI 1.0.102 turns an ask into a deny in `-p` runs ("unable to ask user for
        // confirmation", tests/e2e): the agent is told to ask.
        "copilot" => json!({"permissionDecision": "deny", "permissionDecisionReason": told}),
        "cursor" => json!({"permission": "ask", "user_message": reason, "agent_message": reason}),
        "crush" | "opencode" => json!({"decision": "deny", "reason": told}),
        "cline" => json!({"cancel": true, "errorMessage": told}),
        other => panic!("{other}"),
    }
}

/// What Cline CLI 3 is told when `answer` (the gate's answer) refuses its call in place: the
/// run goes on, and the one command run instead touches nothing, prints the reason and fails.
pub(crate) fn refused_in_place(answer: &Value) -> String {
    assert_eq!(answer["cancel"], false, "{answer}");
    let commands = answer["overrideInput"]["commands"]
        .as_array()
        .unwrap_or_else(|| panic!("no commands: {answer}"));
    assert_eq!(commands.len(), 1, "{answer}");
    let scratch = tempfile::tempdir().unwrap();
    let ran = std::process::Command::new("sh")
        .args(["-c", commands[0].as_str().unwrap()])
        .current_dir(scratch.path())
        .output()
        .unwrap();
    assert_eq!(ran.status.code(), Some(1), "{answer}");
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "");
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    let said = String::from_utf8(ran.stderr).unwrap();
    said.strip_prefix("hookjudge did not run this command. ")
        .and_then(|s| s.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("{said}"))
        .to_owned()
}

/// Asserts that `answer` (the gate's stdout) refuses Cline CLI 3's call in place, telling it
/// `told`.
fn assert_refused_in_place(answer: &str, told: &str) {
    let v: Value = serde_json::from_str(answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(refused_in_place(&v), told);
}

const AGENTS: [&str; 7] = [
    "qwen", "droid", "copilot", "cursor", "crush", "cline", "opencode",
];

#[test]
fn a_push_without_test_evidence_is_stopped_in_each_agents_own_answer() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "change a");
    let reason = reference_reason(&home, &repo);
    assert!(
        reason.contains("would publish 1 commit to `origin/main`"),
        "{reason}"
    );
    for agent in AGENTS {
        let shapes: &[&str] = match agent {
            "droid" => &["droid", "droid-camel"],
            "copilot" => &["copilot", "copilot-string"],
            "cline" => &["cline", "cline-cli"],
            _ => &[agent],
        };
        for shape in shapes {
            let stdin = payload(shape, &repo.work, "git push origin main");
            let want = format!("{}\n", expected(agent, &reason));
            let check = |out: &str, how: &str| {
                if *shape == "cline-cli" {
                    assert_refused_in_place(out, &format!("{reason} {ASK_THE_USER}"));
                } else {
                    assert_eq!(out, want, "{agent} {how}");
                }
            };
            let (named, logged) = gate(&home, Some(agent), &stdin);
            check(&named, "with --agent");
            assert_eq!(logged, agent);
            // Every payload but the plugin's (Claude-shaped by design) names its agent.
            if agent != "opencode" {
                let (detected, logged) = gate(&home, None, &stdin);
                check(&detected, "detected");
                assert_eq!(logged, agent);
            }
            let log = home.last_log();
            assert_eq!(log["command"], "git push origin main", "{agent}: {log}");
        }
    }
}

#[test]
fn plain_commands_cost_nothing_and_cline_is_told_to_go_on() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    for (agent, shape) in AGENTS
        .iter()
        .map(|a| (*a, *a))
        .chain([("cline", "cline-cli")])
    {
        let out = home
            .cmd(&["gate", "--agent", agent])
            .stdin(payload(shape, &repo.work, "ls -la").to_string())
            .output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        let want = if agent == "cline" {
            "{\"cancel\":false}\n"
        } else {
            ""
        };
        assert_eq!(out.stdout, want, "{agent}");
    }
    assert!(home.log().is_empty(), "nothing gated, nothing logged");
}

#[test]
fn an_unreadable_input_still_gets_each_agents_answer() {
    // Cline blocks on bad output and Copilot skips a failed hook: both must get valid JSON.
    let home = Home::new();
    for (agent, key) in [
        ("cline", "errorMessage"),
        ("copilot", "permissionDecisionReason"),
        ("cursor", "agent_message"),
    ] {
        let out = home
            .cmd(&["gate", "--agent", agent])
            .stdin("not json")
            .output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v = out.json();
        let why = v[key].as_str().unwrap_or_else(|| panic!("{agent}: {v}"));
        assert!(
            why.contains("hook input is not the JSON object"),
            "{agent}: {why}"
        );
    }
}

#[test]
fn qwen_codes_own_shell_cannot_approve_what_the_gate_held_back() {
    // Qwen Code sets `QWEN_CODE=1` in the commands it runs; `approve` is for a person.
    let home = Home::new();
    let out = home.cmd(&["approve"]).env("QWEN_CODE", "1").output();
    assert_ne!(out.code, 0);
    assert!(
        out.stderr
            .contains("`QWEN_CODE` is set, so this runs inside Qwen Code"),
        "{}",
        out.stderr
    );
}

#[test]
fn opencode_crush_and_copilot_shells_cannot_approve_what_the_gate_held_back() {
    // OpenCode 1.18 sets `OPENCODE=1` in the commands it runs (seen in tests/e2e), Crush
    // `CRUSH=1` (its hooks documentation), Copilot CLI 1.0.102 `COPILOT_CLI=1` (seen in
    // tests/e2e); `approve` is for a person.
    let home = Home::new();
    for (var, name) in [
        ("OPENCODE", "OpenCode"),
        ("CRUSH", "Crush"),
        ("COPILOT_CLI", "Copilot CLI"),
    ] {
        let out = home.cmd(&["approve"]).env(var, "1").output();
        assert_ne!(out.code, 0, "{var}");
        let want = format!("`{var}` is set, so this runs inside {name}");
        assert!(out.stderr.contains(&want), "{}", out.stderr);
    }
}

/// Only Cline's shell tool takes a list of commands: another agent's `commands` beside its
/// `command` is not what runs, and the command is what the gate reads.
#[test]
fn a_list_beside_another_agents_command_is_not_read_in_its_place() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "change a");
    let stdin = json!({"session_id": "s", "cwd": repo.work, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git push origin main", "commands": ["ls"]}});
    let (out, _) = gate(&home, Some("claude"), &stdin);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
    assert_eq!(home.last_log()["command"], "git push origin main");
}
