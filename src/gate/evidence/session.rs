//! Test evidence in the agent's session file (a Claude Code transcript, a Codex rollout, a
//! Gemini CLI, a Factory Droid or a Copilot CLI session, read as events by
//! [`crate::transcript`]): a successful run of a recognised test command after the last change
//! that touches what is verified; and, when that does not decide, a short account of the latest
//! activity for the judge.
//!
//! One gate call opens the file once ([`Session`]) for every ruling it makes; waiting for the
//! result of a test run that just finished reads only what the agent appended meanwhile.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use regex::Regex;

use std::ops::ControlFlow;

use super::Finding;
use super::bash::{self, short};
use super::proof::BeforeRun;
use crate::gate::repos::Repos;
use crate::transcript::{self, Event, Options, Transcript};

/// Tools whose use changes files.
pub(super) const CHANGE_TOOLS: [&str; 5] =
    ["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"];

/// The `tool` of a change seen but not named (no tool call changed files after the last run).
pub const NO_CHANGE_SEEN: &str = "none seen";

/// How long a just-finished test run's result may take to land in the session file: agents
/// write it asynchronously. Checked this often, this many times (half a second in all).
const PENDING_POLL: Duration = Duration::from_millis(50);
const PENDING_POLLS: u32 = 10;

/// How long the session file may lag behind the tool call the gate is asked about. Claude Code
/// writes its transcript through a queue, so a test run that finished just before this call
/// can still be missing from the file when the hook reads it; the call itself is written after
/// it, so once the call is in the file, so is everything before it. Waited for only when the
/// file shows no passing test run (a ruling that would deny), at this interval, this often.
const CALL_POLL: Duration = Duration::from_millis(50);
const CALL_POLLS: u32 = 20;

/// The session file of one gate call, read once for every ruling of the call.
pub struct Session {
    transcript: RefCell<Transcript>,
    /// The id of the tool call this hook is about, when the file is known to record it
    /// before long (Claude Code's transcript).
    current_call: Option<String>,
}

impl Session {
    /// Opens the session file, to be read within `options` (the `[transcript]` settings, as
    /// for the Stop hook); `None` when it cannot be read (missing, not a regular file): then
    /// there is no evidence in it, as for a session without test runs.
    pub fn open(path: &Path, options: Options) -> Option<Session> {
        Transcript::open(path, options).ok().map(|t| Session {
            transcript: RefCell::new(t),
            current_call: None,
        })
    }

    /// Waits for the call `id` to be in the file before a ruling says the session has no
    /// passing test run (see [`CALL_POLLS`]).
    pub fn with_current_call(mut self, id: Option<String>) -> Session {
        self.current_call = id.filter(|id| !id.is_empty());
        self
    }

    /// [`Reader::tests_in`], waiting briefly when the newest test run has no result yet, and
    /// when no passing run is in the file but the call this hook is about is not either.
    pub fn tests(&self, reader: &Reader) -> Finding {
        let mut transcript = self.transcript.borrow_mut();
        let mut finding = reader.tests_in(&mut transcript);
        let pending = |f: &Finding, _: &mut Transcript| matches!(f, Finding::TestRunPending { .. });
        finding = keep_reading(
            &mut transcript,
            reader,
            finding,
            PENDING_POLLS,
            PENDING_POLL,
            pending,
        );
        if let Some(id) = &self.current_call {
            let behind = |f: &Finding, t: &mut Transcript| {
                !matches!(f, Finding::TestRunAfterChange { .. }) && !has_call(t, id)
            };
            finding = keep_reading(
                &mut transcript,
                reader,
                finding,
                CALL_POLLS,
                CALL_POLL,
                behind,
            );
        }
        finding
    }

    /// What reading the file cost so far.
    pub fn stats(&self) -> transcript::Stats {
        self.transcript.borrow().stats()
    }

    /// Every event of the session, newest first, until `visit` returns false.
    pub fn visit_backwards(&self, visit: impl FnMut(&Event) -> bool) {
        let _ = self.transcript.borrow_mut().visit_backwards(visit);
    }

    /// [`activity_in`] of this session.
    pub fn recent_activity(&self, max_bytes: usize) -> String {
        activity_in(&mut self.transcript.borrow_mut(), max_bytes)
    }
}

/// Re-reads what was appended to `transcript` every `interval`, at most `polls` times, while
/// `waiting` holds for the finding so far; each new read decides the finding anew.
fn keep_reading(
    transcript: &mut Transcript,
    reader: &Reader,
    mut finding: Finding,
    polls: u32,
    interval: Duration,
    waiting: impl Fn(&Finding, &mut Transcript) -> bool,
) -> Finding {
    for _ in 0..polls {
        if !waiting(&finding, transcript) {
            break;
        }
        std::thread::sleep(interval);
        if transcript.refresh().unwrap_or(false) {
            finding = reader.tests_in(transcript);
        }
    }
    finding
}

/// Whether the current turn of `transcript` records the tool call `id` (the scan stops at the
/// turn's start: the call a hook is asked about is in the newest turn).
fn has_call(transcript: &mut Transcript, id: &str) -> bool {
    let mut found = false;
    let _ = transcript.visit_backwards(|event| match event {
        Event::ToolCall { id: call, .. } if call == id => {
            found = true;
            false
        }
        Event::UserTurn { .. } => false,
        _ => true,
    });
    found
}

/// Reads session files for test evidence.
pub struct Reader<'a> {
    /// Recognises a test command in one simple command's words.
    pub tests: &'a TestCommands<'a>,
    /// Whether a change to this path (absolute, or as the agent wrote it) counts.
    pub relevant: &'a dyn Fn(&str) -> bool,
    /// Where the agent's shell runs, to resolve relative paths of its writes.
    pub cwd: &'a Path,
    /// What is verified is commits (a push): changes made after the last commit in the
    /// session are not part of it.
    pub commits_only: bool,
    /// The repositories of this hook call, for the git aliases in the session's commands.
    pub repos: &'a Repos,
    /// The repository whose tests count: a run of another project's tests is no evidence.
    pub root: Option<&'a Path>,
}

impl Reader<'_> {
    /// Looks through a session file, newest first, for a successful test run after the last
    /// relevant change.
    pub fn transcript_tests(&self, path: &Path, options: Options) -> Finding {
        match Transcript::open(path, options) {
            Ok(mut transcript) => self.tests_in(&mut transcript),
            Err(_) => Finding::None,
        }
    }

    /// [`Reader::transcript_tests`] over a transcript already open.
    ///
    /// A run counts only when the session shows it exiting 0 after running tests (a summary
    /// such as "no tests ran" is no run). A passing run found, the scan goes on (at most
    /// [`FORGERY_LOOKBACK`] events) for what voids it ([`BeforeRun`]): a command of its turn
    /// that wrote the session file, an edit to the test harness, a failing full run before a
    /// run of part of the suite.
    pub fn tests_in(&self, transcript: &mut Transcript) -> Finding {
        // Call id -> how it ended, from results seen so far (results come after their calls; the
        // newest result of an id is the one kept).
        let mut results: HashMap<String, RunResult> = HashMap::new();
        let mut last_failed_test: Option<String> = None;
        let mut finding = Finding::None;
        // Newest first. For commits, a change seen before (newer than) a commit call is not in
        // the commits: it is held back until the scan meets that commit (then dropped) or a
        // test run or the start (then it counts, as no commit is known to have left it out).
        let mut commit_seen = !self.commits_only;
        let mut held: Option<Finding> = None;
        // Once a passing run is found: the older events that can void it.
        let mut checking: Option<BeforeRun> = None;
        let _ = transcript.visit_backwards(|event| {
            if let Some(before) = checking.as_mut() {
                return match before.visit(event) {
                    ControlFlow::Continue(()) => true,
                    ControlFlow::Break(voided) => {
                        if let Some(voided) = voided {
                            finding = voided;
                        }
                        false
                    }
                };
            }
            let change = match event {
                Event::ToolResult {
                    id,
                    failed,
                    exit,
                    output,
                } => {
                    results.entry(id.clone()).or_insert(RunResult {
                        passed: !failed && exit.is_none_or(|c| c == 0),
                        ran_no_test: bash::ran_no_test(output),
                    });
                    None
                }
                Event::ToolCall { tool, files, .. } if CHANGE_TOOLS.contains(&tool.as_str()) => {
                    (files.is_empty() || files.iter().any(|f| (self.relevant)(f)))
                        .then(|| tool.clone())
                }
                Event::ToolCall {
                    id,
                    tool,
                    command: Some(command),
                    ..
                } if tool == "Bash" => {
                    let call = self.read(command);
                    if call.commits && !commit_seen {
                        commit_seen = true;
                        held = None;
                    }
                    if let Some(test) = call.test {
                        if let Some(h) = held.take() {
                            finding = h;
                            return false;
                        }
                        match results.get(id) {
                            Some(r) if r.passed && r.ran_no_test => {
                                last_failed_test = last_failed_test
                                    .clone()
                                    .or(Some(format!("`{}` ran no test", short(&test))));
                            }
                            // The newest run decides: an older pass says nothing of code
                            // that failed since.
                            Some(r) if r.passed && last_failed_test.is_some() => {
                                finding = Finding::ChangeAfterTests {
                                    tool: NO_CHANGE_SEEN.into(),
                                    last_test: last_failed_test.clone(),
                                };
                                return false;
                            }
                            Some(r) if r.passed => {
                                checking = Some(BeforeRun::new(
                                    self,
                                    &test,
                                    call.test_scope.as_ref(),
                                    FORGERY_LOOKBACK,
                                ));
                                finding = Finding::TestRunAfterChange { command: test };
                                return true;
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
                        // A run whose status the line hides proves nothing when the line
                        // passed; when the line failed, no pass is shown, as for a failed run.
                        if let Some(test) = call.unproven_test_command.as_deref()
                            && results.get(id).is_some_and(|r| !r.passed)
                        {
                            last_failed_test = last_failed_test
                                .clone()
                                .or(Some(format!("`{}` failed", short(test))));
                        }
                        call.writes
                            .iter()
                            .any(|w| match w {
                                Some(path) => (self.relevant)(path),
                                None => true,
                            })
                            .then(|| format!("Bash `{}`", short(command)))
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
            true
        });
        if checking.is_some() {
            return finding;
        }
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

    pub(super) fn read(&self, command: &str) -> bash::ShellCall {
        bash::read(command, self.cwd, self.root, self.tests.regex(), self.repos)
    }
}

/// The test-command pattern (`gate.test_commands`) a [`Reader`] recognises runs by, compiled
/// when the first command is read. The Stop hook reads the facts of turns that ran no command
/// at all (a short answer), and compiling the pattern costs far more than reading such a turn
/// (3.5 M instructions against 0.07 M on a 10 KB transcript).
pub struct TestCommands<'a> {
    pattern: &'a str,
    compiled: OnceCell<Arc<Regex>>,
}

impl<'a> TestCommands<'a> {
    /// `pattern`, compiled on first use; a pattern that does not compile reads as the default
    /// (settings are validated when they load, so only a hand-built value can get here).
    pub fn new(pattern: &'a str) -> TestCommands<'a> {
        TestCommands {
            pattern,
            compiled: OnceCell::new(),
        }
    }

    /// A pattern compiled already.
    pub fn compiled(regex: Arc<Regex>) -> TestCommands<'static> {
        TestCommands {
            pattern: super::DEFAULT_TEST_COMMANDS,
            compiled: OnceCell::from(regex),
        }
    }

    /// The compiled pattern.
    pub fn regex(&self) -> &Regex {
        self.compiled.get_or_init(|| {
            super::test_commands(self.pattern)
                .or_else(|| super::test_commands(super::DEFAULT_TEST_COMMANDS))
                .expect("the default test commands compile (tested)")
        })
    }

    /// Whether the pattern has been compiled (for the tests of the quiet path).
    #[cfg(test)]
    pub fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }
}

/// How a call ended, as far as the evidence cares.
#[derive(Debug, Clone, Copy)]
struct RunResult {
    /// It exited 0 (or, for a tool without an exit status, did not fail).
    passed: bool,
    /// Its output says that no test ran.
    ran_no_test: bool,
}

/// Events read past a passing test run for what can void it (see [`BeforeRun`]).
pub(super) const FORGERY_LOOKBACK: usize = 2000;

/// Looks through a session file, newest first, for a successful test run after the last file
/// change.
pub fn transcript_tests(path: &Path, tests: &TestCommands, options: Options) -> Finding {
    let everything = |_: &str| true;
    Reader {
        tests,
        relevant: &everything,
        cwd: Path::new("/"),
        commits_only: false,
        repos: &Repos::default(),
        root: None,
    }
    .transcript_tests(path, options)
}

/// A short account of the session's latest activity (assistant text, commands and whether they
/// failed), newest last, at most `max_bytes`: what the judge reads when facts do not decide.
pub fn recent_activity(path: &Path, max_bytes: usize, options: Options) -> String {
    match Transcript::open(path, options) {
        Ok(mut transcript) => activity_in(&mut transcript, max_bytes),
        Err(_) => String::new(),
    }
}

/// [`recent_activity`] of a transcript already open: back to the last real user turn.
pub fn activity_in(transcript: &mut Transcript, max_bytes: usize) -> String {
    let mut entries: Vec<String> = Vec::new();
    let mut results: HashMap<String, bool> = HashMap::new();
    let mut used = 0;
    let _ = transcript.visit_backwards(|event| {
        let entry = match event {
            Event::ToolResult { id, failed, .. } => {
                results.entry(id.clone()).or_insert(*failed);
                None
            }
            Event::AssistantText { text, .. } if !text.is_empty() => {
                Some(format!("Assistant: {text}"))
            }
            Event::ToolCall {
                id, tool, command, ..
            } => {
                let outcome = match results.get(id) {
                    Some(true) => "failed",
                    Some(false) => "succeeded",
                    None => "no result",
                };
                Some(format!(
                    "[{tool} {}: {outcome}]",
                    command.as_deref().unwrap_or_default()
                ))
            }
            Event::UserTurn { text } => {
                entries.push(format!("User: {}", text.trim()));
                return false;
            }
            Event::AssistantText { .. } | Event::Compaction => None,
        };
        if let Some(entry) = entry {
            used += entry.len() + 1;
            entries.push(entry);
        }
        used < max_bytes
    });
    entries.reverse();
    transcript::tail(&entries.join("\n"), max_bytes).to_owned()
}
