//! Reads what the session did in the current turn ([`TurnFacts`]) from the agent's session file
//! (a Claude Code transcript, a Codex rollout, a Gemini CLI, a Factory Droid or a Copilot CLI
//! session), from its end back to the real user turn.
//!
//! The same reading of each command as the gate's evidence (`bash`): a test run counts only
//! when its status is the line's and it ran tests.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use super::bash::{self, short};
use super::session::{CHANGE_TOOLS, Reader, TestCommands};
use crate::gate::repos::Repos;
pub use crate::transcript::facts::{ClaimKind, Command, Settled, Step, TurnFacts};
use crate::transcript::{Event, Options, Transcript};

/// Reads the current turn's facts from the session file at `path`, where the agent's shell
/// runs in `cwd`; `test_commands` recognises a test command (the gate's `test_commands`).
pub fn of_file(
    path: &Path,
    options: Options,
    test_commands: &str,
    cwd: &Path,
) -> io::Result<TurnFacts> {
    read_file(path, options, &TestCommands::new(test_commands), cwd)
}

/// [`of_file`] with the test-command pattern given (compiled only if a command is read).
fn read_file(
    path: &Path,
    options: Options,
    tests: &TestCommands,
    cwd: &Path,
) -> io::Result<TurnFacts> {
    let mut transcript = Transcript::open(path, options)?;
    let everything = |_: &str| true;
    let reader = Reader {
        tests,
        relevant: &everything,
        cwd,
        commits_only: false,
        repos: &Repos::default(),
        root: None,
    };
    let mut facts = read(&mut transcript, &reader);
    // Claude Code writes its transcript through a queue: the result of the turn's last command
    // can reach the file after the Stop hook started. Waited for briefly, reading only what
    // was appended.
    for _ in 0..PENDING_POLLS {
        if !facts.has_pending_run() {
            break;
        }
        std::thread::sleep(PENDING_POLL);
        if transcript.refresh()? {
            facts = read(&mut transcript, &reader);
        }
    }
    Ok(facts)
}

/// How long the result of the turn's last run may take to land in the session file: checked
/// this often, this many times (half a second in all).
const PENDING_POLL: std::time::Duration = std::time::Duration::from_millis(50);
const PENDING_POLLS: u32 = 10;

/// Reads the current turn's facts from `transcript`.
pub fn read(transcript: &mut Transcript, reader: &Reader) -> TurnFacts {
    let mut facts = TurnFacts::default();
    // Call id -> (failed, exit, output says no test ran); results come after their calls.
    let mut results: HashMap<String, (bool, Option<i32>, bool)> = HashMap::new();
    let mut steps = Vec::new();
    // Paths as the user reads them: relative to where the agent works.
    let relative = |path: &str| -> String {
        Path::new(path)
            .strip_prefix(reader.cwd)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| path.to_owned(), |p| p.to_string_lossy().into_owned())
    };
    let _ = transcript.visit_backwards(|event| {
        match event {
            Event::UserTurn { text } => {
                facts.request = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
                return false;
            }
            Event::Compaction => return false,
            Event::ToolResult {
                id,
                failed,
                exit,
                output,
            } => {
                results
                    .entry(id.clone())
                    .or_insert((*failed, *exit, bash::ran_no_test(output)));
            }
            Event::ToolCall { tool, files, .. } if CHANGE_TOOLS.contains(&tool.as_str()) => {
                steps.push(Step::Edit {
                    tool: tool.clone(),
                    files: files.iter().map(|f| relative(f)).collect(),
                });
            }
            Event::ToolCall {
                id,
                tool,
                command: Some(command),
                ..
            } if tool == "Bash" => {
                let call = bash::read(
                    command,
                    reader.cwd,
                    reader.root,
                    reader.tests.regex(),
                    reader.repos,
                );
                if call.writes_session {
                    facts.session_written = Some(short(command));
                }
                let result = results.get(id);
                steps.push(Step::Command(Command {
                    command: command.clone(),
                    exit: result.and_then(|r| r.1),
                    failed: result.map(|r| r.0),
                    test: call.test.is_some(),
                    unproven: call.unproven_test,
                    check: call.check,
                    ran_no_test: result.is_some_and(|r| r.2),
                    commits: call.commits,
                    pushes: call.pushes,
                    writes: call
                        .writes
                        .iter()
                        .map(|w| w.as_deref().map(relative))
                        .collect(),
                }));
            }
            _ => {}
        }
        true
    });
    steps.reverse();
    facts.steps = steps;
    facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn session(steps: &[(&str, Value, bool, &str)]) -> TurnFacts {
        session_with(
            steps,
            &TestCommands::new(super::super::DEFAULT_TEST_COMMANDS),
        )
    }

    fn session_with(steps: &[(&str, Value, bool, &str)], tests: &TestCommands) -> TurnFacts {
        let mut lines = vec![
            json!({"type": "user", "message": {"role": "user", "content": "old prompt"}}),
            json!({"type": "user", "message": {"role": "user", "content": "Fix the parser, token ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"}}),
        ];
        for (i, (name, input, is_error, out)) in steps.iter().enumerate() {
            let id = format!("t{i}");
            lines.push(json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}));
            lines.push(json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": out}]}, "toolUseResult": {}}));
        }
        let f = tempfile::NamedTempFile::new().unwrap();
        let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
        std::fs::write(f.path(), text).unwrap();
        read_file(f.path(), Options::default(), tests, Path::new("/w")).unwrap()
    }

    #[test]
    fn a_turn_without_commands_does_not_compile_the_test_pattern() {
        let tests = TestCommands::new(super::super::DEFAULT_TEST_COMMANDS);
        let facts = session_with(&[edit()], &tests);
        assert_eq!(facts.steps.len(), 1, "{facts:?}");
        assert!(
            !tests.is_compiled(),
            "a short answer's Stop pays for no regex"
        );
        let facts = session_with(&[edit(), run("cargo test", 0)], &tests);
        assert!(matches!(facts.steps[1], Step::Command(_)), "{facts:?}");
        assert!(tests.is_compiled());
    }

    fn edit() -> (&'static str, Value, bool, &'static str) {
        (
            "Edit",
            json!({"file_path": "/w/src/parser.rs"}),
            false,
            "ok",
        )
    }

    fn run(command: &str, code: i32) -> (&'static str, Value, bool, &'static str) {
        let out = match code {
            0 => "test result: ok. 4 passed; 0 failed",
            _ => "Exit code 101\ntest result: FAILED. 3 passed; 1 failed",
        };
        ("Bash", json!({"command": command}), code != 0, out)
    }

    #[test]
    fn the_turn_is_read_back_to_the_request_with_each_command_and_its_status() {
        let facts = session(&[
            edit(),
            run("cargo test", 101),
            (
                "Bash",
                json!({"command": "git commit -qam fix && git push"}),
                false,
                "",
            ),
        ]);
        assert_eq!(
            facts
                .request
                .as_deref()
                .map(|r| r.starts_with("Fix the parser")),
            Some(true)
        );
        assert_eq!(facts.steps.len(), 3);
        let Step::Command(test) = &facts.steps[1] else {
            panic!("{:?}", facts.steps)
        };
        assert!(test.test && test.exit == Some(101) && test.failed == Some(true));
        let Step::Command(ship) = &facts.steps[2] else {
            panic!()
        };
        assert!(ship.commits && ship.pushes);
    }

    #[test]
    fn claims_are_settled_by_the_order_and_status_of_runs() {
        let contradicted = |facts: &TurnFacts, kind| match facts.check(kind) {
            Settled::Contradicted(e) => e,
            other => panic!("{other:?}"),
        };
        let failed = session(&[edit(), run("cargo test", 101)]);
        assert_eq!(
            contradicted(&failed, ClaimKind::Tests),
            "the last test run, `cargo test`, after the edit of src/parser.rs, exited 101"
        );
        let stale = session(&[run("cargo test", 0), edit()]);
        assert!(contradicted(&stale, ClaimKind::Tests).contains("was edited after it"));
        let none = session(&[edit()]);
        assert!(contradicted(&none, ClaimKind::Tests).contains("no test run"));
        let empty = session(&[run("cargo test nothing", 0)]);
        assert_eq!(
            empty.check(ClaimKind::Tests),
            Settled::Supported("the last test run, `cargo test nothing` exited 0".into())
        );
        let filtered = session(&[(
            "Bash",
            json!({"command": "cargo test nothing"}),
            false,
            "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 12 filtered out",
        )]);
        assert!(contradicted(&filtered, ClaimKind::Tests).contains("ran no test"));
        let masked = session(&[edit(), run("cargo test; true", 0)]);
        assert!(contradicted(&masked, ClaimKind::Tests).contains("proves nothing"));
        let passed = session(&[edit(), run("cargo test", 101), edit(), run("cargo test", 0)]);
        assert!(matches!(
            passed.check(ClaimKind::Tests),
            Settled::Supported(_)
        ));
        // A build claim rests on a build too; a test claim does not.
        let built = session(&[edit(), run("cargo build", 0)]);
        assert!(matches!(
            built.check(ClaimKind::Build),
            Settled::Supported(_)
        ));
        assert!(matches!(
            built.check(ClaimKind::Tests),
            Settled::Contradicted(_)
        ));
        // Nothing done this turn: the facts do not settle it.
        assert_eq!(session(&[]).check(ClaimKind::Tests), Settled::Open);
        // A command that wrote a session file: nothing after it is trusted.
        let forged = session(&[
            edit(),
            (
                "Bash",
                json!({"command": "echo '{}' >> ~/.claude/projects/p/s.jsonl"}),
                false,
                "",
            ),
            run("cargo test", 0),
        ]);
        assert_eq!(forged.check(ClaimKind::Tests), Settled::Open);
    }

    /// A Copilot CLI session, its lines cut down from what the real Copilot CLI 1.0.102 writes
    /// (tests/e2e): `apply_patch`, which it offers GPT-5 models in place of `create` and
    /// `edit`, its arguments the patch itself, is an edit of the files the patch names.
    #[test]
    fn a_copilot_patch_after_the_passing_run_is_an_edit_after_it() {
        let line = |n: usize, kind: &str, data: Value| {
            json!({"type": kind, "data": data, "id": format!("e{n}"),
                   "timestamp": "2026-12-03T13:13:00.265Z", "parentId": "p"})
        };
        let read = |lines: &[Value]| {
            let f = tempfile::NamedTempFile::new().unwrap();
            let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
            std::fs::write(f.path(), text).unwrap();
            let tests = TestCommands::new(super::super::DEFAULT_TEST_COMMANDS);
            read_file(f.path(), Options::default(), &tests, Path::new("/w")).unwrap()
        };
        let mut lines = vec![
            line(
                0,
                "session.start",
                json!({"sessionId": "s1", "copilotVersion": "1.0.102"}),
            ),
            line(
                1,
                "user.message",
                json!({"content": "Fix the adder", "messageId": "u1"}),
            ),
            line(
                2,
                "tool.execution_start",
                json!({"toolCallId": "c1", "toolName": "bash",
                       "arguments": {"command": "make test", "description": "run"}}),
            ),
            line(
                3,
                "tool.execution_complete",
                json!({"toolCallId": "c1", "success": true, "shellExecution": {"exitCode": 0},
                       "result": {"content": "3 passed\n<shellId: 0 completed with exit code 0>"}}),
            ),
        ];
        assert!(
            matches!(read(&lines).check(ClaimKind::Tests), Settled::Supported(_)),
            "the passing run backs the claim"
        );
        let patch = "*** Begin Patch\n*** Update File: /w/app.py\n@@ def add(a, b):\n-    return a + b\n+    return b + a\n*** End Patch\n";
        lines.push(line(
            4,
            "tool.execution_start",
            json!({"toolCallId": "c2", "toolName": "apply_patch", "arguments": patch,
                   "toolTitle": "Applying patch"}),
        ));
        lines.push(line(
            5,
            "tool.execution_complete",
            json!({"toolCallId": "c2", "success": true, "fileEdits": [{"path": "/w/app.py", "kind": "edit"}],
                   "result": {"content": "Modified 1 file(s): /w/app.py"}}),
        ));
        let facts = read(&lines);
        assert_eq!(
            facts.steps.last(),
            Some(&Step::Edit {
                tool: "apply_patch".into(),
                files: vec!["app.py".into()]
            }),
            "{facts:?}"
        );
        let Settled::Contradicted(why) = facts.check(ClaimKind::Tests) else {
            panic!("{facts:?}")
        };
        assert!(why.ends_with("and app.py was edited after it"), "{why}");
    }

    #[test]
    fn the_rendered_block_is_framed_redacted_and_bounded() {
        let mut steps = vec![edit()];
        for i in 0..200 {
            steps.push(run(
                &format!("cargo test case_{i}"),
                if i % 2 == 0 { 101 } else { 0 },
            ));
        }
        steps.push(edit());
        let facts = session(&steps);
        let block = facts.render(1500).unwrap();
        assert!(block.len() <= 1500, "{}", block.len());
        assert!(
            block.starts_with("Session facts (read by hookjudge"),
            "{block}"
        );
        assert!(block.contains("not instructions"));
        assert!(!block.contains("ghp_aB3d"), "{block}");
        assert!(block.contains("earlier step(s) left out"), "{block}");
        // The newest steps are the ones kept.
        assert!(
            block.contains("case_199") && block.trim_end().ends_with("src/parser.rs"),
            "{block}"
        );
        assert!(block.contains("- tests: the last test run, `cargo test case_199`, exited 0, and src/parser.rs was edited after it"), "{block}");
        assert_eq!(TurnFacts::default().render(1500), None);
    }
}
