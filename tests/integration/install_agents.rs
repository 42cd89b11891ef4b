//! `init`, `init` again, `--dry-run` and `uninstall` for Qwen Code (`.qwen/settings.json`,
//! timeouts in milliseconds) and Factory Droid (`.factory/settings.json`, seconds), in the
//! project and user scopes, against settings files holding the user's own keys and hooks; then
//! `doctor` lists the entries.

use std::path::PathBuf;

use serde_json::Value;

use crate::gate_repo::GitFixture;
use crate::harness::Home;
use crate::install::{in_dir, read};

/// A settings file with the user's own hook, odd indentation and non-ASCII text.
const USER_SETTINGS: &str = "{\n      \"model\": {\"name\": \"qwen3-coder\"},\n  \"hooks\": {\n    \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"notify-send 'Fertig ✓'\" } ] } ]\n  },\n  \"theme\": \"ダーク\"\n}\n";

fn files(home: &Home, repo: &GitFixture) -> Vec<(&'static str, &'static str, PathBuf)> {
    vec![
        ("qwen", "project", repo.work.join(".qwen/settings.json")),
        ("qwen", "user", home.path().join(".qwen/settings.json")),
        ("droid", "project", repo.work.join(".factory/settings.json")),
        ("droid", "user", home.path().join(".factory/settings.json")),
    ]
}

/// `doctor`'s entry for the check whose line names `name`: that line and the lines its detail
/// wrapped onto, joined.
fn check_entry(doctor: &str, name: &str) -> String {
    let mut lines = doctor.lines().skip_while(|l| !l.contains(name));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{name} not in:\n{doctor}"));
    lines
        .take_while(|l| l.starts_with(' '))
        .fold(first.to_owned(), |entry, more| {
            format!("{entry} {}", more.trim())
        })
}

#[test]
fn init_twice_then_uninstall_keeps_every_other_byte() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    for (agent, scope, path) in files(&home, &repo) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, USER_SETTINGS).unwrap();
        let args = ["init", "--agent", agent, "--scope", scope];
        let dry = in_dir(&home, &repo.work, &[&args[..], &["--dry-run"]].concat());
        assert_eq!(dry.code, 0, "{agent}/{scope}: {}", dry.stderr);
        assert!(
            dry.stdout.contains(&format!("gate --agent {agent}")),
            "{}",
            dry.stdout
        );
        assert_eq!(read(&path), USER_SETTINGS, "--dry-run writes nothing");

        let out = in_dir(&home, &repo.work, &args);
        assert_eq!(out.code, 0, "{agent}/{scope}: {}", out.stderr);
        let once = read(&path);
        let head = &USER_SETTINGS[..USER_SETTINGS.find("\"hooks\"").unwrap()];
        assert!(once.starts_with(head), "{agent}/{scope}:\n{once}");
        let v: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(
            v["hooks"]["Stop"][0]["hooks"][0]["command"],
            "notify-send 'Fertig ✓'"
        );
        let gate = &v["hooks"]["PreToolUse"][0];
        let handler = &gate["hooks"][0];
        let command = handler["command"].as_str().unwrap();
        assert!(
            command.contains(&format!("gate --agent {agent} --hook-timeout ")),
            "{command}"
        );
        let (matcher, timeout) = match agent {
            "qwen" => (
                "^run_shell_command$",
                handler["timeout"].as_u64().unwrap() / 1000,
            ),
            _ => (
                "Execute|Create|Edit|ApplyPatch",
                handler["timeout"].as_u64().unwrap(),
            ),
        };
        assert_eq!(gate["matcher"], matcher);
        let flag: u64 = command
            .rsplit(' ')
            .next()
            .unwrap()
            .trim_matches('\'')
            .parse()
            .unwrap_or(0);
        if scope != "project" {
            assert_eq!(
                timeout, flag,
                "{agent}: the settings timeout and --hook-timeout agree"
            );
        }

        let again = in_dir(&home, &repo.work, &args);
        assert!(again.stdout.contains("unchanged"), "{}", again.stdout);
        assert_eq!(
            read(&path),
            once,
            "{agent}/{scope}: a second init changes nothing"
        );

        let out = in_dir(
            &home,
            &repo.work,
            &["uninstall", "--agent", agent, "--scope", scope],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(read(&path), USER_SETTINGS, "{agent}/{scope}: exact undo");
    }
}

#[test]
fn doctor_lists_the_installed_entries() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    for agent in ["qwen", "droid"] {
        let out = in_dir(
            &home,
            &repo.work,
            &["init", "--agent", agent, "--scope", "user"],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let doctor = in_dir(&home, &repo.work, &["doctor"]);
    // The user file is also what the local scope uses for these agents; doctor names it once.
    for name in ["Qwen Code (", "Factory Droid ("] {
        let line = check_entry(&doctor.stdout, name);
        assert!(
            line.starts_with("ok") && line.contains("all entries present"),
            "{line}"
        );
    }
}

#[test]
fn opencode_plugin_is_written_whole_runs_and_is_removed() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "change a");
    // OpenCode reads its user folder in `$XDG_CONFIG_HOME`, which the harness points into the
    // home (not at `~/.config`).
    let plugin = home.path().join("config/opencode/plugin/hookjudge.js");
    let args = ["init", "--agent", "opencode", "--scope", "user"];
    let dry = in_dir(&home, &repo.work, &[&args[..], &["--dry-run"]].concat());
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains("\"tool.execute.before\""),
        "{}",
        dry.stdout
    );
    assert!(!plugin.exists(), "--dry-run writes nothing");

    let out = in_dir(&home, &repo.work, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The plugin as written, run by Node: the push is stopped with the gate's reason.
    let ran = crate::opencode_plugin::run_plugin_text(
        &home,
        &read(&plugin),
        &repo.work,
        &[("bash", "git push origin main"), ("bash", "ls")],
    );
    assert_eq!(ran[0]["threw"], true, "{ran:?}");
    let message = ran[0]["message"].as_str().unwrap();
    assert!(message.contains("would publish 1 commit"), "{message}");
    assert_eq!(ran[1]["threw"], false);

    let again = in_dir(&home, &repo.work, &args);
    assert!(again.stdout.contains("unchanged"), "{}", again.stdout);
    let doctor = in_dir(&home, &repo.work, &["doctor"]);
    let line = check_entry(&doctor.stdout, "OpenCode (user scope)");
    assert!(
        line.starts_with("ok") && line.contains("plugin present"),
        "{line}"
    );
    let out = in_dir(
        &home,
        &repo.work,
        &["uninstall", "--agent", "opencode", "--scope", "user"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!plugin.exists(), "uninstall removes the plugin it wrote");

    // A plugin of the user's own at that path is never overwritten.
    let mine = "export const Mine = async () => ({});\n";
    std::fs::create_dir_all(plugin.parent().unwrap()).unwrap();
    std::fs::write(&plugin, mine).unwrap();
    let out = in_dir(&home, &repo.work, &args);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("is not hookjudge's"), "{}", out.stderr);
    assert_eq!(read(&plugin), mine);
}
