//! `hookjudge gate`: the PreToolUse (Claude Code, Codex) / BeforeTool (Gemini) entry for shell
//! commands.
//!
//! Silent for anything that is not a gated action, at near process start-up cost and without
//! touching a repository. For gated actions it decides from repository facts, evidence and the
//! judge, and fails safe: when it cannot decide, a human does (`ask`; for Codex, a deny telling
//! the agent to ask the user). It never answers an explicit `allow`.

use std::io::{self, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::ExitStatus;
use crate::agent::{self, Agent, HookInput};
use crate::cli::{AgentArg, GateArgs};
use crate::config::{self, Settings, dirs};
use crate::gate::classify;
use crate::gate::policy::{self, Context, Decision, Ruling};
use crate::llm::LlmJudge;
use crate::time::{Timestamp, micros};

const MAX_STDIN_BYTES: u64 = 16 << 20;

/// One gate decision, as logged.
#[derive(Debug, Serialize)]
struct GateRecord {
    ts: String,
    kind: &'static str,
    version: &'static str,
    agent: Option<&'static str>,
    event: Option<String>,
    session: Option<String>,
    cwd: Option<String>,
    command: String,
    action: Decision,
    rulings: Vec<Ruling>,
    timings_us: u64,
    errors: Vec<String>,
}

/// Runs the gate. Always exits 0; failures ask a human.
pub(super) fn gate(args: &GateArgs, config: Option<&Path>) -> ExitStatus {
    if super::stop::recursion_guard_active() {
        return ExitStatus::Success;
    }
    let started = Instant::now();
    let mut stdin = Vec::new();
    let read = io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES)
        .read_to_end(&mut stdin);
    let agent_hint = args.agent.map(agent_from_arg);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        if std::env::var("HOOKJUDGE_DEBUG_PANIC").as_deref() == Ok("gate") {
            panic!("HOOKJUDGE_DEBUG_PANIC=gate was set");
        }
        match read {
            Ok(_) => run(agent_hint, config, &stdin, started),
            Err(e) => Err(format!("cannot read stdin: {e}")),
        }
    }));
    let (output, record) = match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => fail_safe(agent_hint, &stdin, error),
        Err(_) => fail_safe(
            agent_hint,
            &stdin,
            "internal error (panic) in the gate".into(),
        ),
    };
    if let Some(output) = output {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "{output}");
    }
    if let Some((mut record, log_dir)) = record {
        record.timings_us = micros(started.elapsed());
        let value = serde_json::to_value(&record).unwrap_or(Value::Null);
        if let Err(e) = crate::log::append(&log_dir, Timestamp::now(), &value) {
            let _ = writeln!(
                io::stderr(),
                "hookjudge: cannot write the decision log in `{}`: {e}",
                log_dir.display()
            );
        }
    }
    ExitStatus::Success
}

type Outcome = (Option<Value>, Option<(GateRecord, PathBuf)>);

/// The gate's fail-safe answer: a human decides (unless the input shows nothing gated).
fn fail_safe(agent_hint: Option<Agent>, stdin: &[u8], error: String) -> Outcome {
    let input = HookInput::parse(stdin).ok();
    let agent = agent_hint
        .or_else(|| input.as_ref().and_then(HookInput::detect_agent))
        .unwrap_or(Agent::Claude);
    if let Some(input) = &input {
        let shell = agent::is_shell_tool(input);
        let quiet = agent::shell_command(input).is_some_and(|c| !classify::may_be_gated(&c, &[]));
        if !shell || quiet {
            return (None, None);
        }
    }
    let command = input
        .as_ref()
        .and_then(agent::shell_command)
        .unwrap_or_default();
    let reason =
        format!("hookjudge could not check this command ({error}), so a human should decide.");
    let mut record = record_for(agent, input.as_ref(), &command);
    record.action = Decision::Ask;
    record.errors.push(error);
    (
        Some(agent::gate_output(agent, false, &reason)),
        Some((record, config::default_log_dir())),
    )
}

fn record_for(agent: Agent, input: Option<&HookInput>, command: &str) -> GateRecord {
    GateRecord {
        ts: Timestamp::now().rfc3339(),
        kind: "gate",
        version: env!("CARGO_PKG_VERSION"),
        agent: Some(agent.name()),
        event: input.and_then(|i| i.hook_event_name.clone()),
        session: input.and_then(|i| i.session_id.clone()),
        cwd: input.and_then(|i| i.cwd.clone()),
        command: command.to_owned(),
        action: Decision::Silent,
        rulings: Vec::new(),
        timings_us: 0,
        errors: Vec::new(),
    }
}

fn run(
    agent_hint: Option<Agent>,
    config: Option<&Path>,
    stdin: &[u8],
    started: Instant,
) -> Result<Outcome, String> {
    let input = HookInput::parse(stdin)?;
    if !agent::is_shell_tool(&input) {
        return Ok((None, None));
    }
    let agent = agent_hint
        .or_else(|| input.detect_agent())
        .unwrap_or(Agent::Claude);
    let Some(command) = agent::shell_command(&input) else {
        return Ok((None, None));
    };
    let cwd = input
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .unwrap_or_else(super::current_dir);
    let settings = if classify::may_be_gated(&command, &[]) {
        Settings::load(&cwd, config).map_err(|e| e.to_string())?
    } else {
        // The quiet path: no built-in gated word, so no repository and no log. Only a
        // user-defined deploy or publish command (from the config, read once) can still make
        // it gated; a config that does not load cannot name one.
        match Settings::load(&cwd, config) {
            Ok(s)
                if classify::may_be_gated(&command, &s.gate.deploy_commands)
                    || classify::may_be_gated(&command, &s.gate.publish_commands) =>
            {
                s
            }
            _ => return Ok((None, None)),
        }
    };
    let user = crate::gate::UserCommands {
        deploy: &settings.gate.deploy_commands,
        publish: &settings.gate.publish_commands,
    };
    let found = crate::gate::find(&command, &cwd, user);
    if found.is_empty() {
        return Ok((None, None));
    }
    let judges = settings.judges(&["commit".to_string()]).unwrap_or_default();
    let mut llm_settings = settings.llm.clone();
    llm_settings.timeout_ms = settings.gate.timeout_ms;
    let llm = LlmJudge::new(&llm_settings, dirs::state_dir(), started);
    let transcript = input
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    let now = Timestamp::now().millis;
    let mut record = record_for(agent, Some(&input), &command);
    for (gated, approved) in &found {
        let ctx = Context {
            settings: &settings.gate,
            cwd: &cwd,
            transcript: transcript.as_deref().filter(|p| p.exists()),
            judge: judges
                .first()
                .map(|j| (j, &llm as &dyn crate::judge::evaluate::Layer2)),
            approved: *approved,
            now,
        };
        record.rulings.push(policy::decide(gated, &ctx));
    }
    let denied: Vec<&Ruling> = record
        .rulings
        .iter()
        .filter(|r| r.decision == Decision::Deny)
        .collect();
    let asked: Vec<&Ruling> = record
        .rulings
        .iter()
        .filter(|r| r.decision == Decision::Ask)
        .collect();
    let output = if !denied.is_empty() {
        record.action = Decision::Deny;
        Some(agent::gate_output(agent, true, &join_reasons(&denied)))
    } else if !asked.is_empty() {
        record.action = Decision::Ask;
        Some(agent::gate_output(agent, false, &join_reasons(&asked)))
    } else {
        None
    };
    Ok((output, Some((record, settings.log_dir.clone()))))
}

fn join_reasons(rulings: &[&Ruling]) -> String {
    let mut reasons: Vec<&str> = rulings.iter().map(|r| r.reason.as_str()).collect();
    reasons.dedup();
    reasons.join("\n")
}

fn agent_from_arg(arg: AgentArg) -> Agent {
    match arg {
        AgentArg::Claude => Agent::Claude,
        AgentArg::Codex => Agent::Codex,
        AgentArg::Gemini => Agent::Gemini,
    }
}

/// Fail-safe answer for a usage error on the gate's own command line.
pub(super) fn usage_error(message: &str) -> ExitStatus {
    let first = message
        .lines()
        .next()
        .unwrap_or(message)
        .trim_start_matches("error: ");
    let mut stdin = Vec::new();
    let _ = io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES)
        .read_to_end(&mut stdin);
    let (output, record) = fail_safe(
        None,
        &stdin,
        format!(
            "bad arguments for `hookjudge gate`: {first}; run `hookjudge init` to rewrite the hook entry"
        ),
    );
    if let Some(output) = output {
        let _ = writeln!(io::stdout().lock(), "{output}");
    }
    if let Some((record, dir)) = record {
        let _ = crate::log::append(
            &dir,
            Timestamp::now(),
            &serde_json::to_value(&record).unwrap_or(Value::Null),
        );
    }
    ExitStatus::Success
}
