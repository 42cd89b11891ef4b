//! The gate for the Cline CLI 3 (`PreToolUse`, event `tool_call`, on `run_commands`), in a real
//! repository with a real bare remote, reading the messages file in the shape the real Cline
//! CLI 3.0.65 writes it (tests/e2e). Its hook names no file: the gate finds
//! `<id>/<id>.messages.json` from `sessionContext.rootSessionId`, under
//! `~/.cline/data/sessions/` or the folder Cline's variables name. A push after a failing test
//! run is refused with the run in the reason (in place: see `gate_agents`); a passing run after
//! the last edit lets it through.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_agents::refused_in_place;
use crate::gate_repo::GitFixture;
use crate::harness::Home;

const SESSION_ID: &str = "1796308898385_msq1t";

/// One step of the session before the push.
enum Step {
    /// `editor` on a file of the repository.
    Edit(&'static str),
    /// `run_commands` with these commands, exiting with these statuses.
    Run(&'static [(&'static str, i32)]),
}

fn message(id: &str, role: &str, content: Value) -> Value {
    json!({"id": id, "role": role, "content": content, "ts": 1_796_308_958_189_i64})
}

fn call(id: &str, name: &str, input: Value) -> Value {
    message(
        &format!("msg_{id}"),
        "assistant",
        json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
    )
}

fn result(id: &str, name: &str, content: Value) -> Value {
    message(
        &format!("res_{id}"),
        "user",
        json!([{"type": "tool_result", "tool_use_id": id, "name": name, "content": content}]),
    )
}

/// The messages file as it stands when Cline runs the hook for the push: the push's call is
/// written (`JSON.stringify(…, null, 2)`, as `to_string_pretty` writes it).
fn session(sessions: &Path, repo: &GitFixture, steps: &[Step]) -> PathBuf {
    let mut messages = vec![message(
        "u1",
        "user",
        json!([{"type": "text", "text": "<user_input mode=\"act\">Fix the loader and push</user_input>"}]),
    )];
    for (i, step) in steps.iter().enumerate() {
        let id = format!("call_{i}");
        match step {
            Step::Edit(f) => {
                let path = repo.work.join(f).to_str().unwrap().to_owned();
                messages.push(call(
                    &id,
                    "editor",
                    json!({"path": path, "old_text": "one", "new_text": "two"}),
                ));
                let outcome = json!({"query": format!("edit:{path}"), "result": format!("Edited {path}"), "success": true});
                messages.push(result(&id, "editor", json!(outcome.to_string())));
            }
            Step::Run(runs) => {
                let commands: Vec<&str> = runs.iter().map(|(c, _)| *c).collect();
                messages.push(call(&id, "run_commands", json!({ "commands": commands })));
                let outcomes: Vec<Value> = runs
                    .iter()
                    .map(|(c, code)| match code {
                        0 => json!({"query": c, "result": "3 passed, 0 failed\n", "success": true}),
                        _ => json!({"query": c, "result": format!("[Command exited with code {code}]\n3 passed, 0 failed\n"),
                                    "error": format!("Command exited with code {code}"), "success": false}),
                    })
                    .collect();
                messages.push(result(&id, "run_commands", json!(outcomes)));
            }
        }
    }
    messages.push(call(
        "call_push",
        "run_commands",
        json!({"commands": ["git push origin main"]}),
    ));
    let doc = json!({"version": 1, "updated_at": "2026-12-03T14:41:40.428Z", "agent": "lead", "sessionId": SESSION_ID,
                     "origin": {"source": "cli", "mode": "user", "sessionId": SESSION_ID, "version": "3.0.65"},
                     "messages": messages, "system_prompt": "You are Cline, an AI coding agent."});
    let path = sessions.join(format!("{SESSION_ID}/{SESSION_ID}.messages.json"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
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

/// The gate's answer on the push, as Cline CLI 3.0.65 asks it (cut to the fields it reads
/// and a few beside them); `parent` is set for a subagent's call; `env` adds variables.
fn gate(home: &Home, repo: &GitFixture, parent: Option<&str>, env: &[(&str, &Path)]) -> Value {
    let input = json!({"clineVersion": "", "timestamp": "2026-12-03T14:41:01.096Z", "taskId": "conv_1796308860818_sqjuazb",
        "sessionContext": {"rootSessionId": SESSION_ID}, "workspaceRoots": [repo.work], "userId": "unknown",
        "agent_id": "agent_2", "parent_agent_id": parent, "hookName": "tool_call", "iteration": 2,
        "tool_call": {"id": "call_push", "name": "run_commands", "input": {"commands": ["git push origin main"]}},
        "preToolUse": {"toolName": "run_commands", "parameters": {"commands": "[\"git push origin main\"]"}}});
    let mut run = home
        .cmd(&["gate", "--agent", "cline"])
        .stdin(input.to_string());
    for (key, value) in env {
        run = run.env(key, value);
    }
    let out = run.output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()
}

fn default_sessions(home: &Home) -> PathBuf {
    home.path().join(".cline/data/sessions")
}

#[test]
fn a_push_after_a_failing_test_run_is_refused_at_once() {
    let (home, repo) = setup();
    let steps = [Step::Edit("loader.py"), Step::Run(&[("make test", 2)])];
    session(&default_sessions(&home), &repo, &steps);
    let reason = refused_in_place(&gate(&home, &repo, None, &[]));
    assert!(reason.contains("`make test` failed"), "{reason}");
    let log = home.last_log();
    assert_eq!(log["agent"], "cline");
    assert_eq!(log["rulings"][0]["decided_by"], "evidence");
    assert_eq!(log["rulings"][0]["evidence"]["kind"], "change_after_tests");
}

#[test]
fn a_passing_run_after_the_last_edit_lets_the_push_through() {
    let (home, repo) = setup();
    let steps = [
        Step::Edit("loader.py"),
        Step::Run(&[("make test", 2)]),
        Step::Edit("loader.py"),
        // Each command of the list has its own status: the failing `false` is not the run's.
        Step::Run(&[("make test", 0), ("false", 1)]),
    ];
    session(&default_sessions(&home), &repo, &steps);
    assert_eq!(gate(&home, &repo, None, &[]), json!({"cancel": false}));
    let log = home.last_log();
    assert_eq!(
        log["rulings"][0]["evidence"],
        json!({"kind": "test_run_after_change", "command": "make test"})
    );
}

#[test]
fn the_session_is_found_where_clines_variables_put_it() {
    let (home, repo) = setup();
    let moved = home.path().join("cline-dir");
    session(
        &moved.join("data/sessions"),
        &repo,
        &[Step::Edit("loader.py"), Step::Run(&[("make test", 0)])],
    );
    // Not where `CLINE_DIR` points: no session read, and a person must decide.
    assert!(refused_in_place(&gate(&home, &repo, None, &[])).contains("ask the user"));
    assert_eq!(
        gate(&home, &repo, None, &[("CLINE_DIR", &moved)]),
        json!({"cancel": false})
    );
}

#[test]
fn a_subagents_push_does_not_ride_on_the_leads_run() {
    let (home, repo) = setup();
    let steps = [Step::Edit("loader.py"), Step::Run(&[("make test", 0)])];
    session(&default_sessions(&home), &repo, &steps);
    refused_in_place(&gate(&home, &repo, Some("agent_1"), &[]));
    assert_eq!(home.last_log()["rulings"][0]["evidence"]["kind"], "none");
}

/// A command that writes a session's messages file.
const FORGE: &str = "python3 -c \"open('/h/.cline/data/sessions/s/s.messages.json','w')\"";

#[test]
fn a_command_that_wrote_the_messages_file_voids_the_run_after_it() {
    let (home, repo) = setup();
    let steps = [
        Step::Edit("loader.py"),
        Step::Run(&[(FORGE, 0)]),
        Step::Run(&[("make test", 0)]),
    ];
    session(&default_sessions(&home), &repo, &steps);
    refused_in_place(&gate(&home, &repo, None, &[]));
    assert_eq!(
        home.last_log()["rulings"][0]["evidence"]["kind"],
        "session_written"
    );
}

/// The gate's answer on a `run_commands` call whose input is `input`, with no session file.
fn gate_on(home: &Home, repo: &GitFixture, input: Value) -> Value {
    let stdin = json!({"clineVersion": "", "taskId": "conv_1", "sessionContext": {"rootSessionId": "none"},
        "workspaceRoots": [repo.work], "agent_id": "agent_1", "parent_agent_id": null, "hookName": "tool_call",
        "tool_call": {"id": "call_1", "name": "run_commands", "input": input},
        "preToolUse": {"toolName": "run_commands", "parameters": {}}});
    let out = home.cmd(&["gate"]).stdin(stdin.to_string()).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()
}

/// Cline CLI 3.0.65's `run_commands` takes its commands in several shapes (`@cline/core`'s
/// schema): each is read, and a push in any of them is held back.
#[test]
fn a_push_in_any_shape_cline_takes_is_held_back() {
    let (home, repo) = setup();
    for input in [
        json!({"commands": ["git push origin main"]}),
        json!({"commands": "git push origin main"}),
        json!({"commands": ["ls", {"command": "git", "args": ["push", "origin", "main"]}]}),
        json!({"command": "git", "args": ["push", "origin", "main"]}),
        json!({"command": "git push origin main"}),
        json!({"cmd": "git push origin main"}),
        json!("git push origin main"),
        json!(["git push origin main"]),
    ] {
        let answer = gate_on(&home, &repo, input.clone());
        let told = refused_in_place(&answer);
        assert!(told.contains("would publish 1 commit"), "{input}: {told}");
        let command = home.last_log()["command"].as_str().unwrap().to_owned();
        assert!(
            command.ends_with("git push origin main"),
            "{input}: {command}"
        );
    }
    // A heredoc split over the list, as Cline joins it, is read whole: its body is data.
    let heredoc = json!({"commands": ["cat > notes.txt <<EOF", "git push origin main", "EOF"]});
    assert_eq!(gate_on(&home, &repo, heredoc), json!({"cancel": false}));
    // Cline runs every other entry on its own: what would join them in one script does not.
    for list in [
        json!(["true \\", "git push origin main"]),
        json!(["echo 'x", "git push origin main", "'"]),
        // Cline ends this heredoc at `E` (bash at `EOF`): it joins nothing.
        json!(["cat <<E\\OF", "git push origin main", "EOF"]),
        // Each runs in the workspace: a `cd` does not carry over to the next.
        json!(["cd /", "git push origin main"]),
    ] {
        let told = refused_in_place(&gate_on(&home, &repo, json!({ "commands": list })));
        assert!(told.contains("would publish 1 commit"), "{list}: {told}");
    }
    // The call's own input holds a string as the one command it is (only the hook's
    // `preToolUse.parameters` holds a list as a JSON string): bash unquotes `gi\t` to `git`.
    let encoded = json!({"commands": "[\"$(gi\\t push origin main)\"]"});
    let answer = gate_on(&home, &repo, encoded);
    assert!(
        answer["cancel"] == true || answer.get("overrideInput").is_some(),
        "{answer}"
    );
    // A list in no shape hookjudge reads: a person decides (Cline cannot ask, so it is told).
    let odd = gate_on(&home, &repo, json!({"commands": [7]}));
    assert_eq!(odd["cancel"], true, "{odd}");
    assert!(
        odd["errorMessage"]
            .as_str()
            .unwrap()
            .contains("its list of commands is in no shape hookjudge reads"),
        "{odd}"
    );
}

/// A file Cline's `editor` created (no `old_text`, no `insert_line`: the whole file) is the
/// session's scratch, which `rm` may take; one it only edited is not.
#[test]
fn a_file_the_editor_created_may_be_removed() {
    for (input, silent) in [
        (json!({"new_text": "draft\n"}), true),
        (json!({"old_text": "draft", "new_text": "final"}), false),
    ] {
        let (home, repo) = setup();
        std::fs::write(repo.work.join("notes.tmp"), "draft\n").unwrap();
        let mut input = input;
        input["path"] = json!(repo.work.join("notes.tmp"));
        let sessions = default_sessions(&home);
        let path = session(&sessions, &repo, &[]);
        // The session's one step: the editor call on notes.tmp, then the `rm`.
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let messages = doc["messages"].as_array_mut().unwrap();
        messages.pop();
        messages.push(call("e1", "editor", input.clone()));
        messages.push(result(
            "e1",
            "editor",
            json!(json!({"query": "edit", "result": "ok", "success": true}).to_string()),
        ));
        messages.push(call(
            "call_push",
            "run_commands",
            json!({"commands": ["rm notes.tmp"]}),
        ));
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
        let answer = gate_on_session(&home, &repo, json!({"commands": ["rm notes.tmp"]}));
        assert_eq!(
            answer == json!({"cancel": false}),
            silent,
            "{input}: {answer}"
        );
    }
}

/// The gate's answer on a `run_commands` call read against the session file [`session`] writes.
fn gate_on_session(home: &Home, repo: &GitFixture, input: Value) -> Value {
    let stdin = json!({"clineVersion": "", "taskId": "conv_1", "sessionContext": {"rootSessionId": SESSION_ID},
        "workspaceRoots": [repo.work], "agent_id": "agent_2", "parent_agent_id": null, "hookName": "tool_call",
        "tool_call": {"id": "call_push", "name": "run_commands", "input": input},
        "preToolUse": {"toolName": "run_commands", "parameters": {}}});
    let out = home.cmd(&["gate"]).stdin(stdin.to_string()).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()
}
