//! `doctor` says what is broken and only that: the LLM's key variable, CLI and model name
//! checked offline, one timed real call with `--online` (against a server on 127.0.0.1), no
//! request sent without its key, and a teammate's clone with the repository config `init`
//! wrote is healthy.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, git};
use crate::harness::{FakeLlm, Home, Reply, claude_stop};

/// `doctor --json` in `dir` with `PATH` set to `path` and `env` added; the checks and the
/// exit code.
fn doctor(
    home: &Home,
    dir: &Path,
    path: &str,
    env: &[(&str, &str)],
    online: bool,
) -> (Vec<Value>, i32) {
    let args: &[&str] = if online {
        &["doctor", "--json", "--online"]
    } else {
        &["doctor", "--json"]
    };
    let mut run = home.cmd(args).env("PATH", path);
    for (k, v) in env {
        run = run.env(k, v);
    }
    run.command.current_dir(dir);
    let out = run.output();
    let checks = out.json()["checks"].as_array().unwrap().clone();
    (checks, out.code)
}

fn named<'a>(checks: &'a [Value], name: &str) -> &'a Value {
    checks
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` check in {checks:?}"))
}

/// A `PATH` of the system's directories and `extra`, without whatever the test machine has.
fn system_path(extra: &Path) -> String {
    format!("{}:/usr/bin:/bin", extra.display())
}

#[test]
fn a_missing_key_variable_is_named_and_no_keyless_request_is_sent() {
    let server = FakeLlm::start(|_| Reply::chat(r#"{"new_proposal": true}"#));
    let home = Home::new();
    home.user_config(
        &json!({"llm": {"provider": "openai", "base_url": format!("{}/v1", server.url), "model": "m", "api_key_env": "JUDGE_KEY"}})
            .to_string(),
    );
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let (checks, code) = doctor(&home, &home.work(), &system_path(&bin), &[], false);
    let llm = named(&checks, "llm");
    assert_eq!(llm["ok"], false, "{llm}");
    assert!(
        llm["detail"]
            .as_str()
            .unwrap()
            .contains("`JUDGE_KEY` is not set"),
        "{llm}"
    );
    assert_eq!(
        llm["fix"],
        "set JUDGE_KEY or llm.api_key_env (the variable that holds the key)"
    );
    assert_eq!(code, 1);
    // The Stop hook fails open with the same cause, and the server sees nothing.
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            Path::new(""),
            "The refactor is done. I'll push to main now.",
            false,
        ))
        .output();
    assert_eq!(out.code, 0);
    assert!(
        server.requests().is_empty(),
        "a request went out without its key"
    );
    let log = home.last_log().to_string();
    assert!(log.contains("`JUDGE_KEY` is not set"), "{log}");
    // The public endpoint with no variable named: the usual one is named.
    home.user_config(r#"{"llm": {"provider": "anthropic"}}"#);
    let (checks, _) = doctor(&home, &home.work(), &system_path(&bin), &[], false);
    let llm = named(&checks, "llm");
    assert_eq!(llm["ok"], false);
    assert!(
        llm["fix"]
            .as_str()
            .unwrap()
            .starts_with("set ANTHROPIC_API_KEY or llm.api_key_env"),
        "{llm}"
    );
    let (checks, _) = doctor(
        &home,
        &home.work(),
        &system_path(&bin),
        &[("ANTHROPIC_API_KEY", "k")],
        false,
    );
    assert_eq!(named(&checks, "llm")["ok"], true);
}

#[test]
fn online_makes_one_timed_request_with_the_key() {
    // The Stop hook's combined question, answered for every judge it names.
    let server = FakeLlm::start(|r| Reply::chat(&r.answer(json!({}))));
    let home = Home::new();
    home.user_config(
        &json!({"llm": {"provider": "openai", "base_url": format!("{}/v1", server.url), "model": "m", "api_key_env": "JUDGE_KEY"}})
            .to_string(),
    );
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let (checks, _) = doctor(
        &home,
        &home.work(),
        &system_path(&bin),
        &[("JUDGE_KEY", "k-9")],
        true,
    );
    let call = named(&checks, "llm call");
    assert_eq!(call["ok"], true, "{call}");
    let detail = call["detail"].as_str().unwrap();
    let ms: u64 = detail
        .strip_prefix("openai answered in ")
        .and_then(|rest| rest.split(" ms").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no latency in {detail}"));
    assert!(ms < 60_000);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("authorization"), Some("Bearer k-9"));
    // Offline, nothing is sent.
    doctor(
        &home,
        &home.work(),
        &system_path(&bin),
        &[("JUDGE_KEY", "k-9")],
        false,
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_cli_provider_needs_its_program_on_path() {
    let home = Home::new();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    home.user_config(r#"{"llm": {"provider": "claude"}}"#);
    let (checks, code) = doctor(&home, &home.work(), &system_path(&bin), &[], false);
    let llm = named(&checks, "llm");
    assert_eq!(llm["ok"], false, "{llm}");
    assert!(
        llm["detail"]
            .as_str()
            .unwrap()
            .contains("`claude` is not on PATH"),
        "{llm}"
    );
    assert!(
        llm["fix"].as_str().unwrap().contains("install Claude Code"),
        "{llm}"
    );
    assert_eq!(code, 1);
    let claude = bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\n").unwrap();
    let (checks, _) = doctor(&home, &home.work(), &system_path(&bin), &[], false);
    assert_eq!(named(&checks, "llm")["ok"], true);
    // `command` without `llm.command` says which key to set.
    home.user_config(r#"{"llm": {"provider": "command"}}"#);
    let (checks, _) = doctor(&home, &home.work(), &system_path(&bin), &[], false);
    let llm = named(&checks, "llm");
    assert_eq!(llm["ok"], false);
    assert!(
        llm["fix"]
            .as_str()
            .unwrap()
            .starts_with("set `llm.command`"),
        "{llm}"
    );
    // A model name with a space cannot be one.
    home.user_config(r#"{"llm": {"provider": "claude", "model": "claude haiku"}}"#);
    let (checks, _) = doctor(&home, &home.work(), &system_path(&bin), &[], false);
    assert_eq!(named(&checks, "llm model")["ok"], false);
    // `none` is a choice, reported and not counted as a problem.
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let (checks, _) = doctor(&home, &home.work(), &system_path(&bin), &[], false);
    let llm = named(&checks, "llm");
    assert_eq!(
        (llm["ok"].clone(), llm["info"].clone()),
        (json!(true), json!(true)),
        "{llm}"
    );
}

/// A clone of `repo` in a home that has never trusted anything.
fn clone_of(repo: &GitFixture, home: &Home) -> PathBuf {
    let clone = home.path().join("clone");
    git(
        home.path(),
        &[
            "clone",
            "-q",
            repo.origin.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    clone
}

#[test]
fn a_teammates_clone_with_the_config_init_wrote_is_healthy() {
    let author = Home::new();
    let repo = GitFixture::new(author.path(), "repo");
    // What `init` wrote before, `$schema` included, and a file that only adds strictness.
    for (i, text) in [
        "{\n  \"$schema\": \"./.hookjudge/schema.json\",\n  \"gate\": {},\n  \"judges\": {}\n}\n",
        r#"{"gate": {"push": "deny"}}"#,
    ]
    .into_iter()
    .enumerate()
    {
        std::fs::write(repo.work.join(".hookjudge.json"), text).unwrap();
        git(&repo.work, &["add", "."]);
        git(&repo.work, &["commit", "-qm", &format!("config {i}")]);
        git(&repo.work, &["push", "-q"]);
        let teammate = Home::new();
        teammate.user_config(r#"{"llm": {"provider": "none"}}"#);
        let clone = clone_of(&repo, &teammate);
        let mut init = teammate.cmd(&["init", "--agent", "claude", "--scope", "local"]);
        init.command.current_dir(&clone);
        assert_eq!(init.output().code, 0);
        let path = std::env::var("PATH").unwrap();
        let (checks, code) = doctor(&teammate, &clone, &path, &[], false);
        let problems: Vec<&Value> = checks.iter().filter(|c| c["ok"] == false).collect();
        assert!(problems.is_empty(), "{text}: {problems:?}");
        assert_eq!(code, 0, "{text}");
        let config = named(&checks, "repository config");
        let detail = config["detail"].as_str().unwrap();
        assert!(!detail.contains("is not trusted:"), "{detail}");
    }
}
