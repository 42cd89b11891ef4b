//! `init`, `--dry-run`, `init` again and `uninstall` for the agents whose hooks live in hook
//! files of their own: Copilot CLI (`.github/hooks/hookjudge.json`, `timeoutSec`), Cursor
//! (`.cursor/hooks.json`), Crush (`crush.json`) and Cline (an executable
//! `.clinerules/hooks/PreToolUse`), in the local scope of a real repository holding the user's
//! own hooks and comments. The dry run's diff, applied by `patch`, gives the file `init` then
//! writes; `uninstall` gives back every byte; and the hook as installed, run by a real shell
//! on the agent's documented payload for `git push` with no test evidence, stops the push.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::gate_agents::{expected, payload, reference_reason};
use crate::gate_repo::GitFixture;
use crate::harness::Home;
use crate::install::{in_dir, read};

/// One agent's case: its file, the user's text there, and how to find our command in it.
struct Case {
    agent: &'static str,
    /// Relative to the repository root.
    file: &'static str,
    /// What the user had in the file before (`None`: no file of the user's at that path).
    user_text: Option<&'static str>,
    /// The event our gate entry is listed under, and the key holding its command.
    gate_event: &'static str,
    command_key: &'static str,
    /// A line the user's text keeps after `init`.
    kept: &'static str,
}

const COPILOT: &str = "{\n  // hooks of my own: hookjudge keeps them\n  \"version\": 1,\n  \"hooks\": {\n    \"sessionStart\": [ { \"type\": \"command\", \"bash\": \"echo started >> /tmp/copilot.log\" } ],\n    \"preToolUse\": [ { \"type\": \"command\", \"bash\": \"./scripts/audit.sh\", \"timeoutSec\": 5 } ]\n  }\n}\n";

const CURSOR: &str = "{\n  // mine: format after edits\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [ { \"command\": \"./hooks/format.sh\" } ],\n    \"beforeShellExecution\": [ { \"command\": \"./hooks/audit.sh\", \"timeout\": 5 } ]\n  }\n}\n";

const CRUSH: &str = "{\n  // Crush, as I like it\n  \"options\": { \"debug\": false },\n  \"hooks\": {\n    \"PreToolUse\": [\n      { \"name\": \"no-haskell\", \"matcher\": \"^bash$\", \"command\": \"./no-haskell.sh\", \"timeout\": 10, },\n    ],\n  },\n}\n";

/// Each agent's case.
fn case(agent: &str) -> Case {
    match agent {
        "copilot" => Case {
            agent: "copilot",
            file: ".github/hooks/hookjudge.json",
            user_text: Some(COPILOT),
            gate_event: "preToolUse",
            command_key: "bash",
            kept: "\"bash\": \"./scripts/audit.sh\"",
        },
        "cursor" => Case {
            agent: "cursor",
            file: ".cursor/hooks.json",
            user_text: Some(CURSOR),
            gate_event: "beforeShellExecution",
            command_key: "command",
            kept: "// mine: format after edits",
        },
        "crush" => Case {
            agent: "crush",
            file: "crush.json",
            user_text: Some(CRUSH),
            gate_event: "PreToolUse",
            command_key: "command",
            kept: "\"name\": \"no-haskell\"",
        },
        "cline" => Case {
            agent: "cline",
            file: ".clinerules/hooks/PreToolUse",
            user_text: None,
            gate_event: "",
            command_key: "",
            kept: "",
        },
        other => panic!("no case for {other}"),
    }
}

/// Applies a dry run's diff in `dir` with the real `patch`.
fn patch(dir: &Path, diff: &str) {
    use std::io::Write;
    let mut child = Command::new("patch")
        .args(["-p1", "--batch", "--silent"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(diff.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "patch failed: {}{}\n{diff}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A JSON-with-comments file read as plain JSON (line comments and trailing commas dropped;
/// the texts here have no `//` inside strings but the ones in URLs, which they do not use).
fn json_of(text: &str) -> Value {
    let no_comments: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut cleaned = String::new();
    let chars: Vec<char> = no_comments.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        cleaned.push(*c);
    }
    serde_json::from_str(&cleaned).unwrap_or_else(|e| panic!("{e}:\n{cleaned}"))
}

/// Runs the hook as the agent would, with `stdin`: Cline's file as a program, the others'
/// command through a shell.
fn run_hook(home: &Home, case: &Case, path: &Path, stdin: &Value) -> String {
    let out = if case.agent == "cline" {
        home.cmd_of(path, &[]).stdin(stdin.to_string()).output()
    } else {
        let v = json_of(&read(path));
        let ours = v["hooks"][case.gate_event]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|h| {
                h[case.command_key]
                    .as_str()
                    .filter(|c| c.contains("hookjudge"))
            })
            .unwrap_or_else(|| panic!("{}: no entry of ours in {v}", case.agent))
            .to_owned();
        home.cmd_of(Path::new("/bin/sh"), &["-c", &ours])
            .stdin(stdin.to_string())
            .output()
    };
    assert_eq!(out.code, 0, "{}: {}", case.agent, out.stderr);
    out.stdout
}

fn install_and_undo(case: &Case) {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "change a");
    let path: PathBuf = repo.work.join(case.file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if let Some(text) = case.user_text {
        std::fs::write(&path, text).unwrap();
    }
    // A hook file of the user's own beside ours is never touched.
    let sibling = path.with_file_name(if case.agent == "cline" {
        "TaskStart"
    } else {
        "mine.json"
    });
    std::fs::write(&sibling, "#!/bin/sh\necho '{}'\n").unwrap();
    let exclude = repo.work.join(".git/info/exclude");
    let exclude_before = std::fs::read_to_string(&exclude).ok();
    let args = ["init", "--agent", case.agent, "--scope", "local"];

    // The dry run writes nothing; its diff, applied to a copy, is what `init` writes.
    let dry = in_dir(&home, &repo.work, &[&args[..], &["--dry-run"]].concat());
    assert_eq!(dry.code, 0, "{}: {}", case.agent, dry.stderr);
    assert!(
        dry.stdout.contains(&format!("+++ b/{}\n", case.file)),
        "{}",
        dry.stdout
    );
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        case.user_text
    );
    let copy = home.path().join("copy");
    for (rel, text) in [
        (case.file, case.user_text.map(str::to_owned)),
        (".git/info/exclude", exclude_before.clone()),
    ] {
        if let Some(text) = text {
            let p = copy.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }
    std::fs::create_dir_all(&copy).unwrap();
    patch(&copy, &dry.stdout);

    let out = in_dir(&home, &repo.work, &args);
    assert_eq!(out.code, 0, "{}: {}", case.agent, out.stderr);
    let once = read(&path);
    assert_eq!(
        read(&copy.join(case.file)),
        once,
        "{}: the dry run's diff",
        case.agent
    );
    assert_eq!(read(&copy.join(".git/info/exclude")), read(&exclude));
    assert!(
        once.contains(&format!("gate --agent {} --hook-timeout ", case.agent)),
        "{once}"
    );
    if let Some(user) = case.user_text {
        // The user's text up to the hooks, their comment and their hook stay as they were.
        let head = &user[..user.find("\"hooks\"").unwrap()];
        assert!(once.starts_with(head), "{}:\n{once}", case.agent);
        assert!(once.contains(case.kept), "{}:\n{once}", case.agent);
        let v = json_of(&once);
        let gate = v["hooks"][case.gate_event].as_array().unwrap();
        assert_eq!(gate.len(), 2, "the user's entry and ours: {v}");
        assert!(
            !gate[0][case.command_key]
                .as_str()
                .unwrap()
                .contains("hookjudge")
        );
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o111, 0o111, "Cline runs the file as a program");
        }
    }
    // A local install's file names this machine's binary: git is told to ignore it.
    let excluded = read(&exclude);
    assert!(
        excluded.lines().any(|l| l == format!("/{}", case.file)),
        "{excluded}"
    );
    assert!(out.stdout.contains(case.file), "{}", out.stdout);

    // The hook as installed stops a push with no test evidence, in the agent's own answer.
    let reason = reference_reason(&home, &repo);
    let stdin = payload(case.agent, &repo.work, "git push origin main");
    let answer = run_hook(&home, case, &path, &stdin);
    assert_eq!(
        answer,
        format!("{}\n", expected(case.agent, &reason)),
        "{}",
        case.agent
    );

    let again = in_dir(&home, &repo.work, &args);
    assert!(again.stdout.contains("unchanged"), "{}", again.stdout);
    assert_eq!(
        read(&path),
        once,
        "{}: a second init changes nothing",
        case.agent
    );

    let doctor = in_dir(&home, &repo.work, &["doctor"]);
    let display = match case.agent {
        "copilot" => "Copilot CLI (",
        "cursor" => "Cursor (",
        "crush" => "Crush (",
        _ => "Cline (",
    };
    let line = doctor
        .stdout
        .lines()
        .find(|l| l.contains(display))
        .unwrap_or_else(|| panic!("{display} not in:\n{}", doctor.stdout));
    assert!(line.starts_with("ok"), "{line}");

    let out = in_dir(
        &home,
        &repo.work,
        &["uninstall", "--agent", case.agent, "--scope", "local"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        case.user_text,
        "{}: exact undo",
        case.agent
    );
    assert_eq!(read(&sibling), "#!/bin/sh\necho '{}'\n");
}

#[test]
fn copilot_init_dry_run_payload_and_exact_undo() {
    install_and_undo(&case("copilot"));
}

#[test]
fn cursor_init_dry_run_payload_and_exact_undo() {
    install_and_undo(&case("cursor"));
}

#[test]
fn crush_init_dry_run_payload_and_exact_undo() {
    install_and_undo(&case("crush"));
}

#[test]
fn cline_init_dry_run_payload_and_exact_undo() {
    install_and_undo(&case("cline"));
}

#[test]
fn a_cline_hook_of_the_users_own_is_never_overwritten() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let path = repo.work.join(".clinerules/hooks/PreToolUse");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mine = "#!/bin/sh\n# my own policy\necho '{\"cancel\":false}'\n";
    std::fs::write(&path, mine).unwrap();
    let out = in_dir(&home, &repo.work, &["init", "--agent", "cline"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("is not hookjudge's"), "{}", out.stderr);
    assert_eq!(read(&path), mine);
}

#[test]
fn fresh_hook_files_carry_the_version_their_agents_require() {
    // Copilot CLI rejects a hooks file whose `version` is bad (hooks-reference.md), and
    // Cursor's documented `hooks.json` starts with `"version": 1`; Crush's file has none.
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    for (agent, file) in [
        ("copilot", home.path().join(".copilot/hooks/hookjudge.json")),
        ("cursor", home.path().join(".cursor/hooks.json")),
        // Crush reads `$XDG_CONFIG_HOME/crush/`, which the harness points into the home.
        ("crush", home.path().join("config/crush/crush.json")),
    ] {
        let out = in_dir(
            &home,
            &repo.work,
            &["init", "--agent", agent, "--scope", "user"],
        );
        assert_eq!(out.code, 0, "{agent}: {}", out.stderr);
        let v: Value = serde_json::from_str(&read(&file)).unwrap();
        let want = if agent == "crush" {
            Value::Null
        } else {
            Value::from(1)
        };
        assert_eq!(v["version"], want, "{agent}: {v}");
        let out = in_dir(
            &home,
            &repo.work,
            &["uninstall", "--agent", agent, "--scope", "user"],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            !file.exists(),
            "{agent}: a file init created goes with uninstall"
        );
    }
}
