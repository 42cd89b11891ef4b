//! Verification evidence: has the code been verified since its last change?
//!
//! Two kinds of proof are read without asking anyone: test artifacts (files that test runs
//! write) newer than the newest change, and a successful run of a recognised test command in the
//! session file (a Claude Code transcript, a Codex rollout or a Gemini CLI session, see
//! `evidence_gemini`) after the last file-changing tool call. When neither
//! decides, `recent_activity` gives the judge a short account of what happened last.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use super::evidence_gemini;
use super::facts::mtime_ms;
use crate::transcript::{self, Options};

/// Default artifact globs: files that test runs of common ecosystems write.
pub const DEFAULT_ARTIFACTS: [&str; 14] = [
    ".hookjudge/verified",
    "target/nextest/*/junit.xml",
    ".pytest_cache/v/cache/nodeids",
    ".pytest_cache/v/cache/lastfailed",
    "coverage.xml",
    "junit.xml",
    "coverage/lcov.info",
    "coverage/coverage-final.json",
    "test-results/.last-run.json",
    "coverage.out",
    "cover.out",
    "target/surefire-reports/*.xml",
    "build/test-results/test/*.xml",
    "reports/junit/*.xml",
];

/// Default test commands, as a regex over a shell command line.
pub const DEFAULT_TEST_COMMANDS: &str = r"(?:^|[\s;&|(])(?:cargo (?:test|nextest)|cargo make test|pytest|python3? -m pytest|(?:npm|pnpm|yarn|bun)(?: run)? test|npx (?:jest|vitest)|go test|mvn(?: \S+)* (?:test|verify)|(?:\./)?gradlew?(?: \S+)* (?:test|check)|make (?:test|check)|just test|tox|nox|jest|vitest|rspec|phpunit|ctest|deno test|dotnet test|mix test|swift test|zig build test)(?:\s|$|;|&|\|)";

/// Proof found, or why none was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Finding {
    /// An artifact newer than the newest change.
    FreshArtifact { path: PathBuf, age_ms: i64 },
    /// Artifacts exist but are older than the newest change.
    StaleArtifact {
        path: PathBuf,
        change_is_newer_by_ms: i64,
    },
    /// A successful test run after the last change, in the transcript.
    TestRunAfterChange { command: String },
    /// The last change came after the last successful test run (or no test ran).
    ChangeAfterTests {
        tool: String,
        last_test: Option<String>,
    },
    /// The latest test run has no result in the transcript yet (the agent may not have flushed
    /// it): inconclusive for now.
    TestRunPending { command: String },
    /// Nothing to go on.
    None,
}

impl Finding {
    pub fn is_fresh(&self) -> bool {
        matches!(
            self,
            Finding::FreshArtifact { .. } | Finding::TestRunAfterChange { .. }
        )
    }
}

/// The newest artifact matching `globs` under `root`, compared with `newest_change` (all times
/// in ms since the epoch).
pub fn artifacts(root: &Path, globs: &[String], newest_change: i64, now: i64) -> Finding {
    let newest = globs
        .iter()
        .flat_map(|g| super::glob::find(root, g))
        .filter_map(|p| mtime_ms(&p).map(|t| (p, t)))
        .max_by_key(|(_, t)| *t);
    match newest {
        Some((path, t)) if t > newest_change => Finding::FreshArtifact {
            path,
            age_ms: (now - t).max(0),
        },
        Some((path, t)) => Finding::StaleArtifact {
            path,
            change_is_newer_by_ms: newest_change - t,
        },
        None => Finding::None,
    }
}

/// Whether a repository-relative path is one of the artifacts (so not a change to the code).
/// A path inside an artifact's directory counts too (e.g. `.pytest_cache/...`). Called once per
/// index entry: the glob set is built once per list (see [`super::glob::covers`]).
pub fn is_artifact(rel_path: &str, globs: &[String]) -> bool {
    if rel_path.starts_with(".hookjudge/") {
        return true;
    }
    super::glob::covers(rel_path, globs)
}

/// Tools whose use changes files.
const CHANGE_TOOLS: [&str; 5] = ["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"];

/// What a session line says, in terms common to Claude Code transcripts, Codex rollouts and
/// Gemini CLI sessions.
pub(super) enum Event {
    /// A tool call: its id, tool name and shell command (if it is a shell call).
    Call {
        id: String,
        tool: String,
        command: Option<String>,
    },
    /// A tool result: the call's id and whether it failed.
    Result { id: String, failed: bool },
    /// Assistant text.
    Said(String),
    /// A real user prompt: where the current turn starts.
    Prompt(String),
}

/// A backward read of one session file, whichever agent wrote it.
#[derive(Default)]
struct SessionReader {
    gemini: evidence_gemini::Records,
}

impl SessionReader {
    /// The events of one line, in the order they happened; `None` once the lines before it no
    /// longer count (a Gemini session replaced its history there).
    fn events(&mut self, line: &Value) -> Option<Vec<Event>> {
        if evidence_gemini::is_record(line) {
            return self.gemini.events(line);
        }
        Some(events(line))
    }
}

/// The events of one Claude Code or Codex line, in the order they happened.
fn events(line: &Value) -> Vec<Event> {
    let mut out = Vec::new();
    match line["type"].as_str() {
        // Claude Code: one content block per line, tool results as user lines.
        Some("assistant") => {
            for block in line["message"]["content"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => out.extend(
                        block["text"]
                            .as_str()
                            .map(|t| Event::Said(t.trim().to_owned())),
                    ),
                    Some("tool_use") => out.push(Event::Call {
                        id: block["id"].as_str().unwrap_or("").to_owned(),
                        tool: block["name"].as_str().unwrap_or("").to_owned(),
                        command: block["input"]["command"].as_str().map(str::to_owned),
                    }),
                    _ => {}
                }
            }
        }
        Some("user") => match &line["message"]["content"] {
            Value::String(text) if line["isMeta"] != Value::Bool(true) => {
                out.push(Event::Prompt(text.clone()))
            }
            Value::Array(blocks) => {
                for block in blocks.iter().filter(|b| b["type"] == "tool_result") {
                    let interrupted = line["toolUseResult"]["interrupted"].as_bool() == Some(true);
                    out.push(Event::Result {
                        id: block["tool_use_id"].as_str().unwrap_or("").to_owned(),
                        failed: block["is_error"].as_bool() == Some(true) || interrupted,
                    });
                }
            }
            _ => {}
        },
        // Codex CLI rollout: response items.
        Some("response_item") => {
            let p = &line["payload"];
            match p["type"].as_str() {
                Some("function_call") | Some("custom_tool_call") => {
                    let args: Value = p["arguments"]
                        .as_str()
                        .and_then(|a| serde_json::from_str(a).ok())
                        .unwrap_or(Value::Null);
                    let command = match (&args["cmd"], &args["command"]) {
                        (Value::String(c), _) | (_, Value::String(c)) => Some(c.clone()),
                        (_, Value::Array(parts)) => Some(
                            parts
                                .iter()
                                .filter_map(Value::as_str)
                                .collect::<Vec<_>>()
                                .join(" "),
                        ),
                        _ => None,
                    };
                    let name = p["name"].as_str().unwrap_or("");
                    let tool = if matches!(name, "exec_command" | "shell" | "local_shell") {
                        "Bash"
                    } else {
                        name
                    };
                    out.push(Event::Call {
                        id: p["call_id"].as_str().unwrap_or("").to_owned(),
                        tool: tool.to_owned(),
                        command,
                    });
                }
                Some("function_call_output") | Some("custom_tool_call_output") => {
                    let output = p["output"].as_str().unwrap_or("");
                    let ok = output.contains("Process exited with code 0")
                        || output.contains("\"exit_code\":0");
                    out.push(Event::Result {
                        id: p["call_id"].as_str().unwrap_or("").to_owned(),
                        failed: !ok,
                    });
                }
                Some("message") if p["role"] == "assistant" => {
                    for c in p["content"].as_array().into_iter().flatten() {
                        out.extend(c["text"].as_str().map(|t| Event::Said(t.trim().to_owned())));
                    }
                }
                Some("message") if p["role"] == "user" => {
                    let text: String = p["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|c| c["text"].as_str())
                        .collect();
                    if !text.starts_with('<') {
                        out.push(Event::Prompt(text));
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
    out
}

/// Looks through a session transcript (Claude Code), rollout (Codex CLI) or session (Gemini
/// CLI), newest first, for a successful test run after the last file change.
pub fn transcript_tests(path: &Path, tests: &Regex, options: Options) -> Finding {
    // Call id -> failed, from results seen so far (results come after their calls).
    let mut results: Vec<(String, bool)> = Vec::new();
    let mut last_failed_test: Option<String> = None;
    let mut finding = Finding::None;
    let mut reader = SessionReader::default();
    let _ = transcript::visit_backwards(path, options, |line| {
        let Some(events) = reader.events(line) else {
            return false;
        };
        for event in events.into_iter().rev() {
            match event {
                Event::Result { id, failed } => results.push((id, failed)),
                Event::Call { tool, .. } if CHANGE_TOOLS.contains(&tool.as_str()) => {
                    finding = Finding::ChangeAfterTests {
                        tool,
                        last_test: last_failed_test.clone(),
                    };
                    return false;
                }
                Event::Call {
                    id,
                    tool,
                    command: Some(command),
                } if tool == "Bash" && tests.is_match(&command) => {
                    match results.iter().find(|(r, _)| *r == id) {
                        Some((_, false)) => {
                            finding = Finding::TestRunAfterChange { command };
                            return false;
                        }
                        None if last_failed_test.is_none() => {
                            finding = Finding::TestRunPending { command };
                            return false;
                        }
                        _ => {
                            last_failed_test = last_failed_test
                                .clone()
                                .or(Some(format!("`{command}` failed")))
                        }
                    }
                }
                _ => {}
            }
        }
        true
    });
    if finding == Finding::None && last_failed_test.is_some() {
        return Finding::ChangeAfterTests {
            tool: "none seen".into(),
            last_test: last_failed_test,
        };
    }
    finding
}

/// A short account of the session's latest activity (assistant text, commands and whether they
/// failed), newest last, at most `max_bytes`: what the judge reads when facts do not decide.
pub fn recent_activity(path: &Path, max_bytes: usize, options: Options) -> String {
    let mut entries: Vec<String> = Vec::new();
    let mut results: Vec<(String, bool)> = Vec::new();
    let mut used = 0;
    let mut reader = SessionReader::default();
    let _ = transcript::visit_backwards(path, options, |line| {
        let Some(events) = reader.events(line) else {
            return false;
        };
        for event in events.into_iter().rev() {
            let entry = match event {
                Event::Result { id, failed } => {
                    results.push((id, failed));
                    None
                }
                Event::Said(text) if !text.is_empty() => Some(format!("Assistant: {text}")),
                Event::Call { id, tool, command } => {
                    let outcome = match results.iter().find(|(r, _)| *r == id) {
                        Some((_, true)) => "failed",
                        Some((_, false)) => "succeeded",
                        None => "no result",
                    };
                    Some(format!(
                        "[{tool} {}: {outcome}]",
                        command.unwrap_or_default()
                    ))
                }
                Event::Prompt(text) => {
                    entries.push(format!("User: {}", text.trim()));
                    return false;
                }
                Event::Said(_) => None,
            };
            if let Some(entry) = entry {
                used += entry.len() + 1;
                entries.push(entry);
            }
        }
        used < max_bytes
    });
    entries.reverse();
    transcript::tail(&entries.join("\n"), max_bytes).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write_transcript(lines: &[Value]) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(
            f.path(),
            lines
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join("\n")
                + "\n",
        )
        .unwrap();
        f
    }
    fn tool_use(id: &str, name: &str, input: Value) -> Value {
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}})
    }
    fn result(id: &str, is_error: bool) -> Value {
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": "…"}]}, "toolUseResult": {}})
    }

    fn finding(lines: &[Value]) -> Finding {
        let f = write_transcript(lines);
        transcript_tests(
            f.path(),
            &Regex::new(DEFAULT_TEST_COMMANDS).unwrap(),
            Options::default(),
        )
    }

    #[test]
    fn a_test_run_after_the_last_edit_is_fresh() {
        let f = finding(&[
            tool_use("1", "Edit", json!({"file_path": "a.rs"})),
            result("1", false),
            tool_use("2", "Bash", json!({"command": "cargo test --all"})),
            result("2", false),
        ]);
        assert_eq!(
            f,
            Finding::TestRunAfterChange {
                command: "cargo test --all".into()
            }
        );
    }

    #[test]
    fn an_edit_after_the_tests_is_stale_and_failures_do_not_count() {
        let f = finding(&[
            tool_use("1", "Bash", json!({"command": "pytest -q"})),
            result("1", false),
            tool_use("2", "Write", json!({"file_path": "a.py"})),
            result("2", false),
        ]);
        assert!(matches!(f, Finding::ChangeAfterTests { .. }), "{f:?}");
        let f = finding(&[
            tool_use("1", "Edit", json!({})),
            result("1", false),
            tool_use("2", "Bash", json!({"command": "npm test"})),
            result("2", true),
        ]);
        assert!(
            matches!(
                f,
                Finding::ChangeAfterTests {
                    last_test: Some(_),
                    ..
                }
            ),
            "{f:?}"
        );
        let f = finding(&[
            tool_use("1", "Bash", json!({"command": "echo cargo testing"})),
            result("1", false),
        ]);
        assert_eq!(f, Finding::None);
    }

    #[test]
    fn codex_rollouts_are_read_too() {
        let call = |id: &str, cmd: &str| json!({"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "call_id": id, "arguments": json!({"cmd": cmd}).to_string()}});
        let out = |id: &str, code: i32| json!({"type": "response_item", "payload": {"type": "function_call_output", "call_id": id, "output": format!("Process exited with code {code}\nOutput: ...")}});
        let f = finding(&[call("a", "make test"), out("a", 0)]);
        assert_eq!(
            f,
            Finding::TestRunAfterChange {
                command: "make test".into()
            }
        );
        let f = finding(&[call("a", "make test"), out("a", 2)]);
        assert!(
            matches!(
                f,
                Finding::ChangeAfterTests {
                    last_test: Some(_),
                    ..
                }
            ),
            "{f:?}"
        );
        let patch = json!({"type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "p", "input": "*** Begin Patch"}});
        let f = finding(&[call("a", "make test"), out("a", 0), patch]);
        assert!(matches!(f, Finding::ChangeAfterTests { .. }), "{f:?}");
    }

    #[test]
    fn artifacts_compare_with_the_newest_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("target/nextest/default")).unwrap();
        std::fs::write(
            dir.path().join("target/nextest/default/junit.xml"),
            "<testsuites/>",
        )
        .unwrap();
        let t = mtime_ms(&dir.path().join("target/nextest/default/junit.xml")).unwrap();
        let globs: Vec<String> = DEFAULT_ARTIFACTS.iter().map(|s| s.to_string()).collect();
        assert!(artifacts(dir.path(), &globs, t - 10, t).is_fresh());
        assert!(matches!(
            artifacts(dir.path(), &globs, t + 10, t),
            Finding::StaleArtifact { .. }
        ));
        assert_eq!(
            artifacts(&dir.path().join("nothing"), &globs, 0, t),
            Finding::None
        );
    }

    #[test]
    fn artifact_paths() {
        let globs: Vec<String> = DEFAULT_ARTIFACTS.iter().map(|s| s.to_string()).collect();
        assert!(is_artifact(".hookjudge/verified", &globs));
        assert!(is_artifact("target/nextest/ci/junit.xml", &globs));
        assert!(is_artifact(".pytest_cache/v/cache/nodeids", &globs));
        assert!(is_artifact("coverage.xml", &globs));
        assert!(!is_artifact("src/main.rs", &globs));
        assert!(
            !is_artifact("target", &globs),
            "a bare build dir is not itself an artifact"
        );
    }
}
