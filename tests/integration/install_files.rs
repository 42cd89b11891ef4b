//! `init` and `uninstall` on the settings files real users have (comments, BOM, CRLF, trailing
//! commas, symlinks, duplicate keys, their own hooks), what git sees afterwards in default and
//! team mode, backups, timeouts, and `doctor`'s account of entries that do not run here.

use std::path::Path;

use serde_json::Value;

use crate::gate_repo::{GitFixture, git};
use crate::harness::{BIN, Home, Outcome};
use crate::install::{as_person, in_dir, read};

/// Every file in the repository that git would commit now (untracked or changed), with its
/// repository-relative name.
fn committable(repo: &Path) -> Vec<String> {
    git(repo, &["status", "--porcelain", "--untracked-files=all"])
        .lines()
        .map(|l| l[3..].to_owned())
        .collect()
}

/// The parsed value of a JSONC text (comments and trailing commas removed by hand here, so
/// that the check does not rely on the code under test).
fn value_of(jsonc: &str) -> Value {
    let mut text = jsonc.trim_start_matches('\u{feff}').replace("\r\n", "\n");
    while let Some(start) = text.find("/*") {
        let end = text[start..].find("*/").unwrap() + start + 2;
        text.replace_range(start..end, "");
    }
    let mut plain = String::new();
    for line in text.lines() {
        plain.push_str(line.find("// ").map_or(line, |i| &line[..i]));
        plain.push('\n');
    }
    // Trailing commas: a comma whose next non-blank character closes the container.
    let chars: Vec<char> = plain.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        let closes = chars[i + 1..]
            .iter()
            .find(|c| !c.is_whitespace())
            .is_some_and(|c| *c == '}' || *c == ']');
        if *c == ',' && closes {
            continue;
        }
        out.push(*c);
    }
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}:\n{out}"))
}

const GEMINI_WITH_COMMENTS: &str = "{\n  // Gemini CLI strips comments before parsing\n  \"theme\": \"GitHub\",\n  /* the model\n     we pay for */\n  \"model\": { \"name\": \"gemini-2.5-pro\" },\n}\n";
const CLAUDE_BOM_CRLF: &str =
    "\u{feff}{\r\n  \"permissions\": {\r\n    \"allow\": [\"Bash(ls:*)\"]\r\n  }\r\n}\r\n";
const CODEX_TRAILING_COMMAS: &str = "{\n  \"hooks\": {\n    \"Stop\": [\n      { \"hooks\": [ { \"type\": \"command\", \"command\": \"~/bin/hookjudge-notify stop\" }, ] },\n    ],\n  },\n}\n";

#[test]
fn jsonc_bom_crlf_and_trailing_commas_survive_init_and_uninstall_byte_for_byte() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let files = [
        (
            repo.work.join(".gemini/settings.json"),
            GEMINI_WITH_COMMENTS,
            "gemini",
        ),
        (
            repo.work.join(".claude/settings.local.json"),
            CLAUDE_BOM_CRLF,
            "claude",
        ),
        (
            repo.work.join(".codex/hooks.json"),
            CODEX_TRAILING_COMMAS,
            "codex",
        ),
    ];
    for (path, text, _) in &files {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let out = in_dir(&home, &repo.work, &["init", "--agent", "all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let gemini = read(&files[0].0);
    assert!(
        gemini.contains("// Gemini CLI strips comments before parsing")
            && gemini.contains("/* the model\n     we pay for */"),
        "{gemini}"
    );
    assert!(
        value_of(&gemini)["hooks"]["AfterAgent"].is_array(),
        "{gemini}"
    );
    let claude = read(&files[1].0);
    assert!(claude.starts_with('\u{feff}'), "the BOM stays");
    assert_eq!(
        claude.matches('\n').count(),
        claude.matches("\r\n").count(),
        "every line, also the inserted ones, ends in CRLF:\n{claude:?}"
    );
    let codex = read(&files[2].0);
    let v = value_of(&codex);
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"], "~/bin/hookjudge-notify stop",
        "a user's own hook named like ours is not taken for ours:\n{codex}"
    );
    assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), 2, "{codex}");
    let again = in_dir(&home, &repo.work, &["init", "--agent", "all"]);
    assert!(!again.stdout.contains("updated"), "{}", again.stdout);

    let out = in_dir(&home, &repo.work, &["uninstall"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for (path, text, agent) in &files {
        assert_eq!(&read(path), text, "{agent}: byte for byte");
        let backups: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("hookjudge-backup"))
            .collect();
        assert!(backups.is_empty(), "{agent}: {backups:?} left behind");
    }
}

#[test]
fn a_change_made_after_init_survives_uninstall_and_pre_existing_empty_containers_stay() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let path = repo.work.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let original = "{\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"model\": \"opus\"\n}\n";
    std::fs::write(&path, original).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--scope", "project"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The user edits the file after init; uninstall must keep that and only take ours out.
    let edited = read(&path).replace("\"model\": \"opus\"", "\"model\": \"sonnet\"");
    std::fs::write(&path, &edited).unwrap();
    let out = in_dir(&home, &repo.work, &["uninstall", "--scope", "project"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(read(&path), original.replace("opus", "sonnet"));
    assert!(
        path.with_file_name("settings.json.hookjudge-backup")
            .exists()
            && path
                .with_file_name("settings.json.hookjudge-backup.2")
                .exists(),
        "init's backup is kept and uninstall's goes beside it"
    );
    assert_eq!(
        read(&path.with_file_name("settings.json.hookjudge-backup")),
        original
    );
}

#[test]
fn files_init_created_are_removed_and_only_those() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let out = in_dir(
        &home,
        &repo.work,
        &["init", "--agent", "codex", "--scope", "project"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(repo.work.join(".codex/hooks.json").exists());
    assert!(repo.work.join(".hookjudge/schema.json").exists());
    let out = in_dir(&home, &repo.work, &["uninstall", "--scope", "project"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !repo.work.join(".codex").exists(),
        "the file and the folder init created are gone: {}",
        out.stdout
    );
    assert!(!repo.work.join(".gitignore").exists(), "{}", out.stdout);
    assert!(
        repo.work.join(".hookjudge.json").exists(),
        "the config is the user's now"
    );
    assert_eq!(committable(&repo.work), [".hookjudge.json"]);
}

#[test]
fn a_symlinked_settings_file_stays_a_link_and_its_target_is_edited() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let dotfiles = home.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    let target = dotfiles.join("claude-settings.json");
    let original = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(&target, original).unwrap();
    let link = home.path().join(".claude/settings.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--scope", "user"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(read(&target).contains("\"Stop\""));
    assert!(
        out.stdout.contains(&target.display().to_string()),
        "{}",
        out.stdout
    );
    in_dir(&home, &repo.work, &["uninstall", "--scope", "user"]);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(read(&target), original);
}

#[test]
fn one_bad_file_means_nothing_is_written() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let gemini = repo.work.join(".gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    let duplicate = "{\n  \"hooks\": {},\n  \"theme\": \"x\",\n  \"hooks\": {}\n}\n";
    std::fs::write(&gemini, duplicate).unwrap();
    let out = in_dir(
        &home,
        &repo.work,
        &["init", "--agent", "all", "--scope", "project"],
    );
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.contains("nothing was written")
            && out
                .stderr
                .contains("`hooks` appears 2 times (lines 2 and 4)"),
        "{}",
        out.stderr
    );
    assert_eq!(read(&gemini), duplicate);
    assert!(
        !repo.work.join(".claude").exists(),
        "the valid files were not written either"
    );
    assert!(!repo.work.join(".hookjudge.json").exists());
}

#[test]
fn backups_never_overwrite_an_earlier_one() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let path = repo.work.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    in_dir(&home, &repo.work, &["init", "--scope", "project"]);
    let first = read(&path);
    // A longer LLM deadline rewrites the timeouts: a second write, a second backup.
    // (LLM settings are the user's own config, which a repository file may not override.)
    home.user_config(r#"{"llm": {"timeout_ms": 30000}}"#);
    let out = as_person(&home, &repo.work, &["init", "--scope", "project"]);
    assert!(
        out.unwrapped()
            .contains("backup: .claude/settings.json.hookjudge-backup.2"),
        "{}",
        out.stdout
    );
    assert_eq!(
        read(&path.with_file_name("settings.json.hookjudge-backup")),
        "{\n  \"model\": \"opus\"\n}\n"
    );
    assert_eq!(
        read(&path.with_file_name("settings.json.hookjudge-backup.2")),
        first
    );
    let v: Value = serde_json::from_str(&read(&path)).unwrap();
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 35);
}

#[test]
fn default_init_leaves_only_the_config_for_git_to_commit() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    std::fs::create_dir_all(repo.work.join(".codex")).unwrap();
    std::fs::create_dir_all(repo.work.join(".claude")).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--git-hook"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(repo.work.join(".claude/settings.local.json").exists());
    assert!(repo.work.join(".hookjudge/schema.json").exists());
    assert_eq!(
        committable(&repo.work),
        [".hookjudge.json"],
        "{}",
        out.stdout
    );
    let exclude = read(&repo.work.join(".git/info/exclude"));
    assert!(
        exclude.contains("/.claude/settings.local.json"),
        "{exclude}"
    );
    // A backup beside a settings file is ignored too.
    in_dir(&home, &repo.work, &["uninstall"]);
    assert_eq!(committable(&repo.work), [".hookjudge.json"]);
    assert!(!read(&repo.work.join(".git/info/exclude")).contains("hookjudge"));
}

#[test]
fn team_mode_commits_no_machine_path() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    git(&repo.work, &["config", "core.hooksPath", ".husky"]);
    std::fs::create_dir_all(repo.work.join(".husky")).unwrap();
    let out = in_dir(
        &home,
        &repo.work,
        &["init", "--agent", "all", "--scope", "project", "--git-hook"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let files = committable(&repo.work);
    for wanted in [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
        ".gitignore",
        ".hookjudge.json",
        ".husky/pre-push",
    ] {
        assert!(files.iter().any(|f| f == wanted), "{wanted} in {files:?}");
    }
    let machine = [
        home.path().display().to_string(),
        Path::new(BIN).parent().unwrap().display().to_string(),
    ];
    for file in &files {
        let text = read(&repo.work.join(file));
        for path in &machine {
            assert!(
                !text.contains(path.as_str()),
                "{file} holds {path}:\n{text}"
            );
        }
        assert!(
            !text.contains("\"/"),
            "{file} holds an absolute path:\n{text}"
        );
    }
    let hook = read(&repo.work.join(".husky/pre-push"));
    assert!(hook.contains("hookjudge=\"hookjudge\"") && hook.contains("required=no"));
}

/// Runs the pre-push hook as git does, with `path` as PATH.
fn pre_push(repo: &Path, hook: &Path, path: &str) -> Outcome {
    std::process::Command::new(hook)
        .arg("origin")
        .current_dir(repo)
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
        .into()
}

#[test]
fn a_committed_git_hook_lets_a_teammate_without_hookjudge_push_unless_required() {
    let no_hookjudge: String = std::env::var("PATH")
        .unwrap()
        .split(':')
        .filter(|d| !Path::new(d).join("hookjudge").exists())
        .collect::<Vec<_>>()
        .join(":");
    for (required, code) in [(false, 0), (true, 1)] {
        let home = Home::new();
        let repo = GitFixture::new(home.path(), "repo");
        git(&repo.work, &["config", "core.hooksPath", ".husky"]);
        let mut args = vec!["init", "--scope", "project", "--git-hook"];
        if required {
            args.push("--require");
        }
        assert_eq!(in_dir(&home, &repo.work, &args).code, 0);
        let out = pre_push(
            &repo.work,
            &repo.work.join(".husky/pre-push"),
            &no_hookjudge,
        );
        assert_eq!(out.code, code, "required: {required}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("hookjudge is not installed on this machine"),
            "{}",
            out.stderr
        );
    }
}

fn doctor_check(home: &Home, dir: &Path, name: &str, path: &str) -> Value {
    let mut run = home.cmd(&["doctor", "--json"]);
    run.command.current_dir(dir).env("PATH", path);
    let out = run.output();
    out.json()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check: {}", out.stdout))
        .clone()
}

#[test]
fn doctor_tells_not_installed_here_from_points_elsewhere() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let system = std::env::var("PATH").unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap().display().to_string();
    in_dir(&home, &repo.work, &["init", "--scope", "project"]);
    let without: String = system
        .split(':')
        .filter(|d| !Path::new(d).join("hookjudge").exists())
        .collect::<Vec<_>>()
        .join(":");
    let c = doctor_check(&home, &repo.work, "Claude Code (project scope)", &without);
    assert!(
        c["ok"] == false
            && c["detail"]
                .as_str()
                .unwrap()
                .contains("is not installed here"),
        "{c}"
    );
    assert!(c["fix"].as_str().unwrap().contains("on PATH"), "{c}");
    let c = doctor_check(
        &home,
        &repo.work,
        "Claude Code (project scope)",
        &format!("{bin_dir}:{without}"),
    );
    assert_eq!(c["ok"], true, "{c}");
    // Another hookjudge first on PATH.
    let other = home.path().join("other-bin");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(BIN, other.join("hookjudge")).unwrap();
    let c = doctor_check(
        &home,
        &repo.work,
        "Claude Code (project scope)",
        &format!("{}:{bin_dir}:{without}", other.display()),
    );
    assert!(
        c["ok"] == false && c["detail"].as_str().unwrap().contains("points elsewhere"),
        "{c}"
    );

    // Absolute entries: a path that is gone is "not installed here" too.
    let local = repo.work.join(".claude/settings.local.json");
    std::fs::write(
        &local,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/gone/hookjudge", "args": ["stop"]}]}]}}"#,
    )
    .unwrap();
    let c = doctor_check(&home, &repo.work, "Claude Code (local scope)", &system);
    assert!(c["detail"].as_str().unwrap().contains("lacks"), "{c}");
    as_person(&home, &repo.work, &["init"]);
    let text = read(&local).replace(
        &std::fs::canonicalize(BIN).unwrap().display().to_string(),
        "/gone/hookjudge",
    );
    std::fs::write(&local, text).unwrap();
    let c = doctor_check(&home, &repo.work, "Claude Code (local scope)", &system);
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains("is not installed here")
            && c["detail"].as_str().unwrap().contains("/gone/hookjudge"),
        "{c}"
    );
    assert!(
        c["fix"].as_str().unwrap().starts_with("hookjudge init"),
        "{c}"
    );
}

#[test]
fn timeouts_follow_the_config_and_doctor_flags_one_below_the_deadline() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    home.user_config(r#"{"llm": {"timeout_ms": 30000}, "gate": {"timeout_ms": 20000}}"#);
    in_dir(&home, &repo.work, &["init"]);
    let settings = repo.work.join(".claude/settings.local.json");
    let v: Value = serde_json::from_str(&read(&settings)).unwrap();
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 35);
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 25);
    let path = std::env::var("PATH").unwrap();
    let c = doctor_check(&home, &repo.work, "Claude Code (local scope)", &path);
    assert_eq!(c["ok"], true, "{c}");
    // The deadline grows after init: the agent would kill the hook first.
    home.user_config(r#"{"llm": {"timeout_ms": 60000}, "gate": {"timeout_ms": 20000}}"#);
    let c = doctor_check(&home, &repo.work, "Claude Code (local scope)", &path);
    let detail = c["detail"].as_str().unwrap();
    assert!(
        c["ok"] == false
            && detail.contains("timeout is 35 s")
            && detail.contains("`llm.timeout_ms` = 60000 needs (65 s)")
            && detail.contains("cuts its deadline to 32000 ms"),
        "{c}"
    );
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains("hookjudge init --agent claude --scope local (sets it to 65 s)"),
        "{c}"
    );
    as_person(&home, &repo.work, &["init"]);
    let c = doctor_check(&home, &repo.work, "Claude Code (local scope)", &path);
    assert_eq!(c["ok"], true, "{c}");
}

#[test]
fn the_hook_keeps_its_deadline_below_the_timeout_it_was_given() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    // An LLM that never answers in time, and a deadline longer than the agent allows.
    home.user_config(
        r#"{"llm": {"provider": "command", "command": ["sleep", "30"], "timeout_ms": 60000}}"#,
    );
    let stop = serde_json::json!({"session_id": "s", "cwd": repo.work, "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Done. I'll push to main now."});
    let mut run = home.cmd(&["stop", "--agent", "claude", "--hook-timeout", "4"]);
    run.command.current_dir(&repo.work);
    let out = run.stdin(stop.to_string()).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Without the clamp, `sleep 30` would end by itself within the 60 s deadline, with no
    // answer: a different failure.
    let last = home.last_log();
    let commit = &last["judges"][0];
    assert_eq!(
        (
            commit["layer2"]["failure"].as_str(),
            commit["reason"].as_str()
        ),
        (
            Some("timeout"),
            Some("the LLM did not answer before the deadline")
        ),
        "the hook ended the call itself and said why: {last}"
    );
}

#[test]
fn installing_in_two_scopes_is_called_out() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    assert_eq!(
        in_dir(&home, &repo.work, &["init", "--scope", "project"]).code,
        0
    );
    let out = in_dir(&home, &repo.work, &["init"]);
    assert!(
        out.stdout.contains("would run each hook twice")
            && out
                .stdout
                .contains("hookjudge uninstall --agent claude --scope project"),
        "{}",
        out.stdout
    );
    let path = std::env::var("PATH").unwrap();
    let c = doctor_check(&home, &repo.work, "Claude Code installs", &path);
    assert!(
        c["ok"] == false
            && c["detail"]
                .as_str()
                .unwrap()
                .contains("each hook runs 2 times"),
        "{c}"
    );
    assert_eq!(c["fix"], "hookjudge uninstall --agent claude --scope local");
    in_dir(&home, &repo.work, &["uninstall", "--agent", "claude"]);
    let out = in_dir(&home, &repo.work, &["doctor", "--json"]);
    assert!(
        !out.stdout.contains("Claude Code installs"),
        "{}",
        out.stdout
    );
}

#[test]
fn an_empty_settings_file_is_an_empty_object_and_comes_back_empty() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let path = repo.work.join(".claude/settings.local.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "").unwrap();
    let out = in_dir(&home, &repo.work, &["init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&read(&path)).unwrap();
    assert!(v["hooks"]["Stop"].is_array());
    let out = in_dir(&home, &repo.work, &["uninstall", "--scope", "project"]);
    assert!(
        out.stdout.contains("nothing of hookjudge's was installed")
            && out
                .stdout
                .contains("`hookjudge uninstall --agent claude --scope local` removes it"),
        "{}",
        out.stdout
    );
    in_dir(&home, &repo.work, &["uninstall"]);
    assert_eq!(read(&path), "");
}

#[test]
fn doctors_fix_for_a_too_low_timeout_runs_without_a_terminal() {
    // Raising a timeout was called weakening, so the fix was refused without a terminal.
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    home.user_config(r#"{"llm": {"timeout_ms": 30000}}"#);
    assert_eq!(in_dir(&home, &repo.work, &["init"]).code, 0);
    home.user_config(r#"{"llm": {"timeout_ms": 60000}}"#);
    let path = std::env::var("PATH").unwrap();
    let c = doctor_check(&home, &repo.work, "Claude Code (local scope)", &path);
    let fix = c["fix"].as_str().unwrap();
    let command = fix.split(" (").next().unwrap();
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    assert_eq!(
        args,
        ["init", "--agent", "claude", "--scope", "local"],
        "{fix}"
    );
    let out = in_dir(&home, &repo.work, &args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let settings = repo.work.join(".claude/settings.local.json");
    let v: Value = serde_json::from_str(&read(&settings)).unwrap();
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 65);
    assert_eq!(
        doctor_check(&home, &repo.work, "Claude Code (local scope)", &path)["ok"],
        true
    );
    // A larger timeout is kept when the deadline shrinks again.
    home.user_config(r#"{"llm": {"timeout_ms": 30000}}"#);
    in_dir(&home, &repo.work, &args);
    let v: Value = serde_json::from_str(&read(&settings)).unwrap();
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 65);
}
