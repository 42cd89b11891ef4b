//! Verification evidence: has the code been verified since its last change?
//!
//! Two kinds of proof are read without asking anyone: test artifacts (files that test runs
//! write) newer than the newest change (a JUnit report with failures or errors is a failed run,
//! not proof), and a successful run of a recognised test command in the session file (a
//! Claude Code transcript, a Codex rollout or a Gemini CLI session, see `evidence_gemini`) after
//! the last change. A test run counts only when the shell would really run it and its
//! status decides the call's exit code (not inside `echo` or a comment, not `… || true`, not
//! `--no-run`/`--collect-only`); a change is a file-changing tool call or a Bash command that
//! writes files (redirections, `sed -i`, `tee`, `mv`, `cp`, `git apply`, `patch`, …), counted
//! when it touches what is being verified. When neither decides, `recent_activity` gives the
//! judge a short account of what happened last.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use super::evidence_gemini;
use super::facts::mtime_ms;
use super::shell::{self, SimpleCommand, Word};
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

/// Tools whose use changes files.
const CHANGE_TOOLS: [&str; 5] = ["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"];

/// What a session line says, in terms common to Claude Code transcripts, Codex rollouts and
/// Gemini CLI sessions.
pub(super) enum Event {
    /// A tool call: its id, tool name, shell command (if it is a shell call) and the files it
    /// changes (for edit tools).
    Call {
        id: String,
        tool: String,
        command: Option<String>,
        files: Vec<String>,
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
                        files: ["file_path", "notebook_path", "path"]
                            .iter()
                            .filter_map(|k| block["input"][k].as_str())
                            .map(str::to_owned)
                            .collect(),
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
                    let patch = p["input"].as_str().unwrap_or("");
                    out.push(Event::Call {
                        id: p["call_id"].as_str().unwrap_or("").to_owned(),
                        tool: tool.to_owned(),
                        command,
                        files: patch_files(patch),
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

/// The files an `apply_patch` body changes.
fn patch_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| {
            l.strip_prefix("*** Update File: ")
                .or_else(|| l.strip_prefix("*** Add File: "))
                .or_else(|| l.strip_prefix("*** Delete File: "))
                .or_else(|| l.strip_prefix("*** Move to: "))
        })
        .map(|p| p.trim().to_owned())
        .collect()
}

/// The `tool` of a change seen but not named (no tool call changed files after the last run).
pub const NO_CHANGE_SEEN: &str = "none seen";

/// Options that make a test command not run the tests.
pub(crate) const NOT_A_RUN: [&str; 10] = [
    "--no-run",
    "--collect-only",
    "--co",
    "--list",
    "--help",
    "-h",
    "--dry-run",
    "--version",
    "--listTests",
    "--list-tests",
];

/// Programs that change the files named in their arguments (or, with `-i`, edit in place).
const FILE_WRITERS: [&str; 16] = [
    "tee", "mv", "cp", "rm", "touch", "truncate", "dd", "install", "ln", "rsync", "patch", "unzip",
    "tar", "chmod", "mkdir", "rmdir",
];

/// Reads transcripts for test evidence.
pub struct Reader<'a> {
    /// Recognises a test command in one simple command's words.
    pub tests: &'a Regex,
    /// Whether a change to this path (absolute, or as the agent wrote it) counts.
    pub relevant: &'a dyn Fn(&str) -> bool,
    /// Where the agent's shell runs, to resolve relative paths of its writes.
    pub cwd: &'a Path,
    /// What is verified is commits (a push): changes made after the last commit in the
    /// session are not part of it.
    pub commits_only: bool,
}

/// What a Bash call did, as far as its text shows.
struct ShellCall {
    /// A real test run, whose status is the call's exit status.
    test: Option<String>,
    /// It makes commits (`git commit`, `merge`, `cherry-pick`, …).
    commits: bool,
    /// Files it writes (`None` in the list: a write whose target cannot be read).
    writes: Vec<Option<String>>,
}

impl Reader<'_> {
    /// Reads one Bash command line.
    fn shell_call(&self, command: &str) -> ShellCall {
        let script = shell::parse(command, self.cwd);
        let mut call = ShellCall {
            test: None,
            commits: false,
            writes: Vec::new(),
        };
        for cmd in &script.commands {
            call.writes.extend(writes_of(cmd));
            call.commits |= makes_commits(cmd);
            if call.test.is_none() && !cmd.status_ignored && self.is_test_run(cmd) {
                call.test = Some(command.to_owned());
            }
        }
        call
    }

    fn is_test_run(&self, cmd: &SimpleCommand) -> bool {
        let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
        if words.is_empty() || words.iter().any(|w| NOT_A_RUN.contains(w)) {
            return false;
        }
        let mut line = words.join(" ");
        // The regex expects the program's base name (`./node_modules/.bin/jest` → `jest`).
        if let Some(program) = cmd.program() {
            line = std::iter::once(program)
                .chain(words[1..].iter().copied())
                .collect::<Vec<_>>()
                .join(" ");
        }
        self.tests
            .find(&line)
            .is_some_and(|m| line[..m.start()].trim().is_empty())
    }

    /// Looks through a session transcript (Claude Code), rollout (Codex CLI) or session (Gemini
    /// CLI), newest first, for a successful test run after the last relevant change.
    pub fn transcript_tests(&self, path: &Path, options: Options) -> Finding {
        // Call id -> failed, from results seen so far (results come after their calls).
        let mut results: Vec<(String, bool)> = Vec::new();
        let mut last_failed_test: Option<String> = None;
        let mut finding = Finding::None;
        // Newest first. For commits, a change seen before (newer than) a commit call is not in
        // the commits: it is held back until the scan meets that commit (then dropped) or a
        // test run or the start (then it counts, as no commit is known to have left it out).
        let mut commit_seen = !self.commits_only;
        let mut held: Option<Finding> = None;
        let mut reader = SessionReader::default();
        let _ = transcript::visit_backwards(path, options, |line| {
            let Some(events) = reader.events(line) else {
                return false;
            };
            for event in events.into_iter().rev() {
                let change = match event {
                    Event::Result { id, failed } => {
                        results.push((id, failed));
                        None
                    }
                    Event::Call { tool, files, .. } if CHANGE_TOOLS.contains(&tool.as_str()) => {
                        (files.is_empty() || files.iter().any(|f| (self.relevant)(f)))
                            .then_some(tool)
                    }
                    Event::Call {
                        id,
                        tool,
                        command: Some(command),
                        ..
                    } if tool == "Bash" => {
                        let call = self.shell_call(&command);
                        if call.commits && !commit_seen {
                            commit_seen = true;
                            held = None;
                        }
                        if let Some(test) = call.test {
                            if let Some(h) = held.take() {
                                finding = h;
                                return false;
                            }
                            match results.iter().find(|(r, _)| *r == id) {
                                // The newest run decides: an older pass says nothing of code
                                // that failed since.
                                Some((_, false)) if last_failed_test.is_some() => {
                                    finding = Finding::ChangeAfterTests {
                                        tool: NO_CHANGE_SEEN.into(),
                                        last_test: last_failed_test.clone(),
                                    };
                                    return false;
                                }
                                Some((_, false)) => {
                                    finding = Finding::TestRunAfterChange { command: test };
                                    return false;
                                }
                                None if last_failed_test.is_none() => {
                                    finding = Finding::TestRunPending { command: test };
                                    return false;
                                }
                                _ => {
                                    last_failed_test = last_failed_test
                                        .clone()
                                        .or(Some(format!("`{test}` failed")))
                                }
                            }
                            None
                        } else {
                            call.writes
                                .iter()
                                .any(|w| match w {
                                    Some(path) => (self.relevant)(path),
                                    None => true,
                                })
                                .then(|| format!("Bash `{}`", short(&command)))
                        }
                    }
                    _ => None,
                };
                if let Some(tool) = change {
                    let found = Finding::ChangeAfterTests {
                        tool,
                        last_test: last_failed_test.clone(),
                    };
                    if commit_seen {
                        finding = found;
                        return false;
                    }
                    held.get_or_insert(found);
                }
            }
            true
        });
        if let Some(h) = held {
            return h;
        }
        if finding == Finding::None && last_failed_test.is_some() {
            return Finding::ChangeAfterTests {
                tool: NO_CHANGE_SEEN.into(),
                last_test: last_failed_test,
            };
        }
        finding
    }
}

/// Whether a simple command makes commits.
fn makes_commits(cmd: &SimpleCommand) -> bool {
    if !super::git::is_git(cmd) {
        return false;
    }
    let inv = super::git::read(cmd, &Default::default());
    matches!(
        inv.verb.as_ref().and_then(Word::literal),
        Some(
            "commit"
                | "merge"
                | "cherry-pick"
                | "revert"
                | "am"
                | "rebase"
                | "pull"
                | "commit-tree"
        )
    )
}

fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(59).collect::<String>())
    } else {
        one
    }
}

/// The files a simple command writes (absolute when its directory is known), `None` for a
/// write whose target the line does not show (`git apply`, `patch` without a file, a computed
/// name).
fn writes_of(cmd: &SimpleCommand) -> Vec<Option<String>> {
    let resolve = |w: &Word| -> Option<String> {
        let p = w.literal()?;
        if p == "/dev/null" || p.starts_with("/dev/") {
            return Some(p.to_owned());
        }
        Some(match &cmd.cwd {
            Some(c) if !p.starts_with('/') => c.join(p).to_string_lossy().into_owned(),
            _ => p.to_owned(),
        })
    };
    let mut out: Vec<Option<String>> = cmd
        .writes
        .iter()
        .map(resolve)
        .filter(|w| w.as_deref().is_none_or(|p| !p.starts_with("/dev/")))
        .collect();
    let Some(program) = cmd.program() else {
        return out;
    };
    let operands: Vec<&Word> = cmd.argv[1..]
        .iter()
        .filter(|w| w.literal().is_none_or(|a| !a.starts_with('-')))
        .collect();
    let in_place = cmd.argv[1..].iter().any(|w| {
        w.literal().is_some_and(|a| {
            a.starts_with("-i")
                || a == "--in-place"
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
        })
    });
    match program {
        "sed" | "perl" | "ruby" if in_place => {
            out.extend(operands.iter().skip(1).map(|w| resolve(w)));
        }
        "mv" | "cp" | "install" | "ln" | "rsync" => {
            if let Some(last) = operands.last() {
                out.push(resolve(last));
            }
            if program == "mv" {
                out.extend(operands.iter().rev().skip(1).map(|w| resolve(w)));
            }
        }
        "git" => {
            let verb = cmd.argv.get(1).and_then(Word::literal);
            if matches!(
                verb,
                Some(
                    "apply"
                        | "am"
                        | "checkout"
                        | "restore"
                        | "stash"
                        | "reset"
                        | "merge"
                        | "rebase"
                        | "cherry-pick"
                        | "revert"
                        | "pull"
                )
            ) && !cmd.argv.iter().any(|w| {
                matches!(
                    w.literal(),
                    Some("--check" | "--stat" | "--numstat" | "--summary")
                )
            }) {
                out.push(None);
            }
        }
        "patch" => out.push(None),
        p if FILE_WRITERS.contains(&p) => out.extend(operands.iter().map(|w| resolve(w))),
        _ => {}
    }
    out
}

/// Looks through a session transcript (Claude Code) or rollout (Codex CLI), newest first, for
/// a successful test run after the last file change.
pub fn transcript_tests(path: &Path, tests: &Regex, options: Options) -> Finding {
    let everything = |_: &str| true;
    Reader {
        tests,
        relevant: &everything,
        cwd: Path::new("/"),
        commits_only: false,
    }
    .transcript_tests(path, options)
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
                Event::Call {
                    id, tool, command, ..
                } => {
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
        ] {
            let f = finding(&[
                tool_use("1", "Bash", json!({"command": real})),
                result("1", false),
            ]);
            assert!(f.is_fresh(), "{real}: {f:?}");
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
        let tests = Regex::new(DEFAULT_TEST_COMMANDS).unwrap();
        let only_src = |p: &str| p.starts_with("/w/src/");
        let reader = Reader {
            tests: &tests,
            relevant: &only_src,
            cwd: Path::new("/w"),
            commits_only: false,
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
}
