//! Ruling on a gated action: the facts are gathered ([`super::gather`]), then decided on
//! ([`super::decide`]), in stages that each read once: the repository first, the evidence only
//! when the repository facts leave the action to it, the judge only when the evidence does.

use std::path::Path;

use super::classify::{Class, Gated};
use super::decide::{self, Need, Step};
use super::gather::{self, Reads};
use super::not_code;
use super::settings::GateSettings;
use crate::judge::Judge;
use crate::judge::evaluate::Layer2;

pub use super::decide::{DecidedBy, Decision, Read, Ruling, RulingFacts, branch_matches};

/// What the gate knows besides the command.
pub struct Context<'a> {
    pub settings: &'a GateSettings,
    /// The directory the hook runs in (the agent's cwd).
    pub cwd: &'a Path,
    /// The whole command line the action is part of (empty when there is none).
    pub line: &'a str,
    /// The agent's session file, opened once per hook call, for evidence and the judge.
    pub transcript: Option<&'a super::evidence::Session>,
    /// The gate's judge (`gate-verification`), when enabled, and the LLM behind it.
    pub judge: Option<(&'a Judge, &'a dyn Layer2)>,
    /// The user approved this exact command with `hookjudge approve` (see [`crate::gate::approval`]).
    pub approved: bool,
    /// Now, in ms since the epoch.
    pub now: i64,
    /// What this hook call has read (repositories, the session's activity), shared by all
    /// its actions.
    pub reads: &'a Reads,
}

impl<'a> Context<'a> {
    /// A context with no command line, no session, no judge and no approval: what
    /// `hookjudge check` rules with, and what a hook call adds to.
    pub fn plain(
        settings: &'a GateSettings,
        cwd: &'a Path,
        now: i64,
        reads: &'a Reads,
    ) -> Context<'a> {
        Context {
            settings,
            cwd,
            line: "",
            transcript: None,
            judge: None,
            approved: false,
            now,
            reads,
        }
    }
}

/// Rules on one gated action.
pub fn decide(gated: &Gated, ctx: &Context) -> Ruling {
    let mut facts = gather::repository(gated, ctx);
    let mut step = decide::decide(gated, &facts, ctx.settings);
    if let Step::Needs(Need::Evidence(_)) = &step {
        let only_not_code = match &mut facts.repo {
            gather::RepoFacts::Work(work) => {
                work.takes_only_not_code = not_code::commit_takes_only_not_code(gated, ctx);
                work.takes_only_not_code
            }
            gather::RepoFacts::Push(push) => {
                push.commits_only_not_code = not_code::pushes_only_not_code(gated, push, ctx);
                push.commits_only_not_code
            }
            _ => false,
        };
        if only_not_code {
            step = decide::decide(gated, &facts, ctx.settings);
        }
    }
    if let Step::Needs(Need::Evidence(query)) = &step {
        facts.evidence = Some(
            tested_on_the_line(gated, &facts, ctx).unwrap_or_else(|| gather::evidence(query, ctx)),
        );
        step = decide::decide(gated, &facts, ctx.settings);
    }
    if let Step::Needs(Need::Judge) = step {
        facts.judge = Some(gather::judge(gated, ctx));
        step = decide::decide(gated, &facts, ctx.settings);
    }
    match step {
        Step::Ruled(ruling) => ruling,
        // Every fact `decide` asks for is gathered above; should that change, a human decides.
        Step::Needs(need) => unreachable_fact(gated, &need),
    }
}

/// `pytest && git commit …`: the commit runs only after the tests passed. `pytest && git push`
/// likewise, when what the push sends is what the tests ran on: every pushed branch is at
/// HEAD, and the work tree holds nothing HEAD lacks (test artifacts aside).
fn tested_on_the_line(
    gated: &Gated,
    facts: &gather::Facts,
    ctx: &Context,
) -> Option<gather::Evidence> {
    if ctx.line.is_empty() {
        return None;
    }
    match gated.class {
        Class::Commit => {}
        Class::Push if pushes_the_tested_tree(gated, facts, ctx) => {}
        _ => return None,
    }
    let tests = super::evidence::test_commands(&ctx.settings.test_commands)?;
    let command = super::chained::tested_before(ctx.line, &gated.command, ctx.cwd, &tests)?;
    Some(gather::Evidence {
        artifacts: super::evidence::Finding::TestRunAfterChange { command },
        transcript: None,
    })
}

/// Whether a push sends exactly the tree a test run on this line runs on: HEAD's commit, from
/// a clean work tree. Tags are left to the usual evidence (they may name other commits).
fn pushes_the_tested_tree(gated: &Gated, facts: &gather::Facts, ctx: &Context) -> bool {
    let gather::RepoFacts::Push(push) = &facts.repo else {
        return false;
    };
    let (Some(Ok(refs)), Some(spec)) = (&push.refs, &gated.push) else {
        return false;
    };
    let opened = ctx.reads.repo(&gated.target, ctx.cwd);
    let Ok(repo) = opened.as_ref() else {
        return false;
    };
    let Some((head, _)) = repo.head() else {
        return false;
    };
    let pushed: Vec<_> = refs.iter().filter(|f| f.ahead.count > 0).collect();
    let artifacts = &ctx.settings.artifacts;
    !spec.tags
        && !pushed.is_empty()
        && pushed.iter().all(|f| f.source_id == Some(head))
        && repo
            .changes_except(|p| super::evidence::is_artifact(p, artifacts))
            .is_ok_and(|c| c.is_empty())
}

fn unreachable_fact(gated: &Gated, need: &Need) -> Ruling {
    Ruling {
        class: gated.class,
        command: gated.command.clone(),
        decision: Decision::Ask,
        decided_by: DecidedBy::Facts,
        reason: format!(
            "hookjudge gate [{}]: `{}` {}, and hookjudge did not gather what it needs to decide ({need:?}).",
            gated.class.name(),
            gated.command.trim(),
            gated.what
        ),
        repo: None,
        facts: RulingFacts::default(),
        evidence: None,
    }
}
