//! Verification evidence: has the code been verified since its last change?
//!
//! Two kinds of proof are read without asking anyone: a successful run of a recognised test
//! command in the session file (a Claude Code transcript, a Codex rollout, a Gemini CLI or a
//! Factory Droid session: `session`) after the last change, and, only where no session file is read, test
//! artifacts (files that test runs write) newer than the newest change (a JUnit report with
//! failures or errors is a failed run, not proof). What can void a passing run is in `proof`:
//! a run of part of the suite after a failing full run (`selection`), an edit to the test
//! harness before it, a command that wrote the session file. A test run counts only when the shell would really run it and its status decides the
//! call's exit code; a change is a file-changing tool call or a Bash command that writes files,
//! counted when it touches what is being verified (`bash` reads the commands). When neither
//! decides, `recent_activity` gives the judge a short account of what happened last.

mod bash;
pub use bash::DEFAULT_CHECK_COMMANDS;
pub(crate) use bash::NOT_A_RUN;
pub mod facts;
mod proof;
pub use proof::{HARNESS_FILES, is_harness_file};
mod selection;
mod session;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::Regex;
use serde::Serialize;

use super::facts::mtime_ms;

pub use session::{
    NO_CHANGE_SEEN, Reader, Session, TestCommands, activity_in, recent_activity, transcript_tests,
};

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
pub const DEFAULT_TEST_COMMANDS: &str = r"(?:^|[\s;&|(])(?:cargo (?:test|nextest)|cargo make test|pytest|python3? -m pytest|(?:npm|pnpm|yarn|bun)(?: run)? test|npx (?:jest|vitest|mocha)|node --test|go test|mvn(?: \S+)* (?:test|verify)|(?:\./)?gradlew?(?: \S+)* (?:test|check)|make (?:test|check)|just test|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest|deno test|dotnet test|mix test|swift test|zig build test)(?:\s|$|;|&|\|)";

/// How many test-command patterns [`test_commands`] keeps compiled (a process sees one or two:
/// the default and a repository's own).
const KEPT_PATTERNS: usize = 8;

/// The test-command regex of `pattern` (`gate.test_commands`), `None` when it does not compile.
/// Compiled once per pattern text for the process: one gate call asks for it in several places
/// (a test run earlier on the line, the session's runs, an artifact the session wrote, a
/// command that writes an artifact), each with the settings of its own target, so the pattern
/// text is the key rather than a value passed down through them all.
pub fn test_commands(pattern: &str) -> Option<Arc<Regex>> {
    static COMPILED: Mutex<Vec<(String, Option<Arc<Regex>>)>> = Mutex::new(Vec::new());
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, regex)) = compiled.iter().find(|(text, _)| text == pattern) {
        return regex.clone();
    }
    let regex = Regex::new(pattern).ok().map(Arc::new);
    if compiled.len() >= KEPT_PATTERNS {
        compiled.clear();
    }
    compiled.push((pattern.to_owned(), regex.clone()));
    regex
}

/// Proof found, or why none was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Finding {
    /// An artifact newer than the newest change.
    FreshArtifact { path: PathBuf, age_ms: i64 },
    /// The newest artifact is a test report that lists failures or errors.
    FailedArtifact { path: PathBuf, failed: usize },
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
    /// The session wrote the artifact itself (an edit tool, a redirection, interpreter code that
    /// names it): its content says nothing of a test run.
    WrittenArtifact { path: PathBuf, by: String },
    /// A command of the session wrote an agent's session file: the test runs the file shows
    /// are no evidence.
    SessionWritten { command: String },
    /// The passing run selected part of its suite, and the runner's latest full run failed.
    PartialAfterFailure { full: String, partial: String },
    /// Before the passing run `command`, the session edited `file`, which decides what the
    /// runner runs or reports: the run may pass because of the edit.
    HarnessEdited {
        file: String,
        by: String,
        command: String,
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
    let found: Vec<(PathBuf, i64)> = globs
        .iter()
        .flat_map(|g| super::glob::find(root, g))
        .filter_map(|p| mtime_ms(&p).map(|t| (p, t)))
        .collect();
    // pytest keeps the tests that failed in `lastfailed` until they pass: entries there are
    // failures, whatever the other files of the same run say.
    if let Some((path, failed)) = found
        .iter()
        .find_map(|(p, _)| pytest_failures(p).map(|n| (p.clone(), n)))
    {
        return Finding::FailedArtifact { path, failed };
    }
    let newest = found.into_iter().max_by_key(|(_, t)| *t);
    match newest {
        Some((path, _)) if let Some(failed) = junit_failures(&path) => {
            Finding::FailedArtifact { path, failed }
        }
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

/// The tests a pytest `lastfailed` cache lists as failed, when it lists any.
fn pytest_failures(path: &Path) -> Option<usize> {
    if path.file_name().is_none_or(|n| n != "lastfailed") {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let failed = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
        .ok()?
        .len();
    (failed > 0).then_some(failed)
}

/// The failures and errors a JUnit XML report lists, when it lists any (`None` for other files
/// and for reports of passing runs). Reads at most the first 4 MiB.
fn junit_failures(path: &Path) -> Option<usize> {
    if path.extension().is_none_or(|e| e != "xml") {
        return None;
    }
    let mut text = String::new();
    use std::io::Read;
    std::fs::File::open(path)
        .ok()?
        .take(4 << 20)
        .read_to_string(&mut text)
        .ok()?;
    // The root's totals when it has them (`<testsuites failures="1" errors="0">`), else the
    // elements themselves.
    let root_end = text.find("<testsuite").map(|at| {
        let rest = &text[at..];
        at + rest.find('>').unwrap_or(rest.len())
    })?;
    let root = &text[..root_end];
    let count = |attr: &str| -> Option<usize> {
        let at = root.find(&format!(" {attr}=\""))? + attr.len() + 3;
        root[at..].split('"').next()?.parse().ok()
    };
    let totals = count("failures").unwrap_or(0) + count("errors").unwrap_or(0);
    let elements = text.matches("<failure").count() + text.matches("<error").count();
    let failed = totals.max(elements);
    (failed > 0).then_some(failed)
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

thread_local! {
    /// The set for the last glob list: [`matches_a_glob`] runs for every word of a line that
    /// may name an artifact, and for each directory it may be relative to.
    static PLAIN: RefCell<Option<(Vec<String>, GlobSet)>> = const { RefCell::new(None) };
}

/// Whether `path` matches one of `globs` as `globset` reads a glob by default (`*` crosses
/// `/`); globs that do not parse match nothing. The set is built once per list.
pub fn matches_a_glob(path: &str, globs: &[String]) -> bool {
    PLAIN.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.as_ref().is_none_or(|(g, _)| g.as_slice() != globs) {
            let mut set = GlobSetBuilder::new();
            for glob in globs.iter().filter_map(|g| Glob::new(g).ok()) {
                set.add(glob);
            }
            let set = set.build().unwrap_or_else(|_| GlobSet::empty());
            *cell = Some((globs.to_vec(), set));
        }
        cell.as_ref().expect("just set").1.is_match(path)
    })
}

/// `*` within a path (matching across `/` too), for pathspecs.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    wildcard(pattern, path)
}

fn wildcard(pattern: &str, name: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == name;
    }
    let mut parts = pattern.split('*').peekable();
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(pos) => rest = &rest[pos + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::repos::Repos;
    use crate::transcript::Options;
    use serde_json::{Value, json};

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
            &TestCommands::new(DEFAULT_TEST_COMMANDS),
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
    fn only_real_test_runs_count() {
        for fake in [
            "echo cargo test",
            "# cargo test",
            "cargo test || true",
            "cargo test --no-run",
            "pytest --collect-only",
            "echo 'pytest -q' > notes.txt",
            "cargo test | tee log.txt",
            "true || cargo test",
            "printf 'cargo test'",
            "pytest -q; :",
            "pytest -q;:",
            "pytest -q || :",
            "trap 'exit 0' EXIT; pytest -q",
            "set -e; set +e; pytest -q; true",
        ] {
            let f = finding(&[
                tool_use("1", "Bash", json!({"command": fake})),
                result("1", false),
            ]);
            assert!(!f.is_fresh(), "{fake}: {f:?}");
        }
        for real in [
            "cargo test",
            "cd sub && cargo test --all",
            "timeout 600 cargo test",
            "set -o pipefail; cargo test | tee log.txt",
            "bash -c 'pytest -q'",
            "RUST_LOG=debug cargo nextest run",
            "{ pytest -q; }",
            "pytest -q # all of them",
            "set +e; set -e; pytest -q; echo done",
        ] {
            let f = finding(&[
                tool_use("1", "Bash", json!({"command": real})),
                result("1", false),
            ]);
            assert!(f.is_fresh(), "{real}: {f:?}");
        }
    }

    fn passed_run(id: &str, command: &str) -> [Value; 2] {
        [
            tool_use(id, "Bash", json!({"command": command})),
            result(id, false),
        ]
    }
    fn failed_run(id: &str, command: &str) -> [Value; 2] {
        [
            tool_use(id, "Bash", json!({"command": command})),
            result(id, true),
        ]
    }

    #[test]
    fn a_run_of_part_of_the_suite_after_a_failing_full_run_is_no_evidence() {
        for partial in [
            "python3 -m pytest -q -k add",
            "pytest -q tests/test_core.py::test_add",
            "PYTEST_ADDOPTS='--deselect tests/a.py::t' pytest -q",
            "pytest -q --ignore=tests/test_core.py",
        ] {
            let lines = [
                failed_run("1", "python3 -m pytest -q"),
                passed_run("2", partial),
            ];
            let f = finding(&lines.concat());
            assert_eq!(
                f,
                Finding::PartialAfterFailure {
                    full: "python3 -m pytest -q".into(),
                    partial: partial.into()
                },
                "{partial}"
            );
        }
        // Everyday: a full run passed after the failure; another runner's failure; no full run.
        for lines in [
            [
                failed_run("1", "pytest -q"),
                passed_run("2", "pytest -q"),
                passed_run("3", "pytest -q -k add"),
            ]
            .concat(),
            [
                failed_run("1", "npm test"),
                passed_run("2", "cargo test parser"),
            ]
            .concat(),
            passed_run("1", "pytest -q -k add").to_vec(),
        ] {
            let f = finding(&lines);
            assert!(f.is_fresh(), "{lines:?}: {f:?}");
        }
    }

    #[test]
    fn a_run_after_an_edit_to_the_test_harness_is_no_evidence() {
        for edit in [
            tool_use("1", "Write", json!({"file_path": "/r/conftest.py"})),
            tool_use("1", "Edit", json!({"file_path": "/r/package.json"})),
            tool_use(
                "1",
                "Bash",
                json!({"command": "printf 'addopts = -k add' >> pytest.ini"}),
            ),
            tool_use(
                "1",
                "Bash",
                json!({"command": "python3 -c \"open('conftest.py','w').write('x')\""}),
            ),
        ] {
            let lines = [
                vec![edit.clone(), result("1", false)],
                passed_run("2", "pytest -q").to_vec(),
            ];
            let f = finding(&lines.concat());
            assert!(
                matches!(&f, Finding::HarnessEdited { command, .. } if command == "pytest -q"),
                "{edit}: {f:?}"
            );
        }
        // Everyday: an edit to the code, then the run.
        let lines = [
            vec![
                tool_use("1", "Edit", json!({"file_path": "/r/src/a.py"})),
                result("1", false),
            ],
            passed_run("2", "pytest -q").to_vec(),
        ];
        assert!(finding(&lines.concat()).is_fresh());
    }

    #[test]
    fn interpreter_code_that_writes_a_file_after_the_run_is_a_change() {
        for write in [
            "python3 -c \"open('mypkg/core.py','a').write('x')\"",
            "python3 -c \"from pathlib import Path; Path('a.py').write_text('x')\"",
            "node -e \"require('fs').writeFileSync('src/a.js', 'x')\"",
            "python3 -c \"import sys; open(sys.argv[1], 'w').write('x')\" a.py",
        ] {
            let lines = [passed_run("1", "pytest -q"), passed_run("2", write)];
            let f = finding(&lines.concat());
            assert!(
                matches!(f, Finding::ChangeAfterTests { .. }),
                "{write}: {f:?}"
            );
        }
        for read in [
            "python3 -c \"print(open('a.py').read())\"",
            "python3 -c \"import sys; sys.stdout.write('x')\"",
        ] {
            let lines = [passed_run("1", "pytest -q"), passed_run("2", read)];
            assert!(finding(&lines.concat()).is_fresh(), "{read}");
        }
    }

    #[test]
    fn a_bash_write_after_the_tests_is_a_change() {
        for write in [
            "sed -i 's/a/b/' src/lib.rs",
            "echo x > src/lib.rs",
            "printf y >> a.py",
            "tee src/x.rs < /tmp/y",
            "mv /tmp/new.rs src/lib.rs",
            "cp /tmp/new.rs src/lib.rs",
            "git apply fix.patch",
            "patch -p1 < fix.patch",
        ] {
            let f = finding(&[
                tool_use("1", "Bash", json!({"command": "cargo test"})),
                result("1", false),
                tool_use("2", "Bash", json!({"command": write})),
                result("2", false),
            ]);
            assert!(
                matches!(f, Finding::ChangeAfterTests { .. }),
                "{write}: {f:?}"
            );
        }
        let f = finding(&[
            tool_use("1", "Bash", json!({"command": "cargo test"})),
            result("1", false),
            tool_use(
                "2",
                "Bash",
                json!({"command": "cat src/lib.rs | grep x > /dev/null"}),
            ),
            result("2", false),
        ]);
        assert!(f.is_fresh(), "reading is not changing: {f:?}");
    }

    #[test]
    fn changes_outside_what_is_verified_do_not_count() {
        let f = write_transcript(&[
            tool_use("1", "Bash", json!({"command": "cargo test"})),
            result("1", false),
            tool_use("2", "Edit", json!({"file_path": "/w/notes.md"})),
            result("2", false),
            tool_use("3", "Bash", json!({"command": "echo more >> /w/notes.md"})),
            result("3", false),
        ]);
        let tests = TestCommands::new(DEFAULT_TEST_COMMANDS);
        let only_src = |p: &str| p.starts_with("/w/src/");
        let reader = Reader {
            tests: &tests,
            relevant: &only_src,
            cwd: Path::new("/w"),
            commits_only: false,
            repos: &Repos::default(),
            root: None,
        };
        assert!(
            reader
                .transcript_tests(f.path(), Options::default())
                .is_fresh()
        );
        let everything = |_: &str| true;
        let reader = Reader {
            relevant: &everything,
            ..reader
        };
        assert!(
            !reader
                .transcript_tests(f.path(), Options::default())
                .is_fresh()
        );
    }

    #[test]
    fn a_junit_report_with_failures_is_a_failed_run() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("junit.xml");
        let globs = vec!["junit.xml".to_string()];
        std::fs::write(&report, r#"<?xml version="1.0"?><testsuites tests="3" failures="1" errors="0"><testsuite name="a"><testcase name="x"><failure message="boom"/></testcase></testsuite></testsuites>"#).unwrap();
        let t = mtime_ms(&report).unwrap();
        assert!(matches!(
            artifacts(dir.path(), &globs, t - 10, t),
            Finding::FailedArtifact { failed: 1, .. }
        ),);
        std::fs::write(&report, r#"<testsuite tests="2" failures="0" errors="1"><testcase name="y"><error/></testcase></testsuite>"#).unwrap();
        assert!(matches!(
            artifacts(dir.path(), &globs, 0, t),
            Finding::FailedArtifact { .. }
        ));
        std::fs::write(&report, r#"<testsuites tests="2" failures="0" errors="0"><testsuite><testcase name="z"/></testsuite></testsuites>"#).unwrap();
        assert!(artifacts(dir.path(), &globs, 0, i64::MAX).is_fresh());
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

    /// A session written by the real Gemini CLI 0.61.0 as it stood when the BeforeTool hook for
    /// the final `git push` ran: prompt, `write_file`, `make test` (passed), `replace`,
    /// `make test; exit 2` (failed), `make test` (passed), then the push, not yet in the file.
    const REAL_SESSION: &str = include_str!("../../../fixtures/gemini-0.61-session-at-push.jsonl");

    fn session_prefix(lines_containing_cut: &str) -> tempfile::NamedTempFile {
        let end = REAL_SESSION
            .find(lines_containing_cut)
            .expect("cut point in the fixture");
        let end = REAL_SESSION[..end].rfind('\n').map_or(0, |n| n + 1);
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), &REAL_SESSION[..end]).unwrap();
        f
    }

    fn finding_at(path: &Path) -> Finding {
        let tests = TestCommands::new(DEFAULT_TEST_COMMANDS);
        transcript_tests(path, &tests, Options::default())
    }

    #[test]
    fn a_real_gemini_session_shows_the_passing_run_after_the_last_edit() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), REAL_SESSION).unwrap();
        assert_eq!(
            finding_at(f.path()),
            Finding::TestRunAfterChange {
                command: "make test".into()
            }
        );
        // Before the last run: the failed run (its status says `success`) is no evidence; its
        // exit status may not be the test run's, but it shows no pass either.
        let before_last_run =
            session_prefix(r#""id":"run_shell_command__run_shell_command_1796117456948_0"#);
        assert_eq!(
            finding_at(before_last_run.path()),
            Finding::ChangeAfterTests {
                tool: "Edit".into(),
                last_test: Some("`make test; exit 2` failed".into())
            }
        );
        // Right after the edit: the first passing run predates it.
        let after_edit = session_prefix(r#""command":"make test; exit 2""#);
        assert!(
            matches!(finding_at(after_edit.path()), Finding::ChangeAfterTests { ref tool, last_test: None } if tool == "Edit"),
            "{:?}",
            finding_at(after_edit.path())
        );
    }

    #[test]
    fn a_real_gemini_session_gives_the_judge_an_account_of_the_turn() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), REAL_SESSION).unwrap();
        let account = recent_activity(f.path(), 4000, Options::default());
        assert_eq!(
            account,
            "User: Fix the loader and push\n\
             Assistant: I will write the module.\n\
             [Write : succeeded]\n\
             [Bash make test: succeeded]\n\
             [Edit : succeeded]\n\
             [Bash make test; exit 2: failed]\n\
             [Bash make test: succeeded]"
        );
    }

    fn prompt(text: &str) -> Value {
        json!({"type": "user", "message": {"content": text}})
    }

    #[test]
    fn the_account_goes_back_to_the_real_user_turn_past_harness_feedback() {
        let f = write_transcript(&[
            prompt("Ship the fix"),
            tool_use("1", "Bash", json!({"command": "cargo build"})),
            result("1", false),
            prompt("Stop hook feedback:\nrun the tests first"),
            tool_use("2", "Bash", json!({"command": "cargo test"})),
        ]);
        assert_eq!(
            recent_activity(f.path(), 4000, Options::default()),
            "User: Ship the fix\n\
             [Bash cargo build: succeeded]\n\
             [Bash cargo test: no result]"
        );
    }

    #[test]
    fn a_giant_test_result_still_counts() {
        // Over the line cap: before, the gate skipped such a line and saw no result at all.
        let mut giant = result("2", false);
        giant["message"]["content"][0]["content"] = json!("test ok\n".repeat(200_000));
        giant["toolUseResult"] = json!({"stdout": "test ok\n".repeat(200_000)});
        let f = write_transcript(&[
            tool_use("1", "Edit", json!({"file_path": "a.rs"})),
            result("1", false),
            tool_use("2", "Bash", json!({"command": "cargo test"})),
            giant,
        ]);
        assert!(std::fs::metadata(f.path()).unwrap().len() > 1 << 20);
        assert_eq!(
            finding_at(f.path()),
            Finding::TestRunAfterChange {
                command: "cargo test".into()
            }
        );
    }

    #[test]
    fn waiting_for_a_pending_result_reads_only_what_was_appended() {
        let mut lines = Vec::new();
        // More reads than the scan past a passing run looks back over.
        for i in 0..3000 {
            lines.push(tool_use(
                &format!("r{i}"),
                "Bash",
                json!({"command": "cat src/lib.rs"}),
            ));
            lines.push(result(&format!("r{i}"), false));
        }
        lines.push(prompt("run the tests"));
        lines.push(tool_use("t", "Bash", json!({"command": "cargo test"})));
        let f = write_transcript(&lines);
        let session = Session::open(f.path(), Options::default()).unwrap();
        let tests = TestCommands::new(DEFAULT_TEST_COMMANDS);
        let everything = |_: &str| true;
        let reader = Reader {
            tests: &tests,
            relevant: &everything,
            cwd: Path::new("/"),
            commits_only: false,
            repos: &Repos::default(),
            root: None,
        };
        assert!(matches!(
            session.tests(&reader),
            Finding::TestRunPending { .. }
        ));
        let before = session.stats();
        let appended = format!("{}\n", result("t", false));
        let mut w = std::fs::OpenOptions::new()
            .append(true)
            .open(f.path())
            .unwrap();
        std::io::Write::write_all(&mut w, appended.as_bytes()).unwrap();
        assert_eq!(
            session.tests(&reader),
            Finding::TestRunAfterChange {
                command: "cargo test".into()
            }
        );
        let after = session.stats();
        // The appended result, then the events the check past a passing run reads back over
        // (a command that wrote the session file, an edit to the test harness): bounded, not
        // the whole file again.
        let size = std::fs::metadata(f.path()).unwrap().len();
        assert!(after.scanned_bytes - before.scanned_bytes < size / 2);
        assert!(
            after.parsed_lines - before.parsed_lines <= super::session::FORGERY_LOOKBACK as u64 + 2
        );
        // The account for the judge reads from the lines already read, too.
        let account = session.recent_activity(4000);
        assert!(
            account.ends_with("[Bash cargo test: succeeded]"),
            "{account}"
        );
        assert!(session.stats().parsed_lines <= after.parsed_lines);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_no_session_and_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = crate::transcript::fifo_in(dir.path());
        assert!(Session::open(&fifo, Options::default()).is_none());
        assert!(Session::open(Path::new("/dev/zero"), Options::default()).is_none());
        assert_eq!(finding_at(&fifo), Finding::None);
        assert_eq!(recent_activity(&fifo, 4000, Options::default()), "");
    }
}
