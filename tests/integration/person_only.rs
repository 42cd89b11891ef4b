//! What weakens hookjudge (`uninstall`, an `init` that replaces the hooks already there,
//! `trust`) is for the person at the terminal, and for nothing an agent can start: not a copy
//! of the binary in a new session (`setsid -f`, no terminal, no agent among its parents, no
//! agent markers), not a job an agent leaves behind on the terminal it inherited (a double
//! fork cuts the ancestry, the agent stays the terminal's foreground job). Adding hooks where
//! there were none only makes hookjudge stricter, so a script may still do that.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::gate_repo::GitFixture;
use crate::harness::{BIN, Home, Outcome};
use crate::install::{as_person, in_dir, read};

/// Runs `line` with `sh` as an agent's tool would, with every agent marker unset, and waits
/// for the file `line` creates when it is done (its work may be detached from `sh`).
fn agent_shell(home: &Home, dir: &Path, line: &str, done: &Path) {
    let status = home_env(
        std::process::Command::new("sh").args(["-c", line]),
        home,
        dir,
    )
    .stdin(std::process::Stdio::null())
    .status()
    .unwrap();
    assert!(status.success(), "{line}");
    wait_for(done);
}

fn home_env<'a>(
    command: &'a mut std::process::Command,
    home: &Home,
    dir: &Path,
) -> &'a mut std::process::Command {
    command
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
}

fn wait_for(done: &Path) {
    let start = Instant::now();
    while !done.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "`{}` never appeared",
            done.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A copy of the binary made with `cat` (not `cp`, which the gate would see), executable.
fn cat_copy(home: &Home) -> PathBuf {
    let copy = home.path().join("x");
    std::fs::write(&copy, std::fs::read(BIN).unwrap()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    copy
}

fn q(p: &Path) -> String {
    shell_words::quote(&p.to_string_lossy()).into_owned()
}

#[test]
fn a_detached_copy_of_the_binary_cannot_uninstall() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "inst");
    assert_eq!(
        in_dir(&home, &repo.work, &["init", "--agent", "all"]).code,
        0
    );
    let settings = repo.work.join(".claude/settings.local.json");
    let codex = repo.work.join(".codex/hooks.json");
    let before = (read(&settings), read(&codex));
    let copy = cat_copy(&home);
    let out = home.path().join("out");
    let done = home.path().join("done");
    agent_shell(
        &home,
        &repo.work,
        &format!(
            "unset CLAUDECODE CLAUDE_CODE_ENTRYPOINT; setsid -f sh -c '{} uninstall --agent all > {} 2>&1; touch {}'",
            q(&copy),
            q(&out),
            q(&done)
        ),
        &done,
    );
    let said = read(&out);
    assert!(
        said.contains("only you may run it") && said.contains("no terminal"),
        "{said}"
    );
    assert_eq!(
        (read(&settings), read(&codex)),
        before,
        "nothing was removed"
    );
    // The same binary, the same files: a person at a terminal may.
    let out = as_person(&home, &repo.work, &["uninstall", "--agent", "all"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("Remove them"), "{}", out.stdout);
    assert!(!settings.exists());
}

#[test]
fn a_job_an_agent_leaves_on_its_terminal_cannot_uninstall() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "inst");
    assert_eq!(in_dir(&home, &repo.work, &["init"]).code, 0);
    let settings = repo.work.join(".claude/settings.local.json");
    let before = read(&settings);
    let out = home.path().join("out");
    let done = home.path().join("done");
    // An agent CLI on a terminal (here a pseudo-terminal): its tool double-forks hookjudge, so
    // hookjudge's parent is gone and no marker is set, but the agent is still in front.
    let agent_dir = home.path().join("fake-agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    let agent = agent_dir.join("claude");
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\nsh -c {tool}\nwhile [ ! -e {done} ]; do sleep 0.1; done\n",
            tool = shell_words::quote(&format!(
                "( ( sleep 0.5; {} uninstall > {} 2>&1; touch {} ) & )",
                q(Path::new(BIN)),
                q(&out),
                q(&done)
            )),
            done = q(&done)
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The agent runs on the terminal, and a `y` is typed there: what it left behind must still
    // not take it as a person's answer.
    let mut run = home.cmd(&[]);
    run.command = std::process::Command::new(agent.clone());
    home_env(&mut run.command, &home, &repo.work);
    let screen: Outcome = run.on_terminal("y\n");
    wait_for(&done);
    let said = read(&out);
    assert!(
        said.contains("foreground job holds Claude Code"),
        "{said}\n{}",
        screen.stdout
    );
    assert_eq!(read(&settings), before, "nothing was removed");
}

#[test]
fn uninstall_declined_on_the_terminal_removes_nothing() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "inst");
    assert_eq!(in_dir(&home, &repo.work, &["init"]).code, 0);
    let settings = repo.work.join(".claude/settings.local.json");
    let before = read(&settings);
    let mut run = home.cmd(&["uninstall"]);
    run.command.current_dir(&repo.work);
    let out = run.on_terminal("n\n");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("nothing was removed"), "{}", out.stdout);
    assert_eq!(read(&settings), before);
    // `--dry-run` changes nothing, so it needs no one.
    let dry =
        crate::self_protection::without_terminal(&home, &repo.work, &["uninstall", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(read(&settings), before);
}

#[test]
fn a_script_may_install_where_nothing_is_installed_but_not_replace_the_hooks() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "inst");
    // No terminal, no agent: a provisioning script. Installing only adds protection.
    let first = crate::self_protection::without_terminal(&home, &repo.work, &["init"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let settings = repo.work.join(".claude/settings.local.json");
    let installed = read(&settings);
    assert!(installed.contains("PreToolUse"), "{installed}");
    // The same again changes nothing, so it is allowed too.
    let again = crate::self_protection::without_terminal(&home, &repo.work, &["init"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    // Raising the timeouts to what a longer deadline needs only adds: a script may do it.
    home.user_config(r#"{"llm": {"timeout_ms": 30000}}"#);
    let raise = crate::self_protection::without_terminal(&home, &repo.work, &["init"]);
    assert_eq!(raise.code, 0, "{}{}", raise.stdout, raise.stderr);
    let raised = read(&settings);
    assert_ne!(raised, installed);
    // Another binary would replace hookjudge's own entries: a weakening a script may not make.
    let other = home.path().join("other/hookjudge");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::copy(BIN, &other).unwrap();
    let mut run = home.cmd(&[]);
    run.command = std::process::Command::new("setsid");
    run.command
        .arg("--wait")
        .arg(&other)
        .arg("init")
        .current_dir(&repo.work)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"));
    let replace = run.output();
    assert_eq!(replace.code, 2, "{}", replace.stdout);
    assert!(replace.stderr.contains("no terminal"), "{}", replace.stderr);
    assert_eq!(read(&settings), raised);
    let person = as_person_of(&home, &other, &repo.work, &["init"]);
    assert_eq!(person.code, 0, "{}", person.stdout);
    assert!(person.stdout.contains("Replace them?"), "{}", person.stdout);
    // The question says what changes.
    assert!(
        person
            .stdout
            .contains(&format!("Stop runs `{}` instead of `", other.display())),
        "{}",
        person.stdout
    );
    assert_ne!(read(&settings), raised);
}

/// `as_person` with another copy of the binary.
fn as_person_of(home: &Home, binary: &Path, dir: &Path, args: &[&str]) -> crate::harness::Outcome {
    let mut run = home.cmd_of(binary, args);
    run.command.current_dir(dir);
    run.on_terminal("y\n")
}

#[test]
fn trust_always_asks_even_with_yes() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "r");
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        r#"{"gate": {"push": "allow"}}"#,
    )
    .unwrap();
    let mut run = home.cmd(&["trust", "--yes"]);
    run.command.current_dir(&repo.work);
    let out = run.on_terminal("n\n");
    assert_eq!(out.code, 1, "{}", out.stdout);
    let list = in_dir(&home, &repo.work, &["trust", "--list"]);
    assert!(
        list.stdout.contains("no file is trusted"),
        "{}",
        list.stdout
    );
}
