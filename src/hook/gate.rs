//! The gate's entry in the hook runner: the PreToolUse (Claude Code, Codex) / BeforeTool
//! (Gemini) event for shell commands and file tools. It reads the configuration, asks
//! [`crate::gate::outcome`] for the answer (the rules live there), and hands the runner the
//! answer and its log record. It fails safe: when it cannot decide, a human does. It never
//! answers an explicit `allow`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use crate::agent::Agent;
use crate::config::{Settings, default_log_dir};
use crate::gate::outcome::{self, Answer, Confinement, Found};
use crate::gate::{gather::Reads, protect};
use crate::hook::event::{Call, Event, Kind, Tool};
use crate::hook::{self, Failed, GateOutcome, Ran, gate_record};
use crate::log::{GateRecord, RulingEntry};
use crate::{llm::LlmJudge, support::time::Timestamp};

/// The gate's work for one call.
pub struct GateHook<'a> {
    /// `--agent`: the answer's shape even when the input cannot be read.
    pub agent: Option<Agent>,
    /// `--config`, when given.
    pub config: Option<&'a Path>,
    /// The gate judge's deadline (milliseconds) for the configured one, kept below the agent's
    /// timeout for this hook.
    pub llm_deadline: &'a dyn Fn(u64) -> u64,
}

type GateRan = Ran<GateOutcome, GateRecord>;

/// The boundary settings [`run`] loaded: one hook call per process, so set once.
static CONFINEMENT: OnceLock<Confinement> = OnceLock::new();

impl hook::Entry for GateHook<'_> {
    type Outcome = GateOutcome;
    type Record = GateRecord;
    const HOOK: hook::Hook = hook::GATE;

    fn decide(&self, event: &Event, started: Instant) -> Result<GateRan, Failed> {
        let Kind::Tool(tool) = &event.kind else {
            return Ok(silent(event.agent));
        };
        let Ran {
            agent,
            mut outcome,
            log,
        } = match crate::agent::cline_commands_run(&tool.input).filter(|run| run.len() > 1) {
            Some(commands) => each_on_its_own(event, tool, self, started, commands)?,
            None => run(event, tool, self, started)?,
        };
        let Some(command) = tool.command() else {
            return Ok(Ran {
                agent,
                outcome,
                log,
            });
        };
        if let Some(&how) = CONFINEMENT.get() {
            let (project, ruled) = (event.origin.project_dir(), log.is_some());
            outcome = outcome::confine(outcome, how, agent, &tool.input, command, &project, ruled);
        }
        let outcome = outcome::refuse_in_place(outcome, agent, &tool.input);
        Ok(Ran {
            agent,
            outcome,
            log,
        })
    }

    fn fail(&self, event: Option<&Event>, failed: Failed) -> GateRan {
        fail_safe(self.agent, event, failed.to_string())
    }

    fn render(agent: Agent, outcome: &GateOutcome) -> Option<serde_json::Value> {
        agent.gate_answer(outcome)
    }
}

/// A call that runs several commands each on its own (Cline CLI 3's `run_commands`, in
/// parallel and in the same folder): each is read alone, as the agent runs it, and the most
/// severe answer stands (a ruled one before a silent one of the same rank, so that a push the
/// gate let through keeps its credentials).
fn each_on_its_own(
    event: &Event,
    tool: &Tool,
    gate: &GateHook,
    started: Instant,
    commands: Vec<String>,
) -> Result<GateRan, Failed> {
    let rank = |ran: &GateRan| {
        let severity = match ran.outcome {
            GateOutcome::Deny(_) => 2,
            GateOutcome::Ask(_) => 1,
            _ => 0,
        };
        (severity, ran.log.is_some())
    };
    let mut worst: Option<GateRan> = None;
    for command in commands {
        let mut one = tool.clone();
        if let Call::Shell { command: c, .. } = &mut one.call {
            *c = Some(command);
        }
        let ran = run(event, &one, gate, started)?;
        if worst.as_ref().is_none_or(|w| rank(&ran) > rank(w)) {
            worst = Some(ran);
        }
    }
    Ok(worst.unwrap_or_else(|| silent(event.agent)))
}

/// No answer and no log line: nothing gated.
fn silent(agent: Agent) -> GateRan {
    Ran {
        agent,
        outcome: GateOutcome::Silent,
        log: None,
    }
}

/// `answer`, and `record` filled in with it, to be written to `log_dir`.
fn logged(mut record: GateRecord, agent: Agent, answer: Answer, log_dir: PathBuf) -> GateRan {
    let outcome = answer.outcome();
    record.action = answer.decision;
    record.rulings = answer.rulings.into_iter().map(RulingEntry::from).collect();
    Ran {
        agent,
        outcome,
        log: Some((record, log_dir)),
    }
}

/// The gate's fail-safe answer: a human decides (unless the input shows nothing gated).
fn fail_safe(agent_hint: Option<Agent>, event: Option<&Event>, error: String) -> GateRan {
    let agent = event.map_or(agent_hint.unwrap_or(Agent::Claude), |e| e.agent);
    let tool = event.and_then(|e| match &e.kind {
        Kind::Tool(tool) => Some(tool.as_ref()),
        _ => None,
    });
    let (shell, command) = (
        tool.map(|t| matches!(t.call, Call::Shell { .. })),
        tool.and_then(Tool::command),
    );
    let cwd = event.and_then(|e| e.origin.cwd.as_deref()).map(Path::new);
    let Some(answer) = outcome::unchecked(agent, shell, command, cwd, &error) else {
        return silent(agent);
    };
    let mut record = gate_record::new(agent, event, command.unwrap_or_default());
    record.errors.push(error);
    logged(record, agent, answer, default_log_dir())
}

/// One tool call: self-protection first, then the answer under the project's configuration.
fn run(event: &Event, tool: &Tool, gate: &GateHook, started: Instant) -> Result<GateRan, Failed> {
    let (agent, project, file_tool) = (
        event.agent,
        event.origin.project_dir(),
        tool.call == Call::File,
    );
    // The configuration is the project's; the command runs where the tool call says.
    let (command, cwd) = match tool.command() {
        _ if file_tool => ("", project.clone()),
        Some(command) => (command, tool.call.shell_dir(&project)),
        // A list of commands in a shape hookjudge does not read: a person decides.
        None if tool.input.tool_name.as_deref() == Some(crate::agent::CLINE_SHELL) => {
            let why = "its list of commands is in no shape hookjudge reads";
            return Ok(fail_safe(Some(agent), Some(event), why.to_owned()));
        }
        None => return Ok(silent(agent)),
    };
    let protected = if file_tool {
        protect::file_tool(&tool.input)
    } else {
        protect::shell_command(command, &cwd)
    };
    if let Some(what) = protected {
        let mut record = gate_record::new(agent, Some(event), command);
        if command.is_empty() {
            record.command = tool.input.tool_name.clone().unwrap_or_default()
        }
        let log_dir =
            Settings::load(&cwd, gate.config).map_or_else(|_| default_log_dir(), |s| s.log_dir);
        record.protect = Some(what.clone());
        return Ok(logged(record, agent, outcome::protected(&what), log_dir));
    } else if file_tool {
        return Ok(silent(agent));
    }
    let loaded = Settings::load(&project, gate.config);
    let boundary = |s: &Settings| Confinement {
        mode: s.boundary,
        hide_credentials: s.boundary_hide_credentials,
    };
    let _ = CONFINEMENT.set(
        loaded
            .as_ref()
            .map_or_else(|_| Confinement::default(), boundary),
    );
    let reads = Reads::default();
    let (found, settings) = match (
        outcome::find(command, &cwd, loaded.as_ref().ok().map(|s| &s.gate), &reads),
        loaded,
    ) {
        (Found::Actions(found), Ok(settings)) => (found, settings),
        (Found::Unconfigured, Err(e)) => return Err(e.into()),
        _ => return Ok(silent(agent)),
    };
    let record = gate_record::new(agent, Some(event), command);
    let mut llm = settings.llm.clone();
    // The agent kills the hook at its settings timeout: keep the deadline below it.
    llm.timeout_ms = (gate.llm_deadline)(settings.gate.timeout_ms);
    let llm = LlmJudge::new(&llm, crate::support::dirs::state_dir(), started);
    if agent == Agent::Copilot
        && let Some(path) = tool.transcript.as_deref()
    {
        // Copilot CLI writes its session in batches: the lines before this call may not be in
        // the file yet (waited for only here, where a gated action reads them).
        let since = tool.input.copilot_timestamp.as_ref();
        crate::transcript::copilot::wait_for_hook(
            path,
            "preToolUse",
            since.and_then(serde_json::Value::as_i64),
        );
    }
    let transcript = tool
        .transcript
        .as_deref()
        .map(|p| (p, tool.input.tool_use_id.clone()));
    let recursion_guard = hook::recursion_guard_active();
    let call = outcome::Call {
        agent,
        command,
        cwd: &cwd,
        transcript,
        recursion_guard,
    };
    let settings_at = |root: &Path| Settings::load(root, gate.config).ok().map(|s| s.gate);
    let judge = settings.gate_judge().map_err(|e| e.to_string());
    let config = outcome::Config {
        gate: &settings.gate,
        transcript: settings.transcript,
        judge,
        llm: &llm,
        settings_at: &settings_at,
    };
    let answer = outcome::rule(&call, &found, &config, &reads);
    if !answer.guarded {
        crate::log::prune_on_new_day(
            &settings.log_dir,
            Timestamp::now(),
            settings.log_retention_days,
        );
    }
    Ok(logged(record, agent, answer, settings.log_dir))
}

/// Fail-safe answer for a usage error on the gate's own command line: `usage` is clap's line.
pub fn usage_error(usage: &str) {
    let started = Instant::now();
    let error = format!(
        "bad arguments for `hookjudge gate`: {usage}; run `hookjudge init` to rewrite the hook entry"
    );
    let event = Event::parse(&hook::read_stdin().0, None, false).ok();
    hook::finish::<GateHook>(fail_safe(None, event.as_ref(), error), started);
}
