//! `hookjudge gate`: the PreToolUse (Claude Code, Codex) / BeforeTool (Gemini) entry for shell
//! commands.
//!
//! Silent for anything that is not a gated action, at near process start-up cost and without
//! touching a repository. For gated actions it decides from repository facts, evidence and the
//! judge, and fails safe: when it cannot decide, a human does (`ask`; for Codex and Gemini CLI,
//! a deny telling the agent to ask the user). It never answers an explicit `allow`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use super::ExitStatus;
use crate::agent::Agent;
use crate::boundary::{self, Mode};
use crate::cli::GateArgs;
use crate::config::{self, Settings};
use crate::gate::approval;
use crate::gate::policy::{self, Context, Decision, Ruling};
use crate::gate::{classify, protect};
use crate::hook::event::{Call, Event, Kind, Tool};
use crate::hook::gate_record;
use crate::hook::{self, Failed, GateOutcome, Ran};
use crate::llm::LlmJudge;
use crate::log::{GateRecord, RulingEntry};
use crate::support::dirs;
use crate::support::time::Timestamp;

/// Runs the gate. Always exits 0; failures ask a human.
pub(super) fn gate(args: &GateArgs, config: Option<&Path>) -> ExitStatus {
    let entry = GateHook {
        agent: args.agent,
        hook_timeout: args.hook_timeout,
        config,
    };
    hook::run(&entry, args.agent);
    ExitStatus::Success
}

/// Fail-safe answer for a usage error on the gate's own command line.
pub(super) fn usage_error(message: &str) -> ExitStatus {
    let error = format!(
        "bad arguments for `hookjudge gate`: {}; run `hookjudge init` to rewrite the hook entry",
        hook::usage_line(message)
    );
    let started = Instant::now();
    let (stdin, _) = hook::read_stdin();
    let event = Event::parse(&stdin, None, false).ok();
    hook::finish::<GateHook>(fail_safe(None, event.as_ref(), error), started);
    ExitStatus::Success
}

/// The gate's work for one call.
struct GateHook<'a> {
    /// `--agent`, which answers in that agent's shape even when the input cannot be read.
    agent: Option<Agent>,
    /// The agent's timeout for this hook (seconds), which the judge's deadline stays below.
    hook_timeout: Option<u64>,
    config: Option<&'a Path>,
}

type GateRan = Ran<GateOutcome, GateRecord>;

impl hook::Entry for GateHook<'_> {
    type Outcome = GateOutcome;
    type Record = GateRecord;
    const HOOK: hook::Hook = hook::GATE;

    fn decide(&self, event: &Event, started: Instant) -> Result<GateRan, Failed> {
        let Kind::Tool(tool) = &event.kind else {
            return Ok(silent(event.agent));
        };
        let ran = run(event, tool, self.hook_timeout, self.config, started)?;
        Ok(confine(event, tool, ran))
    }

    fn fail(&self, event: Option<&Event>, failed: Failed) -> GateRan {
        fail_safe(self.agent, event, failed.to_string())
    }

    fn render(agent: Agent, outcome: &GateOutcome) -> Option<serde_json::Value> {
        agent.gate_answer(outcome)
    }
}

/// `boundary.mode` of the settings [`run`] loaded: one hook call per process, so set once.
static BOUNDARY: OnceLock<Mode> = OnceLock::new();
/// `boundary.hide_credentials` of the same settings.
static HIDE_CREDENTIALS: OnceLock<bool> = OnceLock::new();

/// With `boundary.mode` `landlock`, a shell command the gate lets run (or asks about) runs
/// inside the boundary: the answer carries the rewritten command. A rewrite never approves
/// what the person would have been asked about (see [`crate::boundary::permissions`]).
fn confine(event: &Event, tool: &Tool, ran: GateRan) -> GateRan {
    if BOUNDARY.get() != Some(&Mode::Landlock) {
        return ran;
    }
    let Some(command) = tool.command() else {
        return ran;
    };
    let ask = match &ran.outcome {
        GateOutcome::Silent => None,
        GateOutcome::Ask(reason) => Some(reason.clone()),
        _ => return ran,
    };
    if boundary::is_confined_command(command) {
        return ran;
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("hookjudge"));
    let mut input = tool
        .input
        .tool_input
        .clone()
        .filter(serde_json::Value::is_object)
        .unwrap_or_else(|| serde_json::json!({}));
    // A command the gate looked at as a push, publish or deploy and let through (or a person
    // approved) keeps the credentials; nothing else reaches them.
    let with_credentials = ran.log.is_some() || !HIDE_CREDENTIALS.get().copied().unwrap_or(true);
    input["command"] =
        serde_json::json!(boundary::confined_command(&exe, command, with_credentials));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let ask = ask.or_else(|| {
        let asked = event.agent == Agent::Claude
            && !boundary::permissions::runs_without_asking(
                tool.input.permission_mode.as_deref(),
                home.as_deref(),
                &event.origin.project_dir(),
                command,
            );
        asked.then(|| {
            "hookjudge runs this command inside its boundary; your permission rules would have asked about it".to_owned()
        })
    });
    Ran {
        outcome: GateOutcome::Confined { input, ask },
        ..ran
    }
}

/// No answer and no log line: nothing gated.
fn silent(agent: Agent) -> GateRan {
    Ran {
        agent,
        outcome: GateOutcome::Silent,
        log: None,
    }
}

/// The gate's fail-safe answer: a human decides (unless the input shows nothing gated).
fn fail_safe(agent_hint: Option<Agent>, event: Option<&Event>, error: String) -> GateRan {
    let agent = event.map_or(agent_hint.unwrap_or(Agent::Claude), |e| e.agent);
    let tool = event.and_then(|e| match &e.kind {
        Kind::Tool(tool) => Some(tool.as_ref()),
        _ => None,
    });
    if let Some(tool) = tool {
        let shell = matches!(tool.call, Call::Shell { .. });
        let quiet = tool
            .command()
            .is_some_and(|c| !classify::may_be_gated(c, &[]));
        if !shell || quiet {
            return silent(agent);
        }
    }
    let command = tool.and_then(Tool::command).unwrap_or_default();
    let reason =
        format!("hookjudge could not check this command ({error}), so a human should decide.");
    let mut record = gate_record::new(agent, event, command);
    record.errors.push(error);
    // The person who approved this exact command decided; otherwise it waits for them.
    if let Some(cwd) = event
        .and_then(|e| e.origin.cwd.as_deref())
        .filter(|_| !command.is_empty())
    {
        let repo = approval::repo_of(Path::new(cwd));
        if approval::take(command, &repo, Timestamp::now().millis) {
            return Ran {
                agent,
                outcome: GateOutcome::Silent,
                log: Some((record, config::default_log_dir())),
            };
        }
        request_approval(agent, command, Path::new(cwd), &reason);
    }
    record.action = Decision::Ask;
    Ran {
        agent,
        outcome: GateOutcome::Ask(reason),
        log: Some((record, config::default_log_dir())),
    }
}

/// Decides on one tool call.
fn run(
    event: &Event,
    tool: &Tool,
    hook_timeout: Option<u64>,
    config: Option<&Path>,
    started: Instant,
) -> Result<GateRan, Failed> {
    let agent = event.agent;
    let project = event.origin.project_dir();
    if tool.call == Call::File {
        return Ok(match protect::file_tool(&tool.input) {
            Some(what) => self_protection(event, tool, config, &project, "", &what),
            None => silent(agent),
        });
    }
    let Some(command) = tool.command().map(str::to_owned) else {
        return Ok(silent(agent));
    };
    // The configuration is the project's; the command runs where the tool call says.
    let cwd = tool.call.shell_dir(&project);
    if let Some(what) = protect::shell_command(&command, &cwd) {
        return Ok(self_protection(event, tool, config, &cwd, &command, &what));
    }
    // Read once: the faked-evidence check and every path below need it.
    let loaded = Settings::load(&project, config);
    let _ = BOUNDARY.set(loaded.as_ref().map(|s| s.boundary).unwrap_or_default());
    let _ = HIDE_CREDENTIALS.set(
        loaded
            .as_ref()
            .map_or(true, |s| s.boundary_hide_credentials),
    );
    let faked = protect::faked_evidence(&command, &cwd, || {
        loaded
            .as_ref()
            .map(|s| protect::EvidenceSettings {
                artifacts: s.gate.artifacts.clone(),
                test_commands: Some(s.gate.test_commands.clone()),
            })
            .unwrap_or_default()
    });
    let settings = if faked.is_some()
        || classify::may_be_gated(&command, &[])
        || crate::gate::overwrite::may_overwrite(&command, &cwd)
    {
        loaded?
    } else {
        // The quiet path: no built-in gated word, so no repository and no log. Only a
        // user-defined deploy or publish command (from the config, read once) can still make
        // it gated; a config that does not load cannot name one.
        match loaded {
            Ok(s)
                if classify::may_name_user_command(&command, &s.gate.deploy_commands)
                    || classify::may_name_user_command(&command, &s.gate.publish_commands) =>
            {
                s
            }
            _ => return Ok(silent(agent)),
        }
    };
    let user = crate::gate::UserCommands {
        deploy: &settings.gate.deploy_commands,
        publish: &settings.gate.publish_commands,
    };
    // A repository several actions target is opened once, by the first that reads it: the
    // git aliases of the line are read from it, then every action's facts.
    let reads = crate::gate::gather::Reads::default();
    let mut found = crate::gate::find(&command, &cwd, user, reads.repos());
    found.extend(faked);
    if found.is_empty() {
        return Ok(silent(agent));
    }
    let mut record = gate_record::new(agent, Some(event), &command);
    let now = Timestamp::now().millis;
    let approval_repo = approval::repo_of(&cwd);
    let approved = approval::is_approved(&command, &approval_repo, now);
    if hook::recursion_guard_active() {
        // Set for an LLM CLI that hookjudge itself runs; in the gate it must never mean "allow".
        let mut rulings: Vec<Ruling> = found.iter().map(recursion_guard_ruling).collect();
        if approved && approval::take(&command, &approval_repo, now) {
            for ruling in &mut rulings {
                ruling.decision = Decision::Silent;
                ruling.decided_by = policy::DecidedBy::Approval;
                ruling.reason.clear();
            }
            record.rulings = entries(rulings);
            return Ok(Ran {
                agent,
                outcome: GateOutcome::Silent,
                log: Some((record, settings.log_dir.clone())),
            });
        }
        record.action = Decision::Ask;
        let reason = join_reasons(&rulings.iter().collect::<Vec<_>>());
        record.rulings = entries(rulings);
        request_approval(agent, &command, &cwd, &reason);
        return Ok(Ran {
            agent,
            outcome: GateOutcome::Ask(reason),
            log: Some((record, settings.log_dir.clone())),
        });
    }
    // A gate judge that does not build leaves the decision to a human, with the error logged.
    let gate_judge = settings.gate_judge();
    let mut llm_settings = settings.llm.clone();
    // The agent kills the hook at its settings timeout: keep the deadline below it.
    llm_settings.timeout_ms =
        crate::install::settings::clamp_deadline_ms(settings.gate.timeout_ms, hook_timeout);
    let llm = LlmJudge::new(&llm_settings, dirs::state_dir(), started);
    let transcript = tool
        .transcript
        .as_deref()
        .and_then(|p| crate::gate::evidence::Session::open(p, settings.transcript))
        // Claude Code's transcript is written through a queue and can lag behind this call.
        .map(|s| match agent {
            Agent::Claude => s.with_current_call(tool.input.tool_use_id.clone()),
            _ => s,
        });
    // Each action is judged under the config of the repository it acts on (`git -C other`,
    // `cd other && …`), not the one the agent happens to be in.
    let mut targets = TargetSettings::new(&cwd, config);
    // Decided as rulings, logged as their entries once all are decided.
    let mut rulings = Vec::new();
    for gated in &found {
        let gate_settings = targets.for_target(&gated.target, &settings);
        let ctx = Context {
            settings: gate_settings,
            cwd: &cwd,
            line: &command,
            transcript: transcript.as_ref(),
            judge: gate_judge
                .as_ref()
                .ok()
                .and_then(Option::as_ref)
                .map(|j| (j, &llm as &dyn crate::judge::evaluate::Layer2)),
            approved,
            now,
            reads: &reads,
        };
        let mut ruling = policy::decide(gated, &ctx);
        if let (Err(e), policy::DecidedBy::JudgeFailed) = (&gate_judge, ruling.decided_by) {
            ruling.facts["judge_failure"] = serde_json::json!(e.to_string());
            ruling
                .reason
                .push_str(&format!(" The gate's judge is misconfigured: {e}"));
        }
        rulings.push(ruling);
    }
    if approved
        && rulings
            .iter()
            .any(|r| r.decided_by == policy::DecidedBy::Approval)
    {
        // Single use: the approval covered this run only. Another run that used it up first
        // (two hooks at once) leaves this one to the person again.
        if !approval::take(&command, &approval_repo, now) {
            for ruling in &mut rulings {
                if ruling.decided_by == policy::DecidedBy::Approval {
                    ruling.decision = Decision::Ask;
                    ruling.decided_by = policy::DecidedBy::Policy;
                    ruling.reason = "hookjudge gate: the approval of this command was already used by another run; a person must decide again.".into();
                }
            }
        }
    }
    let denied: Vec<&Ruling> = rulings
        .iter()
        .filter(|r| r.decision == Decision::Deny)
        .collect();
    let asked: Vec<&Ruling> = rulings
        .iter()
        .filter(|r| r.decision == Decision::Ask)
        .collect();
    let outcome = if !denied.is_empty() {
        record.action = Decision::Deny;
        GateOutcome::Deny(join_reasons(&denied))
    } else if !asked.is_empty() {
        record.action = Decision::Ask;
        let reason = join_reasons(&asked);
        request_approval(agent, &command, &cwd, &reason);
        GateOutcome::Ask(reason)
    } else {
        GateOutcome::Silent
    };
    record.rulings = entries(rulings);
    crate::log::prune_on_new_day(
        &settings.log_dir,
        Timestamp::now(),
        settings.log_retention_days,
    );
    Ok(Ran {
        agent,
        outcome,
        log: Some((record, settings.log_dir.clone())),
    })
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
            cwd_root: crate::support::paths::repo_root(cwd),
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
        let Some(root) = dir.and_then(|d| crate::support::paths::repo_root(d)) else {
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
    if !agent.can_ask() {
        let repo = approval::repo_of(cwd);
        let now = Timestamp::now().millis;
        let _ = approval::request(command, &repo, agent.name(), reason, now);
    }
}

/// The rulings as logged.
fn entries(rulings: Vec<Ruling>) -> Vec<RulingEntry> {
    rulings.into_iter().map(RulingEntry::from).collect()
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
    event: &Event,
    tool: &Tool,
    config: Option<&Path>,
    cwd: &Path,
    command: &str,
    what: &str,
) -> GateRan {
    let mut record = gate_record::new(event.agent, Some(event), command);
    record.action = Decision::Deny;
    record.protect = Some(what.to_owned());
    if command.is_empty() {
        record.command = tool.input.tool_name.clone().unwrap_or_default();
    }
    let log_dir = Settings::load(cwd, config)
        .map(|s| s.log_dir)
        .unwrap_or_else(|_| config::default_log_dir());
    Ran {
        agent: event.agent,
        outcome: GateOutcome::Deny(protect::reason(what)),
        log: Some((record, log_dir)),
    }
}

fn join_reasons(rulings: &[&Ruling]) -> String {
    let mut reasons: Vec<&str> = rulings.iter().map(|r| r.reason.as_str()).collect();
    reasons.dedup();
    reasons.join("\n")
}
