//! An agent cannot approve itself or remove the guard, for all three agents: the old
//! environment-variable approval is gone (prefix, `env`, `export`), agent-run `hookjudge
//! approve|trust|init|uninstall` is denied through every wrapper the gate sees, writes to the
//! approval store, the trust records, the user config, the binary and the agents' hook settings
//! are denied through the shell and the file-writing tools. Only `hookjudge approve` on a
//! terminal approves, once, for that command and repository. The recursion guard never
//! silences the gate, and command lines reach the log redacted.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, pre_tool_use};
use crate::harness::{BIN, Home, Outcome};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

const AGENTS: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

pub fn shell_input(agent: Agent, cwd: &Path, command: &str) -> String {
    match agent {
        Agent::Claude => pre_tool_use(cwd, command, false, None),
        Agent::Codex => pre_tool_use(cwd, command, true, None),
        Agent::Gemini => json!({"session_id": "g", "cwd": cwd, "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command", "tool_input": {"command": command}})
        .to_string(),
    }
}

fn tool_input(agent: Agent, cwd: &Path, tool: &str, input: Value) -> String {
    let mut v = json!({"session_id": "s", "cwd": cwd, "tool_name": tool, "tool_input": input});
    match agent {
        Agent::Claude => v["hook_event_name"] = json!("PreToolUse"),
        Agent::Codex => {
            v["hook_event_name"] = json!("PreToolUse");
            v["turn_id"] = json!("t");
        }
        Agent::Gemini => v["hook_event_name"] = json!("BeforeTool"),
    }
    v.to_string()
}

/// The gate's decision (`silent`, `deny`, `ask`) and reason.
pub fn run_gate(home: &Home, input: String) -> (String, String) {
    let out = home.cmd(&["gate"]).stdin(input).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    if out.stdout.trim().is_empty() {
        return ("silent".into(), String::new());
    }
    let v = out.json();
    let (decision, reason) = if v["decision"].is_string() {
        (&v["decision"], &v["reason"])
    } else {
        (
            &v["hookSpecificOutput"]["permissionDecision"],
            &v["hookSpecificOutput"]["permissionDecisionReason"],
        )
    };
    (
        decision.as_str().unwrap().to_owned(),
        reason.as_str().unwrap_or("").to_owned(),
    )
}

pub fn setup() -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "unverified change");
    (home, repo)
}

pub fn state_dir(home: &Home) -> PathBuf {
    home.path().join("state/hookjudge")
}

#[test]
fn the_environment_variable_no_longer_approves_anything() {
    let (home, repo) = setup();
    for agent in AGENTS {
        for command in [
            "HOOKJUDGE_APPROVED=1 git push",
            "env HOOKJUDGE_APPROVED=1 git push",
            "export HOOKJUDGE_APPROVED=1; git push",
            "export HOOKJUDGE_APPROVED=1 && git commit --allow-empty -m x",
            "HOOKJUDGE_APPROVED=1 cargo publish",
            "HOOKJUDGE_APPROVED=1 kubectl apply -f deploy.yaml",
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_ne!(decision, "silent", "{agent:?}: `{command}` passed");
            // The reason quotes the agent's command; beyond that it must not teach approval.
            let told = reason.replace(command, "");
            assert!(
                !told.contains("HOOKJUDGE_APPROVED") && !told.contains("hookjudge approve"),
                "{agent:?}: the reason teaches self-approval: {reason}"
            );
        }
    }
}

#[test]
fn agent_run_hookjudge_commands_that_change_it_are_denied() {
    let (home, repo) = setup();
    let forms = [
        "hookjudge approve".to_string(),
        "hookjudge approve abc123".into(),
        "hookjudge trust --yes".into(),
        "hookjudge --config x.json trust".into(),
        "hookjudge init --agent all".into(),
        "hookjudge uninstall".into(),
        "hookjudge check --yes".into(),
        format!("{BIN} uninstall --scope user"),
        "env -i hookjudge approve".into(),
        "sudo hookjudge uninstall".into(),
        "bash -c 'hookjudge approve'".into(),
        "sh -c \"cd /tmp && hookjudge trust --yes\"".into(),
        "script -qc 'hookjudge approve' /dev/null".into(),
        "printf 'y\\n' | script -qec \"hookjudge approve\" /dev/null".into(),
        "python3 -c \"import os; os.system('hookjudge approve')\"".into(),
        "node -e \"require('child_process').execSync('hookjudge trust --yes')\"".into(),
        "$(which hookjudge) uninstall".into(),
        "setsid hookjudge approve".into(),
        "watch -n1 'hookjudge approve'".into(),
        "eval hookjudge uninstall".into(),
        // The subcommand computed at run time, or hookjudge reached through a name.
        "hookjudge $(echo uninstall) --agent all".into(),
        "hookjudge \"$(printf uninst)all\"".into(),
        "f(){ hookjudge \"$@\"; }; f uninstall".into(),
        "unset CLAUDECODE; f() { setsid -f hookjudge \"$@\" > /tmp/out 2>&1; }; f trust --yes"
            .into(),
        "alias hj=hookjudge; hj trust --yes".into(),
        "S=trust; hookjudge $S --yes".into(),
        "hookjudge check $(echo --yes)".into(),
        "echo trust | xargs hookjudge".into(),
    ];
    for agent in AGENTS {
        for command in &forms {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(decision, "deny", "{agent:?}: `{command}` was not denied");
            assert!(
                reason.contains("ask the user") && !reason.contains("HOOKJUDGE_APPROVED"),
                "{agent:?}: {reason}"
            );
        }
    }
    let logged = home.last_log();
    assert_eq!(logged["action"], "deny");
    assert!(logged["protect"].as_str().unwrap().contains("hookjudge"));
}

#[test]
fn read_only_hookjudge_commands_stay_allowed() {
    let (home, repo) = setup();
    for agent in AGENTS {
        for command in [
            "hookjudge log -n 5",
            "hookjudge stats",
            "hookjudge doctor",
            "hookjudge config show",
            "hookjudge judge --json notes.txt",
            "hookjudge check",
            "hookjudge check --commit --no-input",
            "hookjudge log -n \"$N\"",
            "hookjudge judge --json \"$(ls notes*.txt)\"",
            "echo 'run hookjudge approve in your terminal'",
            "grep -rn 'hookjudge trust' README.md",
            "git commit -m 'docs: explain hookjudge approve' --dry-run",
        ] {
            let (decision, _) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_ne!(decision, "deny", "{agent:?}: `{command}` was denied");
        }
    }
}

#[test]
fn writes_to_hookjudge_state_config_binary_and_hook_settings_are_denied_through_the_shell() {
    let (home, repo) = setup();
    let state = state_dir(&home);
    let config = home.path().join("config/hookjudge/config.json");
    for agent in AGENTS {
        for command in [
            format!("echo '{{}}' > {}/approvals.json", state.display()),
            format!("cp /tmp/forged.json {}/trust.json", state.display()),
            format!("rm -rf {}", state.display()),
            format!("sed -i 's/x/y/' {}", config.display()),
            format!("cat > {} <<EOF\n{{}}\nEOF", config.display()),
            format!("cp /bin/true {BIN}"),
            "echo '{\"disableAllHooks\": true}' > .claude/settings.json".to_string(),
            "jq '.hooks = {}' .codex/hooks.json > t && mv t .codex/hooks.json".into(),
            "rm .gemini/settings.json".into(),
            "tee ~/.claude/settings.json < /dev/null".into(),
            "echo x >> $XDG_STATE_HOME/hookjudge/approvals.json".into(),
        ] {
            let (decision, _) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(decision, "deny", "{agent:?}: `{command}` was not denied");
        }
        for command in [
            format!("cat {}/approvals.json", state.display()),
            "git diff .claude/settings.json".to_string(),
            "ls -la .codex".into(),
        ] {
            let (decision, _) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(decision, "silent", "{agent:?}: `{command}` was gated");
        }
    }
}

#[test]
fn every_agents_hook_files_are_protected_not_only_the_first_three() {
    let (home, repo) = setup();
    for file in [
        ".qwen/settings.json",
        ".factory/settings.json",
        ".github/hooks/hookjudge.json",
        ".cursor/hooks.json",
        "crush.json",
        ".crush.json",
        ".clinerules/hooks/PreToolUse",
        ".opencode/plugin/hookjudge.js",
        "~/.copilot/hooks/hookjudge.json",
        "~/.config/crush/crush.json",
        "~/Documents/Cline/Hooks/PreToolUse",
    ] {
        for command in [format!("printf '{{}}' > {file}"), format!("rm -f {file}")] {
            let (decision, reason) =
                run_gate(&home, shell_input(Agent::Claude, &repo.work, &command));
            assert_eq!(decision, "deny", "`{command}` was not denied");
            assert!(reason.contains("hook settings"), "`{command}`: {reason}");
        }
        let path = match file.strip_prefix("~/") {
            Some(rest) => home.path().join(rest),
            None => repo.work.join(file),
        };
        // The file tools are judged on the hooks the file holds after the call: install one.
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"hooks": {"PreToolUse": [{"command": "hookjudge gate"}]}}"#,
        )
        .unwrap();
        let input = tool_input(
            Agent::Claude,
            &repo.work,
            "Write",
            json!({"file_path": path, "content": "{}"}),
        );
        assert_eq!(
            run_gate(&home, input).0,
            "deny",
            "Write of {file} was not denied"
        );
    }
    for command in [
        "cat .cursor/hooks.json",
        "printf x > notcrush.json",
        "ls .clinerules",
    ] {
        let (decision, _) = run_gate(&home, shell_input(Agent::Claude, &repo.work, command));
        assert_eq!(decision, "silent", "`{command}` was gated");
    }
}

#[test]
fn file_tools_cannot_write_hookjudge_state_or_switch_hooks_off() {
    let (home, repo) = setup();
    let state = state_dir(&home);
    let config = home.path().join("config/hookjudge/config.json");
    std::fs::create_dir_all(repo.work.join(".claude")).unwrap();
    std::fs::create_dir_all(repo.work.join(".gemini")).unwrap();
    let claude_settings = repo.work.join(".claude/settings.json");
    std::fs::write(
        &claude_settings,
        "{\n  \"permissions\": {\"allow\": []},\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"hookjudge\", \"args\": [\"stop\"]}]}]}\n}\n",
    )
    .unwrap();
    let gemini_settings = repo.work.join(".gemini/settings.json");
    std::fs::write(&gemini_settings, "{\"hooks\": {}}\n").unwrap();
    let approvals = state.join("approvals.json");
    let denied: Vec<(Agent, &str, Value)> = vec![
        (
            Agent::Claude,
            "Write",
            json!({"file_path": approvals, "content": "{}"}),
        ),
        (
            Agent::Claude,
            "Write",
            json!({"file_path": config, "content": "{\"gate\": {\"push\": \"allow\"}}"}),
        ),
        (
            Agent::Claude,
            "Edit",
            json!({"file_path": claude_settings, "old_string": "\"permissions\"", "new_string": "\"disableAllHooks\": true, \"permissions\""}),
        ),
        (
            Agent::Claude,
            "MultiEdit",
            json!({"file_path": ".claude/settings.json", "edits": [{"old_string": "\"hooks\"", "new_string": "\"old_hooks\""}]}),
        ),
        (
            Agent::Claude,
            "Edit",
            json!({"file_path": claude_settings, "old_string": "\"permissions\"", "new_string": "\"env\": {\"HOOKJUDGE_ACTIVE\": \"1\"}, \"permissions\""}),
        ),
        (
            Agent::Codex,
            "apply_patch",
            json!({"command": format!("*** Begin Patch\n*** Add File: {}\n+{{}}\n*** End Patch\n", state.join("trust.json").display())}),
        ),
        (
            Agent::Codex,
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Update File: .codex/hooks.json\n@@\n-  \"hooks\": {\n+  \"unhooked\": {\n*** End Patch\n"}),
        ),
        (
            Agent::Codex,
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\n"}),
        ),
        (
            Agent::Gemini,
            "write_file",
            json!({"file_path": gemini_settings, "content": "{\"hooksConfig\": {\"enabled\": false}, \"hooks\": {}}"}),
        ),
        (
            Agent::Gemini,
            "replace",
            json!({"file_path": config, "old_string": "a", "new_string": "b"}),
        ),
        (
            Agent::Gemini,
            "write_file",
            json!({"file_path": BIN, "content": "#!/bin/sh\n"}),
        ),
    ];
    for (agent, tool, input) in denied {
        let (decision, reason) =
            run_gate(&home, tool_input(agent, &repo.work, tool, input.clone()));
        assert_eq!(decision, "deny", "{agent:?} {tool} {input} was not denied");
        assert!(reason.contains("ask the user"), "{reason}");
    }
    let allowed: Vec<(Agent, &str, Value)> = vec![
        (
            Agent::Claude,
            "Write",
            json!({"file_path": "src/main.rs", "content": "fn main() {}"}),
        ),
        (
            Agent::Claude,
            "Edit",
            json!({"file_path": claude_settings, "old_string": "\"allow\": []", "new_string": "\"allow\": [\"Bash(ls)\"]"}),
        ),
        (
            Agent::Codex,
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** End Patch\n"}),
        ),
        (
            Agent::Gemini,
            "write_file",
            json!({"file_path": "notes.md", "content": "hookjudge approve is for humans"}),
        ),
        (
            Agent::Gemini,
            "replace",
            json!({"file_path": "README.md", "old_string": "a", "new_string": "b"}),
        ),
    ];
    for (agent, tool, input) in allowed {
        let (decision, _) = run_gate(&home, tool_input(agent, &repo.work, tool, input.clone()));
        assert_eq!(decision, "silent", "{agent:?} {tool} {input} was gated");
    }
}

/// `hookjudge ARGS` in its own session, without a controlling terminal (as in a hook or an
/// agent's tool), even when the tests run in a terminal.
pub fn without_terminal(home: &Home, dir: &Path, args: &[&str]) -> Outcome {
    let mut run = home.cmd(&[]);
    run.command = std::process::Command::new("setsid");
    run.command
        .arg("--wait")
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"));
    run.output()
}

pub fn approve_on_a_terminal(home: &Home, answer: &str) -> Outcome {
    // `script` gives `hookjudge approve` a controlling terminal fed from our stdin: a person.
    let line = format!("{} approve", shell_words::quote(BIN));
    let mut run = home.cmd(&[]);
    run.command = std::process::Command::new("script");
    run.command
        .args(["-qec", &line, "/dev/null"])
        .current_dir(home.work())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"));
    run.stdin(format!("{answer}\n")).output()
}

#[test]
fn only_a_person_on_a_terminal_approves_once_for_that_command_and_repository() {
    let (home, repo) = setup();
    let other = GitFixture::new(home.path(), "other");
    other.commit("a.txt", "two\n", "unverified change");
    for agent in [Agent::Codex, Agent::Gemini] {
        let push = "git push origin main";
        let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, push));
        assert_ne!(decision, "silent");
        if agent == Agent::Codex {
            assert_eq!(decision, "deny");
            assert!(reason.contains("Stop here and ask the user"), "{reason}");
        }
        let list = home.cmd(&["approve", "--list"]).output();
        assert!(
            list.stdout.contains(push) && list.stdout.contains("repo"),
            "{}",
            list.stdout
        );

        // No terminal, or inside an agent: no approval.
        let out = without_terminal(&home, &home.work(), &["approve"]);
        assert_eq!(out.code, 2);
        assert!(out.stderr.contains("no terminal"), "{}", out.stderr);
        for (var, value) in [
            ("CLAUDECODE", "1"),
            ("CODEX_THREAD_ID", "t"),
            ("GEMINI_CLI", "1"),
        ] {
            let out = home.cmd(&["approve"]).env(var, value).output();
            assert!(
                out.stderr.contains("not for an agent"),
                "{var}: {}",
                out.stderr
            );
        }
        let declined = approve_on_a_terminal(&home, "n");
        assert!(
            declined.stdout.contains("nothing was approved"),
            "{}",
            declined.stdout
        );
        assert_ne!(
            run_gate(&home, shell_input(agent, &repo.work, push)).0,
            "silent"
        );

        let approved = approve_on_a_terminal(&home, "y");
        assert!(
            approved.stdout.contains("approved `git push origin main`"),
            "{}{}",
            approved.stdout,
            approved.stderr
        );
        // Bound to the exact command and repository.
        assert_ne!(
            run_gate(&home, shell_input(agent, &repo.work, "git push")).0,
            "silent"
        );
        assert_ne!(
            run_gate(&home, shell_input(agent, &other.work, push)).0,
            "silent"
        );
        // Good for one run.
        assert_eq!(
            run_gate(&home, shell_input(agent, &repo.work, push)).0,
            "silent"
        );
        assert_eq!(home.last_log()["rulings"][0]["decided_by"], "approval");
        assert_ne!(
            run_gate(&home, shell_input(agent, &repo.work, push)).0,
            "silent"
        );
        // Clear the requests the checks above left behind.
        std::fs::remove_file(state_dir(&home).join("approvals.json")).unwrap();
    }
}

#[test]
fn an_approval_expires_and_does_not_unlock_a_deny() {
    let (home, repo) = setup();
    let push = "git push --no-verify";
    let (decision, _) = run_gate(&home, shell_input(Agent::Codex, &repo.work, "git push"));
    assert_eq!(decision, "deny");
    assert!(
        approve_on_a_terminal(&home, "y")
            .stdout
            .contains("approved")
    );
    // The approval is for `git push`; ten minutes and one second later it is gone.
    let path = state_dir(&home).join("approvals.json");
    let mut store: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let at = store["requests"][0]["approved_ms"].as_i64().unwrap();
    store["requests"][0]["approved_ms"] = json!(at - 10 * 60 * 1000 - 1000);
    std::fs::write(&path, store.to_string()).unwrap();
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, "git push")).0,
        "deny"
    );

    // An approved `--no-verify` push is still a hook bypass, which is denied.
    run_gate(&home, shell_input(Agent::Codex, &repo.work, push));
    let list = home.cmd(&["approve", "--list"]).output().stdout;
    assert!(!list.contains(push), "a deny is not a request: {list}");
}

#[test]
fn approve_refuses_under_an_agent_process() {
    let (home, repo) = setup();
    run_gate(&home, shell_input(Agent::Codex, &repo.work, "git push"));
    // A parent process named like an agent CLI (as when its tool runs the command).
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("codex");
    std::fs::write(&fake, "#!/bin/sh\n\"$@\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let line = format!(
        "{} {} approve",
        shell_words::quote(fake.to_str().unwrap()),
        shell_words::quote(BIN)
    );
    let mut run = home.cmd(&[]);
    run.command = std::process::Command::new("script");
    run.command
        .args(["-qec", &line, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"));
    let out = run.stdin("y\n").output();
    assert!(
        out.stdout.contains("parent process") && out.stdout.contains("Codex CLI"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert!(
        home.cmd(&["approve", "--list"])
            .output()
            .stdout
            .contains("git push")
    );
}

#[test]
fn the_recursion_guard_asks_instead_of_silencing_the_gate() {
    let (home, repo) = setup();
    for agent in AGENTS {
        let out = home
            .cmd(&["gate"])
            .env("HOOKJUDGE_ACTIVE", "1")
            .stdin(shell_input(agent, &repo.work, "git push"))
            .output();
        assert!(
            !out.stdout.trim().is_empty(),
            "{agent:?}: silent under the guard"
        );
        assert!(out.stdout.contains("recursion guard"), "{}", out.stdout);
        let quiet = home
            .cmd(&["gate"])
            .env("HOOKJUDGE_ACTIVE", "1")
            .stdin(shell_input(agent, &repo.work, "ls -la"))
            .output();
        quiet.assert_silent_allow();
    }
    let claude = home
        .cmd(&["gate"])
        .env("HOOKJUDGE_ACTIVE", "1")
        .stdin(shell_input(Agent::Claude, &repo.work, "git push"))
        .output()
        .json();
    assert_eq!(claude["hookSpecificOutput"]["permissionDecision"], "ask");
}

/// A token of GitHub's format, made here (nothing token-shaped is committed).
fn generated_token(seed: u64) -> String {
    let alphabet: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        .chars()
        .collect();
    let mut x = seed | 1;
    let body: String = (0..36)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize]
        })
        .collect();
    format!("{}_{body}", "ghp")
}

#[test]
fn secrets_in_gated_command_lines_never_reach_the_log() {
    for log_text in [true, false] {
        let home = Home::new();
        home.user_config(
            &json!({"llm": {"provider": "none"}, "log": {"text": log_text}}).to_string(),
        );
        let repo = GitFixture::new(home.path(), "repo");
        repo.commit("a.txt", "two\n", "unverified change");
        let token = generated_token(0x5eed + u64::from(log_text));
        let password = format!("Pw{}x9", &token[4..14]);
        for command in [
            format!("git push https://me:{token}@github.com/o/r.git main"),
            format!("mysql -u root -p{password} -e 'select 1' && git push"),
            format!("GH_TOKEN={token} gh release create v1"),
            format!("cargo publish --token {token}"),
            format!("cargo publish --token={token}"),
            format!("docker login -u me -p {password} && git push"),
            format!("SECRET_KEY={token} git push"),
        ] {
            let (decision, _) = run_gate(&home, shell_input(Agent::Claude, &repo.work, &command));
            assert_ne!(decision, "silent", "{command}");
        }
        let log: String = home
            .log()
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(!log.is_empty());
        assert!(
            !log.contains(&token),
            "log.text={log_text}: the token is in the log"
        );
        assert!(
            !log.contains(&password),
            "log.text={log_text}: the password is in the log"
        );
        assert!(log.contains("[REDACTED:"), "{log}");
        assert!(home.last_log()["redactions"].is_object());
    }
}

#[test]
fn approvals_keep_no_secret_and_bind_to_the_exact_command() {
    let (home, repo) = setup();
    let token = generated_token(0xa11);
    let command = format!("git push https://bob:{token}@github.com/o/r.git main");
    let (decision, _) = run_gate(&home, shell_input(Agent::Codex, &repo.work, &command));
    assert_eq!(decision, "deny");
    let store = state_dir(&home).join("approvals.json");
    let text = std::fs::read_to_string(&store).unwrap();
    assert!(
        !text.contains(&token),
        "the secret is in approvals.json: {text}"
    );
    assert!(text.contains("[REDACTED:"), "{text}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&store).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "approvals.json is readable by others");
    assert!(
        approve_on_a_terminal(&home, "y")
            .stdout
            .contains("approved")
    );
    // Bound to the exact line: another secret in the same place is not approved.
    let other = command.replace(&token, &generated_token(0xb22));
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, &other)).0,
        "deny"
    );
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, &command)).0,
        "silent"
    );
}

#[test]
fn other_names_for_the_binary_the_explicit_config_and_the_git_hook_are_protected() {
    let (home, repo) = setup();
    // The binary under another name on PATH.
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("hj")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let gate = |command: &str, env: &[(&str, &str)]| -> String {
        let mut run = home.cmd(&["gate"]).env("PATH", &path).stdin(shell_input(
            Agent::Claude,
            &repo.work,
            command,
        ));
        for (k, v) in env {
            run = run.env(k, v);
        }
        let out = run.output();
        if out.stdout.trim().is_empty() {
            "silent".into()
        } else {
            out.json()["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    assert_eq!(gate("hj approve", &[]), "deny");
    assert_eq!(gate("hj log", &[]), "silent");
    // A copy under another name (not a link), run by path from a terminal the agent makes.
    std::fs::copy(BIN, repo.work.join("hj2")).unwrap();
    assert_eq!(
        gate("setsid -f script -qec './hj2 trust' /dev/null", &[]),
        "deny"
    );
    assert_eq!(gate("./hj2 approve", &[]), "deny");
    assert_eq!(gate("./hj2 log", &[]), "silent");
    // The file `HOOKJUDGE_CONFIG` names applies in full, so it is protected too.
    let explicit = home.path().join("team.json");
    std::fs::write(&explicit, "{}").unwrap();
    let explicit = explicit.to_str().unwrap();
    assert_eq!(
        gate(
            &format!("echo '{{\"gate\":{{\"push\":\"allow\"}}}}' > {explicit}"),
            &[("HOOKJUDGE_CONFIG", explicit)]
        ),
        "deny"
    );
    // hookjudge's git pre-push hook.
    assert_eq!(
        home.cmd(&["init", "--git-hook"])
            .env("PATH", &path)
            .output()
            .code,
        2,
        "init outside a repository is refused"
    );
    let mut init = home.cmd(&["init", "--git-hook"]);
    init.command.current_dir(&repo.work);
    assert_eq!(init.output().code, 0);
    assert_eq!(gate("rm .git/hooks/pre-push", &[]), "deny");
    assert_eq!(gate("cat .git/hooks/pre-push", &[]), "silent");
    // The directories holding it, and globs naming it.
    assert_eq!(gate("mv .git/hooks .git/hooks.off", &[]), "deny");
    assert_eq!(gate("rm .git/hooks/pre-pus?", &[]), "deny");
    assert_eq!(gate("cd .git && rm -rf hooks", &[]), "deny");
    // A `find` that deletes it by name, and the repository's git config, which can point
    // `core.hooksPath` elsewhere or include a file that does.
    assert_eq!(gate("find .git -name pre-push -delete", &[]), "deny");
    // Reading the repository's git config is not writing it.
    for read in [
        "cat .git/config",
        "git config -f .git/config --get remote.origin.url",
        "awk '/url/' .git/config",
        "cp .git/config /tmp/config.bak",
    ] {
        assert_eq!(gate(read, &[]), "silent", "{read}");
    }
    assert_eq!(gate("find . -name '*.py'", &[]), "silent");
}

#[test]
fn apply_patch_is_judged_on_the_settings_it_leaves() {
    let (home, repo) = setup();
    let codex = home.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let hooks = codex.join("hooks.json");
    std::fs::write(
        &hooks,
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"^Bash$\",\n        \"hooks\": [{\"type\": \"command\", \"command\": \"hookjudge gate --agent codex\"}]\n      }\n    ]\n  }\n}\n",
    )
    .unwrap();
    std::fs::create_dir_all(repo.work.join(".claude")).unwrap();
    std::fs::write(
        repo.work.join(".claude/settings.local.json"),
        "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n",
    )
    .unwrap();
    let hooks_path = hooks.display().to_string();
    let matcher = format!(
        "*** Begin Patch\n*** Update File: {hooks_path}\n@@\n-        \"matcher\": \"^Bash$\",\n+        \"matcher\": \"^Nope$\",\n*** End Patch\n"
    );
    let escaped = "*** Begin Patch\n*** Update File: .claude/settings.local.json\n@@\n {\n+  \"disableAll\\u0048ooks\": true,\n   \"permissions\": {\n*** End Patch\n";
    let stale = "*** Begin Patch\n*** Update File: .claude/settings.local.json\n@@\n-  \"nothing\": 1\n+  \"permissions\": 2\n*** End Patch\n";
    let harmless = "*** Begin Patch\n*** Update File: .claude/settings.local.json\n@@\n-    \"allow\": []\n+    \"allow\": [\"Bash(ls)\"]\n*** End Patch\n";
    for patch in [matcher.as_str(), escaped, stale] {
        let (decision, _) = run_gate(
            &home,
            tool_input(
                Agent::Codex,
                &repo.work,
                "apply_patch",
                json!({"command": patch}),
            ),
        );
        assert_eq!(decision, "deny", "not denied: {patch}");
        // The same patch through the shell tool, which Codex applies too.
        for shell in [
            format!("apply_patch <<'EOF'\n{patch}EOF"),
            format!("apply_patch {}", shell_words::quote(patch)),
        ] {
            let (decision, _) = run_gate(&home, shell_input(Agent::Codex, &repo.work, &shell));
            assert_eq!(decision, "deny", "not denied: {shell}");
        }
    }
    let (decision, _) = run_gate(
        &home,
        tool_input(
            Agent::Codex,
            &repo.work,
            "apply_patch",
            json!({"command": harmless}),
        ),
    );
    assert_eq!(decision, "silent", "a permissions edit was gated");
}

#[test]
fn writing_test_artifacts_by_hand_is_a_hook_bypass() {
    let (home, repo) = setup();
    home.user_config(r#"{"gate": {"add_artifacts": ["out/tests.json"]}}"#);
    for agent in AGENTS {
        for command in [
            "mkdir -p .pytest_cache/v/cache && echo '{}' > .pytest_cache/v/cache/lastfailed",
            "touch .pytest_cache/v/cache/lastfailed",
            "cp /tmp/x target/nextest/default/junit.xml",
            "echo '<testsuite/>' | tee junit.xml",
            "cd target/nextest/default && touch junit.xml",
            "printf x > coverage/lcov.info",
            "echo '{}' > out/tests.json",
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(decision, "deny", "{agent:?}: `{command}` was not denied");
            assert!(reason.contains("hook-bypass"), "{agent:?}: {reason}");
        }
        for command in ["cat junit.xml", "mkdir -p .pytest_cache", "ls coverage"] {
            let (decision, _) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(decision, "silent", "{agent:?}: `{command}` was gated");
        }
    }
}

#[test]
fn a_test_run_writing_its_own_output_is_not_a_faked_artifact() {
    let (home, repo) = setup();
    for agent in AGENTS {
        for command in [
            "pytest > junit.xml",
            "python3 -m pytest -q > junit.xml 2>&1",
            "cd target/nextest/default && cargo test > junit.xml",
            "cargo test --workspace >> coverage.out",
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(decision, "silent", "{agent:?}: `{command}`: {reason}");
        }
        // Not a test run, or a second writer beside one: still faked.
        for command in [
            "cat /tmp/x > junit.xml",
            "pytest --version > junit.xml",
            "pytest --collect-only > junit.xml",
            "pytest > junit.xml; echo '<testsuite/>' > junit.xml",
            "{ echo '<testsuite/>'; } > junit.xml",
            "echo pytest > junit.xml",
            "echo \"a; pytest \" > junit.xml",
            "touch .hookjudge/verified",
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(decision, "deny", "{agent:?}: `{command}` was not denied");
            assert!(reason.contains("hook-bypass"), "{agent:?}: {reason}");
        }
    }
}

#[test]
fn protected_paths_are_resolved_as_the_shell_would() {
    let (home, repo) = setup();
    let state = state_dir(&home);
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("approvals.json"), "{}").unwrap();
    for dir in [repo.work.join(".claude"), home.path().join(".codex")] {
        std::fs::create_dir_all(&dir).unwrap();
    }
    std::fs::write(repo.work.join(".claude/settings.local.json"), "{}").unwrap();
    std::fs::write(home.path().join(".codex/hooks.json"), "{}").unwrap();
    let state_parent = state.parent().unwrap().display().to_string();
    let bin_dir = Path::new(BIN).parent().unwrap().display().to_string();
    for agent in AGENTS {
        for command in [
            // Relative to the directory a `cd` reached.
            "cd .claude && cp /tmp/evil settings.local.json".to_string(),
            "cd .claude; cp /tmp/evil settings.local.json".into(),
            "pushd .claude && cp /tmp/evil settings.local.json".into(),
            "cd ~/.codex && mv hooks.json hooks.off".into(),
            "cd ~/.codex && sed -i 's/\"matcher\": \"[^\"]*\"/\"matcher\": \"Nope\"/' hooks.json"
                .into(),
            format!("cd {state_parent} && echo '{{}}' > hookjudge/approvals.json"),
            // Globs.
            "cd .cl* && cp /tmp/evil settings.local.json".into(),
            "cp /tmp/evil .claude/settings.loc*".into(),
            "echo '{\"disableAllHooks\":true}' > .claude/settings.local.jso?".into(),
            format!("rm -rf {state_parent}/hook*"),
            format!("echo x | tee {state_parent}/hook?udge/approvals.json"),
            format!("cp /tmp/forged {state_parent}/hookjudg[e]/approvals.json"),
            format!("truncate -s0 {bin_dir}/hookjudg*"),
            // A variable that cannot be read, next to a protected name.
            "D=$(pwd)/.claude; echo '{}' > $D/settings.json".into(),
            // Directories holding a protected file.
            "mv .claude .claude.bak".into(),
            "rm -rf .claude".into(),
            "rm -rf ~/.codex".into(),
            "mv ~/.codex ~/.codex.off".into(),
            // Directories above hookjudge's state and binary, named by no protected word.
            format!("rm -rf {state_parent}"),
            "rm -rf $HOME/state".into(),
            "mv \"${HOME}/state\" /tmp/s".into(),
            // A relative link target is read from the link's folder.
            "mkdir -p d && ln -s ../.claude d/c && echo x > d/c/settings.local.json".into(),
            format!("mv {state_parent} /tmp/state.old"),
            format!("cd {state_parent}/.. && rm -rf state"),
            format!("mv {bin_dir} {bin_dir}.old"),
            format!("chmod -R a-x {bin_dir}"),
            "git stash -- .claude".into(),
            "chmod 000 .claude".into(),
            "mv /tmp/hooks.json ~/.codex/".into(),
            // A link made in the same line, to write through under another name.
            "ln -s .claude cc; printf '{}' > cc/settings.local.json".into(),
            "ln -sfn ~/.codex c && cp /tmp/x c/hooks.json".into(),
            format!("ln -s {state_parent} s && cp /tmp/forged s/hookjudge/trust.json"),
            // Interpreter code that writes a file named in pieces.
            "python3 -c \"open('.clau'+'de/settings.local.json','w').write('{}')\"".into(),
            "node -e \"require('fs').writeFileSync('.gem'+'ini/settings.json','{}')\"".into(),
        ] {
            let (decision, _) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(decision, "deny", "{agent:?}: `{command}` was not denied");
        }
        for command in [
            "ls -la .claude",
            "cd .claude && ls",
            "ln -s ../shared/config.toml config.toml",
            "ln -s . self",
            "ln -s /usr/share/doc docs",
            "rsync -a --exclude .claude /tmp/up/ ./",
            "ln -s /usr/bin/python3 .venv-python",
            "cat .claude/settings.local.json",
            "rm -rf target",
            "cd /tmp && echo hi > out.txt",
            "python3 -c \"print(1)\"",
        ] {
            let (decision, _) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(decision, "silent", "{agent:?}: `{command}` was gated");
        }
    }
}

/// Issue 23's first attack: a tree written earlier, copied with a destination above hookjudge's
/// places, forges trust though no word of the line names them.
#[test]
fn a_tree_copied_above_hookjudges_places_is_read_for_what_lands_on_them() {
    let (home, repo) = setup();
    let state_parent = state_dir(&home).parent().unwrap().to_path_buf();
    let stage = repo.work.join("stage");
    std::fs::create_dir_all(stage.join("hookjudge")).unwrap();
    std::fs::write(stage.join("hookjudge/trust.json"), "{}").unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap().display().to_string();
    let bin_name = Path::new(BIN).file_name().unwrap().to_str().unwrap();
    let evil = repo.work.join("evil");
    std::fs::create_dir_all(&evil).unwrap();
    std::fs::write(
        evil.join(Path::new(BIN).file_name().unwrap()),
        "#!/bin/sh\n",
    )
    .unwrap();
    let cfg = repo.work.join("cfg/hookjudge");
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(cfg.join("config.json"), "{}").unwrap();
    let config_home = home.path().join("config").display().to_string();
    std::fs::create_dir_all(repo.work.join("src")).unwrap();
    std::fs::write(repo.work.join("src/x.py"), "").unwrap();
    let state = state_parent.display();
    // Archives written earlier: `hookjudge/trust.json`, as `stage` holds it, and `src/x.py`.
    let tar = |archive: &str, dir: &Path, member: &str| {
        let made = std::process::Command::new("tar")
            .args(["-cf", archive, member])
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(made.success());
    };
    tar("../staged.tar", &stage, "hookjudge");
    tar("other.tar", &repo.work, "src");
    for agent in AGENTS {
        for (command, lands) in [
            (format!("cp -r stage/. {state}/"), "hookjudge"),
            (format!("cp -R stage/. {state}"), "hookjudge"),
            (format!("cp -a stage/hookjudge {state}/"), "trust.json"),
            (format!("rsync -av stage/ {state}/"), "hookjudge"),
            (format!("cp -r evil/. {bin_dir}/"), bin_name),
            (format!("cp -r cfg/. {config_home}/"), "hookjudge"),
            (format!("cd stage && cp -r . {state}/"), "hookjudge"),
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(decision, "deny", "{agent:?}: `{command}` was not denied");
            assert!(
                reason.contains(&format!("`{lands}` lands on")),
                "{agent:?}: `{command}`: {reason}"
            );
        }
        // tar: by the members of an archive on disk, and refused for one from the input.
        for (command, said) in [
            (
                format!("tar -C stage -cf - hookjudge | tar -C {state} -xf -"),
                "cannot be read beforehand (it comes from the command's input)",
            ),
            (
                format!("tar -cf - -C stage . | (cd {state} && tar x)"),
                "cannot be read beforehand",
            ),
            (
                format!("tar -xf staged.tar -C {state}"),
                "extracts `hookjudge",
            ),
            (
                format!("tar --directory={state} -xvf staged.tar"),
                "extracts `hookjudge",
            ),
            (
                format!("tar xf staged.tar -C {state}"),
                "extracts `hookjudge",
            ),
            // The destination named first, or the source's contents copied without its name.
            (format!("cp -r -t {state} stage/."), "lands on"),
            (format!("cp -rT stage {state}"), "lands on"),
            ("cp -r stage/. $HOME/state/".into(), "lands on"),
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(decision, "deny", "{agent:?}: `{command}` was not denied");
            assert!(reason.contains(said), "{agent:?}: `{command}`: {reason}");
        }
        for command in [
            "curl -sL https://example.com/tool.tar.gz | tar -xz -C /tmp/tool".to_string(),
            format!("tar -xf other.tar -C {state}"),
            format!("tar -C {state} -tf staged.tar"),
            format!("tar -C {state} -cf /tmp/state-backup.tar ."),
            "cp -r src/. build/".to_string(),
            format!("cp -r src {state}/"),
            format!("rsync -a src/ {state}/elsewhere/"),
            "cp -r stage /tmp/backup".into(),
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(
                decision, "silent",
                "{agent:?}: `{command}` was gated: {reason}"
            );
        }
    }
}

#[test]
fn a_command_hookjudge_could_not_check_can_still_be_approved_by_a_person() {
    let (home, repo) = setup();
    home.user_config("not json"); // the user's own config is broken: the gate fails safe
    let input = shell_input(Agent::Codex, &repo.work, "git push");
    let (decision, reason) = run_gate(&home, input.clone());
    assert_eq!(decision, "deny");
    assert!(reason.contains("could not check"), "{reason}");
    assert!(
        approve_on_a_terminal(&home, "y")
            .stdout
            .contains("approved")
    );
    assert_eq!(run_gate(&home, input.clone()).0, "silent");
    assert_eq!(run_gate(&home, input).0, "deny", "used up by one run");
}

#[test]
fn one_approval_lets_exactly_one_of_many_concurrent_runs_through() {
    let (home, repo) = setup();
    let home = std::sync::Arc::new(home);
    for agent in [Agent::Codex, Agent::Gemini] {
        let push = "git push origin main";
        assert_ne!(
            run_gate(&home, shell_input(agent, &repo.work, push)).0,
            "silent"
        );
        let approved = approve_on_a_terminal(&home, "y");
        assert!(approved.stdout.contains("approved"), "{}", approved.stdout);
        // Eight hook processes for the same command at once: the approval is single use.
        let start = std::sync::Arc::new(std::sync::Barrier::new(8));
        let runs: Vec<_> = (0..8)
            .map(|_| {
                let (home, start) = (home.clone(), start.clone());
                let input = shell_input(agent, &repo.work, push);
                std::thread::spawn(move || {
                    start.wait();
                    run_gate(&home, input).0
                })
            })
            .collect();
        let decisions: Vec<String> = runs.into_iter().map(|r| r.join().unwrap()).collect();
        assert_eq!(
            decisions.iter().filter(|d| *d == "silent").count(),
            1,
            "{agent:?}: {decisions:?}"
        );
        std::fs::remove_file(state_dir(&home).join("approvals.json")).unwrap();
    }
}

/// The agent's own file-writing tool writing `content` to `path`: Claude Code `Write`,
/// Gemini CLI `write_file`, Codex `apply_patch` adding the file.
pub fn write_tool(agent: Agent, cwd: &Path, path: &Path, content: &str) -> String {
    match agent {
        Agent::Claude => tool_input(
            agent,
            cwd,
            "Write",
            json!({"file_path": path, "content": content}),
        ),
        Agent::Gemini => tool_input(
            agent,
            cwd,
            "write_file",
            json!({"file_path": path, "content": content}),
        ),
        Agent::Codex => {
            let mut patch = format!("*** Begin Patch\n*** Add File: {}\n", path.display());
            for line in content.lines() {
                patch.push_str(&format!("+{line}\n"));
            }
            patch.push_str("*** End Patch\n");
            tool_input(agent, cwd, "apply_patch", json!({"command": patch}))
        }
    }
}

/// Python that approves every waiting request in the approval store, as an agent would
/// write it to get past the gate.
fn forging_script(home: &Home) -> String {
    format!(
        "import json, time\np = {:?}\nd = json.load(open(p))\nfor r in d['requests']:\n    r['approved_ms'] = int(time.time() * 1000)\njson.dump(d, open(p, 'w'))\n",
        state_dir(home).join("approvals.json").display().to_string()
    )
}

#[test]
fn a_script_that_forges_an_approval_is_stopped_where_it_is_written_and_where_it_runs() {
    let (home, repo) = setup();
    let forge = forging_script(&home);
    let self_protection = |agent: Agent, input: String, what: &str| {
        let (decision, reason) = run_gate(&home, input);
        assert_ne!(decision, "silent", "{agent:?}: {what} was silent");
        assert!(
            reason.contains("self-protection"),
            "{agent:?}: {what}: {reason}"
        );
    };
    for agent in AGENTS {
        // Written through the file tool or a heredoc.
        let script = repo.work.join("x.py");
        self_protection(
            agent,
            write_tool(agent, &repo.work, &script, &forge),
            "writing the script",
        );
        self_protection(
            agent,
            shell_input(
                agent,
                &repo.work,
                &format!("cat > x.py <<'EOF'\n{forge}EOF"),
            ),
            "a heredoc into x.py",
        );
        self_protection(
            agent,
            shell_input(agent, &repo.work, &format!("python3 - <<'EOF'\n{forge}EOF")),
            "a heredoc into python3",
        );
        // Already on disk (written some way the gate did not see): read when it runs.
        std::fs::write(&script, &forge).unwrap();
        std::fs::write(
            repo.work.join("x.js"),
            format!(
                "require('fs').writeFileSync({:?}, '{{}}')\n",
                state_dir(&home)
                    .join("approvals.json")
                    .display()
                    .to_string()
            ),
        )
        .unwrap();
        std::fs::write(repo.work.join("x.sh"), "#!/bin/sh\npython3 x.py\n").unwrap();
        std::fs::write(
            repo.work.join("inner.sh"),
            format!(
                "echo '{{}}' > {}\n",
                state_dir(&home).join("approvals.json").display()
            ),
        )
        .unwrap();
        std::fs::write(
            repo.work.join("forge.mk"),
            "all:\n\tpython3 x.py # writes approvals.json\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            repo.work.join("x.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        for command in [
            "python3 x.py",
            "python3 -u ./x.py",
            "node x.js",
            "bash inner.sh",
            "sh inner.sh",
            "./x.sh",
            "bash x.sh",
            "make -f forge.mk",
        ] {
            self_protection(agent, shell_input(agent, &repo.work, command), command);
        }
        std::fs::remove_file(&script).unwrap();
        // Ordinary scripts and documents pass.
        let harmless = repo.work.join("y.py");
        std::fs::write(&harmless, "open('out.txt', 'w').write('x')\n").unwrap();
        for (what, input) in [
            (
                "writing an ordinary script",
                write_tool(agent, &repo.work, &harmless, "print('hi')\n"),
            ),
            (
                "running an ordinary script",
                shell_input(agent, &repo.work, "python3 y.py"),
            ),
            (
                "writing notes that quote the script",
                write_tool(agent, &repo.work, &repo.work.join("NOTES.md"), &forge),
            ),
            (
                "a heredoc into a document",
                shell_input(
                    agent,
                    &repo.work,
                    &format!("cat > notes.md <<'EOF'\n{forge}EOF"),
                ),
            ),
        ] {
            let (decision, reason) = run_gate(&home, input);
            assert_eq!(decision, "silent", "{agent:?}: {what}: {reason}");
        }
    }

    // What the gate stopped would be a forgery; run unguarded, it still approves nothing, as
    // the approval it writes carries no seal (it did approve the push before seals).
    let push = "git push origin main";
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny"
    );
    std::fs::write(repo.work.join("x.py"), &forge).unwrap();
    let ran = std::process::Command::new("python3")
        .arg("x.py")
        .current_dir(&repo.work)
        .status()
        .unwrap();
    assert!(ran.success());
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny",
        "the unguarded script forged the approval"
    );
}

#[test]
fn env_files_the_agents_load_may_not_move_hookjudge() {
    let (home, repo) = setup();
    let evil = home.path().join("evil.env");
    std::fs::write(&evil, "PATH=/tmp/bin\n").unwrap();
    for agent in AGENTS {
        for (path, content) in [
            (
                repo.work.join(".gemini/.env"),
                "HOOKJUDGE_CONFIG=/tmp/x.json\n",
            ),
            (home.path().join(".gemini/.env"), "XDG_STATE_HOME=/tmp/s\n"),
            (home.path().join(".codex/.env"), "export HOME=/tmp/h\n"),
            (
                repo.work.join(".env"),
                "DATABASE_URL=x\nXDG_CONFIG_HOME=/tmp/c\n",
            ),
        ] {
            let (decision, reason) = run_gate(&home, write_tool(agent, &repo.work, &path, content));
            assert_ne!(decision, "silent", "{agent:?}: {}", path.display());
            assert!(reason.contains("environment file"), "{agent:?}: {reason}");
        }
        for command in [
            "echo 'HOOKJUDGE_CONFIG=/tmp/x.json' >> .env",
            "printf 'XDG_DATA_HOME=/tmp/d\\n' >> ~/.gemini/.env",
            "cat >> ~/.codex/.env <<EOF\nHOME=/tmp/h\nEOF",
            &format!("cp {} .env", evil.display()),
            "python3 -c \"open('.gemini/.env','a').write('HOOKJUDGE_CONFIG=/x')\"",
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_ne!(decision, "silent", "{agent:?}: `{command}` was silent");
            assert!(reason.contains("environment file"), "{agent:?}: {reason}");
        }
        // The project's own variables are its business.
        for input in [
            write_tool(
                agent,
                &repo.work,
                &repo.work.join(".env"),
                "DATABASE_URL=postgres://db\n",
            ),
            shell_input(agent, &repo.work, "echo DEBUG=1 >> .env"),
            shell_input(agent, &repo.work, "echo \"DATA=$HOME/data\" >> .env"),
        ] {
            let (decision, reason) = run_gate(&home, input);
            assert_eq!(decision, "silent", "{agent:?}: {reason}");
        }
    }

    // What got there anyway (by hand, or before hookjudge was installed), doctor reports.
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(
        home.path().join(".gemini/.env"),
        "GEMINI_API_KEY=k\nHOOKJUDGE_CONFIG=/tmp/x.json\n",
    )
    .unwrap();
    std::fs::write(repo.work.join(".env"), "XDG_STATE_HOME=/tmp/s\n").unwrap();
    let mut run = home.cmd(&["doctor", "--json"]);
    run.command.current_dir(&repo.work);
    let report: Value = serde_json::from_str(run.output().stdout.trim()).unwrap();
    let found: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "agent env file")
        .collect();
    assert_eq!(found.len(), 2, "{report}");
    assert!(
        found
            .iter()
            .any(|c| c["detail"].as_str().unwrap().contains("`HOOKJUDGE_CONFIG`"))
            && found
                .iter()
                .any(|c| c["detail"].as_str().unwrap().contains("`XDG_STATE_HOME`")),
        "{found:?}"
    );
    assert!(
        !found[0]["detail"]
            .as_str()
            .unwrap()
            .contains("GEMINI_API_KEY")
    );
}

/// Hooks installed by name (team mode) run the first `hookjudge` on PATH: a file of that name
/// written into a directory on PATH shadows hookjudge, whatever the command that writes it.
#[test]
fn a_hookjudge_written_into_a_directory_on_path_is_refused() {
    let (home, repo) = setup();
    let on_path = home.path().join(".local/bin");
    std::fs::create_dir_all(&on_path).unwrap();
    let off_path = home.path().join("tools");
    let cargo_bin = home.path().join(".cargo/bin");
    let path = std::env::join_paths(
        [on_path.clone(), cargo_bin]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    // Crates written earlier: one whose binary is called hookjudge, one that is not.
    for (dir, manifest) in [
        (
            "evilcrate",
            "[package]\nname = \"helper\"\n\n[[bin]]\nname = \"hookjudge\"\npath = \"main.rs\"\n",
        ),
        ("goodcrate", "[package]\nname = \"helper\"\n"),
    ] {
        std::fs::create_dir_all(repo.work.join(dir)).unwrap();
        std::fs::write(repo.work.join(dir).join("Cargo.toml"), manifest).unwrap();
    }
    let gate = |command: &str| {
        let input = shell_input(Agent::Claude, &repo.work, command);
        let out = home.cmd(&["gate"]).env("PATH", &path).stdin(input).output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let bin = on_path.display();
    for command in [
        format!("cp /bin/true {bin}/hookjudge"),
        format!("ln -sf /bin/true {bin}/hookjudge"),
        format!("install -m 755 /bin/true {bin}/hookjudge"),
        format!("printf '#!/bin/sh\\n' > {bin}/hookjudge"),
        "cp /bin/true ~/.local/bin/hookjudge".into(),
        "cargo install --force --path evilcrate".into(),
        "cargo install --locked hookjudge@0.1.0".into(),
        "cargo binstall -y hookjudge".into(),
        "cargo uninstall hookjudge".into(),
        format!(
            "cargo install --path evilcrate --root {}/.local",
            home.path().display()
        ),
    ] {
        let out = gate(&command);
        assert!(
            out.contains("\"deny\"") && out.contains("named hookjudge on PATH"),
            "`{command}`: {out}"
        );
    }
    for command in [
        format!("cp /bin/true {bin}/other-tool"),
        format!("cp /bin/true {}/hookjudge", off_path.display()),
        "cargo install --path goodcrate".into(),
        "cargo install ripgrep".into(),
        "cargo install --path evilcrate --root /tmp/elsewhere".into(),
        "cargo uninstall ripgrep".into(),
        "cargo test --workspace".into(),
    ] {
        assert_eq!(gate(&command).trim(), "", "`{command}` was gated");
    }
}

/// `cargo install --force` of a crate the gate cannot read (from git, from the registry) may
/// overwrite an installed `hookjudge`; without `--force` cargo refuses to, so that is silent.
#[test]
fn a_forced_install_of_an_unreadable_crate_over_hookjudge_is_refused() {
    let (home, repo) = setup();
    let cargo_bin = home.path().join(".cargo/bin");
    std::fs::create_dir_all(&cargo_bin).unwrap();
    let path = std::env::join_paths(
        [cargo_bin.clone()]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    std::fs::create_dir_all(repo.work.join("goodcrate")).unwrap();
    std::fs::write(
        repo.work.join("goodcrate/Cargo.toml"),
        "[package]\nname = \"helper\"\n",
    )
    .unwrap();
    let gate = |command: &str| {
        let input = shell_input(Agent::Claude, &repo.work, command);
        let out = home.cmd(&["gate"]).env("PATH", &path).stdin(input).output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let forced = [
        "cargo install --force --git https://example.com/tools.git",
        "cargo install -f --locked ripgrep",
        "cargo install --force --path missingcrate",
    ];
    // No hookjudge there yet: nothing to overwrite.
    for command in forced {
        assert_eq!(gate(command).trim(), "", "`{command}` was gated");
    }
    std::fs::write(cargo_bin.join("hookjudge"), "#!/bin/sh\n").unwrap();
    for command in forced {
        let out = gate(command);
        assert!(
            out.contains("\"deny\"") && out.contains("without `--force`"),
            "`{command}`: {out}"
        );
    }
    for command in [
        "cargo install --git https://example.com/tools.git",
        "cargo install ripgrep",
        "cargo install --force --path goodcrate",
        "cargo install --force ripgrep --root /tmp/elsewhere",
        "cargo uninstall ripgrep",
    ] {
        assert_eq!(gate(command).trim(), "", "`{command}` was gated");
    }
}

/// `git stash -u` and `-a` take untracked (and ignored) files out of the work tree, the
/// agents' hook settings kept out of git among them: the hooks stop until a person pops it.
#[test]
fn a_stash_that_takes_untracked_hook_settings_away_is_refused() {
    let (home, repo) = setup();
    std::fs::create_dir_all(repo.work.join(".claude")).unwrap();
    std::fs::write(repo.work.join(".claude/settings.local.json"), "{}").unwrap();
    let gate = |command: &str| run_gate(&home, shell_input(Agent::Claude, &repo.work, command));
    // Untracked and not ignored: `-u` takes it.
    for command in [
        "git stash -u",
        "git stash push --include-untracked -m wip",
        "git stash -a",
        "git stash --all",
        "git stash push -u -- .claude",
        "git stash save -u",
        "git -C . stash -u",
    ] {
        let (decision, reason) = gate(command);
        assert_eq!(decision, "deny", "`{command}`: {reason}");
        assert!(reason.contains(".claude"), "{reason}");
    }
    for command in [
        "git stash",
        "git stash list",
        "git -C . stash list",
        "git -C . stash",
        "git -c color.ui=never stash show",
        "git stash pop",
        "git stash push -u -- src",
        "git stash push -a src",
        "git stash push -m \"-a fix\"",
    ] {
        assert_eq!(gate(command).0, "silent", "`{command}` was gated");
    }
    // Ignored: only `-a` takes it.
    std::fs::write(
        repo.work.join(".git/info/exclude"),
        ".claude/settings.local.json\n",
    )
    .unwrap();
    assert_eq!(gate("git stash -u").0, "silent");
    assert_eq!(gate("git stash -a").0, "deny");
    // Tracked: no stash takes it out of the work tree.
    std::fs::write(repo.work.join(".git/info/exclude"), "").unwrap();
    crate::gate_repo::git(&repo.work, &["add", "-f", ".claude/settings.local.json"]);
    crate::gate_repo::git(&repo.work, &["commit", "-qm", "settings"]);
    assert_eq!(gate("git stash -a").0, "silent");
}
