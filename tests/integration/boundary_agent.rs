//! `init --boundary agent`: Claude Code's own sandbox as hookjudge's boundary, written into the
//! settings file the hooks go into, merged with the user's own `sandbox` block, shown exactly
//! by `--dry-run`, reported by `doctor`, and taken out by `uninstall` to the byte.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::dry_run::patch;
use crate::gate_repo::GitFixture;
use crate::harness::{Home, Outcome};
use crate::install::read;

/// The user's local settings: a comment, their own sandbox switched off, a path of theirs.
const LOCAL: &str = "{\n  // mine\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n  \"sandbox\": {\n    \"enabled\": false,\n    \"network\": {\"allowedDomains\": [\"github.com\"]},\n    \"filesystem\": {\"denyWrite\": [\"~/secret\"]}\n  }\n}\n";

struct Setup {
    home: Home,
    repo: GitFixture,
    binary: PathBuf,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let home = Home::new();
        home.user_config(r#"{"llm": {"provider": "none"}}"#);
        let binary = home.installed_binary();
        let repo = GitFixture::new(home.path(), name);
        let local = repo.work.join(".claude/settings.local.json");
        std::fs::create_dir_all(local.parent().unwrap()).unwrap();
        std::fs::write(&local, LOCAL).unwrap();
        Setup { home, repo, binary }
    }

    fn local(&self) -> PathBuf {
        self.repo.work.join(".claude/settings.local.json")
    }

    fn run(&self, args: &[&str]) -> Outcome {
        // What Claude Code's sandbox needs on Linux, standing in for bubblewrap and socat.
        let tools = self.tools("sandbox-tools", &[("bwrap", "exit 0"), ("socat", "exit 0")]);
        self.run_with_path(args, &path_with(&tools))
    }

    /// A folder `name` of stand-in programs, each a shell script with that body.
    fn tools(&self, name: &str, programs: &[(&str, &str)]) -> PathBuf {
        let dir = self.home.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for (program, body) in programs {
            let path = dir.join(program);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            let mut perms = std::fs::metadata(&path).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
            std::fs::set_permissions(&path, perms).unwrap();
        }
        dir
    }

    fn run_with_path(&self, args: &[&str], path: &std::ffi::OsStr) -> Outcome {
        let mut run = self.home.cmd_of(&self.binary, args);
        run.command.env("PATH", path);
        run.command.current_dir(&self.repo.work);
        if args.first() == Some(&"uninstall") && !args.contains(&"--dry-run") {
            return run.on_terminal("y\n");
        }
        run.output()
    }

    fn claude_boundary(&self) -> Value {
        let report = self.run(&["doctor", "--json"]).json();
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "boundary (Claude Code)")
            .cloned()
            .unwrap_or_else(|| panic!("{report}"))
    }
}

/// `dir` first, then this process's PATH.
fn path_with(dir: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest)))
        .unwrap()
}

/// A PATH with git and sh alone: no bubblewrap, no socat.
fn path_without_sandbox_tools(s: &Setup) -> std::ffi::OsString {
    let dir = s.home.path().join("bare-path");
    std::fs::create_dir_all(&dir).unwrap();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    for program in ["git", "sh"] {
        let found = std::env::split_paths(&rest)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{program} is not on PATH"));
        let link = dir.join(program);
        if !link.exists() {
            std::os::unix::fs::symlink(found, link).unwrap();
        }
    }
    dir.into_os_string()
}

fn jsonc(path: &Path) -> Value {
    let text = read(path);
    let parsed =
        hookjudge::support::jsonc::parse(&text).unwrap_or_else(|e| panic!("{e:?}: {text}"));
    parsed.value(&parsed.root)
}

const INIT: [&str; 5] = ["init", "--agent", "claude", "--boundary", "agent"];

#[test]
fn init_writes_claude_codes_sandbox_beside_the_users_and_uninstall_gives_back_every_byte() {
    let s = Setup::new("real");
    let dry = Setup::new("dry");
    let diff = dry.run(&[&INIT[..], &["--dry-run"]].concat());
    assert_eq!(diff.code, 0, "{}", diff.stderr);
    assert!(
        diff.stdout.contains("-    \"enabled\": false,\n")
            && diff.stdout.contains("+    \"enabled\": true,\n"),
        "{}",
        diff.stdout
    );
    patch(&dry.repo.work, &diff.stdout);

    let out = s.run(&INIT);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("sandbox on"), "{}", out.stdout);
    assert!(
        out.stdout.contains("`sandbox.enabled` was false"),
        "{}",
        out.stdout
    );
    let written = read(&s.local());
    assert!(written.contains("// mine"), "{written}");
    // The dry run's diff, applied with `patch`, is what `init` wrote (but for the two
    // repositories' own paths).
    let dry_written = read(&dry.local()).replace(
        &dry.repo.work.canonicalize().unwrap().display().to_string(),
        &s.repo.work.canonicalize().unwrap().display().to_string(),
    );
    let dry_written = dry_written.replace(
        &dry.home
            .path()
            .canonicalize()
            .unwrap()
            .display()
            .to_string(),
        &s.home.path().canonicalize().unwrap().display().to_string(),
    );
    assert_eq!(dry_written, written);

    let v = jsonc(&s.local());
    assert_eq!(v["sandbox"]["enabled"], json!(true));
    assert_eq!(v["sandbox"]["allowUnsandboxedCommands"], json!(false));
    assert_eq!(
        v["sandbox"]["network"]["allowedDomains"],
        json!(["github.com"])
    );
    assert!(v["hooks"]["PreToolUse"].is_array(), "{v}");
    let deny: Vec<&str> = v["sandbox"]["filesystem"]["denyWrite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(deny[0], "~/secret", "the user's path stays first");
    let work = s.repo.work.canonicalize().unwrap();
    let home = s.home.path().canonicalize().unwrap();
    for anchor in [
        work.join(".git/hooks"),
        work.join(".git/config"),
        work.join(".claude"),
        home.join(".claude"),
        home.join(".gitconfig"),
        home.join(".cargo/bin"),
        home.join("state/hookjudge"),
    ] {
        let entry = format!("/{}", anchor.display());
        assert!(deny.contains(&entry.as_str()), "{entry} in {deny:?}");
    }

    // `doctor` sees Claude Code's sandbox as the boundary.
    let check = s.claude_boundary();
    assert!(
        check["ok"] == true
            && check["detail"]
                .as_str()
                .unwrap()
                .starts_with("Claude Code's sandbox"),
        "{check}"
    );
    // A second `init` changes nothing.
    assert_eq!(s.run(&INIT).code, 0);
    assert_eq!(read(&s.local()), written);

    let out = s.run(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(read(&s.local()), LOCAL, "{}", out.stdout);
}

#[test]
fn uninstall_after_the_user_edited_takes_out_only_what_init_added() {
    let s = Setup::new("edited");
    assert_eq!(s.run(&INIT).code, 0);
    // The user adds a path of their own to the list and a key beside it.
    let text = read(&s.local()).replace("\"~/secret\",", "\"~/secret\", \"//srv/mine\",");
    let text = text.replacen(
        "\"sandbox\": {",
        "\"sandbox\": {\n    \"autoAllowBashIfSandboxed\": true,",
        1,
    );
    std::fs::write(s.local(), &text).unwrap();
    let out = s.run(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let v = jsonc(&s.local());
    assert_eq!(
        v["sandbox"],
        json!({
            "autoAllowBashIfSandboxed": true,
            "enabled": false,
            "network": {"allowedDomains": ["github.com"]},
            "filesystem": {"denyWrite": ["~/secret", "//srv/mine"]}
        }),
        "{}",
        read(&s.local())
    );
    assert!(v.get("hooks").is_none(), "{v}");
    assert!(read(&s.local()).contains("// mine"));
}

#[test]
fn a_file_without_a_sandbox_gets_the_whole_block_and_loses_it_again() {
    let s = Setup::new("fresh");
    std::fs::remove_file(s.local()).unwrap();
    assert_eq!(s.run(&INIT).code, 0);
    let v = jsonc(&s.local());
    assert_eq!(v["sandbox"]["failIfUnavailable"], json!(true));
    assert!(
        v["sandbox"]["filesystem"]["denyRead"][0]
            .as_str()
            .unwrap()
            .ends_with("/key"),
        "{v}"
    );
    // Edited since (so not restored from the record): the block still goes, all of it.
    let text = read(&s.local()).replacen('{', "{\n  \"model\": \"opus\",", 1);
    std::fs::write(s.local(), text).unwrap();
    assert_eq!(s.run(&["uninstall", "--agent", "claude"]).code, 0);
    assert_eq!(jsonc(&s.local()), json!({"model": "opus"}));
}

#[test]
fn the_sandbox_is_refused_where_it_cannot_serve() {
    let s = Setup::new("refused");
    let out = s.run(&[
        "init",
        "--agent",
        "claude",
        "--scope",
        "project",
        "--boundary",
        "agent",
    ]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("--scope local"), "{}", out.stderr);
    let out = s.run(&["init", "--agent", "gemini", "--boundary", "agent"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("Claude Code"), "{}", out.stderr);
    assert_eq!(read(&s.local()), LOCAL, "nothing was written");
}

/// Claude Code refuses to start when its settings ask for a sandbox it cannot make
/// (`failIfUnavailable`): `init` does not write the block there (no bubblewrap or socat, or a
/// bubblewrap that cannot make its namespaces), and `doctor` says so of a block written before.
#[cfg(target_os = "linux")]
#[test]
fn the_sandbox_is_refused_where_claude_code_could_not_start_it() {
    let s = Setup::new("unavailable");
    let bare = path_without_sandbox_tools(&s);
    let out = s.run_with_path(&INIT, &bare);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("refuse to start")
            && out.stderr.contains("both are missing")
            && out.stderr.contains("apt-get install bubblewrap socat"),
        "{}",
        out.stderr
    );
    assert_eq!(read(&s.local()), LOCAL, "nothing was written");
    let failing = s.tools(
        "failing-bwrap",
        &[
            (
                "bwrap",
                "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1",
            ),
            ("socat", "exit 0"),
        ],
    );
    let out = s.run_with_path(&INIT, &path_with(&failing));
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("setting up uid map: Permission denied"),
        "{}",
        out.stderr
    );
    assert_eq!(read(&s.local()), LOCAL, "nothing was written");
    // Written where the sandbox starts; then bubblewrap is gone: Claude Code will not start.
    assert_eq!(s.run(&INIT).code, 0);
    let report = s.run_with_path(&["doctor", "--json"], &bare).json();
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "boundary (Claude Code)")
        .cloned()
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(check["ok"], false, "{check}");
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains("cannot start here")
            && check["fix"].as_str().unwrap().contains("apt-get install"),
        "{check}"
    );
}

/// The blocks of `doctor`'s text report (from a line `{` to the `}` at its indentation),
/// each parsed as JSON, and the report's other lines.
fn blocks_and_prose(report: &str) -> (Vec<Value>, Vec<&str>) {
    let (mut blocks, mut prose) = (Vec::new(), Vec::new());
    let mut open: Option<(usize, Vec<&str>)> = None;
    for line in report.lines() {
        let indent = line.len() - line.trim_start().len();
        match &mut open {
            Some((at, lines)) => {
                lines.push(line);
                if line.trim() == "}" && indent == *at {
                    let text = lines.join("\n");
                    blocks.push(
                        serde_json::from_str(&text)
                            .unwrap_or_else(|e| panic!("{e}: {text}\n{report}")),
                    );
                    open = None;
                }
            }
            None if line.trim() == "{" => open = Some((indent, vec![line])),
            None => prose.push(line),
        }
    }
    assert!(open.is_none(), "a block is left open: {report}");
    (blocks, prose)
}

#[test]
fn doctors_sandbox_settings_are_a_block_to_paste_and_every_other_line_fits() {
    let s = Setup::new("doctor");
    assert_eq!(s.run(&["init", "--agent", "claude"]).code, 0);
    // Off (the user's `enabled: false`): how to get one, with the block.
    let off = s.run(&["doctor"]);
    let (blocks, prose) = blocks_and_prose(&off.stdout);
    assert_eq!(blocks.len(), 1, "{}", off.stdout);
    assert!(
        prose.iter().all(|l| l.chars().count() <= 100),
        "{}",
        off.stdout
    );
    let deny = blocks[0]["sandbox"]["filesystem"]["denyWrite"]
        .as_array()
        .unwrap();
    assert!(deny.len() > 5, "{}", blocks[0]);
    // One path a line, indented.
    let first = deny[0].as_str().unwrap();
    assert!(
        off.stdout
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("\"{first}\"")) && l.starts_with("   ")),
        "{}",
        off.stdout
    );
    // On, but leaving hookjudge's files writable: a problem, whose fix is the block.
    let text = read(&s.local()).replace("\"enabled\": false", "\"enabled\": true");
    std::fs::write(s.local(), text).unwrap();
    let misses = s.run(&["doctor"]);
    let (blocks, prose) = blocks_and_prose(&misses.stdout);
    assert_eq!(blocks.len(), 1, "{}", misses.stdout);
    assert!(
        prose.iter().all(|l| l.chars().count() <= 100),
        "{}",
        misses.stdout
    );
    assert!(
        misses
            .stdout
            .contains("    fix: run `hookjudge init --boundary agent`"),
        "{}",
        misses.stdout
    );
    // Pasted as it is, the block makes Claude Code's sandbox the boundary.
    let mut v = jsonc(&s.local());
    v["sandbox"] = blocks[0]["sandbox"].clone();
    std::fs::write(s.local(), v.to_string()).unwrap();
    let check = s.claude_boundary();
    assert!(check["ok"] == true && check["warning"] != true, "{check}");
    // Letting the model ask to run a command outside the sandbox: a warning, saying how to
    // close it.
    v["sandbox"]["allowUnsandboxedCommands"] = json!(true);
    std::fs::write(s.local(), v.to_string()).unwrap();
    let check = s.claude_boundary();
    assert!(
        check["ok"] == true
            && check["warning"] == true
            && check["fix"]
                .as_str()
                .unwrap()
                .contains("\"allowUnsandboxedCommands\": false"),
        "{check}"
    );
}
