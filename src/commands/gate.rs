//! `hookjudge gate`: the PreToolUse (Claude Code, Codex) / BeforeTool (Gemini) entry for shell
//! commands.
//!
//! Silent for anything that is not a gated action, at near process start-up cost and without
//! touching a repository. For gated actions it decides from repository facts, evidence and the
//! judge, and fails safe: when it cannot decide, a human does (`ask`; for Codex and Gemini CLI,
//! a deny telling the agent to ask the user). It never answers an explicit `allow`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::ExitStatus;
use crate::agent::{self, Agent, HookInput};
use crate::approval;
use crate::cli::{AgentArg, GateArgs};
use crate::config::{self, Settings, dirs};
use crate::gate::policy::{self, Context, Decision, Ruling};
use crate::gate::{classify, protect};
use crate::hook;
use crate::llm::LlmJudge;
use crate::time::{Timestamp, micros};

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
    /// What a denied action would have done against hookjudge itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    protect: Option<String>,
}

/// Runs the gate. Always exits 0; failures ask a human.
pub(super) fn gate(args: &GateArgs, config: Option<&Path>) -> ExitStatus {
    let started = Instant::now();
    let (stdin, read) = hook::read_stdin();
    let agent_hint = args.agent.map(agent_from_arg);
    let outcome = hook::GATE.catch(|| {
        read.map_err(|e| e.to_string())
            .and_then(|()| run(agent_hint, args.hook_timeout, config, &stdin, started))
    });
    let (output, record) = match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => fail_safe(agent_hint, &stdin, error),
        Err(panic) => fail_safe(agent_hint, &stdin, panic.to_string()),
    };
    finish(output, record, started)
}

/// Answers the agent and logs the (redacted) record.
fn finish(
    output: Option<Value>,
    record: Option<(GateRecord, PathBuf)>,
    started: Instant,
) -> ExitStatus {
    hook::answer(output.as_ref());
    if let Some((mut record, log_dir)) = record {
        record.timings_us = micros(started.elapsed());
        hook::write_log(&log_dir, &redacted_record(&record));
    }
    ExitStatus::Success
}

type Outcome = (Option<Value>, Option<(GateRecord, PathBuf)>);

/// The record as logged, redacted whatever `log.text` says (command lines carry tokens in URLs,
/// `-p` passwords, `Authorization` headers), with the counts per kind. When the command line
/// holds a secret, every string is redacted (reasons quote the command); otherwise only the
/// text that comes from elsewhere (errors, a judge's failure), so that a quiet record does not
/// pay for compiling rules its command never needed.
fn redacted_record(record: &GateRecord) -> Value {
    use crate::redact::{redact, redact_json};
    let mut value = serde_json::to_value(record).unwrap_or(Value::Null);
    let command_has_secrets = redact(&record.command).total() > 0
        || record
            .rulings
            .iter()
            .any(|r| redact(&r.command).total() > 0);
    let counts = if command_has_secrets {
        redact_json(&mut value)
    } else {
        let mut counts = std::collections::BTreeMap::new();
        let mut outside: Vec<&mut Value> = Vec::new();
        if let Some(record) = value.as_object_mut() {
            for (key, v) in record.iter_mut() {
                match key.as_str() {
                    "errors" => outside.push(v),
                    "rulings" => rulings_facts(v, &mut outside),
                    _ => {}
                }
            }
        }
        for v in outside {
            for (kind, n) in redact_json(v) {
                *counts.entry(kind).or_insert(0) += n;
            }
        }
        counts
    };
    if !counts.is_empty() {
        value["redactions"] = serde_json::json!(counts);
    }
    value
}

/// The facts of each ruling that come from outside hookjudge (errors, a judge's failure).
fn rulings_facts<'v>(rulings: &'v mut Value, out: &mut Vec<&'v mut Value>) {
    if let Some(rulings) = rulings.as_array_mut() {
        for facts in rulings.iter_mut().filter_map(|r| r.get_mut("facts")) {
            if let Some(facts) = facts.as_object_mut() {
                out.extend(
                    facts
                        .iter_mut()
                        .filter(|(k, _)| {
                            matches!(k.as_str(), "error" | "judge_failure" | "repository")
                        })
                        .map(|(_, v)| v),
                );
            }
        }
    }
}

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
    record.errors.push(error);
    // The person who approved this exact command decided; otherwise it waits for them.
    if let Some(cwd) = input
        .as_ref()
        .and_then(|i| i.cwd.as_deref())
        .filter(|_| !command.is_empty())
    {
        let repo = approval::repo_of(Path::new(cwd));
        if approval::take(&command, &repo, Timestamp::now().millis) {
            return (None, Some((record, config::default_log_dir())));
        }
        request_approval(agent, &command, Path::new(cwd), &reason);
    }
    record.action = Decision::Ask;
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
        protect: None,
    }
}

fn run(
    agent_hint: Option<Agent>,
    hook_timeout: Option<u64>,
    config: Option<&Path>,
    stdin: &[u8],
    started: Instant,
) -> Result<Outcome, String> {
    let input = HookInput::parse(stdin).map_err(|e| e.to_string())?;
    let agent = agent_hint
        .or_else(|| input.detect_agent())
        .unwrap_or(Agent::Claude);
    let project = input
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .unwrap_or_else(super::current_dir);
    if input
        .tool_name
        .as_deref()
        .is_some_and(protect::is_file_tool)
    {
        return Ok(match protect::file_tool(&input) {
            Some(what) => self_protection(agent, &input, config, &project, "", &what),
            None => (None, None),
        });
    }
    if !agent::is_shell_tool(&input) {
        return Ok((None, None));
    }
    let Some(command) = agent::shell_command(&input) else {
        return Ok((None, None));
    };
    // The configuration is the project's; the command runs where the tool call says.
    let cwd = agent::shell_dir(&input, &project);
    if let Some(what) = protect::shell_command(&command, &cwd) {
        return Ok(self_protection(
            agent, &input, config, &cwd, &command, &what,
        ));
    }
    // Read once: the faked-evidence check and every path below need it.
    let loaded = Settings::load(&project, config);
    let faked = protect::faked_evidence(&command, &cwd, || {
        loaded
            .as_ref()
            .map(|s| s.gate.artifacts.clone())
            .unwrap_or_default()
    });
    let settings = if faked.is_some() || classify::may_be_gated(&command, &[]) {
        loaded.map_err(|e| e.to_string())?
    } else {
        // The quiet path: no built-in gated word, so no repository and no log. Only a
        // user-defined deploy or publish command (from the config, read once) can still make
        // it gated; a config that does not load cannot name one.
        match loaded {
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
    let mut found = crate::gate::find(&command, &cwd, user);
    found.extend(faked);
    if found.is_empty() {
        return Ok((None, None));
    }
    let mut record = record_for(agent, Some(&input), &command);
    let now = Timestamp::now().millis;
    let approval_repo = approval::repo_of(&cwd);
    let approved = approval::is_approved(&command, &approval_repo, now);
    if hook::recursion_guard_active() {
        // Set for an LLM CLI that hookjudge itself runs; in the gate it must never mean "allow".
        record.rulings = found.iter().map(recursion_guard_ruling).collect();
        if approved {
            approval::take(&command, &approval_repo, now);
            for ruling in &mut record.rulings {
                ruling.decision = Decision::Silent;
                ruling.decided_by = policy::DecidedBy::Approval;
                ruling.reason.clear();
            }
            return Ok((None, Some((record, settings.log_dir.clone()))));
        }
        record.action = Decision::Ask;
        let reason = join_reasons(&record.rulings.iter().collect::<Vec<_>>());
        let output = agent::gate_output(agent, false, &reason);
        request_approval(agent, &command, &cwd, &reason);
        return Ok((Some(output), Some((record, settings.log_dir.clone()))));
    }
    // A gate judge that does not build leaves the decision to a human, with the error logged.
    let gate_judge = settings.gate_judge();
    let mut llm_settings = settings.llm.clone();
    // The agent kills the hook at its settings timeout: keep the deadline below it.
    llm_settings.timeout_ms =
        crate::install::settings::clamp_deadline_ms(settings.gate.timeout_ms, hook_timeout);
    let llm = LlmJudge::new(&llm_settings, dirs::state_dir(), started);
    let transcript = input
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .and_then(|p| crate::gate::evidence::Session::open(Path::new(p), settings.transcript));
    // Each action is judged under the config of the repository it acts on (`git -C other`,
    // `cd other && …`), not the one the agent happens to be in.
    let mut targets = TargetSettings::new(&cwd, config);
    for gated in &found {
        let gate_settings = targets.for_target(&gated.target, &settings);
        let ctx = Context {
            settings: gate_settings,
            cwd: &cwd,
            transcript: transcript.as_ref(),
            judge: gate_judge
                .as_ref()
                .ok()
                .and_then(Option::as_ref)
                .map(|j| (j, &llm as &dyn crate::judge::evaluate::Layer2)),
            approved,
            now,
        };
        let mut ruling = policy::decide(gated, &ctx);
        if let (Err(e), policy::DecidedBy::JudgeFailed) = (&gate_judge, ruling.decided_by) {
            ruling.facts["judge_failure"] = serde_json::json!(e.to_string());
            ruling
                .reason
                .push_str(&format!(" The gate's judge is misconfigured: {e}"));
        }
        record.rulings.push(ruling);
    }
    if approved
        && record
            .rulings
            .iter()
            .any(|r| r.decided_by == policy::DecidedBy::Approval)
    {
        // Single use: the approval covered this run only.
        approval::take(&command, &approval_repo, now);
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
        let reason = join_reasons(&asked);
        request_approval(agent, &command, &cwd, &reason);
        Some(agent::gate_output(agent, false, &reason))
    } else {
        None
    };
    crate::log::prune_on_new_day(
        &settings.log_dir,
        Timestamp::now(),
        settings.log_retention_days,
    );
    Ok((output, Some((record, settings.log_dir.clone()))))
}

/// Settings per target repository, loaded once each.
struct TargetSettings<'a> {
    cwd_root: Option<PathBuf>,
    config: Option<&'a Path>,
    loaded: Vec<(PathBuf, Option<config::GateSettings>)>,
}

impl<'a> TargetSettings<'a> {
    fn new(cwd: &Path, config: Option<&'a Path>) -> TargetSettings<'a> {
        TargetSettings {
            cwd_root: config::repo_root(cwd),
            config,
            loaded: Vec::new(),
        }
    }

    /// The gate settings for an action on `target`; `cwd_settings` when it is the cwd's repo
    /// or its config cannot be read (then the cwd's, which the user's layers shape too).
    fn for_target<'s>(
        &'s mut self,
        target: &classify::Target,
        cwd_settings: &'s Settings,
    ) -> &'s config::GateSettings {
        // `GIT_DIR=other/.git git push`: the repository the git dir belongs to decides.
        let git_dir_root = target.git_dir.as_deref().map(|g| {
            let g = if g.is_relative() {
                target.dir.as_deref().unwrap_or(Path::new(".")).join(g)
            } else {
                g.to_path_buf()
            };
            match g.file_name() {
                Some(name) if name == ".git" => g.parent().map(Path::to_path_buf).unwrap_or(g),
                _ => g,
            }
        });
        let dir = target
            .work_tree
            .as_ref()
            .or(git_dir_root.as_ref())
            .or(target.dir.as_ref());
        let Some(root) = dir.and_then(|d| config::repo_root(d)) else {
            return &cwd_settings.gate;
        };
        if Some(&root) == self.cwd_root.as_ref() {
            return &cwd_settings.gate;
        }
        let index = match self.loaded.iter().position(|(r, _)| *r == root) {
            Some(i) => i,
            None => {
                let gate = Settings::load(&root, self.config).ok().map(|s| s.gate);
                self.loaded.push((root, gate));
                self.loaded.len() - 1
            }
        };
        self.loaded[index].1.as_ref().unwrap_or(&cwd_settings.gate)
    }
}

/// For agents that cannot ask the user from a hook, the command waits for `hookjudge approve`.
fn request_approval(agent: Agent, command: &str, cwd: &Path, reason: &str) {
    if matches!(agent, Agent::Codex | Agent::Gemini) {
        let repo = approval::repo_of(cwd);
        let now = Timestamp::now().millis;
        let _ = approval::request(command, &repo, agent.name(), reason, now);
    }
}

fn recursion_guard_ruling(gated: &classify::Gated) -> Ruling {
    Ruling {
        class: gated.class,
        command: gated.command.clone(),
        decision: Decision::Ask,
        decided_by: policy::DecidedBy::Policy,
        reason: format!(
            "hookjudge: `{}` {}; hookjudge's recursion guard (`HOOKJUDGE_ACTIVE`) is set in this hook's environment, so hookjudge does not judge here and a human decides.",
            gated.command.trim(),
            gated.what
        ),
        repo: None,
        facts: serde_json::json!({"recursion_guard": true}),
        evidence: None,
    }
}

/// The deny for an action against hookjudge itself, and its record.
fn self_protection(
    agent: Agent,
    input: &HookInput,
    config: Option<&Path>,
    cwd: &Path,
    command: &str,
    what: &str,
) -> Outcome {
    let reason = protect::reason(what);
    let mut record = record_for(agent, Some(input), command);
    record.action = Decision::Deny;
    record.protect = Some(what.to_owned());
    if command.is_empty() {
        record.command = input.tool_name.clone().unwrap_or_default();
    }
    let log_dir = Settings::load(cwd, config)
        .map(|s| s.log_dir)
        .unwrap_or_else(|_| config::default_log_dir());
    (
        Some(agent::gate_output(agent, true, &reason)),
        Some((record, log_dir)),
    )
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
    let started = Instant::now();
    let (stdin, _) = hook::read_stdin();
    let (output, record) = fail_safe(
        None,
        &stdin,
        format!(
            "bad arguments for `hookjudge gate`: {first}; run `hookjudge init` to rewrite the hook entry"
        ),
    );
    finish(output, record, started)
}
