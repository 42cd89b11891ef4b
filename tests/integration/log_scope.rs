//! `log` and `stats` count the same records, per repository: the current one by default,
//! every one with `--repo all`; an unknown `--judge` is an error naming the judges; the
//! "judges woken" column holds only judges; an approved push and one with nothing to publish
//! are told apart from a plain allow.

use std::path::Path;

use crate::gate_repo::{GitFixture, pre_tool_use};
use crate::harness::{Home, Outcome};

fn in_dir(home: &Home, dir: &Path, args: &[&str]) -> Outcome {
    let mut run = home.cmd(args).env("COLUMNS", "160");
    run.command.current_dir(dir);
    run.output()
}

/// The cell of `row` under the header's `title`.
fn cell<'a>(header: &str, row: &'a str, title: &str) -> &'a str {
    let start = header.find(title).unwrap();
    row[start..].split("  ").next().unwrap().trim()
}

#[test]
fn log_and_stats_agree_per_repository() {
    let home = Home::new();
    let alpha = GitFixture::new(home.path(), "alpha");
    let beta = GitFixture::new(home.path(), "beta");
    // Only `check` rows in alpha: `stats` used to say "no decisions logged yet".
    for _ in 0..3 {
        assert_ne!(in_dir(&home, &alpha.work, &["check", "--no-input"]).code, 2);
    }
    let stats = in_dir(&home, &alpha.work, &["stats", "--json"]).json();
    assert_eq!(stats["checks"]["runs"], 3, "{stats}");
    let text = in_dir(&home, &alpha.work, &["stats"]).stdout;
    assert!(
        text.contains("3 checks") && !text.contains("no decisions"),
        "{text}"
    );
    let log = in_dir(&home, &alpha.work, &["log"]).stdout;
    assert_eq!(log.lines().count(), 1 + 3, "{log}");
    // A gated push in beta: not alpha's.
    let gate = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(
            &beta.work,
            "git push origin main",
            false,
            None,
        ))
        .output();
    assert_eq!(gate.code, 0);
    assert_eq!(
        in_dir(&home, &alpha.work, &["log"]).stdout.lines().count(),
        4
    );
    let beta_log = in_dir(&home, &beta.work.join("."), &["log"]).stdout;
    let lines: Vec<&str> = beta_log.lines().collect();
    assert_eq!(lines.len(), 2, "{beta_log}");
    // The gate's classes lead the text; the judges column holds judges only.
    assert_eq!(cell(lines[0], lines[1], "judges woken"), "-", "{beta_log}");
    assert!(lines[1].contains("push:") && lines[1].contains("git push origin main"));
    let beta_stats = in_dir(&home, &beta.work, &["stats", "--json"]).json();
    assert_eq!(
        (
            beta_stats["gate"]["commands"].as_u64(),
            beta_stats["checks"]["runs"].as_u64()
        ),
        (Some(1), Some(0))
    );
    // Everything, from anywhere, or one repository named from outside.
    let all = in_dir(&home, &alpha.work, &["log", "--repo", "all"]).stdout;
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 5, "{all}");
    let repos: Vec<&str> = lines[1..]
        .iter()
        .map(|l| cell(lines[0], l, "repository"))
        .collect();
    assert_eq!(repos, ["alpha", "alpha", "alpha", "beta"]);
    let named = in_dir(
        &home,
        &home.work(),
        &["log", "--repo", beta.work.to_str().unwrap()],
    )
    .stdout;
    assert_eq!(named.lines().count(), 2, "{named}");
    assert_eq!(
        in_dir(&home, &home.work(), &["log"]).stdout.lines().count(),
        5
    );
}

#[test]
fn an_unknown_judge_is_an_error_listing_the_judges() {
    let home = Home::new();
    let out = in_dir(&home, &home.work(), &["log", "--judge", "comit"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.contains("there is no judge `comit`") && out.stderr.contains("commit"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean `--judge commit`?"),
        "{}",
        out.stderr
    );
    assert_eq!(
        in_dir(&home, &home.work(), &["log", "--judge", "commit"]).code,
        0
    );
}

#[test]
fn a_stop_without_cwd_is_logged_for_the_repository_it_runs_in() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "alpha");
    let mut stop = home
        .cmd(&["stop", "--agent", "claude"])
        .stdin(r#"{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"Done."}"#);
    stop.command.current_dir(&repo.work);
    assert_eq!(stop.output().code, 0);
    let log = in_dir(&home, &repo.work, &["log"]).stdout;
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(log.contains("Done."), "{log}");
}

#[test]
fn log_tells_an_approved_push_and_a_push_with_nothing_to_publish_from_a_plain_allow() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("b.txt", "two\n", "add b");
    let gate = || {
        home.cmd(&["gate", "--agent", "codex"])
            .stdin(pre_tool_use(&repo.work, "git push origin main", true, None))
            .output()
    };
    // Held back for a person (logged as an ask; Codex is told to stop), approved, let through.
    assert_eq!(
        gate().json()["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let mut approve = home.cmd(&["approve"]);
    approve.command.current_dir(&repo.work);
    let approved = approve.on_terminal("y\n");
    assert!(approved.stdout.contains("approved"), "{}", approved.stdout);
    assert_eq!(gate().stdout, "", "the approved push runs");
    // Pushed: the same command now publishes nothing.
    crate::gate_repo::git(&repo.work, &["push", "-q", "origin", "main"]);
    assert_eq!(gate().stdout, "", "nothing to publish");

    let log = in_dir(&home, &repo.work, &["log"]).stdout;
    let texts: Vec<&str> = log
        .lines()
        .skip(1)
        .filter_map(|row| {
            row.split("  ")
                .map(str::trim)
                .find(|c| c.starts_with("push:"))
        })
        .collect();
    assert_eq!(
        texts,
        [
            "push:ask git push origin main",
            "push:allow (approved) git push origin main",
            "push:allow (nothing to push) git push origin main",
        ],
        "{log}"
    );
}
