//! `hookjudge stop`: the Stop-hook entry point.
//!
//! Gathers the response text of the turn, runs the judges, applies the loop breaker and answers
//! in the agent's shape; the shared plumbing (stdin, the event, panics, the log line) is
//! [`crate::hook`]'s. It fails open: bad stdin, a missing transcript, a bad config, a failed
//! judge or even a panic end in exit 0 with no block, a note for the human and a log line.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::ExitStatus;
use crate::agent::Agent;
use crate::cli::StopArgs;
use crate::config::{self, Settings};
use crate::gate::evidence::facts;
use crate::hook::event::{Event, Kind, Response};
use crate::hook::stop_record;
use crate::hook::{self, Failed, InputError, Ran, StopOutcome};
use crate::judge::claims::Grounded;
use crate::judge::evaluate::{Panel, evaluate};
use crate::llm::LlmJudge;
use crate::log::{StopRecord, TranscriptInfo};
use crate::stop::ledger::Limits;
use crate::stop::verdict;
use crate::support::dirs;
use crate::support::time::{Timestamp, micros};
use crate::transcript;

/// Runs the Stop hook. Always returns success.
pub(super) fn stop(args: &StopArgs, config: Option<&Path>) -> ExitStatus {
    let entry = StopHook {
        config,
        hook_timeout: args.hook_timeout,
    };
    hook::run(&entry, args.agent);
    ExitStatus::Success
}

/// A usage error on the hook's own command line: fail open, and say how to repair the entry.
pub(super) fn usage_error(command: &str, clap_message: &str) -> ExitStatus {
    let first_line = hook::usage_line(clap_message);
    let mut record = StopRecord::new();
    record.fail_open(format!(
        "bad arguments for `hookjudge {command}`: {first_line}"
    ));
    let outcome = StopOutcome::Notice(format!(
        "hookjudge: the `{command}` hook entry has bad arguments ({first_line}); the turn was allowed to end. Run `hookjudge init` to rewrite it."
    ));
    let ran = Ran {
        agent: Agent::Claude,
        outcome,
        log: Some((record, config::default_log_dir())),
    };
    hook::finish::<StopHook>(ran, Instant::now());
    ExitStatus::Success
}

/// The Stop hook's work for one call.
struct StopHook<'a> {
    config: Option<&'a Path>,
    /// The agent's timeout for this hook (seconds), which the LLM deadline stays below.
    hook_timeout: Option<u64>,
}

type StopRan = Ran<StopOutcome, StopRecord>;

impl hook::Entry for StopHook<'_> {
    type Outcome = StopOutcome;
    type Record = StopRecord;
    const HOOK: hook::Hook = hook::STOP;

    fn decide(&self, event: &Event, started: Instant) -> Result<StopRan, Failed> {
        self.judge(event, started)
    }

    fn fail(&self, event: Option<&Event>, failed: Failed) -> StopRan {
        let mut record = event.map(stop_record::of).unwrap_or_default();
        let note = match &failed {
            Failed::Input(e) => return bad_input(e),
            Failed::Panic(panic) => format!(
                "hookjudge: internal error while judging ({}); the turn was allowed to end. Please report it with `hookjudge log --json -n 1`.",
                panic.message
            ),
            // A judge's pattern that is not a regex is a bad judge, as one that does not build.
            Failed::Config(e) if judge_error(e) => "hookjudge: invalid judge in config, judges skipped (see `hookjudge log`); the turn was allowed to end.".into(),
            // The default log dir stays: the file that would name another one is the broken one.
            Failed::Config(_) => "hookjudge: invalid config, judges skipped (see `hookjudge log`); the turn was allowed to end.".into(),
        };
        record.fail_open(failed.to_string());
        Ran {
            agent: event.map_or(Agent::Claude, |e| e.agent),
            outcome: StopOutcome::Notice(note),
            log: Some((record, config::default_log_dir())),
        }
    }

    fn render(agent: Agent, outcome: &StopOutcome) -> Option<serde_json::Value> {
        agent.stop_answer(outcome)
    }
}

/// Fails open with `error` logged and `note` for the human.
fn fail_open(
    agent: Agent,
    mut record: StopRecord,
    log_dir: PathBuf,
    error: String,
    note: &str,
) -> StopRan {
    record.fail_open(error);
    Ran {
        agent,
        outcome: StopOutcome::Notice(format!("hookjudge: {note}; the turn was allowed to end.")),
        log: Some((record, log_dir)),
    }
}

/// Whether `e` is about a judge: a definition that does not build, or a pattern of one that is
/// not a regex.
fn judge_error(e: &config::Error) -> bool {
    match &e.kind {
        config::ErrorKind::Invalid { key, .. } => key.starts_with("judges."),
        config::ErrorKind::Judge { .. } => true,
        _ => false,
    }
}

/// An input that cannot be judged.
fn bad_input(error: &InputError) -> StopRan {
    let mut record = StopRecord::new();
    let note = match error {
        InputError::TooLarge { .. } => "hook input too large to judge",
        InputError::UnknownAgent(origin) => {
            record.session.event = origin.name.clone();
            record.session.session = origin.session.clone();
            record.origin.cwd = origin.cwd.clone();
            "unrecognised hook input"
        }
        _ => "could not read the hook input",
    };
    let log_dir = config::default_log_dir();
    fail_open(Agent::Claude, record, log_dir, error.to_string(), note)
}

impl StopHook<'_> {
    fn judge(&self, event: &Event, started: Instant) -> Result<StopRan, Failed> {
        let agent = event.agent;
        if matches!(event.kind, Kind::Recorded) {
            return Ok(Ran {
                agent,
                outcome: StopOutcome::Allow,
                log: None,
            });
        }
        let mut record = stop_record::of(event);
        let Kind::Stop(stop) = &event.kind else {
            // A Stop entry wired to another event: nothing to judge.
            record.errors.push(format!(
                "`hookjudge stop` received a `{}` event; ignored",
                record.session.event.as_deref().unwrap_or("?")
            ));
            return Ok(Ran {
                agent,
                outcome: StopOutcome::Allow,
                log: Some((record, config::default_log_dir())),
            });
        };
        let settings = Settings::load(&event.origin.project_dir(), self.config)?;
        let log_dir = settings.log_dir.clone();
        crate::log::prune_on_new_day(&log_dir, Timestamp::now(), settings.log_retention_days);
        // Told once per file content: what of an untrusted repository file was ignored.
        let trust_note = settings
            .repo_report
            .as_ref()
            .filter(|r| crate::config::trust::first_notice(r))
            .map(|r| format!("hookjudge: {}", r.message()));
        let panel = match settings.panel(&[]) {
            Ok(panel) => panel,
            // Logged where the config says, which loaded.
            Err(e) => {
                let note = if judge_error(&e) {
                    "invalid judge in config, judges skipped (see `hookjudge log`)"
                } else {
                    "invalid config, judges skipped (see `hookjudge log`)"
                };
                return Ok(fail_open(agent, record, log_dir, e.to_string(), note));
            }
        };
        let (text, request) = judged_text(&stop.response, &settings, &mut record);
        let outcome = if text.trim().is_empty() {
            StopOutcome::Allow
        } else {
            let session = Session {
                file: stop.session_file.as_deref(),
                cwd: event.origin.cwd.as_deref().map(Path::new),
                last_message: match &stop.response {
                    Response::Transcript { last_message, .. } => last_message.as_deref(),
                    _ => None,
                },
            };
            let no_llm = self.run_judges(
                &text,
                request,
                session,
                &panel,
                &settings,
                started,
                &mut record,
            );
            let limits = Limits {
                per_judge: settings.max_blocks_per_judge,
                per_prompt: settings.max_blocks_per_prompt,
            };
            let session = event.origin.session.as_deref().unwrap_or("");
            let state_dir = dirs::state_dir();
            let outcome =
                verdict::conclude(&mut record, &panel.judges, limits, &state_dir, session);
            match no_llm {
                Some(note) if told_first(&state_dir, session, &mut record) => {
                    outcome.with_notice(note)
                }
                _ => outcome,
            }
        };
        // The process ends right after this answer. Freeing hundreds of compiled patterns and
        // prefilters one allocation at a time costs more than a quiet turn's whole Layer 1
        // scan (callgrind: 0.18 M of 2.35 M instructions), so the memory is left to the exit.
        std::mem::forget(panel);
        std::mem::forget(settings);
        Ok(Ran {
            agent,
            outcome: match trust_note {
                Some(note) => outcome.with_notice(note),
                None => outcome,
            },
            log: Some((record, log_dir)),
        })
    }

    /// Runs the judges on `text` (Layer 1, then the LLM for the judges the turn concerns, with
    /// the user's `request` as context) into `record`. Returns what to tell the human when no
    /// LLM could judge: none is configured or found, or it cannot be reached.
    #[allow(clippy::too_many_arguments)]
    fn run_judges(
        &self,
        text: &str,
        request: Request,
        session: Session,
        panel: &Panel,
        settings: &Settings,
        started: Instant,
        record: &mut StopRecord,
    ) -> Option<String> {
        // The agent kills the hook at its settings timeout: keep the deadline below it.
        let mut llm_settings = settings.llm.clone();
        llm_settings.timeout_ms =
            crate::install::settings::clamp_deadline_ms(llm_settings.timeout_ms, self.hook_timeout);
        let layer2 = LlmJudge::new(&llm_settings, dirs::state_dir(), started);
        let layer2 = match request {
            Request::Known(request) => layer2.with_request(request.as_deref()),
            Request::InRollout(path) => {
                let options = settings.transcript;
                layer2.with_request_from(Box::new(move || {
                    transcript::turn_text(&path, options).map(|turn| turn.user_request)
                }))
            }
        };
        // The session's facts settle claims without an LLM where they can; read only when a
        // judge that uses them wakes.
        let grounded = Grounded::new(
            &layer2,
            Box::new(move || {
                let cwd = session.cwd.unwrap_or(Path::new("/"));
                let file = session.file?;
                if let Some(message) = session.last_message {
                    wait_for_last_message(file, message);
                }
                facts::of_file(file, settings.transcript, &settings.gate.test_commands, cwd).ok()
            }),
        );
        let evaluation = evaluate(text, panel, &grounded);
        if let Some(e) = layer2.request_error() {
            record.errors.push(format!(
                "cannot read the user's request from the rollout: {e}"
            ));
        }
        record.provider = layer2.resolved().map(|r| r.why.clone());
        record.timings_us.layer1 = evaluation.layer1_us;
        record.timings_us.layer2 = evaluation.layer2_us;
        record.llm_calls = Some(evaluation.llm_calls);
        record.not_judged = evaluation.not_judged.map(str::to_owned);
        record.judges = evaluation.outcomes.into_iter().map(Into::into).collect();
        no_llm_note(layer2.resolved(), record)
    }
}

/// The notice key that says no LLM judges, told once per session.
const NO_LLM_NOTICE: &str = "no-llm";

/// What the human is told, once per session, when asked judges got no LLM: which is missing
/// and the one setting that fixes it.
fn no_llm_note(resolution: Option<&crate::llm::Resolution>, record: &StopRecord) -> Option<String> {
    let resolution = resolution?;
    if resolution.backend.is_none() {
        return Some(format!(
            "hookjudge is not judging: no LLM ({}). Set `llm.provider` in your config (`hookjudge config path` shows where; for example {{\"llm\": {{\"provider\": \"anthropic\"}}}}), then check it with `hookjudge doctor --online`.",
            resolution.why
        ));
    }
    let unreachable = record.judges.iter().find(|j| {
        j.layer2
            .as_ref()
            .is_some_and(|l| l.call.failure.as_deref() == Some("connect"))
    })?;
    Some(format!(
        "hookjudge is not judging: {}. Fix `llm.base_url` in your config (or start the server), then check it with `hookjudge doctor --online`.",
        unreachable
            .reason
            .as_deref()
            .unwrap_or("the LLM cannot be reached")
    ))
}

/// Whether the no-LLM notice is new to `session` (a ledger that cannot be read repeats it:
/// better than hiding it).
fn told_first(state_dir: &Path, session: &str, record: &mut StopRecord) -> bool {
    crate::stop::ledger::first_in_session(state_dir, session, NO_LLM_NOTICE).unwrap_or_else(|e| {
        record.errors.push(format!(
            "session ledger unavailable ({e}); the no-LLM notice may repeat"
        ));
        true
    })
}

/// The response text, redacted (secrets go before anything else sees it: the LLM, the cache,
/// the log), and the user's request, which [`LlmJudge::with_request`] redacts in turn.
fn judged_text(
    response: &Response,
    settings: &Settings,
    record: &mut StopRecord,
) -> (String, Request) {
    let transcript_started = Instant::now();
    let (text, request) = response_text(response, settings, record);
    record.timings_us.transcript = micros(transcript_started.elapsed());
    let redacted = crate::redact::redact(&text);
    record.redactions = redacted.counts;
    record.text_bytes = redacted.text.len();
    if settings.log_text {
        record.text = Some(redacted.text.clone());
    }
    (redacted.text, request)
}

/// The text the judges read (the turn's assistant text, last `text_bytes` bytes), and the
/// user's request that started the turn where the agent gives it (context for Layer 2).
fn response_text(
    response: &Response,
    settings: &Settings,
    record: &mut StopRecord,
) -> (String, Request) {
    match response {
        Response::Turn { text, request } => (
            transcript::judged_text(&[], text.as_deref(), settings.text_bytes),
            Request::Known(request.clone()),
        ),
        // Codex's Stop input carries no prompt: the request is read from its rollout, and only
        // if a judge wakes.
        Response::LastMessage { text, rollout } => (
            transcript::judged_text(&[], text.as_deref(), settings.text_bytes),
            rollout
                .clone()
                .map_or(Request::Known(None), Request::InRollout),
        ),
        Response::Transcript { path, last_message } => {
            let last = last_message.as_deref();
            let Some(path) = path.clone() else {
                return (
                    transcript::judged_text(&[], last, settings.text_bytes),
                    Request::Known(None),
                );
            };
            match transcript::turn_text(&path, settings.transcript) {
                Ok(turn) => {
                    record.transcript = Some(TranscriptInfo {
                        path,
                        boundary: turn.boundary,
                        scanned_bytes: turn.scanned_bytes,
                        giant_lines: turn.giant_lines,
                        bad_lines: turn.bad_lines,
                        rest: serde_json::Map::new(),
                    });
                    (
                        transcript::judged_text(&turn.messages, last, settings.text_bytes),
                        Request::Known(turn.user_request),
                    )
                }
                Err(e) => {
                    record.errors.push(format!(
                        "cannot read transcript `{}`: {e}; judging the last message only",
                        path.display()
                    ));
                    (
                        transcript::judged_text(&[], last, settings.text_bytes),
                        Request::Known(None),
                    )
                }
            }
        }
    }
}

/// Where the turn's facts are read: the agent's session file, and the directory its shell
/// runs in.
#[derive(Clone, Copy)]
struct Session<'a> {
    file: Option<&'a Path>,
    cwd: Option<&'a Path>,
    /// Claude Code's last message, which its transcript holds once every line of the turn
    /// before it is written.
    last_message: Option<&'a str>,
}

/// Claude Code writes its transcript through a queue: when the Stop hook starts, the turn's
/// last lines (a test run and its result) may not be in the file yet. They are written before
/// the final message, so the facts wait, briefly, until the file's end holds that message.
fn wait_for_last_message(file: &Path, message: &str) {
    // The message's end as the transcript's JSON spells it (escaped, without the quotes).
    let tail: String = message
        .trim_end()
        .chars()
        .rev()
        .take(40)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let Ok(quoted) = serde_json::to_string(&tail) else {
        return;
    };
    let needle = quoted.trim_matches('"').as_bytes().to_vec();
    if needle.len() < 8 {
        return;
    }
    let holds = || -> bool {
        use std::io::{Read, Seek, SeekFrom};
        let Ok(mut f) = std::fs::File::open(file) else {
            return true;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let start = len.saturating_sub(256 << 10);
        let mut buf = Vec::new();
        if f.seek(SeekFrom::Start(start)).is_err() || f.read_to_end(&mut buf).is_err() {
            return true;
        }
        buf.windows(needle.len()).any(|w| w == needle.as_slice())
    };
    for _ in 0..LAST_MESSAGE_POLLS {
        if holds() {
            return;
        }
        std::thread::sleep(LAST_MESSAGE_POLL);
    }
}

/// How long the facts wait for Claude Code's transcript to catch up (a second in all).
const LAST_MESSAGE_POLL: std::time::Duration = std::time::Duration::from_millis(50);
const LAST_MESSAGE_POLLS: u32 = 20;

/// The user's request that started the turn: known from the hook input or the transcript
/// already read, or in a Codex rollout that is read only when a judge wakes.
enum Request {
    Known(Option<String>),
    InRollout(PathBuf),
}
