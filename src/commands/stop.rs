//! `hookjudge stop`: the Stop-hook entry point.
//!
//! Reads the agent's hook JSON, gathers the response text of the turn, runs the judges, applies
//! the loop breaker, answers in the agent's shape and logs the decision. It fails open: bad
//! stdin, a missing transcript, a bad config, a failed judge or even a panic end in exit 0 with
//! no block, a note for the human and a log line.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::ExitStatus;
use crate::agent::{self, Agent, HookInput};
use crate::cli::{AgentArg, StopArgs};
use crate::config::{self, Settings, dirs};
use crate::hook;
use crate::judge::evaluate::{Decision, JudgeOutcome, Verdict, evaluate};
use crate::ledger::{self, Limits};
use crate::llm::LlmJudge;
use crate::time::{Timestamp, micros};
use crate::transcript::{self, Boundary};

/// What the Stop hook did, as logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Action {
    /// Nothing objected.
    Allow,
    /// At least one judge blocked and the loop breaker admitted it.
    Block,
    /// Judges blocked but the loop breaker let the turn end.
    Release,
    /// Something failed and the turn was allowed to end because of it.
    FailOpen,
}

/// One decision log line for a Stop.
#[derive(Debug, Serialize)]
struct StopRecord {
    ts: String,
    kind: &'static str,
    version: &'static str,
    agent: Option<&'static str>,
    event: Option<String>,
    session: Option<String>,
    prompt: Option<String>,
    cwd: Option<String>,
    stop_hook_active: bool,
    decision: Decision,
    action: Action,
    judges: Vec<JudgeOutcome>,
    released: Vec<String>,
    /// Which LLM provider judged, and why it was chosen (only when a judge triggered).
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<String>,
    text_bytes: usize,
    /// Secrets removed from the text before judging, per kind.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    redactions: std::collections::BTreeMap<String, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transcript: Option<TranscriptInfo>,
    timings_us: Timings,
    errors: Vec<String>,
}

#[derive(Debug, Serialize)]
struct TranscriptInfo {
    path: PathBuf,
    boundary: Boundary,
    scanned_bytes: u64,
    giant_lines: u32,
    bad_lines: u32,
}

#[derive(Debug, Default, Serialize)]
struct Timings {
    total: u64,
    transcript: u64,
    layer1: u64,
    layer2: u64,
}

impl StopRecord {
    fn new() -> StopRecord {
        StopRecord {
            ts: Timestamp::now().rfc3339(),
            kind: "stop",
            version: env!("CARGO_PKG_VERSION"),
            agent: None,
            event: None,
            session: None,
            prompt: None,
            cwd: None,
            stop_hook_active: false,
            decision: Decision::Allow,
            action: Action::Allow,
            judges: Vec::new(),
            released: Vec::new(),
            provider: None,
            text_bytes: 0,
            redactions: Default::default(),
            text: None,
            transcript: None,
            timings_us: Timings::default(),
            errors: Vec::new(),
        }
    }

    fn fail_open(&mut self, error: String) {
        self.action = Action::FailOpen;
        self.decision = Decision::Allow;
        self.errors.push(error);
    }
}

/// The result of one Stop call: what to print, what to log, where.
struct Run {
    output: Option<Value>,
    record: StopRecord,
    log_dir: PathBuf,
}

/// Runs the Stop hook. Always returns success.
pub(super) fn stop(args: &StopArgs, config: Option<&Path>) -> ExitStatus {
    if hook::STOP.skips_for_recursion() {
        return ExitStatus::Success;
    }
    let started = Instant::now();
    let (stdin, read) = hook::read_stdin();
    let outcome = hook::STOP.catch(|| run(args, config, read.map(|()| stdin.as_slice()), started));
    let mut run = outcome.unwrap_or_else(|panic| {
        let mut record = StopRecord::new();
        record.fail_open(panic.to_string());
        Run {
            output: Some(agent::stop_notice(&format!(
                "hookjudge: internal error while judging ({}); the turn was allowed to end. Please report it with `hookjudge log --json -n 1`.",
                panic.message
            ))),
            record,
            log_dir: config::default_log_dir(),
        }
    });
    run.record.timings_us.total = micros(started.elapsed());
    finish(run)
}

/// A usage error on the hook's own command line: fail open, and say how to repair the entry.
pub(super) fn usage_error(command: &str, clap_message: &str) -> ExitStatus {
    let first_line = clap_message
        .lines()
        .next()
        .unwrap_or(clap_message)
        .trim_start_matches("error: ")
        .to_owned();
    let mut record = StopRecord::new();
    record.fail_open(format!(
        "bad arguments for `hookjudge {command}`: {first_line}"
    ));
    let output = agent::stop_notice(&format!(
        "hookjudge: the `{command}` hook entry has bad arguments ({first_line}); the turn was allowed to end. Run `hookjudge init` to rewrite it."
    ));
    finish(Run {
        output: Some(output),
        record,
        log_dir: config::default_log_dir(),
    })
}

fn finish(run: Run) -> ExitStatus {
    hook::answer(run.output.as_ref());
    hook::write_log(&run.log_dir, &run.record);
    for error in &run.record.errors {
        let _ = writeln!(io::stderr(), "hookjudge: {error}");
    }
    ExitStatus::Success
}

fn run(
    args: &StopArgs,
    config: Option<&Path>,
    stdin: Result<&[u8], hook::InputError>,
    started: Instant,
) -> Run {
    let mut record = StopRecord::new();
    let mut log_dir = config::default_log_dir();
    let fail = |mut record: StopRecord, log_dir: PathBuf, error: String, note: &str| {
        record.fail_open(error);
        Run {
            output: Some(agent::stop_notice(&format!(
                "hookjudge: {note}; the turn was allowed to end."
            ))),
            record,
            log_dir,
        }
    };
    let input = match stdin.and_then(HookInput::parse) {
        Ok(input) => input,
        Err(e @ hook::InputError::TooLarge { .. }) => {
            let error = e.to_string();
            return fail(record, log_dir, error, "hook input too large to judge");
        }
        Err(e) => {
            let error = e.to_string();
            return fail(record, log_dir, error, "could not read the hook input");
        }
    };
    let agent = args
        .agent
        .map(agent_from_arg)
        .or_else(|| input.detect_agent());
    record.agent = agent.map(Agent::name);
    record.event = input.hook_event_name.clone();
    record.session = input.session_id.clone();
    record.prompt = input.prompt_key();
    record.cwd = input.cwd.clone();
    record.stop_hook_active = input.stop_hook_active.unwrap_or(false);
    let Some(agent) = agent else {
        let event = input.hook_event_name.as_deref().unwrap_or("none");
        return fail(
            record,
            log_dir,
            format!("cannot tell which agent sent hook event `{event}`; pass `--agent`"),
            "unrecognised hook input",
        );
    };
    if !input.is_stop_event() && args.agent.is_none() {
        // A Stop entry wired to another event: nothing to judge.
        record.errors.push(format!(
            "`hookjudge stop` received a `{}` event; ignored",
            record.event.as_deref().unwrap_or("?")
        ));
        return Run {
            output: None,
            record,
            log_dir,
        };
    }

    let cwd = input
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .unwrap_or_else(super::current_dir);
    let settings = match Settings::load(&cwd, config) {
        Ok(settings) => settings,
        // The default log dir stays: the file that would name another one is the broken one.
        Err(e) => {
            return fail(
                record,
                log_dir,
                e.to_string(),
                "invalid config, judges skipped (see `hookjudge log`)",
            );
        }
    };
    log_dir = settings.log_dir.clone();
    crate::log::prune_on_new_day(&log_dir, Timestamp::now(), settings.log_retention_days);
    // Told once per file content: what of an untrusted repository file was ignored.
    let trust_note = settings
        .repo_report
        .as_ref()
        .filter(|r| crate::trust::first_notice(r))
        .map(|r| format!("hookjudge: {}", r.message()));
    let judges = match settings.judges(&[]) {
        Ok(judges) => judges,
        Err(e) => {
            return fail(
                record,
                log_dir,
                e.to_string(),
                "invalid judge in config, judges skipped (see `hookjudge log`)",
            );
        }
    };

    let transcript_started = Instant::now();
    let (text, request) = response_text(agent, &input, &settings, &mut record);
    record.timings_us.transcript = micros(transcript_started.elapsed());
    // Secrets go before anything else sees the text: the LLM, the cache, the log.
    let redacted = crate::redact::redact(&text);
    let text = redacted.text;
    record.redactions = redacted.counts;
    record.text_bytes = text.len();
    if settings.log_text {
        record.text = Some(text.clone());
    }
    if text.trim().is_empty() {
        return Run {
            output: trust_note.as_deref().map(agent::stop_notice),
            record,
            log_dir,
        };
    }

    // The agent kills the hook at its settings timeout: keep the deadline below it.
    let mut llm_settings = settings.llm.clone();
    llm_settings.timeout_ms =
        crate::install::settings::clamp_deadline_ms(llm_settings.timeout_ms, args.hook_timeout);
    let request = request.map(|r| crate::redact::redact(&r).text);
    let layer2 = LlmJudge::new(&llm_settings, dirs::state_dir(), started).with_request(request);
    let evaluation = evaluate(&text, &judges, &layer2);
    record.provider = layer2.resolved().map(|r| r.why.clone());
    record.timings_us.layer1 = evaluation.layer1_us;
    record.timings_us.layer2 = evaluation.layer2_us;
    record.judges = evaluation.outcomes;

    let blocking: Vec<&str> = record
        .judges
        .iter()
        .filter(|o| o.decision == Decision::Block)
        .map(|o| o.judge.as_str())
        .collect();
    let failed: Vec<String> = record
        .judges
        .iter()
        .filter(|o| o.verdict == Some(Verdict::Fail))
        .map(|o| o.judge.clone())
        .collect();
    let mut notes: Vec<String> = Vec::new();
    if !failed.is_empty() {
        notes.push(format!(
            "could not judge with {} (see `hookjudge log`)",
            names(&failed)
        ));
    }
    let mut output = None;
    if !blocking.is_empty() {
        let session = input.session_id.as_deref().unwrap_or("");
        let limits = Limits {
            per_judge: settings.max_blocks_per_judge,
            per_prompt: settings.max_blocks_per_prompt,
        };
        let admission = ledger::admit(
            &dirs::state_dir(),
            session,
            record.prompt.as_deref(),
            record.stop_hook_active,
            &blocking,
            limits,
        )
        .unwrap_or_else(|e| {
            // Without a ledger, `stop_hook_active` is the only loop guard left.
            record.errors.push(format!(
                "loop-breaker ledger unavailable ({e}); using stop_hook_active"
            ));
            let (admitted, released) = if record.stop_hook_active {
                (vec![], blocking.clone())
            } else {
                (blocking.clone(), vec![])
            };
            ledger::Admission {
                admitted: admitted.into_iter().map(str::to_owned).collect(),
                released: released.into_iter().map(str::to_owned).collect(),
            }
        });
        for outcome in &mut record.judges {
            if admission.released.contains(&outcome.judge) {
                outcome.decision = Decision::Allow;
            }
        }
        if !admission.released.is_empty() {
            notes.push(format!(
                "{} still {} but the turn was allowed to end (loop breaker: at most {} block(s) per judge and {} per prompt); please review the response",
                names(&admission.released),
                if admission.released.len() == 1 { "objects" } else { "object" },
                limits.per_judge,
                limits.per_prompt
            ));
        }
        record.released = admission.released;
        if !admission.admitted.is_empty() {
            record.decision = Decision::Block;
            record.action = Action::Block;
            let reasons: Vec<String> = admission
                .admitted
                .iter()
                .filter_map(|name| judges.iter().find(|j| j.name == *name))
                .map(|j| format!("hookjudge [{}]: {}", j.name, j.reason))
                .collect();
            let reason = format!(
                "{}\nIf this does not apply to your response, say why in one sentence; you will not be blocked for it again on this prompt.",
                reasons.join("\n")
            );
            output = Some(agent::stop_block(agent, &reason));
        } else {
            record.action = Action::Release;
        }
    }
    if record.action == Action::Allow && !failed.is_empty() {
        record.action = Action::FailOpen;
    }
    if output.is_none() && !notes.is_empty() {
        output = Some(agent::stop_notice(&format!(
            "hookjudge: {}.",
            notes.join("; ")
        )));
    }
    if let Some(note) = trust_note {
        // Beside a block or another notice: `systemMessage` is for the human in every agent.
        let output = output.get_or_insert_with(|| serde_json::json!({}));
        output["systemMessage"] = match output["systemMessage"].as_str() {
            Some(other) => Value::String(format!("{other}\n{note}")),
            None => Value::String(note),
        };
    }
    Run {
        output,
        record,
        log_dir,
    }
}

/// The text the judges read (the turn's assistant text, last `text_bytes` bytes), and the
/// user's request that started the turn where the agent gives it (context for Layer 2).
fn response_text(
    agent: Agent,
    input: &HookInput,
    settings: &Settings,
    record: &mut StopRecord,
) -> (String, Option<String>) {
    let last = input.last_assistant_message.as_deref();
    match agent {
        Agent::Gemini => (
            transcript::judged_text(
                &[],
                input.prompt_response.as_deref().or(last),
                settings.text_bytes,
            ),
            input.prompt.clone(),
        ),
        // Codex's Stop input carries no prompt, and its rollout file is not read here.
        Agent::Codex => (
            transcript::judged_text(&[], last, settings.text_bytes),
            None,
        ),
        Agent::Claude => {
            let Some(path) = input.stop_transcript() else {
                return (
                    transcript::judged_text(&[], last, settings.text_bytes),
                    None,
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
                    });
                    (
                        transcript::judged_text(&turn.messages, last, settings.text_bytes),
                        turn.user_request,
                    )
                }
                Err(e) => {
                    record.errors.push(format!(
                        "cannot read transcript `{}`: {e}; judging the last message only",
                        path.display()
                    ));
                    (
                        transcript::judged_text(&[], last, settings.text_bytes),
                        None,
                    )
                }
            }
        }
    }
}

fn agent_from_arg(arg: AgentArg) -> Agent {
    match arg {
        AgentArg::Claude => Agent::Claude,
        AgentArg::Codex => Agent::Codex,
        AgentArg::Gemini => Agent::Gemini,
    }
}

fn names(judges: &[String]) -> String {
    judges
        .iter()
        .map(|j| format!("`{j}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
