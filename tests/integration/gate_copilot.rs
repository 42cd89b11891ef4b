//! The gate for Copilot CLI (`preToolUse` on `bash`), in a real repository with a real bare
//! remote, reading the session file in the shape the real Copilot CLI 1.0.102 writes it
//! (tests/e2e). Its `preToolUse` names no file: the gate finds `events.jsonl` from the session
//! id, under `~/.copilot/session-state/` or `$COPILOT_HOME/session-state/`. A push after a
//! failing test run is denied with the run in the reason; a passing run after the last edit
//! (`edit`, or `apply_patch` for GPT-5 models) lets it through.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::GitFixture;
use crate::harness::Home;

const SESSION_ID: &str = "fc05dfb1-044a-405d-9339-dc5612e484e7";

/// One step of the session before the push.
enum Step {
    /// `edit` of a file of the repository.
    Edit(&'static str),
    /// `apply_patch` (offered to GPT-5 models): its arguments the patch itself, a string.
    Patch(&'static str),
    /// `make test`, exiting with this status.
    Test(i32),
}

fn line(kind: &str, n: usize, data: Value) -> Value {
    json!({"type": kind, "data": data, "id": format!("e{n}-{kind}"),
        "timestamp": "2026-12-03T13:13:00.265Z", "parentId": "p"})
}

/// The session as it stands when Copilot runs the hook for the push: the push's
/// `tool.execution_start` is written.
fn session(base: &Path, repo: &GitFixture, steps: &[Step]) -> PathBuf {
    let mut lines = vec![
        line(
            "session.start",
            0,
            json!({"sessionId": SESSION_ID, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102",
                   "context": {"cwd": repo.work, "gitRoot": repo.work, "branch": "main"}}),
        ),
        line(
            "user.message",
            1,
            json!({"content": "Fix the loader and push", "transformedContent": "<current_datetime>t</current_datetime>\n\nFix the loader and push",
                   "messageId": "u1", "interactionId": "i1", "turnId": "0"}),
        ),
    ];
    let start = |n: usize, id: &str, tool: &str, arguments: Value| {
        line(
            "tool.execution_start",
            n,
            json!({"toolCallId": id, "toolName": tool, "arguments": arguments, "turnId": "0", "model": "fake"}),
        )
    };
    for (i, step) in steps.iter().enumerate() {
        let id = format!("call_{i}");
        let n = 10 * (i + 1);
        let file = |name: &str| repo.work.join(name).to_str().unwrap().to_owned();
        let (call, result) = match step {
            Step::Edit(f) => (
                start(
                    n,
                    &id,
                    "edit",
                    json!({"path": file(f), "old_str": "one", "new_str": "two"}),
                ),
                json!({"toolCallId": id, "success": true, "result": {"content": "File updated"}}),
            ),
            Step::Patch(f) => (
                start(
                    n,
                    &id,
                    "apply_patch",
                    json!(format!(
                        "*** Begin Patch\n*** Update File: {}\n@@\n-one\n+two\n*** End Patch\n",
                        file(f)
                    )),
                ),
                json!({"toolCallId": id, "success": true, "fileEdits": [{"path": file(f), "kind": "edit"}],
                       "result": {"content": format!("Modified 1 file(s): {}", file(f))}}),
            ),
            Step::Test(code) => (
                start(
                    n,
                    &id,
                    "bash",
                    json!({"command": "make test", "description": "run"}),
                ),
                json!({"toolCallId": id, "success": true, "shellExecution": {"exitCode": code},
                       "result": {"content": format!("3 passed\n<shellId: 0 completed with exit code {code}>")}}),
            ),
        };
        lines.push(line(
            "assistant.message",
            n + 1,
            json!({"messageId": format!("m{i}"), "content": "", "toolRequests": [], "turnId": "0"}),
        ));
        lines.push(call);
        lines.push(line("tool.execution_complete", n + 2, result));
    }
    lines.push(start(
        1000,
        "call_push",
        "bash",
        json!({"command": "git push origin main", "description": "run"}),
    ));
    // The hook's own line, written at the input's `timestamp`: the gate waits for it.
    let mut hook = line(
        "hook.start",
        1001,
        json!({"hookType": "preToolUse", "input": {"sessionId": SESSION_ID}}),
    );
    hook["timestamp"] = json!("2026-12-03T13:13:00.388Z");
    lines.push(hook);
    let path = base.join(format!("session-state/{SESSION_ID}/events.jsonl"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn setup() -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    // The pushed commit holds the file the session edits.
    repo.commit("loader.py", "two\n", "change a");
    (home, repo)
}

/// The gate's answer on the push (`None`: silent), as Copilot CLI 1.0.102 asks it.
fn gate(home: &Home, repo: &GitFixture, copilot_home: Option<&Path>) -> Option<Value> {
    let input = json!({"sessionId": SESSION_ID, "timestamp": 1_796_303_580_388_i64, "cwd": repo.work,
        "toolName": "bash", "toolArgs": {"command": "git push origin main", "description": "run"}});
    let mut run = home
        .cmd(&["gate", "--agent", "copilot"])
        .stdin(input.to_string());
    if let Some(dir) = copilot_home {
        run = run.env("COPILOT_HOME", dir);
    }
    let out = run.output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    (!out.stdout.trim().is_empty()).then(|| out.json())
}

#[test]
fn a_push_after_a_failing_test_run_is_denied_at_once() {
    let (home, repo) = setup();
    session(
        &home.path().join(".copilot"),
        &repo,
        &[Step::Edit("loader.py"), Step::Test(2)],
    );
    let v = gate(&home, &repo, None).expect("a decision");
    assert_eq!(v["permissionDecision"], "deny", "{v}");
    let reason = v["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("`make test` failed"), "{reason}");
    let log = home.last_log();
    assert_eq!(log["agent"], "copilot");
    assert_eq!(log["rulings"][0]["decided_by"], "evidence");
    assert_eq!(log["rulings"][0]["evidence"]["kind"], "change_after_tests");
}

#[test]
fn a_passing_run_after_the_last_edit_lets_the_push_through() {
    let (home, repo) = setup();
    let steps = [
        Step::Edit("loader.py"),
        Step::Test(2),
        Step::Edit("loader.py"),
        Step::Test(0),
    ];
    session(&home.path().join(".copilot"), &repo, &steps);
    assert_eq!(gate(&home, &repo, None), None, "silent: no output at all");
    let log = home.last_log();
    assert_eq!(
        log["rulings"][0]["evidence"],
        json!({"kind": "test_run_after_change", "command": "make test"})
    );
}

#[test]
fn a_patch_after_the_passing_run_denies_the_push() {
    let (home, repo) = setup();
    let steps = [
        Step::Patch("loader.py"),
        Step::Test(0),
        Step::Patch("loader.py"),
    ];
    session(&home.path().join(".copilot"), &repo, &steps);
    let v = gate(&home, &repo, None).expect("a decision");
    assert_eq!(v["permissionDecision"], "deny", "{v}");
    let reason = v["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("files changed (apply_patch)"), "{reason}");
    let log = home.last_log();
    assert_eq!(log["rulings"][0]["evidence"]["kind"], "change_after_tests");
    // Tested after the patch: through.
    session(&home.path().join(".copilot"), &repo, &steps[..2]);
    assert_eq!(gate(&home, &repo, None), None, "silent");
}

#[test]
fn the_session_is_found_under_copilot_home() {
    let (home, repo) = setup();
    let moved = home.path().join("copilot-home");
    session(&moved, &repo, &[Step::Edit("loader.py"), Step::Test(0)]);
    // Not where `COPILOT_HOME` points: no session read, and a person must decide.
    let v = gate(&home, &repo, None).expect("a decision");
    assert!(
        v["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("ask the user"),
        "{v}"
    );
    assert_eq!(gate(&home, &repo, Some(&moved)), None, "silent");
}

/// Copilot CLI's `preToolUse` comes for every tool: its file tools (`create`, `edit`,
/// `str_replace_editor`, and `apply_patch`, whose arguments are the patch itself, a string, as
/// Copilot CLI 1.0.102 sends it) may not take hookjudge out of its hook file, and write
/// everything else silently; a `view` reads.
#[test]
fn copilots_file_tools_cannot_take_hookjudge_out_of_its_hook_file() {
    let (home, repo) = setup();
    let mut init = home.cmd(&["init", "--agent", "copilot", "--scope", "project"]);
    init.command.current_dir(&repo.work);
    let init = init.output();
    assert_eq!(init.code, 0, "{}", init.stderr);
    let hooks = repo.work.join(".github/hooks/hookjudge.json");
    let text = std::fs::read_to_string(&hooks).unwrap();
    let hook_line = text
        .lines()
        .find(|l| l.contains("gate --agent copilot"))
        .unwrap()
        .trim();
    let call = |tool: &str, args: Value| {
        let input = json!({"sessionId": SESSION_ID, "timestamp": 1_796_303_580_388_i64,
            "cwd": repo.work, "toolName": tool, "toolArgs": args});
        let out = home
            .cmd(&["gate", "--agent", "copilot"])
            .stdin(input.to_string())
            .output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        (!out.stdout.trim().is_empty()).then(|| out.json())
    };
    let path = hooks.to_str().unwrap();
    let patch =
        format!("*** Begin Patch\n*** Update File: {path}\n@@\n-{hook_line}\n+\n*** End Patch\n");
    for (tool, args) in [
        ("create", json!({"path": path, "file_text": "{}"})),
        (
            "edit",
            json!({"path": path, "old_str": hook_line, "new_str": ""}),
        ),
        (
            "str_replace_editor",
            json!({"command": "str_replace", "path": path, "old_str": hook_line, "new_str": ""}),
        ),
        ("apply_patch", json!(patch)),
    ] {
        let v = call(tool, args).unwrap_or_else(|| panic!("{tool}: silent"));
        assert_eq!(v["permissionDecision"], "deny", "{tool}: {v}");
        let reason = v["permissionDecisionReason"].as_str().unwrap();
        assert!(reason.contains("hook settings"), "{tool}: {reason}");
    }
    let loader = repo.work.join("loader.py");
    let loader = loader.to_str().unwrap();
    for (tool, args) in [
        (
            "create",
            json!({"path": repo.work.join("notes.md"), "file_text": "# Notes\n"}),
        ),
        (
            "edit",
            json!({"path": loader, "old_str": "two", "new_str": "three"}),
        ),
        (
            "str_replace_editor",
            json!({"command": "view", "path": path}),
        ),
        ("view", json!({"path": path})),
        (
            "apply_patch",
            json!(format!(
                "*** Begin Patch\n*** Update File: {loader}\n@@\n-two\n+three\n*** End Patch\n"
            )),
        ),
    ] {
        assert_eq!(call(tool, args), None, "{tool} was gated");
    }
    assert_eq!(std::fs::read_to_string(&hooks).unwrap(), text);
}
