//! What hookjudge prints for a person fits the terminal: with `COLUMNS=80`, `install-extras`'s
//! closing hint, `init`'s summary and notes, `doctor`, `approve`'s question (the reason a
//! command was held back) and `uninstall`'s question and summary wrap at word boundaries. Only
//! a token that cannot be broken (a path, a command in backticks, a JSON snippet) may stand
//! longer, on a line of its own.

use std::path::Path;

use crate::gate_repo::{GitFixture, pre_tool_use};
use crate::harness::{Home, Outcome};

const WIDTH: &str = "80";

/// `PATH` with only the system's directories: no agent CLI of the test machine.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// How many tokens `line` has: runs of text between spaces, a `quoted command` being one.
fn tokens(line: &str) -> usize {
    let mut count = 0;
    let mut in_code = false;
    let mut in_token = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        }
        let space = c == ' ' && !in_code;
        if !space && !in_token {
            count += 1;
        }
        in_token = !space;
    }
    count
}

/// Every line of `output` is at most 80 columns wide, or is one token that cannot be broken.
#[track_caller]
fn assert_fits(what: &str, output: &str) {
    let width: usize = WIDTH.parse().unwrap();
    for line in output.lines().map(|l| l.trim_end_matches('\r')) {
        let columns = hookjudge::support::term::display_width(line);
        assert!(
            columns <= width || tokens(line.trim()) == 1,
            "{what}: a line of {columns} columns, wider than {width} and breakable:\n{line}\n\n\
             whole output:\n{output}"
        );
    }
}

/// `hookjudge ARGS` in `dir` on an 80-column terminal (not a real one: output to a pipe).
fn narrow(home: &Home, dir: &Path, args: &[&str]) -> Outcome {
    let mut run = home
        .cmd(args)
        .env("PATH", SYSTEM_PATH)
        .env("COLUMNS", WIDTH);
    run.command.current_dir(dir);
    let out = run.output();
    assert_ne!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
    out
}

/// `hookjudge ARGS` in `dir` as a person at an 80-column terminal, answering `y`.
fn narrow_person(home: &Home, dir: &Path, args: &[&str]) -> Outcome {
    let mut run = home
        .cmd(args)
        .env("PATH", SYSTEM_PATH)
        .env("COLUMNS", WIDTH);
    run.command.current_dir(dir);
    let mut out = run.on_terminal("y\n");
    // The answer was typed ahead, so the screen does not echo it after the question: what
    // follows the question starts on its line, as it would not on a person's terminal.
    out.stdout = out.stdout.replace("[y/N] ", "[y/N]\n");
    out
}

#[test]
fn messages_for_a_person_fit_80_columns() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);

    // The files it wrote are listed one a line; the closing hint is wrapped.
    let prefix = home.path().join("prefix");
    let extras = narrow(
        &home,
        &home.work(),
        &["install-extras", "--prefix", prefix.to_str().unwrap()],
    );
    assert!(extras.stdout.contains("MANPATH"), "{}", extras.stdout);
    assert_fits("install-extras", &extras.stdout);

    // No agent folder (a note says which agent init chose) and no LLM (the `next:` line).
    let repo = GitFixture::new(home.path(), "a-repository-with-a-long-name");
    let init = narrow(&home, &repo.work, &["init"]);
    assert!(
        init.stdout.contains("note: no agent folder"),
        "{}",
        init.stdout
    );
    assert!(
        init.stdout.contains("next: no LLM provider"),
        "{}",
        init.stdout
    );
    assert_fits("init", &init.stdout);
    let codex = narrow(&home, &repo.work, &["init", "--agent", "codex"]);
    assert!(codex.stdout.contains("note: Codex"), "{}", codex.stdout);
    assert_fits("init --agent codex", &codex.stdout);

    let doctor = narrow(&home, &repo.work, &["doctor"]);
    assert_fits("doctor", &doctor.stdout);

    // A push Codex cannot ask about waits for `hookjudge approve`, which shows why.
    repo.commit("b.txt", "two\n", "add b");
    let held = home
        .cmd(&["gate", "--agent", "codex"])
        .stdin(pre_tool_use(&repo.work, "git push origin main", true, None))
        .output();
    assert_eq!(
        held.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{}",
        held.stdout
    );
    let approve = narrow_person(&home, &repo.work, &["approve"]);
    assert!(
        approve.stdout.contains("held back because:"),
        "{}{}",
        approve.stdout,
        approve.stderr
    );
    assert!(
        approve.stdout.contains("approved `git push origin main`"),
        "{}",
        approve.stdout
    );
    assert_fits("approve", &approve.stdout);

    let uninstall = narrow_person(&home, &repo.work, &["uninstall"]);
    assert!(
        uninstall.stdout.contains("Remove them"),
        "{}{}",
        uninstall.stdout,
        uninstall.stderr
    );
    assert_fits("uninstall", &uninstall.stdout);
}
