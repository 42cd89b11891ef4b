//! Verification evidence: has the code been verified since its last change?
//!
//! Two kinds of proof are read without asking anyone: test artifacts (files that test runs
//! write) newer than the newest change, and, for Claude Code, a successful run of a recognised
//! test command in the session transcript after the last file-changing tool call. When neither
//! decides, `recent_activity` gives the judge a short account of what happened last.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

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
        .flat_map(|g| expand(root, g))
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

/// Expands a glob with `*` inside path segments (no `**`): cheap, bounded directory reads.
fn expand(root: &Path, glob: &str) -> Vec<PathBuf> {
    let mut paths = vec![root.to_path_buf()];
    for segment in glob.split('/') {
        let mut next = Vec::new();
        for dir in &paths {
            if !segment.contains('*') {
                let p = dir.join(segment);
                if p.exists() {
                    next.push(p);
                }
                continue;
            }
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten().take(1000) {
                if let Some(name) = entry.file_name().to_str()
                    && wildcard(segment, name)
                {
                    next.push(entry.path());
                }
            }
        }
        paths = next;
        if paths.is_empty() {
            break;
        }
    }
    paths
}

/// Whether a repository-relative path is one of the artifacts (so not a change to the code).
pub fn is_artifact(rel_path: &str, globs: &[String]) -> bool {
    rel_path.starts_with(".hookjudge/")
        || globs.iter().any(|g| {
            let (gs, ps): (Vec<&str>, Vec<&str>) =
                (g.split('/').collect(), rel_path.split('/').collect());
            // A path inside an artifact's directory counts too (e.g. `.pytest_cache/...`).
            ps.len() >= gs.len().saturating_sub(1)
                && gs.iter().zip(&ps).all(|(g, p)| wildcard(g, p))
        })
}

fn wildcard(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut rest = name;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            let Some(pos) = rest.find(part) else {
                return false;
            };
            rest = &rest[pos + part.len()..];
        }
    }
    rest.is_empty()
}

/// Tools whose use changes files.
const CHANGE_TOOLS: [&str; 5] = ["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"];

/// Looks through a Claude Code transcript, newest first, for a successful test run after the
/// last file change.
pub fn transcript_tests(path: &Path, tests: &Regex, options: Options) -> Finding {
    // tool_use id -> is_error, from results seen so far (results come after their calls).
    let mut results: Vec<(String, bool)> = Vec::new();
    let mut last_failed_test: Option<String> = None;
    let mut finding = Finding::None;
    let _ = transcript::visit_backwards(path, options, |line| {
        let blocks = line["message"]["content"].as_array();
        for block in blocks.into_iter().flatten().rev() {
            match (line["type"].as_str(), block["type"].as_str()) {
                (Some("user"), Some("tool_result")) => {
                    let id = block["tool_use_id"].as_str().unwrap_or("").to_owned();
                    let interrupted = line["toolUseResult"]["interrupted"].as_bool() == Some(true);
                    results.push((id, block["is_error"].as_bool() == Some(true) || interrupted));
                }
                (Some("assistant"), Some("tool_use")) => {
                    let name = block["name"].as_str().unwrap_or("");
                    let id = block["id"].as_str().unwrap_or("");
                    if CHANGE_TOOLS.contains(&name) {
                        finding = Finding::ChangeAfterTests {
                            tool: name.to_owned(),
                            last_test: last_failed_test.clone(),
                        };
                        return false;
                    }
                    if name == "Bash"
                        && let Some(command) = block["input"]["command"].as_str()
                        && tests.is_match(command)
                    {
                        match results.iter().find(|(r, _)| r == id) {
                            Some((_, false)) => {
                                finding = Finding::TestRunAfterChange {
                                    command: command.to_owned(),
                                };
                                return false;
                            }
                            _ => {
                                last_failed_test = last_failed_test
                                    .clone()
                                    .or(Some(format!("`{command}` failed or has no result")))
                            }
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
    let _ = transcript::visit_backwards(path, options, |line| {
        for block in line["message"]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .rev()
        {
            let entry = match (line["type"].as_str(), block["type"].as_str()) {
                (Some("user"), Some("tool_result")) => {
                    results.push((
                        block["tool_use_id"].as_str().unwrap_or("").to_owned(),
                        block["is_error"].as_bool() == Some(true),
                    ));
                    None
                }
                (Some("assistant"), Some("text")) => block["text"]
                    .as_str()
                    .map(|t| format!("Assistant: {}", t.trim())),
                (Some("assistant"), Some("tool_use")) => {
                    let id = block["id"].as_str().unwrap_or("");
                    let outcome = match results.iter().find(|(r, _)| r == id) {
                        Some((_, true)) => "failed",
                        Some((_, false)) => "succeeded",
                        None => "no result",
                    };
                    let what = block["input"]["command"]
                        .as_str()
                        .or(block["input"]["file_path"].as_str())
                        .unwrap_or("");
                    Some(format!(
                        "[{} {what}: {outcome}]",
                        block["name"].as_str().unwrap_or("tool")
                    ))
                }
                (Some("user"), _) if line["message"]["content"].is_string() => None,
                _ => None,
            };
            if let Some(entry) = entry {
                used += entry.len() + 1;
                entries.push(entry);
            }
        }
        if line["type"] == "user"
            && line["message"]["content"].is_string()
            && line["isMeta"] != Value::Bool(true)
        {
            if let Some(text) = line["message"]["content"].as_str() {
                entries.push(format!("User: {}", text.trim()));
            }
            return false;
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
    fn wildcards() {
        assert!(wildcard("*.xml", "TEST-a.xml"));
        assert!(wildcard("junit*", "junit.xml"));
        assert!(!wildcard("*.xml", "a.json"));
        assert!(wildcard("a*b*c", "axxbyyc"));
    }
}
