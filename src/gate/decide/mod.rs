//! Deciding what to do with a gated action, from facts already gathered: stay silent, deny with
//! a reason the agent can act on, or hand the decision to a human. The policy comes first, then
//! the repository's facts (nothing to push, nothing to lose), then verification evidence, then
//! the judge; when the judge cannot decide, a human does.
//!
//! Nothing here reads a repository, a transcript or the clock, so every rule is testable as a
//! table of facts (see the tests). When the decision rests on a fact not gathered yet (the
//! evidence, the judge's answer), [`decide`] says which one it needs; [`super::policy`] gathers
//! it and asks again.

#[cfg(test)]
mod facts_tests;
#[cfg(test)]
pub(in crate::gate) mod fixtures;
mod guard;
mod push;
mod ruling_facts;
#[cfg(test)]
mod tests;
mod text;

use std::path::PathBuf;

use super::classify::{Class, Gated};
use super::evidence::Finding;
use super::gather::{EvidenceQuery, Facts, JudgeSaid, RepoFacts, Scope, WorkFacts};
use super::settings::{GateSettings, Policy};
pub use ruling_facts::{Read, RulingFacts};
use serde::{Deserialize, Serialize};
pub use text::branch_matches;
use text::{describe, short};

/// What the gate does about one gated action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Say nothing: the agent's own permission rules apply.
    Silent,
    /// Refuse, with a reason for the agent.
    Deny,
    /// A human decides.
    Ask,
}

/// Who or what decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecidedBy {
    Policy,
    Facts,
    Evidence,
    Judge,
    /// The judge could not decide (its call failed, it does not build, nothing to read): a
    /// human must.
    JudgeFailed,
    /// No LLM provider is configured, so no judge was asked: a human must.
    NoLlm,
    /// The user approved this command with `hookjudge approve`.
    Approval,
}

impl Decision {
    /// The logged value.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Silent => "silent",
            Decision::Deny => "deny",
            Decision::Ask => "ask",
        }
    }
}

impl DecidedBy {
    /// The logged value.
    pub fn name(self) -> &'static str {
        match self {
            DecidedBy::Policy => "policy",
            DecidedBy::Facts => "facts",
            DecidedBy::Evidence => "evidence",
            DecidedBy::Judge => "judge",
            DecidedBy::JudgeFailed => "judge-failed",
            DecidedBy::NoLlm => "no-llm",
            DecidedBy::Approval => "approval",
        }
    }
}

/// The decision on one gated action, with what it rests on.
#[derive(Debug, Clone, Serialize)]
pub struct Ruling {
    pub class: Class,
    pub command: String,
    pub decision: Decision,
    pub decided_by: DecidedBy,
    /// For the agent (deny) or the human (ask); empty when silent.
    pub reason: String,
    pub repo: Option<PathBuf>,
    pub facts: RulingFacts,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Finding>,
}

/// The outcome of one decision step.
// A step is made and consumed at once, a few per action: not worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Step {
    Ruled(Ruling),
    /// The decision rests on a fact not gathered yet.
    Needs(Need),
}

/// A fact [`decide`] needs before it can rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// Evidence of verification against this change.
    Evidence(EvidenceQuery),
    /// The gate's judge's answer.
    Judge,
}

/// Decides `gated` from `facts` under `settings`.
pub fn decide(gated: &Gated, facts: &Facts, settings: &GateSettings) -> Step {
    let mut ruling = Ruling {
        class: gated.class,
        command: gated.command.clone(),
        decision: Decision::Silent,
        decided_by: DecidedBy::Policy,
        reason: String::new(),
        repo: None,
        facts: RulingFacts::default(),
        evidence: None,
    };
    let cmd = short(&gated.command);
    match settings.policy(gated.class) {
        Policy::Allow => return Step::Ruled(ruling),
        Policy::Deny => {
            ruling.decision = Decision::Deny;
            ruling.reason = denied(gated, &cmd);
            return Step::Ruled(ruling);
        }
        Policy::Ask => {
            let why = plain_reason(gated, &cmd);
            return Step::Ruled(ask(ruling, facts, why, DecidedBy::Policy));
        }
        Policy::Verify | Policy::Guard => {}
    }
    if !rests_on_repository(gated.class, settings) {
        let why = plain_reason(gated, &cmd);
        return Step::Ruled(ask(ruling, facts, why, DecidedBy::Policy));
    }
    let what = format!("`{cmd}` {}", gated.what);
    match (&facts.repo, gated.class) {
        // Not every publish or deploy happens in a repository; judge on the transcript alone.
        (RepoFacts::Unreadable(e), Class::Publish | Class::Deploy) => {
            ruling.facts = RulingFacts::of(Read::NoRepository {
                repository: e.to_string(),
            });
            verify(ruling, facts, None, 0, &what, Scope::Everything)
        }
        (RepoFacts::Unreadable(e), _) => {
            ruling.facts = RulingFacts::unreadable(e);
            let why = format!(
                "`{cmd}` {}, but hookjudge cannot read its repository ({e}).",
                gated.what
            );
            Step::Ruled(ask(ruling, facts, why, DecidedBy::Facts))
        }
        (RepoFacts::Destructive(repo), _) => {
            ruling.repo = repo.work_tree.clone();
            Step::Ruled(guard::guard(ruling, facts, repo, gated, &cmd))
        }
        (RepoFacts::Push(repo), _) => {
            ruling.repo = repo.work_tree.clone();
            push::push(
                ruling,
                facts,
                repo,
                gated,
                &cmd,
                &settings.protected_branches,
            )
        }
        (RepoFacts::Work(repo), _) => {
            ruling.repo = repo.work_tree.clone();
            work(ruling, facts, repo, gated, &what)
        }
        // The facts were not gathered for this action: a human decides.
        (RepoFacts::NotRead, _) => {
            let why = format!(
                "`{cmd}` {}, and hookjudge has no facts about it.",
                gated.what
            );
            Step::Ruled(ask(ruling, facts, why, DecidedBy::Facts))
        }
    }
}

/// Whether the ruling on an action of `class` rests on its repository's facts: its policy
/// checks (`verify`, `guard`), and the action can be read (not an unparsed line, not a
/// catastrophic delete, which go to a human whatever the repository shows).
pub fn rests_on_repository(class: Class, settings: &GateSettings) -> bool {
    matches!(settings.policy(class), Policy::Verify | Policy::Guard)
        && !matches!(class, Class::Unparsed | Class::Catastrophic)
}

/// A commit, publish or deploy: silent when it has nothing to take, else it needs evidence.
fn work(mut ruling: Ruling, facts: &Facts, repo: &WorkFacts, gated: &Gated, what: &str) -> Step {
    let changes = repo.changes.as_ref().ok();
    ruling.facts = RulingFacts::of(Read::Work {
        branch: repo.branch.clone(),
        changes: changes.cloned(),
        error: repo.changes.as_ref().err().map(ToString::to_string),
    });
    // Only `git commit` commits the uncommitted changes; a merge, a cherry-pick or
    // `npm version` commits on a clean tree.
    if gated.class == Class::Commit
        && gated.what == super::classify::COMMITS_THE_CHANGES
        && changes.is_some_and(|c| c.is_empty())
        && !gated.command.contains("--amend")
        && !gated.command.contains("--allow-empty")
    {
        ruling.decided_by = DecidedBy::Facts;
        return Step::Ruled(ruling); // git itself will say there is nothing to commit
    }
    // Documentation and metadata only: no test run could fail because of them.
    if repo.takes_only_not_code {
        ruling.decided_by = DecidedBy::Facts;
        return Step::Ruled(ruling);
    }
    // The newest change: changed files' mtimes, and HEAD's commit time (whole seconds, so
    // counted as the end of its second: an artifact from the same second is not provably newer).
    let head = repo.head_time.map(|t| t * 1000 + 999).unwrap_or(0);
    let newest = changes
        .and_then(|c| c.newest_mtime_ms)
        .unwrap_or(0)
        .max(head);
    let work_tree = repo.work_tree.clone();
    verify(ruling, facts, work_tree, newest, what, Scope::Everything)
}

/// Silent when there is fresh evidence; otherwise the judge; otherwise a human.
fn verify(
    mut ruling: Ruling,
    facts: &Facts,
    work_tree: Option<PathBuf>,
    newest_change: i64,
    what: &str,
    scope: Scope,
) -> Step {
    if facts.approved {
        ruling.decided_by = DecidedBy::Approval;
        return Step::Ruled(ruling);
    }
    let Some(evidence) = &facts.evidence else {
        return Step::Needs(Need::Evidence(EvidenceQuery {
            work_tree,
            newest_change,
            scope,
        }));
    };
    let mut finding = evidence.artifacts.clone();
    // An artifact the session wrote itself yields only to a passing run the session shows.
    let forged = matches!(finding, Finding::WrittenArtifact { .. });
    if let Some(from_transcript) = &evidence.transcript
        && (*from_transcript != Finding::None || finding == Finding::None)
        && (!forged || from_transcript.is_fresh())
    {
        finding = from_transcript.clone();
    }
    ruling.evidence = Some(finding.clone());
    if finding.is_fresh() {
        ruling.decided_by = DecidedBy::Evidence;
        return Step::Ruled(ruling);
    }
    let account = describe(&finding);
    // Test results older than the change are conclusive: the agent can act on that at once.
    let stale = matches!(
        finding,
        Finding::StaleArtifact { .. }
            | Finding::FailedArtifact { .. }
            | Finding::WrittenArtifact { .. }
            | Finding::SessionWritten { .. }
            | Finding::PartialAfterFailure { .. }
            | Finding::ChangeAfterTests {
                last_test: Some(_),
                ..
            }
    );
    if stale {
        ruling.decision = Decision::Deny;
        ruling.decided_by = DecidedBy::Evidence;
        ruling.reason = format!(
            "hookjudge gate [{}]: {what}, but {account}. Run the tests again, check they pass, then run the command again.",
            ruling.class.name()
        );
        return Step::Ruled(ruling);
    }
    // A run after an edit to the test harness may pass because of the edit: a person decides
    // (the judge would read the same pass).
    if matches!(finding, Finding::HarnessEdited { .. }) {
        let why = format!("{what}, but {account}.");
        return Step::Ruled(ask(ruling, facts, why, DecidedBy::Evidence));
    }
    // The judge reads what happened last and says whether verification was reported.
    match &facts.judge {
        None => return Step::Needs(Need::Judge),
        Some(JudgeSaid::Answer { blocks, reason }) => {
            ruling.decided_by = DecidedBy::Judge;
            if !blocks {
                return Step::Ruled(ruling);
            }
            ruling.decision = Decision::Deny;
            let why = reason
                .as_ref()
                .map(|r| format!(" (judge: {r})"))
                .unwrap_or_default();
            ruling.reason = format!(
                "hookjudge gate [{}]: {what}, but nothing shows the code was verified after its last change: {account}{why}. Run the tests this change needs, report the results, then run the command again.",
                ruling.class.name()
            );
            return Step::Ruled(ruling);
        }
        Some(JudgeSaid::Failed(cause)) => ruling.facts.judge_failure = Some(cause.clone()),
        Some(JudgeSaid::Nothing | JudgeSaid::NoLlm) => {}
    }
    let by = match facts.judge {
        Some(JudgeSaid::NoLlm) => DecidedBy::NoLlm,
        _ => DecidedBy::JudgeFailed,
    };
    let why = format!(
        "{what}; hookjudge found no proof of verification since the last change ({account})."
    );
    Step::Ruled(ask(ruling, facts, why, by))
}

/// The reason for an action the policy denies.
fn denied(gated: &Gated, cmd: &str) -> String {
    match gated.class {
        Class::HookBypass => format!(
            "hookjudge gate [hook-bypass]: `{cmd}` {}. Run it without `--no-verify`/`-n`/`HUSKY=0`/`core.hooksPath` changes, and fix what the hook reports.",
            gated.what
        ),
        Class::Catastrophic => format!(
            "hookjudge gate [catastrophic]: `{cmd}` {}. Delete only the paths you mean (inside the repository, by name), or ask the user to do it.",
            gated.what
        ),
        _ => format!(
            "hookjudge gate [{}]: `{cmd}` {}, which this hookjudge config does not allow (`gate.{}` is `deny`).",
            gated.class.name(),
            gated.what,
            gated.class.name()
        ),
    }
}

/// What a gated action does, in one sentence (for a human asked about it).
fn plain_reason(gated: &Gated, cmd: &str) -> String {
    if gated.class == Class::Unparsed {
        format!(
            "hookjudge cannot tell what `{cmd}` does without running it, and it mentions a gated action: {}.",
            gated.what.trim_end_matches('.')
        )
    } else {
        format!("`{cmd}` {}.", gated.what.trim_end_matches('.'))
    }
}

/// A human decides, unless they already approved this command.
fn ask(mut ruling: Ruling, facts: &Facts, why: String, by: DecidedBy) -> Ruling {
    if facts.approved {
        ruling.decided_by = DecidedBy::Approval;
        return ruling;
    }
    ruling.decision = Decision::Ask;
    ruling.decided_by = by;
    ruling.reason = format!("hookjudge gate [{}]: {why}", ruling.class.name());
    ruling
}
