//! `init`, `init` again and `uninstall` against real settings files of all three agents in all
//! scopes, in a temporary HOME; then the installed hook commands run exactly as the settings
//! name them.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::gate_repo::GitFixture;
use crate::harness::{BIN, Home, Outcome, command_llm_config};

/// A user's settings file with other hooks, permissions, odd indentation and non-ASCII text.
const USER_SETTINGS: &str = "{\n      \"permissions\": {\"allow\": [\"Bash(ls:*)\"], \"deny\": [\"Read(./.env)\"]},\n  \"hooks\": {\n    \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"notify-send 'Fertig ✓'\" } ] } ]\n  },\n  \"theme\": \"ダーク\"\n}\n";

/// `hookjudge ARGS` in `dir`; `uninstall` as a person runs it, on a terminal answering yes
/// (it refuses without one).
pub fn in_dir(home: &Home, dir: &Path, args: &[&str]) -> Outcome {
    let mut run = home.cmd(args);
    run.command.current_dir(dir);
    if args.first() == Some(&"uninstall") && !args.contains(&"--dry-run") {
        return run.on_terminal("y\n");
    }
    run.output()
}

/// `hookjudge ARGS` in `dir` as a person runs it: on a terminal, answering yes to its question
/// (an `init` that replaces hookjudge's existing entries asks one).
pub fn as_person(home: &Home, dir: &Path, args: &[&str]) -> Outcome {
    let mut run = home.cmd(args);
    run.command.current_dir(dir);
    run.on_terminal("y\n")
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The settings files per agent and scope, relative to the repository or HOME.
fn files(repo: &Path, home: &Path) -> Vec<(&'static str, &'static str, PathBuf)> {
    vec![
        ("claude", "project", repo.join(".claude/settings.json")),
        ("claude", "local", repo.join(".claude/settings.local.json")),
        ("claude", "user", home.join(".claude/settings.json")),
        ("codex", "project", repo.join(".codex/hooks.json")),
        ("codex", "user", home.join(".codex/hooks.json")),
        ("gemini", "project", repo.join(".gemini/settings.json")),
        ("gemini", "user", home.join(".gemini/settings.json")),
    ]
}

#[test]
fn init_twice_then_uninstall_keeps_every_other_byte() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    for (agent, scope, path) in files(&repo.work, home.path()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, USER_SETTINGS).unwrap();
        let out = in_dir(
            &home,
            &repo.work,
            &["init", "--agent", agent, "--scope", scope],
        );
        assert_eq!(out.code, 0, "{agent}/{scope}: {}", out.stderr);
        let once = read(&path);
        let v: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(v["theme"], "ダーク");
        let stop_event = if agent == "gemini" {
            "AfterAgent"
        } else {
            "Stop"
        };
        let events = v["hooks"].as_object().unwrap();
        assert!(events.contains_key(stop_event), "{agent}/{scope}: {once}");
        if agent == "claude" {
            assert_eq!(
                v["hooks"]["Stop"][0]["hooks"][0]["command"], "notify-send 'Fertig ✓'",
                "the user's hook stays first"
            );
        }
        // Everything before the `hooks` key is untouched, byte for byte.
        let head = &USER_SETTINGS[..USER_SETTINGS.find("\"hooks\"").unwrap()];
        assert!(once.starts_with(head), "{agent}/{scope}:\n{once}");
        let again = in_dir(
            &home,
            &repo.work,
            &["init", "--agent", agent, "--scope", scope],
        );
        assert!(again.stdout.contains("unchanged"), "{}", again.stdout);
        assert_eq!(
            read(&path),
            once,
            "{agent}/{scope}: a second init changes nothing"
        );
        assert!(
            path.with_file_name(format!(
                "{}.hookjudge-backup",
                path.file_name().unwrap().to_str().unwrap()
            ))
            .exists()
        );
        let out = in_dir(
            &home,
            &repo.work,
            &["uninstall", "--agent", agent, "--scope", scope],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(
            read(&path),
            USER_SETTINGS,
            "{agent}/{scope}: uninstall restores the file byte for byte"
        );
    }
}

#[test]
fn invalid_json_and_read_only_files_are_refused_untouched() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let path = repo.work.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let broken = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\" \"Bash(cat)\"]\n  }\n}\n";
    std::fs::write(&path, broken).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--scope", "project"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("line 3")
            && out.stderr.contains("column")
            && out.stderr.contains("nothing was written"),
        "{}",
        out.stderr
    );
    assert_eq!(read(&path), broken);

    std::fs::write(&path, USER_SETTINGS).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--scope", "project"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("read-only") && out.stderr.contains("nothing was written"),
        "{}",
        out.stderr
    );
    assert_eq!(read(&path), USER_SETTINGS);
    let leftovers: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        leftovers,
        ["settings.json"],
        "no partial or temporary files"
    );

    let wrong = r#"{"hooks": "off"}"#;
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).unwrap();
    std::fs::write(&path, wrong).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--scope", "project"]);
    assert!(
        out.stderr
            .contains("`hooks` is a string, expected an object")
            && out.stderr.contains("hint:"),
        "{}",
        out.stderr
    );
    assert_eq!(read(&path), wrong);
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let out = in_dir(&home, &repo.work, &["init", "--dry-run", "--git-hook"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("+++ ")
            && out.stdout.contains("+  \"hooks\"")
            && out.stdout.contains("dry run"),
        "{}",
        out.stdout
    );
    assert!(!repo.work.join(".claude").exists() && !repo.work.join(".hookjudge.json").exists());
    assert!(!repo.work.join(".git/hooks/pre-push").exists());
}

#[test]
fn agents_default_to_the_folders_that_exist() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    std::fs::create_dir_all(repo.work.join(".codex")).unwrap();
    std::fs::create_dir_all(repo.work.join(".gemini")).unwrap();
    let out = in_dir(&home, &repo.work, &["init"]);
    assert!(
        out.stdout.contains("Codex CLI, Gemini CLI") && out.stdout.contains("trust"),
        "{}",
        out.stdout
    );
    // By default, this checkout: the agents' project files, kept out of git, and no user
    // file (it ran in every project).
    assert!(
        repo.work.join(".codex/hooks.json").exists()
            && repo.work.join(".gemini/settings.json").exists(),
        "{}",
        out.stdout
    );
    assert!(
        !home.path().join(".codex").exists() && !home.path().join(".gemini").exists(),
        "{}",
        out.stdout
    );
    let exclude = read(&repo.work.join(".git/info/exclude"));
    assert!(
        exclude.contains("/.codex/hooks.json\n") && exclude.contains("/.gemini/settings.json\n"),
        "{exclude}"
    );
    assert_eq!(
        crate::gate_repo::git(&repo.work, &["status", "--porcelain"]),
        "?? .hookjudge.json\n"
    );
    assert!(!repo.work.join(".claude").exists());
    // The same files serve team mode: the local entries go first.
    assert_eq!(in_dir(&home, &repo.work, &["uninstall"]).code, 0);
    assert!(!repo.work.join(".codex/hooks.json").exists());
    let out = in_dir(&home, &repo.work, &["init", "--scope", "project"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        repo.work.join(".codex/hooks.json").exists()
            && repo.work.join(".gemini/settings.json").exists()
    );
    let out = in_dir(&home, &home.work(), &["init"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("not inside a git repository") && out.stderr.contains("--force"),
        "{}",
        out.stderr
    );
}

/// The template with placeholders filled the way the README says.
fn filled_template(name: &str, binary: &str) -> Value {
    let text = std::fs::read_to_string(format!(
        "{}/hooks-templates/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let text = text
        .replace("\"timeout\": \"@STOP_TIMEOUT_S@\"", "\"timeout\": 15")
        .replace("\"timeout\": \"@GATE_TIMEOUT_S@\"", "\"timeout\": 13")
        .replace("\"timeout\": \"@STOP_TIMEOUT_MS@\"", "\"timeout\": 15000")
        .replace("\"timeout\": \"@GATE_TIMEOUT_MS@\"", "\"timeout\": 13000")
        .replace("\"timeoutSec\": \"@GATE_TIMEOUT_S@\"", "\"timeoutSec\": 13")
        .replace("\"timeoutSec\": \"@STOP_TIMEOUT_S@\"", "\"timeoutSec\": 15")
        .replace("@STOP_TIMEOUT_S@", "15")
        .replace("@GATE_TIMEOUT_S@", "13")
        .replace("@HOOKJUDGE_SHELL@", &shell_words::quote(binary))
        .replace("@HOOKJUDGE@", binary);
    serde_json::from_str(&text).unwrap()
}

#[test]
fn templates_and_init_output_are_identical() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let out = in_dir(&home, &repo.work, &["init", "--agent", "all", "--git-hook"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let binary = std::fs::canonicalize(BIN)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    for (file, installed) in [
        ("claude.json", repo.work.join(".claude/settings.local.json")),
        ("codex.json", repo.work.join(".codex/hooks.json")),
        ("gemini.json", repo.work.join(".gemini/settings.json")),
        (
            "copilot.json",
            repo.work.join(".github/hooks/hookjudge.json"),
        ),
        ("cursor.json", repo.work.join(".cursor/hooks.json")),
        ("crush.json", repo.work.join("crush.json")),
    ] {
        let written: Value = serde_json::from_str(&read(&installed)).unwrap();
        assert_eq!(written, filled_template(file, &binary), "{file}");
    }
    let hook = read(&repo.work.join(".git/hooks/pre-push"));
    let template = std::fs::read_to_string(format!(
        "{}/hooks-templates/pre-push",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(
        hook,
        template
            .replace("@HOOKJUDGE@", &binary)
            .replace("@REQUIRED@", "yes")
    );
}

/// An empty `core.hooksPath` (as Gemini CLI sets for its shell commands) runs no hook: the
/// pre-push hook goes to the repository's hooks folder, never into the work tree it would name.
#[test]
fn an_empty_hooks_path_puts_the_git_hook_in_the_hooks_folder() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let mut run = home
        .cmd(&["init", "--git-hook"])
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "core.hooksPath")
        .env("GIT_CONFIG_VALUE_0", "");
    run.command.current_dir(&repo.work);
    let out = run.output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        repo.work.join(".git/hooks/pre-push").exists(),
        "{}",
        out.stdout
    );
    assert!(!repo.work.join("pre-push").exists(), "{}", out.stdout);
}

#[test]
fn git_hook_chains_and_uninstall_restores_the_previous_one() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let previous = "#!/bin/sh\necho theirs\n";
    std::fs::write(repo.work.join(".git/hooks/pre-push"), previous).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--git-hook"]);
    assert!(
        out.stdout.contains("pre-push.before-hookjudge"),
        "{}",
        out.stdout
    );
    assert_eq!(
        read(&repo.work.join(".git/hooks/pre-push.before-hookjudge")),
        previous
    );
    in_dir(&home, &repo.work, &["init", "--git-hook"]);
    assert_eq!(
        read(&repo.work.join(".git/hooks/pre-push.before-hookjudge")),
        previous,
        "a re-install does not chain to itself"
    );
    let out = in_dir(&home, &repo.work, &["uninstall", "--git-hook"]);
    assert!(
        out.stdout.contains("previous hook is back"),
        "{}",
        out.stdout
    );
    assert_eq!(read(&repo.work.join(".git/hooks/pre-push")), previous);
    assert!(
        !repo
            .work
            .join(".git/hooks/pre-push.before-hookjudge")
            .exists()
    );
}

/// Runs a handler exactly as the agent would: exec form for Claude (command + args, no
/// shell), shell form otherwise, with `path` as PATH.
fn run_handler(home: &Home, handler: &Value, cwd: &Path, stdin: &str, path: &str) -> Outcome {
    let mut command = match handler["args"].as_array() {
        Some(args) => {
            let mut c = Command::new(handler["command"].as_str().unwrap());
            c.args(args.iter().map(|a| a.as_str().unwrap()));
            c
        }
        None => {
            let mut c = Command::new("sh");
            c.args(["-c", handler["command"].as_str().unwrap()]);
            c
        }
    };
    command
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    use std::io::Write;
    // A hook that does not read its input (the team-mode notice) closes the pipe early.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap().into()
}

/// PATH without any `hookjudge`, and PATH with this build's first.
fn paths() -> (String, String) {
    let system = std::env::var("PATH").unwrap_or_default();
    let without: Vec<&str> = system
        .split(':')
        .filter(|d| !Path::new(d).join("hookjudge").exists())
        .collect();
    let without = without.join(":");
    let bin_dir = Path::new(BIN).parent().unwrap().display().to_string();
    (without.clone(), format!("{bin_dir}:{without}"))
}

/// The Stop and gate entries of one install, each run as its settings name it.
struct Entries {
    claude: Value,
    codex: Value,
    gemini: Value,
}

impl Entries {
    fn read(paths: [PathBuf; 3]) -> Entries {
        let [claude, codex, gemini] =
            paths.map(|p| serde_json::from_str::<Value>(&read(&p)).unwrap());
        Entries {
            claude,
            codex,
            gemini,
        }
    }

    /// (agent, entry, stdin) for each Stop and gate entry.
    fn calls(&self, cwd: &Path) -> Vec<(&'static str, &'static str, &Value, String)> {
        let stop = json!({"session_id": "s", "cwd": cwd, "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Done. I'll push to main now."});
        let mut codex_stop = stop.clone();
        codex_stop["turn_id"] = json!("t1");
        codex_stop["session_id"] = json!("s2");
        let after = json!({"session_id": "s3", "cwd": cwd, "hook_event_name": "AfterAgent", "prompt": "p", "prompt_response": "Done. I'll push to main now."});
        let push = json!({"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push origin main"}});
        let mut codex_push = push.clone();
        codex_push["turn_id"] = json!("t1");
        let before = json!({"session_id": "s", "cwd": cwd, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "git push origin main"}});
        vec![
            (
                "claude",
                "stop",
                &self.claude["hooks"]["Stop"][0]["hooks"][0],
                stop.to_string(),
            ),
            (
                "codex",
                "stop",
                &self.codex["hooks"]["Stop"][0]["hooks"][0],
                codex_stop.to_string(),
            ),
            (
                "gemini",
                "stop",
                &self.gemini["hooks"]["AfterAgent"][0]["hooks"][0],
                after.to_string(),
            ),
            (
                "claude",
                "gate",
                &self.claude["hooks"]["PreToolUse"][0]["hooks"][0],
                push.to_string(),
            ),
            (
                "codex",
                "gate",
                &self.codex["hooks"]["PreToolUse"][0]["hooks"][0],
                codex_push.to_string(),
            ),
            (
                "gemini",
                "gate",
                &self.gemini["hooks"]["BeforeTool"][0]["hooks"][0],
                before.to_string(),
            ),
        ]
    }
}

/// The decision in an answer: `block`/`deny`/`ask`, or `notice` for a bare systemMessage.
fn decision(out: &Outcome) -> String {
    let v = out.json();
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .or(v["decision"].as_str())
        .unwrap_or(if v["systemMessage"].is_string() {
            "notice"
        } else {
            "?"
        })
        .to_owned()
}

#[test]
fn installed_hook_commands_run_as_the_settings_name_them() {
    let (without, with) = paths();
    for scope in ["local", "project"] {
        let home = Home::new();
        let repo = GitFixture::new(home.path(), "repo");
        let out = in_dir(
            &home,
            &repo.work,
            &["init", "--agent", "all", "--scope", scope],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        // The user's config chooses the LLM: a command that always sees a violation.
        home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
        repo.commit("a.txt", "two\n", "unverified change");
        let entries = Entries::read(if scope == "local" {
            [
                repo.work.join(".claude/settings.local.json"),
                repo.work.join(".codex/hooks.json"),
                repo.work.join(".gemini/settings.json"),
            ]
        } else {
            [
                repo.work.join(".claude/settings.json"),
                repo.work.join(".codex/hooks.json"),
                repo.work.join(".gemini/settings.json"),
            ]
        });
        // Absolute entries run without hookjudge on PATH; team entries find it there.
        let path = if scope == "local" { &without } else { &with };
        let decisions: Vec<String> = entries
            .calls(&repo.work)
            .iter()
            .map(|(_, _, handler, stdin)| {
                let out = run_handler(&home, handler, &repo.work, stdin, path);
                assert_eq!(out.code, 0, "{handler}: {}", out.stderr);
                decision(&out)
            })
            .collect();
        assert_eq!(
            decisions,
            ["block", "block", "deny", "ask", "deny", "deny"],
            "{scope}"
        );
        let quiet = json!({"session_id": "s", "cwd": repo.work, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git status"}});
        run_handler(
            &home,
            &entries.claude["hooks"]["PreToolUse"][0]["hooks"][0],
            &repo.work,
            &quiet.to_string(),
            path,
        )
        .assert_silent_allow();
    }
}

#[test]
fn team_entries_tell_a_teammate_without_hookjudge_and_block_only_when_required() {
    let (without, _) = paths();
    for (required, expected) in [
        (false, ["notice"; 6]),
        (true, ["notice", "notice", "notice", "ask", "deny", "deny"]),
    ] {
        let home = Home::new();
        let repo = GitFixture::new(home.path(), "repo");
        let mut args = vec!["init", "--agent", "all", "--scope", "project"];
        if required {
            args.push("--require");
        }
        let out = in_dir(&home, &repo.work, &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let entries = Entries::read([
            repo.work.join(".claude/settings.json"),
            repo.work.join(".codex/hooks.json"),
            repo.work.join(".gemini/settings.json"),
        ]);
        for ((agent, kind, handler, stdin), want) in entries.calls(&repo.work).iter().zip(expected)
        {
            let out = run_handler(&home, handler, &repo.work, stdin, &without);
            assert_eq!(out.code, 0, "{agent} {kind}: {}", out.stderr);
            assert_eq!(
                decision(&out),
                want,
                "{agent} {kind} (required: {required}): {}",
                out.stdout
            );
            assert!(
                out.stdout
                    .contains("hookjudge is not installed on this machine"),
                "{}",
                out.stdout
            );
        }
    }
}

#[test]
fn doctor_reports_problems_with_their_fix() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let out = in_dir(&home, &repo.work, &["doctor"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("fix: hookjudge init"), "{}", out.stdout);
    in_dir(&home, &repo.work, &["init"]);
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        r#"{"llm": {"provider": "none"}, "stop": {"max_block": 1}}"#,
    )
    .unwrap();
    let out = in_dir(&home, &repo.work, &["doctor", "--json"]);
    let v = out.json();
    // A repository file that does not parse is ignored (the judges keep running) and reported.
    let check = |name: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(check("config")["ok"], true);
    let repo_config = check("repository config");
    assert_eq!(repo_config["ok"], false);
    assert!(
        repo_config["detail"]
            .as_str()
            .unwrap()
            .contains("stop.max_block"),
        "{repo_config}"
    );
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        r#"{"llm": {"provider": "none"}}"#,
    )
    .unwrap();
    let out = in_dir(&home, &repo.work, &["doctor"]);
    assert!(
        out.stdout.contains("ok  Claude Code (local scope)"),
        "{}",
        out.stdout
    );
}

#[test]
fn doctor_reports_a_settings_file_it_cannot_read() {
    // It was skipped as if absent, so doctor said only that no hooks were installed.
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let path = repo.work.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"{\"hooks\": \"\xff\"}").unwrap();
    let out = in_dir(&home, &repo.work, &["doctor"]);
    assert_eq!(out.code, 1);
    // Long details wrap; read the words.
    let words = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        out.stdout.contains("!!  Claude Code (project scope)")
            && words.contains("is not UTF-8 text, so Claude Code cannot read it"),
        "{}",
        out.stdout
    );
}

#[test]
fn config_schema_matches_what_the_parser_accepts() {
    let home = Home::new();
    let schema = in_dir(&home, &home.work(), &["config", "schema"]).json();
    // serde lists the accepted keys in its unknown-field error; the schema must list the same.
    let accepted = |json: &str| -> Vec<String> {
        let path = home.path().join("probe.json");
        std::fs::write(&path, json).unwrap();
        let out = in_dir(
            &home,
            &home.work(),
            &["--config", path.to_str().unwrap(), "config", "show"],
        );
        let err = out.stderr;
        let list = err
            .split("expected ")
            .nth(1)
            .unwrap_or_else(|| panic!("{err}"));
        let list = list
            .trim_start_matches("one of ")
            .split(" at line")
            .next()
            .unwrap();
        let mut keys: Vec<String> = list
            .split(", ")
            .flat_map(|k| k.split(" or "))
            .map(|k| k.trim().trim_matches('`').to_owned())
            .collect();
        keys.sort();
        keys
    };
    let keys_of = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    };
    assert_eq!(accepted(r#"{"zz": 1}"#), keys_of(&schema));
    for section in ["stop", "log", "transcript", "llm", "gate"] {
        assert_eq!(
            accepted(&format!(r#"{{"{section}": {{"zz": 1}}}}"#)),
            keys_of(&schema["properties"][section]),
            "{section}"
        );
    }
    assert_eq!(
        accepted(r#"{"judges": {"x": {"zz": 1}}}"#),
        keys_of(&schema["properties"]["judges"]["additionalProperties"])
    );
}

#[test]
fn init_from_a_binary_not_named_hookjudge_says_so_and_writes_nothing() {
    // Entries that run a renamed copy would not be recognised as hookjudge's by the next
    // `init`, `uninstall` or `doctor`; `init` used to fail with "the merge did not settle".
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let copy = home.path().join("hookjudge-0.1");
    std::fs::copy(crate::harness::BIN, &copy).unwrap();
    let mut run = home.cmd_of(&copy, &["init", "--agent", "claude"]);
    run.command.current_dir(&repo.work);
    let out = run.output();
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("must run a file named `hookjudge`")
            && out.stderr.contains("hookjudge-0.1"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    assert!(!repo.work.join(".claude").exists());
    assert!(!repo.work.join(".hookjudge.json").exists());
}
