//! A newcomer's first day, each step as the README tells it: `doctor --online` sends the Stop
//! hook's own combined question (so a `command` script written for the README's contract
//! passes) and names the setting of that provider kind; the README's denied push is what the
//! gate says; `uninstall --dry-run` names exactly what `uninstall` changes; `init` says which
//! agent it chose when no agent's folder tells it; `doctor` exits 0 with no LLM (a warning) and
//! shows the boundary of the agents it is installed for only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, pre_tool_use};
use crate::harness::{
    Home, answer_for_every_judge, assistant_line, claude_stop, judges_in_prompt, user_line,
};

/// `PATH` with only the system's directories: no `claude`, no `codex` of the test machine.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// `hookjudge ARGS` run in `dir`.
fn run_in(home: &Home, dir: &Path, args: &[&str]) -> crate::harness::Outcome {
    let mut run = home.cmd(args).env("PATH", SYSTEM_PATH);
    run.command.current_dir(dir);
    run.output()
}

fn named<'a>(checks: &'a [Value], name: &str) -> &'a Value {
    checks
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` check in {checks:?}"))
}

/// A `command` provider written for the README's contract: it keeps the prompt it was given
/// in `prompt_file` and prints one member per built-in response judge, every field false.
fn readme_command_provider(home: &Home, prompt_file: &Path) -> String {
    let script = home.path().join("my-judge.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > '{}'\nprintf '%s' '{}'\n",
            prompt_file.display(),
            answer_for_every_judge("{}")
        ),
    )
    .unwrap();
    json!({"llm": {"provider": "command", "command": ["sh", script.to_str().unwrap()]}}).to_string()
}

#[test]
fn doctor_online_sends_the_stop_hooks_combined_question() {
    let home = Home::new();
    let prompt_file = home.path().join("prompt.txt");
    home.user_config(&readme_command_provider(&home, &prompt_file));
    // The hook itself, in a session: one combined call, every judge answered, nothing failed.
    let last = "The refactor is done. I'll push to main now.";
    let transcript = home.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        format!(
            "{}\n{}\n",
            user_line("refactor the parser"),
            assistant_line("a1", last)
        ),
    )
    .unwrap();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop("s", &transcript, last, false))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let record = home.last_log();
    let failed: Vec<&Value> = record["judges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["verdict"] == "fail")
        .collect();
    assert!(
        failed.is_empty(),
        "the hook failed with the script: {record}"
    );
    let hook_prompt = std::fs::read_to_string(&prompt_file).unwrap();
    let hook_judges = judges_in_prompt(&hook_prompt);
    assert!(hook_judges.len() > 1, "{hook_prompt}");
    // The README names the prompt's line that spells out the answer's shape.
    let readme = readme();
    let shape_line = readme
        .split("the prompt's line starting `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .expect("the README names the line of the prompt that gives the answer's shape");
    assert!(
        hook_prompt.lines().any(|l| l.starts_with(shape_line)),
        "no line of the prompt starts with `{shape_line}`:\n{hook_prompt}"
    );
    std::fs::remove_file(&prompt_file).unwrap();

    // `doctor --online` sends the same question, and the script passes.
    let out = run_in(&home, &home.work(), &["doctor", "--json", "--online"]);
    let checks = out.json()["checks"].as_array().unwrap().clone();
    let call = named(&checks, "llm call");
    assert_eq!(call["ok"], true, "{call}");
    let detail = call["detail"].as_str().unwrap();
    assert!(detail.starts_with("command answered in "), "{detail}");
    assert!(
        detail.contains(&format!("{} judges in 1 call", hook_judges.len())),
        "{detail}"
    );
    let doctor_prompt = std::fs::read_to_string(&prompt_file).unwrap();
    assert_eq!(judges_in_prompt(&doctor_prompt), hook_judges);

    // A script that fails: the fix names `llm.command`, not an HTTP setting.
    home.user_config(
        &json!({"llm": {"provider": "command", "command": ["sh", "-c", "cat >/dev/null; echo 'not json'"]}})
            .to_string(),
    );
    let out = run_in(&home, &home.work(), &["doctor", "--json", "--online"]);
    let checks = out.json()["checks"].as_array().unwrap().clone();
    let call = named(&checks, "llm call");
    assert_eq!(call["ok"], false, "{call}");
    let fix = call["fix"].as_str().unwrap();
    assert!(fix.contains("`llm.command`"), "{fix}");
    assert!(!fix.contains("llm.base_url"), "{fix}");
    assert_eq!(out.code, 1);
}

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The README's example of a denied command, from the block after its introduction.
fn readme_denied_example() -> String {
    let readme = readme();
    let after = readme
        .split("A denied command comes back to the agent as the tool's error:")
        .nth(1)
        .expect("the README shows a denied command");
    let block = after.split("```").nth(1).expect("a code block");
    block.trim().to_owned()
}

/// Commit ids and temp paths replaced, so that two runs of the same story compare equal.
fn normalised(text: &str) -> String {
    let ids = regex::Regex::new(r"\b[0-9a-f]{7,40}\b").unwrap();
    ids.replace_all(text, "ID").into_owned()
}

#[test]
fn the_readmes_denied_push_is_what_the_gate_says() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    std::fs::create_dir_all(repo.work.join("src")).unwrap();
    std::fs::create_dir_all(repo.work.join("tests")).unwrap();
    repo.commit("src/parser.rs", "fn parse() {}\n", "fix parser");
    repo.commit(
        "tests/parser.rs",
        "#[test] fn parses() {}\n",
        "add a parser test",
    );
    // The session: the parser edited, then the tests run and failing.
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "fix the parser and push"}}),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "1", "name": "Edit", "input": {"file_path": repo.work.join("src/parser.rs")}}]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "1", "is_error": false, "content": "ok"}]}, "toolUseResult": {}}),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "2", "name": "Bash", "input": {"command": "cargo test"}}]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "2", "is_error": true, "content": "Exit code 101\ntest result: FAILED. 3 passed; 1 failed"}]}, "toolUseResult": {}}),
    ];
    let transcript = home.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        lines
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )
    .unwrap();
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(
            &repo.work,
            "git push",
            false,
            Some(&transcript),
        ))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    let decision = &v["hookSpecificOutput"]["permissionDecision"];
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(decision, "deny", "{reason}");
    assert_eq!(
        normalised(&readme_denied_example()),
        normalised(reason),
        "the README's example and the gate's answer differ"
    );
}

/// Every file under `dir` (the repository's `.git/objects` aside) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.ends_with(".git/objects") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap().to_path_buf();
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn uninstall_dry_run_names_exactly_what_uninstall_changes() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    let init = run_in(&home, &repo.work, &["init"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(repo.work.join(".hookjudge/schema.json").is_file());
    let before = snapshot(&repo.work);

    let dry = run_in(&home, &repo.work, &["uninstall", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(snapshot(&repo.work), before, "a dry run changes nothing");
    // `# would be removed    NAME  (…; backup `B` removed with it)`
    let line = regex::Regex::new(r"^# would be \w+ +(\S+)  \((.*)\)$").unwrap();
    let backup = regex::Regex::new(r"`([^`]+\.hookjudge-backup[^`]*)`").unwrap();
    let mut named: Vec<PathBuf> = Vec::new();
    for l in dry.stdout.lines() {
        if let Some(c) = line.captures(l) {
            named.push(PathBuf::from(&c[1]));
            named.extend(backup.captures_iter(&c[2]).map(|b| PathBuf::from(&b[1])));
        }
    }
    named.sort();
    assert!(
        named.contains(&PathBuf::from(".hookjudge/schema.json")),
        "{}",
        dry.stdout
    );

    let mut real = home.cmd(&["uninstall"]).env("PATH", SYSTEM_PATH);
    real.command.current_dir(&repo.work);
    let done = real.on_terminal("y\n");
    assert!(
        done.stdout.contains("hookjudge uninstall:"),
        "{}",
        done.stdout
    );
    // Before the answer, the changes are named as what would happen, and what stays as kept.
    let (question, _) = done
        .stdout
        .split_once("Remove them")
        .unwrap_or_else(|| panic!("no question:\n{}", done.stdout));
    let past = ["removed ", "restored ", "updated "];
    assert!(
        !question
            .lines()
            .any(|l| past.iter().any(|p| l.trim_start().starts_with(p))),
        "{question}"
    );
    for would in [
        "  would remove  .hookjudge/schema.json",
        "  would restore .git/info/exclude",
    ] {
        assert!(question.contains(would), "{question}");
    }
    assert!(question.contains("`.hookjudge.json` is kept"), "{question}");
    let after = snapshot(&repo.work);
    let mut changed: Vec<PathBuf> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .cloned()
        .collect();
    changed.sort();
    changed.dedup();
    assert_eq!(
        named, changed,
        "the dry run names {named:?}; the real run changed {changed:?}\n{}",
        dry.stdout
    );
}

/// The line of `output` that starts with `start`, with the lines it was wrapped onto (those
/// indented under it) joined back.
fn wrapped_line(output: &str, start: &str) -> Option<String> {
    let mut lines = output.lines().skip_while(|l| !l.starts_with(start));
    let first = lines.next()?.to_owned();
    Some(
        lines
            .take_while(|l| l.starts_with(' '))
            .fold(first, |line, more| format!("{line} {}", more.trim_start())),
    )
}

#[test]
fn init_says_which_agent_it_chose_when_no_agent_folder_tells_it() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    let dry = run_in(&home, &repo.work, &["init", "--dry-run"]);
    assert!(
        dry.stdout
            .lines()
            .any(|l| l.starts_with("# note: no agent folder") && l.contains("--agent")),
        "{}",
        dry.stdout
    );
    let out = run_in(&home, &repo.work, &["init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let note = wrapped_line(&out.stdout, "note: no agent folder")
        .unwrap_or_else(|| panic!("init chose silently:\n{}", out.stdout));
    assert!(
        note.contains("`.claude`") && note.contains("`.codex`"),
        "{note}"
    );
    assert!(note.contains("Claude Code"), "{note}");
    assert!(note.contains("hookjudge init --agent codex"), "{note}");
    // With an agent's folder there, that agent is taken, and there is nothing to explain.
    let other = GitFixture::new(home.path(), "other");
    std::fs::create_dir_all(other.work.join(".codex")).unwrap();
    let out = run_in(&home, &other.work, &["init"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Codex CLI"), "{}", out.stdout);
    assert!(!out.stdout.contains("no agent folder"), "{}", out.stdout);
}

#[test]
fn doctor_without_an_llm_warns_exits_0_and_shows_installed_agents_only() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let init = run_in(&home, &repo.work, &["init", "--agent", "claude"]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    let out = run_in(&home, &repo.work, &["doctor", "--json"]);
    let checks = out.json()["checks"].as_array().unwrap().clone();
    let llm = named(&checks, "llm");
    assert_eq!(
        (llm["ok"].clone(), llm["warning"].clone()),
        (json!(true), json!(true)),
        "{llm}"
    );
    assert!(
        llm["fix"].as_str().unwrap().contains("`llm.provider`"),
        "{llm}"
    );
    let problems: Vec<&Value> = checks.iter().filter(|c| c["ok"] == false).collect();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(out.code, 0);
    let boundaries: Vec<&str> = checks
        .iter()
        .filter_map(|c| c["name"].as_str())
        .filter(|n| n.starts_with("boundary"))
        .collect();
    assert_eq!(boundaries, ["boundary (Claude Code)"]);
    // On screen: the warnings (no LLM, no boundary) are marked and the summary says nothing
    // is broken.
    let text = run_in(&home, &repo.work, &["doctor"]);
    assert_eq!(text.code, 0);
    assert!(text.stdout.contains("\n??  llm "), "{}", text.stdout);
    assert!(
        text.stdout.contains("\n??  boundary (Claude Code) "),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("nothing broken; 2 warning"),
        "{}",
        text.stdout
    );
    // A provider asked for and missing is broken: exit 1.
    home.user_config(r#"{"llm": {"provider": "command"}}"#);
    let broken = run_in(&home, &repo.work, &["doctor", "--json"]);
    assert_eq!(broken.code, 1, "{}", broken.stdout);
}

/// The README's "try a hook by hand" commands, as a person pastes them.
fn readme_hook_commands() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let after = readme
        .split("To try a hook by hand")
        .nth(1)
        .expect("the README shows how to feed a hook by hand");
    let block = after.split("```sh").nth(1).expect("a shell block");
    block.split("```").next().unwrap().to_owned()
}

#[test]
fn the_readmes_hooks_fed_by_hand_are_logged_for_the_repository() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(crate::harness::BIN, bin.join("hookjudge")).unwrap();
    let path = format!("{}:{SYSTEM_PATH}", bin.display());
    let mut sh = home.cmd(&[]).env("PATH", &path);
    sh.command = std::process::Command::new("sh");
    sh.command
        .args(["-c", &readme_hook_commands()])
        .current_dir(&repo.work)
        .env_clear()
        .env("PATH", &path)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"));
    let out = sh.output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Both hooks are this repository's: `log` and `stats` inside it show them.
    let log = run_in(&home, &repo.work, &["log"]);
    // The README's push has nothing to publish in a fresh clone, which the row says.
    assert!(
        log.stdout.contains("push:allow (nothing to"),
        "{}",
        log.stdout
    );
    assert!(
        log.stdout.contains("All done. I will commit"),
        "the Stop fed by hand is missing from the repository's log:\n{}",
        log.stdout
    );
    let stats = run_in(&home, &repo.work, &["stats"]);
    assert!(
        stats.stdout.starts_with("1 response judged")
            || stats.stdout.starts_with("1 responses judged"),
        "{}",
        stats.stdout
    );
}

/// The README's "Judges" table, as each built-in response judge's name and the fields its row
/// names.
fn readme_judges_table() -> BTreeMap<String, BTreeSet<String>> {
    let readme = readme();
    let section = readme
        .split("\n## Judges\n")
        .nth(1)
        .expect("the README has a Judges section")
        .to_owned();
    let code = regex::Regex::new(r"`([^`]+)`").unwrap();
    // The section's first table, its header and rule aside.
    section
        .lines()
        .skip_while(|l| !l.starts_with("| judge |"))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| l.starts_with("| `"))
        .map(|row| {
            let cells: Vec<&str> = row.split('|').collect();
            let name = code.captures(cells[1]).expect("a judge's name")[1].to_owned();
            let fields = code
                .captures_iter(cells[3])
                .map(|c| c[1].to_owned())
                .collect();
            (name, fields)
        })
        .collect()
}

#[test]
fn the_readmes_judges_table_names_every_field_each_judge_answers() {
    use hookjudge::judge::{Judge, Kind, builtin_specs};
    let mut table = readme_judges_table();
    for (name, spec) in builtin_specs() {
        let judge = Judge::from_spec(&name, &spec).unwrap().unwrap();
        if judge.kind != Kind::Response {
            continue;
        }
        let declared: BTreeSet<String> = judge.fields.iter().map(|f| f.name.clone()).collect();
        assert_eq!(
            table.remove(&name),
            Some(declared),
            "the README's Judges table and the fields `{name}` declares differ"
        );
    }
    assert!(table.is_empty(), "rows for no built-in judge: {table:?}");
}

#[test]
fn a_push_asked_about_because_no_llm_is_configured_says_so_in_the_log_and_stats() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("b.txt", "two\n", "add b");
    // The session edited a file and ran nothing: without an LLM no judge can read it.
    let transcript = home.path().join("session.jsonl");
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "add b and push"}}),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "1", "name": "Write", "input": {"file_path": repo.work.join("b.txt")}}]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "1", "is_error": false, "content": "ok"}]}, "toolUseResult": {}}),
    ];
    std::fs::write(
        &transcript,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    for session in [Some(transcript.as_path()), None] {
        let out = home
            .cmd(&["gate"])
            .stdin(pre_tool_use(
                &repo.work,
                "git push origin main",
                false,
                session,
            ))
            .output();
        assert_eq!(
            out.json()["hookSpecificOutput"]["permissionDecision"],
            "ask",
            "{}",
            out.stdout
        );
        assert_eq!(
            home.last_log()["rulings"][0]["decided_by"],
            "no-llm",
            "with session {session:?}"
        );
    }
    let stats = run_in(&home, &repo.work, &["stats"]);
    assert!(stats.stdout.contains("2 no-llm"), "{}", stats.stdout);
    assert!(!stats.stdout.contains("judge-failed"), "{}", stats.stdout);
    assert!(
        stats
            .stdout
            .contains("no-llm: no LLM provider is configured"),
        "{}",
        stats.stdout
    );
}
