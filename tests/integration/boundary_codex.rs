//! `init --boundary agent` for Codex CLI: its own sandbox (`sandbox_mode = "workspace-write"`)
//! written into the scope's `config.toml` beside the user's keys, shown exactly by `--dry-run`,
//! refused where it cannot hold, reported by `doctor`, and taken out by `uninstall` to the byte.
//! A stand-in `codex` answers the sandbox probe; the real client is in tests/e2e.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::dry_run::patch;
use crate::gate_repo::GitFixture;
use crate::harness::{Home, Outcome};
use crate::install::read;

/// The user's own Codex config: a comment, top-level keys, a table.
const USERS: &str = "# my codex\nmodel = \"o3\" # the good one\napproval_policy = \"on-request\"\n\n[otel]\nexporter = \"none\"\n";

struct Setup {
    home: Home,
    repo: GitFixture,
    binary: PathBuf,
    /// The stand-in programs, first on PATH.
    tools: PathBuf,
}

impl Setup {
    /// A home outside `/tmp`, a binary of its own in it (as `cargo install` puts it), a
    /// repository, the user's Codex config and a `codex` whose sandbox starts.
    fn new(name: &str) -> Setup {
        let home = Home::outside_tmp();
        home.user_config(r#"{"llm": {"provider": "none"}}"#);
        let binary = home.installed_binary();
        let repo = GitFixture::new(home.path(), name);
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        std::fs::write(home.path().join(".codex/config.toml"), USERS).unwrap();
        let tools = home.path().join("tools");
        let s = Setup {
            home,
            repo,
            binary,
            tools,
        };
        s.codex("exit 0");
        s
    }

    /// The stand-in `codex`, with this body.
    fn codex(&self, body: &str) {
        std::fs::create_dir_all(&self.tools).unwrap();
        let path = self.tools.join("codex");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&path, perms).unwrap();
    }

    fn user_config(&self) -> PathBuf {
        self.home.path().join(".codex/config.toml")
    }

    fn run(&self, args: &[&str]) -> Outcome {
        self.run_env(args, &[])
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &Path)]) -> Outcome {
        let rest = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(
            std::iter::once(self.tools.clone()).chain(std::env::split_paths(&rest)),
        )
        .unwrap();
        let mut run = self.home.cmd_of(&self.binary, args);
        run.command.env("PATH", path).current_dir(&self.repo.work);
        for (k, v) in env {
            run.command.env(k, v);
        }
        if args.first() == Some(&"uninstall") && !args.contains(&"--dry-run") {
            return run.on_terminal("y\n");
        }
        run.output()
    }

    fn codex_boundary(&self) -> Value {
        let report = self.run(&["doctor", "--json"]).json();
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "boundary (Codex CLI)")
            .cloned()
            .unwrap_or_else(|| panic!("{report}"))
    }
}

fn toml(path: &Path) -> toml_edit::DocumentMut {
    read(path)
        .parse()
        .unwrap_or_else(|e| panic!("{e}: {}", read(path)))
}

const INIT: [&str; 7] = [
    "init",
    "--agent",
    "codex",
    "--scope",
    "user",
    "--boundary",
    "agent",
];

#[test]
fn init_writes_codexs_sandbox_beside_the_users_keys_and_uninstall_gives_back_every_byte() {
    let s = Setup::new("real");
    // Without the boundary, `doctor` says there is none and what to run.
    assert_eq!(s.run(&INIT[..5]).code, 0);
    let none = s.codex_boundary();
    assert!(
        none["detail"].as_str().unwrap().starts_with("none")
            && none["fix"].as_str().unwrap().contains("--boundary agent"),
        "{none}"
    );
    let hooks_only = read(&s.user_config());
    assert_eq!(hooks_only, USERS, "the hooks alone leave the config alone");

    let dry = s.run(&[&INIT[..], &["--dry-run"]].concat());
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout
            .contains("+++ b/.codex/config.toml\n@@ -1,6 +1,7 @@\n # my codex\n model = \"o3\" # the good one\n approval_policy = \"on-request\"\n+sandbox_mode = \"workspace-write\"\n"),
        "{}",
        dry.stdout
    );
    assert_eq!(read(&s.user_config()), USERS, "a dry run writes nothing");

    let out = s.run(&INIT);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.unwrapped().contains("Codex's sandbox on")
            && out.unwrapped().contains("-s danger-full-access"),
        "{}",
        out.stdout
    );
    let written = read(&s.user_config());
    // The dry run's diff, applied with `patch`, is what `init` wrote.
    let copy = s.home.path().join("copy");
    std::fs::create_dir_all(copy.join(".codex")).unwrap();
    std::fs::write(copy.join(".codex/config.toml"), USERS).unwrap();
    let config_diff = &dry.stdout[dry.stdout.find("--- a/.codex/config.toml").unwrap()..];
    let config_diff = &config_diff[..config_diff.find("# dry run").unwrap()];
    patch(&copy, config_diff);
    assert_eq!(read(&copy.join(".codex/config.toml")), written);

    let doc = toml(&s.user_config());
    assert_eq!(doc["sandbox_mode"].as_str(), Some("workspace-write"));
    assert_eq!(doc["approval_policy"].as_str(), Some("on-request"));
    assert!(doc["otel"].get("sandbox_mode").is_none(), "{written}");
    assert!(
        doc.get("sandbox_workspace_write").is_none(),
        "nothing under /tmp, so /tmp stays writable: {written}"
    );
    assert!(written.contains("# the good one"), "{written}");

    let check = s.codex_boundary();
    assert_eq!(check["ok"], true, "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("Codex's sandbox is on")
            && detail.contains("--dangerously-bypass-approvals-and-sandbox"),
        "{check}"
    );
    assert_eq!(s.run(&INIT).code, 0);
    assert_eq!(
        read(&s.user_config()),
        written,
        "a second init changes nothing"
    );

    let out = s.run(&["uninstall", "--agent", "codex", "--scope", "user"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(read(&s.user_config()), USERS, "{}", out.stdout);
    assert!(!s.home.path().join(".codex/hooks.json").exists());
}

#[test]
fn uninstall_after_the_user_edited_takes_out_only_what_init_added() {
    let s = Setup::new("edited");
    let state = tempfile::tempdir_in("/tmp").unwrap();
    let env = [("XDG_STATE_HOME", state.path())];
    // hookjudge's state under /tmp: the temporary folders go out of the writable roots.
    let out = s.run_env(&INIT, &env);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let doc = toml(&s.user_config());
    let table = &doc["sandbox_workspace_write"];
    assert_eq!(table["exclude_slash_tmp"].as_bool(), Some(true), "{doc}");
    assert_eq!(
        table["exclude_tmpdir_env_var"].as_bool(),
        Some(true),
        "{doc}"
    );
    assert!(
        out.unwrapped()
            .contains("`/tmp` and `$TMPDIR` not writable"),
        "{}",
        out.stdout
    );
    // The user adds keys of their own, one in the table init made.
    let text = read(&s.user_config())
        .replace("model = \"o3\"", "model = \"o4\"")
        .replace(
            "[sandbox_workspace_write]\n",
            "[sandbox_workspace_write]\nnetwork_access = true\n",
        );
    std::fs::write(s.user_config(), &text).unwrap();
    let out = s.run_env(&["uninstall", "--agent", "codex", "--scope", "user"], &env);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        read(&s.user_config()),
        USERS.replace("o3", "o4") + "\n[sandbox_workspace_write]\nnetwork_access = true\n"
    );
}

#[test]
fn a_local_install_makes_the_projects_config_and_takes_it_away_again() {
    let s = Setup::new("local");
    let init = ["init", "--agent", "codex", "--boundary", "agent"];
    let out = s.run(&init);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let project = s.repo.work.join(".codex/config.toml");
    assert_eq!(read(&project), "sandbox_mode = \"workspace-write\"\n");
    let exclude = s.repo.work.join(".git/info/exclude");
    assert!(read(&exclude).contains("/.codex/config.toml"));
    assert_eq!(
        read(&s.user_config()),
        USERS,
        "the user's file is not this scope's"
    );
    assert_eq!(s.codex_boundary()["ok"], true);
    // Every agent's uninstall, which takes the ignore lines out too.
    let out = s.run(&["uninstall"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!s.repo.work.join(".codex").exists(), "{}", out.stdout);
    assert!(!read(&exclude).contains("/.codex/config.toml"));
}

#[test]
fn codexs_sandbox_is_refused_where_it_cannot_hold_and_nothing_is_written() {
    let s = Setup::new("refused");
    let refused = |out: Outcome, says: &str| {
        assert_ne!(out.code, 0, "{}", out.stdout);
        assert!(
            out.stderr.contains("cannot turn on Codex CLI's sandbox") && out.stderr.contains(says),
            "{says}: {}",
            out.stderr
        );
        assert_eq!(read(&s.user_config()), USERS, "nothing was written");
        assert!(!s.home.path().join(".codex/hooks.json").exists());
    };
    // Codex's home under /tmp: Codex's sandbox fails every command there.
    let tmp_home = tempfile::tempdir_in("/tmp").unwrap();
    refused(
        s.run_env(&INIT, &[("CODEX_HOME", tmp_home.path())]),
        "under the temporary folder",
    );
    assert!(!tmp_home.path().join("config.toml").exists());
    // Its sandbox does not start.
    s.codex("echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1");
    refused(s.run(&INIT), "setting up uid map: Permission denied");
    s.codex("exit 0");
    // The binary in the working folder, which the sandbox leaves writable.
    let inside = s.repo.work.join("bin");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::copy(crate::harness::BIN, inside.join("hookjudge")).unwrap();
    let mut run = s.home.cmd_of(
        &inside.join("hookjudge"),
        &["init", "--agent", "codex", "--boundary", "agent"],
    );
    run.command.current_dir(&s.repo.work);
    let out = run.output();
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("the directory of the hookjudge binary"),
        "{}",
        out.stderr
    );
    assert!(!s.repo.work.join(".codex").exists());
    // A committed project config is the team's, not a local install's.
    std::fs::remove_dir_all(&inside).unwrap();
    std::fs::create_dir_all(s.repo.work.join(".codex")).unwrap();
    std::fs::write(s.repo.work.join(".codex/config.toml"), "model = \"o3\"\n").unwrap();
    crate::gate_repo::git(&s.repo.work, &["add", ".codex/config.toml"]);
    let out = s.run(&["init", "--agent", "codex", "--boundary", "agent"]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("is committed") && out.stderr.contains("--scope user"),
        "{}",
        out.stderr
    );
    // Neither agent with a sandbox of its own.
    let out = s.run(&["init", "--agent", "gemini", "--boundary", "agent"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("--agent codex"), "{}", out.stderr);
}

#[test]
fn doctor_says_what_lets_commands_out_of_codexs_sandbox() {
    let s = Setup::new("doctor");
    assert_eq!(s.run(&INIT).code, 0);
    // A reviewer model instead of the person.
    let text = read(&s.user_config()).replacen(
        "approval_policy",
        "approvals_reviewer = \"auto_review\"\napproval_policy",
        1,
    );
    std::fs::write(s.user_config(), &text).unwrap();
    let check = s.codex_boundary();
    assert!(
        check["detail"].as_str().unwrap().contains("auto_review")
            && check["fix"]
                .as_str()
                .unwrap()
                .contains("approvals_reviewer"),
        "{check}"
    );
    // hookjudge's state moved under /tmp since: the sandbox leaves it writable.
    std::fs::write(s.user_config(), USERS).unwrap();
    assert_eq!(s.run(&INIT).code, 0);
    let state = tempfile::tempdir_in("/tmp").unwrap();
    let report = s
        .run_env(&["doctor", "--json"], &[("XDG_STATE_HOME", state.path())])
        .json();
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "boundary (Codex CLI)")
        .cloned()
        .unwrap();
    assert_eq!(check["ok"], false, "{check}");
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains("lets commands write hookjudge's state"),
        "{check}"
    );
    // A sandbox that no longer starts.
    s.codex("echo 'no namespaces' >&2; exit 1");
    let check = s.codex_boundary();
    assert_eq!(check["ok"], false, "{check}");
    assert!(
        check["detail"].as_str().unwrap().contains("no namespaces"),
        "{check}"
    );
    // The project's config turns it off again: the project wins.
    s.codex("exit 0");
    std::fs::create_dir_all(s.repo.work.join(".codex")).unwrap();
    std::fs::write(
        s.repo.work.join(".codex/config.toml"),
        "sandbox_mode = \"danger-full-access\"\n",
    )
    .unwrap();
    let check = s.codex_boundary();
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains("\"danger-full-access\""),
        "{check}"
    );
}

#[test]
fn every_agent_gets_its_own_sandbox_where_it_has_one() {
    let s = Setup::new("all");
    // Claude Code's sandbox needs bubblewrap and socat: stand-ins beside the `codex` one.
    for program in ["bwrap", "socat"] {
        let path = s.tools.join(program);
        std::fs::copy(s.tools.join("codex"), &path).unwrap();
    }
    let out = s.run(&["init", "--agent", "all", "--boundary", "agent"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let project = s.repo.work.join(".codex/config.toml");
    assert_eq!(read(&project), "sandbox_mode = \"workspace-write\"\n");
    let claude = read(&s.repo.work.join(".claude/settings.local.json"));
    assert!(claude.contains("\"denyWrite\""), "{claude}");
    let out = s.run(&["uninstall"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!project.exists(), "{}", out.stdout);
    assert_eq!(read(&s.user_config()), USERS);
}
