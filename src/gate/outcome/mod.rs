//! The gate's answer to one shell command an agent is about to run, from the command to the
//! outcome the agent gets: silent, deny, or ask a human. The hook (`hookjudge gate`) and
//! `hookjudge check` share this path; the hook reads the configuration and writes the log
//! line around it.
//!
//! In order: [`find`] names the gated actions (none: silent, at start-up cost); then [`rule`]
//! decides each under the configuration of the repository it acts on ([`targets`]), with the
//! session, the evidence and the judge ([`super::policy`]), and [`combine`]s the rulings: a
//! deny wins over an ask, an ask over silence. Around that, the rules that are not about the
//! action itself:
//! - hookjudge's recursion guard (`HOOKJUDGE_ACTIVE`, set for an LLM CLI hookjudge runs)
//!   never lets a command through: every action goes to a human;
//! - an approval (`hookjudge approve`) covers one run of the exact command: used up by the
//!   first run it lets through, a second run at the same time is asked again;
//! - an agent that cannot ask its user from a hook gets a deny, and the command waits for
//!   `hookjudge approve` ([`wait_for_person`]);
//! - a command the gate could not check is a human's to decide ([`unchecked`]);
//! - with `boundary.mode` `landlock`, what runs is rewritten to run confined ([`confine`]).
//!
//! Self-protection ([`super::protect`]) comes before all of this: the hook denies an action
//! against hookjudge itself before it reads any configuration.

mod combine;
mod confine;
mod targets;
#[cfg(test)]
mod tests;

use std::path::Path;

pub use combine::{combine, worst};
pub use confine::{Confinement, confine, refuse_in_place};

use super::classify::{self, Gated};
use super::decide::{DecidedBy, Decision, Read, Ruling, RulingFacts};
use super::evidence::Session;
use super::gather::Reads;
use super::policy::{self, Context};
use super::settings::GateSettings;
use super::{UserCommands, approval, overwrite, protect};
use crate::agent::{Agent, GateOutcome};
use crate::judge::Judge;
use crate::judge::evaluate::Layer2;
use crate::support::time::Timestamp;
use crate::transcript;

/// The shell command of one hook call, and what the call says about it.
pub struct Call<'a> {
    pub agent: Agent,
    pub command: &'a str,
    /// Where the command runs.
    pub cwd: &'a Path,
    /// The agent's session file, and the id of this tool call in it (Claude Code writes its
    /// transcript through a queue, so the call may not be in it yet).
    pub transcript: Option<(&'a Path, Option<String>)>,
    /// hookjudge's recursion guard is set in the hook's environment.
    pub recursion_guard: bool,
}

/// What [`rule`] reads of the configuration, which `crate::config` (a layer above) loads.
pub struct Config<'a> {
    /// The gate settings of the project the call comes from.
    pub gate: &'a GateSettings,
    pub transcript: transcript::Options,
    /// The gate's judge (`gate-verification`) when enabled, or why it does not build (then a
    /// human decides what it would have, told why).
    pub judge: Result<Option<Judge>, String>,
    /// The LLM behind the judge.
    pub llm: &'a dyn Layer2,
    /// The gate settings of another repository's configuration; `None` when they do not load.
    pub settings_at: &'a dyn Fn(&Path) -> Option<GateSettings>,
}

/// The gated actions of a command.
#[derive(Debug)]
pub enum Found {
    /// Nothing gated: no answer and no log line.
    Nothing,
    Actions(Vec<Gated>),
    /// The command may be gated, and the configuration it needs did not load.
    Unconfigured,
}

/// The gated actions of `command`, under the project's gate settings (`None`: they did not
/// load). The quiet path reads no repository: only a command with a built-in gated word, a
/// file written over, evidence faked, or one of the user's own deploy or publish commands is
/// classified, the repositories it opens kept in `reads` for the facts gathered after.
pub fn find(command: &str, cwd: &Path, settings: Option<&GateSettings>, reads: &Reads) -> Found {
    let faked = protect::faked_evidence(command, cwd, || {
        settings
            .map(|s| protect::EvidenceSettings {
                artifacts: s.artifacts.clone(),
                test_commands: Some(s.test_commands.clone()),
            })
            .unwrap_or_default()
    });
    let may_be_gated = faked.is_some()
        || classify::may_be_gated(command, &[])
        || overwrite::may_overwrite(command, cwd);
    let settings = match settings {
        Some(s)
            if may_be_gated
                || classify::may_name_user_command(command, &s.deploy_commands)
                || classify::may_name_user_command(command, &s.publish_commands) =>
        {
            s
        }
        None if may_be_gated => return Found::Unconfigured,
        // A configuration that does not load cannot name a command of the user's.
        _ => return Found::Nothing,
    };
    let user = UserCommands {
        deploy: &settings.deploy_commands,
        publish: &settings.publish_commands,
    };
    let mut found = super::find(command, cwd, user, reads.repos());
    found.extend(faked);
    match found.is_empty() {
        true => Found::Nothing,
        false => Found::Actions(found),
    }
}

/// The gate's answer to a command's gated actions.
#[derive(Debug)]
pub struct Answer {
    /// Deny when an action is denied, ask when one is asked about, else silent.
    pub decision: Decision,
    /// What the agent (deny) or the person (ask) reads; empty when silent.
    pub reason: String,
    /// Each action's ruling, in the order found.
    pub rulings: Vec<Ruling>,
    /// The recursion guard ruled: nothing was judged.
    pub guarded: bool,
}

impl Answer {
    /// The answer for the agent.
    pub fn outcome(&self) -> GateOutcome {
        match self.decision {
            Decision::Silent => GateOutcome::Silent,
            Decision::Deny => GateOutcome::Deny(self.reason.clone()),
            Decision::Ask => GateOutcome::Ask(self.reason.clone()),
        }
    }
}

/// Rules on `found`, the gated actions of `call`.
pub fn rule(call: &Call, found: &[Gated], config: &Config, reads: &Reads) -> Answer {
    let now = Timestamp::now().millis;
    let approval_repo = approval::repo_of(call.cwd);
    let approved = approval::is_approved(call.command, &approval_repo, now);
    if call.recursion_guard {
        return guarded(
            call,
            found,
            approved && approval::take(call.command, &approval_repo, now),
        );
    }
    let transcript = call.transcript.as_ref().and_then(|(path, id)| {
        let session = Session::open(path, config.transcript)?;
        Some(match call.agent {
            // Their files hold the call before long: a ruling that would deny waits for it.
            Agent::Claude | Agent::Cline => session.with_current_call(id.clone()),
            _ => session,
        })
    });
    let judge = config.judge.as_ref().ok().and_then(Option::as_ref);
    // Each action is judged under the config of the repository it acts on (`git -C other`,
    // `cd other && …`), not the one the agent happens to be in.
    let mut targets = targets::TargetSettings::new(call.cwd, config.settings_at);
    let mut rulings: Vec<Ruling> = found
        .iter()
        .map(|gated| {
            let ctx = Context {
                transcript: transcript.as_ref(),
                judge: judge.map(|j| (j, config.llm)),
                approved,
                line: call.command,
                ..Context::plain(
                    targets.for_target(&gated.target, config.gate),
                    call.cwd,
                    now,
                    reads,
                )
            };
            let mut ruling = policy::decide(gated, &ctx);
            // A gate judge that does not build leaves the decision to a human, told why.
            if let (Err(e), DecidedBy::JudgeFailed) = (&config.judge, ruling.decided_by) {
                ruling.facts.judge_failure = Some(e.clone());
                ruling
                    .reason
                    .push_str(&format!(" The gate's judge is misconfigured: {e}"));
            }
            ruling
        })
        .collect();
    // Single use: the approval covered this run only. Another run that used it up first
    // (two hooks at once) leaves this one to the person again.
    if approved
        && rulings.iter().any(|r| r.decided_by == DecidedBy::Approval)
        && !approval::take(call.command, &approval_repo, now)
    {
        for ruling in &mut rulings {
            if ruling.decided_by == DecidedBy::Approval {
                ruling.decision = Decision::Ask;
                ruling.decided_by = DecidedBy::Policy;
                ruling.reason = "hookjudge gate: the approval of this command was already used by another run; a person must decide again.".into();
            }
        }
    }
    let (decision, reason) = combine(&rulings);
    if decision == Decision::Ask {
        wait_for_person(call.agent, call.command, call.cwd, &reason);
    }
    Answer {
        decision,
        reason,
        rulings,
        guarded: false,
    }
}

/// Under the recursion guard, which in the gate must never mean "allow": a human decides
/// every action, unless they approved this command (`approval_used`).
fn guarded(call: &Call, found: &[Gated], approval_used: bool) -> Answer {
    let mut rulings: Vec<Ruling> = found.iter().map(recursion_guard_ruling).collect();
    if approval_used {
        for ruling in &mut rulings {
            ruling.decision = Decision::Silent;
            ruling.decided_by = DecidedBy::Approval;
            ruling.reason.clear();
        }
        return Answer {
            decision: Decision::Silent,
            reason: String::new(),
            rulings,
            guarded: true,
        };
    }
    let reason = combine::join_reasons(&rulings.iter().collect::<Vec<_>>());
    wait_for_person(call.agent, call.command, call.cwd, &reason);
    Answer {
        decision: Decision::Ask,
        reason,
        rulings,
        guarded: true,
    }
}

fn recursion_guard_ruling(gated: &Gated) -> Ruling {
    Ruling {
        class: gated.class,
        command: gated.command.clone(),
        decision: Decision::Ask,
        decided_by: DecidedBy::Policy,
        reason: format!(
            "hookjudge: `{}` {}; hookjudge's recursion guard (`HOOKJUDGE_ACTIVE`) is set in this hook's environment, so hookjudge does not judge here and a human decides.",
            gated.command.trim(),
            gated.what
        ),
        repo: None,
        facts: RulingFacts::of(Read::RecursionGuard {
            recursion_guard: true,
        }),
        evidence: None,
    }
}

/// The deny for an action against hookjudge itself (`what` it would do).
pub fn protected(what: &str) -> Answer {
    Answer {
        decision: Decision::Deny,
        reason: protect::reason(what),
        rulings: Vec::new(),
        guarded: false,
    }
}

/// The answer to a command the gate could not check (`error` says why), from a tool call that
/// is a shell's (`shell`) or another tool's, when the hook's input says which: `None` when it
/// is not the gate's (another tool, a command with no gated word). Otherwise a human decides:
/// the one who approved this exact command already did (the approval is used up); else it
/// waits for them. `cwd` is where it runs, when the input says.
pub fn unchecked(
    agent: Agent,
    shell: Option<bool>,
    command: Option<&str>,
    cwd: Option<&Path>,
    error: &str,
) -> Option<Answer> {
    if shell == Some(false) || command.is_some_and(|c| !classify::may_be_gated(c, &[])) {
        return None;
    }
    let command = command.unwrap_or_default();
    let mut answer = Answer {
        decision: Decision::Ask,
        reason: format!(
            "hookjudge could not check this command ({error}), so a human should decide."
        ),
        rulings: Vec::new(),
        guarded: false,
    };
    if let Some(cwd) = cwd.filter(|_| !command.is_empty()) {
        let repo = approval::repo_of(cwd);
        if approval::take(command, &repo, Timestamp::now().millis) {
            answer.decision = Decision::Silent;
            answer.reason.clear();
            return Some(answer);
        }
        wait_for_person(agent, command, cwd, &answer.reason);
    }
    Some(answer)
}

/// For agents that cannot ask the user from a hook, the command waits for `hookjudge approve`.
pub fn wait_for_person(agent: Agent, command: &str, cwd: &Path, reason: &str) {
    if !agent.can_ask() {
        let repo = approval::repo_of(cwd);
        let now = Timestamp::now().millis;
        let _ = approval::request(command, &repo, agent.name(), reason, now);
    }
}
