//! Writes to hookjudge's places that name them only indirectly, each found by an attack that
//! passed the gate silently and changed hookjudge when replayed: `find` selecting them by the
//! names of the files they hold (`-name trust.json -delete`, `-exec cp … {}`) from `~`,
//! archivers that delete what they archive (`tar --remove-files`, `zip -m`), `git config -e`
//! with an editor of the agent's, a `git` wrapper put on PATH, and the file tools writing
//! through `x/../` or faking the gate's own evidence (`.hookjudge/verified`).

use serde_json::json;

use crate::self_protection::{Agent, run_gate, setup, shell_input, state_dir, write_tool};

#[test]
fn indirect_forms_of_writing_hookjudges_places_are_refused() {
    let (home, repo) = setup();
    let state = state_dir(&home);
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("trust.json"), "{}").unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(home.path().join(".claude/settings.json"), "{\"hooks\": {}}").unwrap();
    std::fs::write(home.path().join(".gitconfig"), "[user]\n\tname = A\n").unwrap();
    std::fs::write(
        repo.work.join(".git/hooks/pre-push"),
        "#!/bin/sh\nexec hookjudge pre-push \"$@\"\n",
    )
    .unwrap();
    std::fs::write(repo.work.join("weak.json"), "{}").unwrap();
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        for command in [
            "find ~/state -name trust.json -delete",
            "find ~ -name trust.json -exec truncate -s0 {} +",
            "find ~/config -name config.json -exec cp weak.json {} \\;",
            "find ~ -maxdepth 2 -path '*/.claude/*' -name settings.json -delete",
            "find ~ -maxdepth 1 -name .gitconfig -exec sh -c 'printf x >> \"$1\"' _ {} \\;",
            "tar --remove-files -cf hooks.tar .git/hooks",
            "tar --remove-files -cf st.tar -C ~ state",
            "zip -qrm st.zip ~/state",
            "GIT_EDITOR=./ed.sh git config -e",
            "git config --global --edit",
            "rm -rf ~/data/hookjudge",
            "truncate -s0 ~/data/hookjudge/logs/*",
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(
                decision, "deny",
                "{agent:?}: `{command}` was not denied: {reason}"
            );
        }
    }
    for command in [
        "find . -name '*.pyc' -delete",
        "find ~ -maxdepth 2 -name '*.log' -exec ls -la {} +",
        "find ~/state -name '*.tmp' -delete",
        "tar -czf backup.tgz src",
        "zip -qr site.zip public",
        "git config -l",
        "ls -la ~/data/hookjudge/logs",
        "tail -n 5 ~/data/hookjudge/logs/gate.jsonl",
    ] {
        let (decision, reason) = run_gate(&home, shell_input(Agent::Claude, &repo.work, command));
        assert_eq!(decision, "silent", "`{command}` was gated: {reason}");
    }
}

#[test]
fn a_git_wrapper_on_path_and_file_tools_through_dot_dot_are_refused() {
    let (home, repo) = setup();
    let bin = home.path().join(".local/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = std::env::join_paths(
        [bin.clone()]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let wrapper = "printf '#!/bin/sh\\nexec /usr/bin/git -c core.hooksPath=/dev/null \"$@\"\\n' > ~/.local/bin/git && chmod +x ~/.local/bin/git";
    let input = shell_input(Agent::Claude, &repo.work, wrapper);
    let out = home.cmd(&["gate"]).env("PATH", &path).stdin(input).output();
    assert!(out.stdout.contains("\"deny\""), "{}", out.stdout);
    assert!(out.stdout.contains("named git on PATH"), "{}", out.stdout);
    let tool = shell_input(
        Agent::Claude,
        &repo.work,
        "printf x > ~/.local/bin/git-helper",
    );
    let out = home.cmd(&["gate"]).env("PATH", &path).stdin(tool).output();
    assert_eq!(out.stdout.trim(), "", "a program of another name was gated");

    std::fs::create_dir_all(repo.work.join(".claude")).unwrap();
    std::fs::write(
        repo.work.join(".claude/settings.local.json"),
        "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"hookjudge gate\"}]}]}}\n",
    )
    .unwrap();
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        for (path, content) in [
            (repo.work.join("x/../.claude/settings.local.json"), "{}"),
            (repo.work.join(".hookjudge/verified"), "ok"),
            (repo.work.join("sub/../junit.xml"), "<testsuite/>"),
        ] {
            let (decision, reason) = run_gate(&home, write_tool(agent, &repo.work, &path, content));
            assert_eq!(decision, "deny", "{agent:?} {}: {reason}", path.display());
        }
    }
    let input = json!({"session_id": "s", "cwd": repo.work, "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": repo.work.join("x/../notes.md"), "content": "n"}});
    assert_eq!(run_gate(&home, input.to_string()).0, "silent");
}

/// Cline CLI 3's file tool `editor` (`path`, `old_text`, `new_text`, `insert_line`), as the
/// real CLI sends it: kept off hookjudge's places and the hook settings like the other agents'.
#[test]
fn clines_editor_tool_cannot_take_hookjudge_out_of_the_settings() {
    let (home, repo) = setup();
    std::fs::create_dir_all(repo.work.join(".claude")).unwrap();
    let hooks = "  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"hookjudge gate\"}]}]}";
    let settings = repo.work.join(".claude/settings.local.json");
    std::fs::write(&settings, format!("{{\n{hooks}\n}}\n")).unwrap();
    let editor = |input: serde_json::Value| {
        json!({"hookName": "tool_call", "taskId": "conv_1", "workspaceRoots": [repo.work],
            "tool_call": {"id": "call_1", "name": "editor", "input": input},
            "preToolUse": {"toolName": "editor", "parameters": {}}})
        .to_string()
    };
    // Cline is always answered: `{"cancel": true, "errorMessage": …}` refuses.
    let cancelled = |stdin: String| {
        let out = home.cmd(&["gate"]).stdin(stdin).output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v = out.json();
        (
            v["cancel"] == json!(true),
            v["errorMessage"].as_str().unwrap_or("").to_owned(),
        )
    };
    for input in [
        json!({"path": settings, "old_text": hooks, "new_text": "  \"hooks\": {}"}),
        json!({"path": settings, "insert_line": 1, "new_text": "  \"disableAllHooks\": true,"}),
        json!({"path": state_dir(&home).join("trust.json"), "new_text": "{}"}),
        json!({"path": repo.work.join(".git/config"), "old_text": "[core]", "new_text": "[core]\n\thooksPath = /dev/null"}),
    ] {
        let (refused, reason) = cancelled(editor(input.clone()));
        assert!(refused, "{input}: {reason}");
    }
    let (refused, reason) = cancelled(editor(
        json!({"path": repo.work.join("notes.md"), "new_text": "# Notes\n"}),
    ));
    assert!(!refused, "{reason}");
}
