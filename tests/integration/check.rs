//! `hookjudge check` by hand and as git's pre-push hook: the report, exit codes, the refusal
//! without a terminal (a person's push goes ahead, an agent's does not), `--run-tests`, and a
//! real prompt answered through a pseudo-terminal (`script`).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::gate_repo::{GitFixture, git};
use crate::harness::{BIN, Home};

fn check_in(home: &Home, dir: &Path, args: &[&str]) -> crate::harness::Outcome {
    let mut run = home.cmd(&[&["check"], args].concat());
    run.command.current_dir(dir);
    run.output()
}

fn setup() -> (Home, GitFixture) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    (home, repo)
}

#[test]
fn clear_when_nothing_is_ahead() {
    let (home, repo) = setup();
    let out = check_in(&home, &repo.work, &[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("branch       main -> origin/main") && out.stdout.contains("clear"),
        "{}",
        out.stdout
    );
}

#[test]
fn needs_attention_without_a_terminal_refuses() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "unverified change");
    let out = check_in(&home, &repo.work, &[]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("+ ") && out.stdout.contains("unverified change"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("no terminal to ask on; refusing"),
        "{}",
        out.stdout
    );
    assert_eq!(check_in(&home, &repo.work, &["--yes"]).code, 0);
    assert_eq!(home.last_log()["decided_by"], "user (--yes)");
    let json = check_in(&home, &repo.work, &["--json"]);
    assert_eq!(
        (json.code, json.json()["decision"].as_str()),
        (1, Some("ask"))
    );
    assert_eq!(json.json()["report"]["push"][0]["ahead"]["count"], 1);
}

#[test]
fn outside_a_repository_is_an_error_with_a_hint() {
    let home = Home::new();
    let out = check_in(&home, &home.work(), &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no git repository") && out.stderr.contains("hint:"),
        "{}",
        out.stderr
    );
}

fn with_pty(home: &Home, dir: &Path, answer: &str) -> (i32, String) {
    let mut child = Command::new("script")
        .args(["-qec", &format!("{BIN} check"), "/dev/null"])
        .current_dir(dir)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_terminal_prompt_is_answered_through_a_pseudo_terminal() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "unverified change");
    let (code, screen) = with_pty(&home, &repo.work, "y");
    assert!(screen.contains("Proceed with the push anyway?"), "{screen}");
    assert_eq!(code, 0, "{screen}");
    assert_eq!(home.last_log()["decided_by"], "user (terminal)");
    let (code, _) = with_pty(&home, &repo.work, "n");
    assert_eq!(code, 1);
}

fn install_pre_push(repo: &GitFixture, previous: Option<&str>) {
    let hooks = repo.work.join(".git/hooks");
    let template = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/hooks-templates/pre-push"
    ))
    .unwrap();
    std::fs::write(hooks.join("pre-push"), template.replace("@HOOKJUDGE@", BIN)).unwrap();
    if let Some(script) = previous {
        std::fs::write(hooks.join("pre-push.before-hookjudge"), script).unwrap();
    }
    for f in ["pre-push", "pre-push.before-hookjudge"] {
        let p = hooks.join(f);
        if p.exists() {
            Command::new("chmod").arg("+x").arg(&p).status().unwrap();
        }
    }
}

fn push(home: &Home, repo: &GitFixture) -> std::process::Output {
    push_with(home, repo, &[])
}

/// `git push` with `env` added (an agent's markers, say).
fn push_with(home: &Home, repo: &GitFixture, env: &[(&str, &str)]) -> std::process::Output {
    Command::new("git")
        .args(["push", "-q", "origin", "main"])
        .envs(env.iter().copied())
        .current_dir(&repo.work)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_pre_push_hook_checks_the_pushed_refs_and_chains() {
    let (home, repo) = setup();
    install_pre_push(
        &repo,
        Some("#!/bin/sh\necho previous-hook-ran >&2\nexit 0\n"),
    );
    repo.commit("a.txt", "two\n", "unverified change");
    let before = repo.origin_head();
    let out = push_with(&home, &repo, &[("CLAUDECODE", "1")]);
    assert!(
        !out.status.success(),
        "an agent's unverified push without a terminal is refused"
    );
    assert_eq!(repo.origin_head(), before, "origin is unchanged");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unverified change") && !stderr.contains("previous-hook-ran"),
        "{stderr}"
    );
    // Fresh evidence: the check passes and the previous hook runs.
    std::fs::create_dir_all(repo.work.join(".hookjudge")).unwrap();
    std::fs::write(repo.work.join(".hookjudge/verified"), "").unwrap();
    let out = push(&home, &repo);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("previous-hook-ran"));
    assert_eq!(
        repo.origin_head(),
        git(&repo.work, &["rev-parse", "HEAD"]).trim()
    );
}

#[test]
fn a_failing_previous_hook_still_blocks() {
    let (home, repo) = setup();
    install_pre_push(
        &repo,
        Some("#!/bin/sh\necho previous says no >&2\nexit 7\n"),
    );
    repo.commit("a.txt", "two\n", "change");
    std::fs::create_dir_all(repo.work.join(".hookjudge")).unwrap();
    std::fs::write(repo.work.join(".hookjudge/verified"), "").unwrap();
    let out = push(&home, &repo);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("previous says no"));
}

#[test]
fn yes_says_what_it_accepted_and_the_hints_name_real_next_steps() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "unverified change");
    let refused = check_in(&home, &repo.work, &[]);
    assert!(
        refused
            .stdout
            .contains("Run `hookjudge check` in a terminal to be asked, `hookjudge check --yes` to proceed anyway"),
        "{}",
        refused.stdout
    );
    let yes = check_in(&home, &repo.work, &["--yes"]);
    assert_eq!(yes.code, 0);
    let line = yes
        .stdout
        .lines()
        .find(|l| l.starts_with("accepted with --yes: the push, despite the point listed above"))
        .unwrap_or_else(|| panic!("no confirmation line:\n{}", yes.stdout));
    assert!(line.contains("decision log"), "{line}");
    // Nothing to accept: nothing claimed.
    let clear_home = Home::new();
    clear_home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let clear_repo = GitFixture::new(clear_home.path(), "repo");
    let clear = check_in(&clear_home, &clear_repo.work, &["--yes"]);
    assert!(!clear.stdout.contains("accepted"), "{}", clear.stdout);
}

#[test]
fn the_pre_push_refusal_does_not_suggest_a_flag_git_lacks() {
    let (home, repo) = setup();
    install_pre_push(&repo, None);
    repo.commit("a.txt", "two\n", "unverified change");
    let out = push_with(&home, &repo, &[("CLAUDECODE", "1")]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing the push. Push from your own terminal to be asked"),
        "{stderr}"
    );
    assert!(!stderr.contains("--yes"), "git push has no --yes: {stderr}");
}

#[test]
fn a_persons_push_without_a_terminal_is_told_and_goes_ahead() {
    // An IDE's push button: no terminal. It was refused ("no terminal to ask on; refusing the
    // push"), and the message quoted `git push origin <sha>:main`, which nobody typed.
    let (home, repo) = setup();
    install_pre_push(&repo, None);
    repo.commit("a.txt", "two\n", "unverified change");
    let head = git(&repo.work, &["rev-parse", "HEAD"]);
    let out = push(&home, &repo);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(repo.origin_head(), head.trim());
    assert!(
        stderr.contains("unverified change") && stderr.contains("the push goes ahead"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the push of `main` to `origin`'s `main`") && !stderr.contains(head.trim()),
        "{stderr}"
    );
    let log = home.last_log();
    assert_eq!(
        (log["decided_by"].as_str(), log["proceed"].as_bool()),
        (Some("no terminal"), Some(true))
    );
}

#[test]
fn run_tests_records_a_passing_run_as_evidence() {
    let (home, repo) = setup();
    repo.commit("a.txt", "two\n", "unverified change");
    // Failing tests record nothing.
    std::fs::write(repo.work.join("Makefile"), "test:\n\tfalse\n").unwrap();
    let failed = check_in(&home, &repo.work, &["--run-tests", "--no-input"]);
    assert_eq!(failed.code, 1, "{}{}", failed.stdout, failed.stderr);
    assert!(
        failed.stderr.contains("`make test` failed"),
        "{}",
        failed.stderr
    );
    assert!(!repo.work.join(".hookjudge/verified").exists());
    // The project's own command, found from its files, passes: the check is clear.
    // Dated in the past: a commit's time counts to the end of its second.
    repo.commit("Makefile", "test:\n\ttrue\n", "tests");
    let before = check_in(&home, &repo.work, &["--no-input"]);
    assert_eq!(before.code, 1, "{}", before.stdout);
    assert!(before.stdout.contains("--run-tests"), "{}", before.stdout);
    let passed = check_in(&home, &repo.work, &["--run-tests", "--no-input"]);
    assert_eq!(passed.code, 0, "{}{}", passed.stdout, passed.stderr);
    assert!(
        passed
            .stdout
            .contains(".hookjudge/verified`, 0 s old, newer than the last change")
            && passed
                .stdout
                .contains("uncommitted  0 modified, 0 untracked"),
        "{}",
        passed.stdout
    );
    // An agent cannot record evidence this way.
    let mut run = home
        .cmd(&["check", "--run-tests", "true"])
        .env("CLAUDECODE", "1");
    run.command.current_dir(&repo.work);
    let agent = run.output();
    assert_eq!(agent.code, 2, "{}", agent.stderr);
}
