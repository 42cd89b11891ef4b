//! Deciding what to do with a gated action: stay silent, deny with a reason the agent can act
//! on, or hand the decision to a human. Facts come first (nothing to push, nothing to lose),
//! then verification evidence, then the judge; when the judge cannot decide, a human does.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use super::classify::{Class, Destructive, Gated};
use super::evidence::{self, Finding};
use super::facts::{Commits, Repo};
use crate::config::{GateSettings, Policy};
use crate::judge::Judge;
use crate::judge::evaluate::{Answer, Layer2};

/// What the gate does about one gated action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecidedBy {
    Policy,
    Facts,
    Evidence,
    Judge,
    /// The judge could not decide (no provider, failure): a human must.
    JudgeFailed,
    /// The user approved this command with `hookjudge approve`.
    Approval,
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
    pub facts: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Finding>,
}

/// What the gate knows besides the command.
pub struct Context<'a> {
    pub settings: &'a GateSettings,
    /// The directory the hook runs in (the agent's cwd).
    pub cwd: &'a Path,
    /// The agent's session file, for evidence and the judge (read once for every ruling).
    pub transcript: Option<&'a evidence::Session>,
    /// The gate's judge (`gate-verification`), when enabled, and the LLM behind it.
    pub judge: Option<(&'a Judge, &'a dyn Layer2)>,
    /// The user approved this exact command with `hookjudge approve` (see [`crate::approval`]).
    pub approved: bool,
    /// Now, in ms since the epoch.
    pub now: i64,
}

/// Decides one gated action.
pub fn decide(gated: &Gated, ctx: &Context) -> Ruling {
    let mut ruling = Ruling {
        class: gated.class,
        command: gated.command.clone(),
        decision: Decision::Silent,
        decided_by: DecidedBy::Policy,
        reason: String::new(),
        repo: None,
        facts: json!({}),
        evidence: None,
    };
    let policy = ctx.settings.policy(gated.class);
    let cmd = short(&gated.command);
    match policy {
        Policy::Allow => return ruling,
        Policy::Deny => {
            ruling.decision = Decision::Deny;
            ruling.reason = match gated.class {
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
            };
            return ruling;
        }
        Policy::Ask => {
            return ask(ruling, ctx, plain_reason(gated, &cmd), DecidedBy::Policy);
        }
        Policy::Verify | Policy::Guard => {}
    }
    if matches!(gated.class, Class::Unparsed | Class::Catastrophic) {
        return ask(ruling, ctx, plain_reason(gated, &cmd), DecidedBy::Policy);
    }
    let repo = match Repo::open(&gated.target, ctx.cwd) {
        Ok(repo) => repo,
        Err(e) if matches!(gated.class, Class::Publish | Class::Deploy) => {
            // Not every publish or deploy happens in a repository; judge on the transcript alone.
            ruling.facts = json!({"repository": e.to_string()});
            return verify(ruling, ctx, None, &format!("`{cmd}` {}", gated.what));
        }
        Err(e) => {
            ruling.facts = json!({"error": e.to_string()});
            return ask(
                ruling,
                ctx,
                format!(
                    "`{cmd}` {}, but hookjudge cannot read its repository ({e}).",
                    gated.what
                ),
                DecidedBy::Facts,
            );
        }
    };
    ruling.repo = repo.work_tree.clone();
    match gated.class {
        Class::Destructive => guard(ruling, ctx, &repo, gated, &cmd),
        Class::Push => push(ruling, ctx, &repo, gated, &cmd),
        _ => {
            // A commit takes the index too, so this needs the exact status (staged changes).
            let artifacts = &ctx.settings.artifacts;
            let changes = repo
                .changes_except(|p| evidence::is_artifact(p, artifacts))
                .ok();
            let newest = newest_change(&repo, changes.as_ref());
            ruling.facts = json!({"branch": repo.branch(), "changes": changes});
            if gated.class == Class::Commit
                && changes.as_ref().is_some_and(|c| c.is_empty())
                && !gated.command.contains("--amend")
                && !gated.command.contains("--allow-empty")
            {
                ruling.decided_by = DecidedBy::Facts;
                return ruling; // git itself will say there is nothing to commit
            }
            verify_with(
                ruling,
                ctx,
                Some(&repo),
                newest,
                &format!("`{cmd}` {}", gated.what),
            )
        }
    }
}

fn push(mut ruling: Ruling, ctx: &Context, repo: &Repo, gated: &Gated, cmd: &str) -> Ruling {
    let spec = gated.push.clone().unwrap_or_default();
    if let Some(src) = &spec.computed {
        return ask(
            ruling,
            ctx,
            format!(
                "`{cmd}` {}, and where to is computed at run time (`{src}`).",
                gated.what
            ),
            DecidedBy::Facts,
        );
    }
    if let Some(remote) = &spec.remote
        && !remote.contains(['/', ':'])
        && remote != "."
        && !repo.remote_exists(remote)
    {
        ruling.facts = json!({"remote": remote, "configured": false});
        ruling.decided_by = DecidedBy::Facts;
        return ruling; // git refuses: no such remote
    }
    if spec.remote.is_none() && repo.upstream().is_none() && !repo.remote_exists("origin") {
        ruling.facts = json!({"remote": null});
        ruling.decided_by = DecidedBy::Facts;
        return ruling; // nowhere to push: git refuses
    }
    let all_facts = match repo.push_facts_all(&spec) {
        Ok(f) => f,
        Err(e) => {
            ruling.facts = json!({"error": e.to_string()});
            return ask(
                ruling,
                ctx,
                format!("`{cmd}` pushes, but hookjudge cannot tell what ({e})."),
                DecidedBy::Facts,
            );
        }
    };
    ruling.facts = json!({"refs": all_facts});
    let remote = all_facts
        .first()
        .map(|f| f.remote.clone())
        .or_else(|| spec.remote.clone())
        .unwrap_or_default();
    if spec.force && !spec.delete {
        for facts in &all_facts {
            let destination = format!("{}/{}", facts.remote, facts.destination);
            if ctx
                .settings
                .protected_branches
                .iter()
                .any(|p| branch_matches(p, &facts.destination))
            {
                ruling.decision = Decision::Deny;
                ruling.decided_by = DecidedBy::Facts;
                ruling.reason = format!(
                    "hookjudge gate [push]: `{cmd}` force-pushes to the protected branch `{}`. Push without force after integrating the remote (`git pull --rebase`), or push to another branch.",
                    facts.destination
                );
                return ruling;
            }
            if facts.behind.count > 0 {
                ruling.decision = Decision::Deny;
                ruling.decided_by = DecidedBy::Facts;
                ruling.reason = format!(
                    "hookjudge gate [push]: `{cmd}` would discard {} on `{destination}` that `{}` lacks ({}). Fetch and integrate them (`git pull --rebase`), then push without force.",
                    plural(facts.behind.count, "commit"),
                    facts.source,
                    subjects(&facts.behind)
                );
                return ruling;
            }
        }
    }
    if spec.mirror {
        return ask(
            ruling,
            ctx,
            format!("`{cmd}` {} on `{remote}`.", gated.what),
            DecidedBy::Policy,
        );
    }
    if spec.delete {
        return ask(
            ruling,
            ctx,
            format!("`{cmd}` deletes a branch or tag on `{remote}`."),
            DecidedBy::Policy,
        );
    }
    let ahead: usize = all_facts.iter().map(|f| f.ahead.count).sum();
    if ahead == 0 && !spec.tags {
        ruling.decided_by = DecidedBy::Facts;
        return ruling; // nothing to publish
    }
    // What is pushed is the commits: an uncommitted edit is not part of it, but a pushed file
    // changed after the tests is.
    let mut pushed_paths: Vec<String> = Vec::new();
    let mut newest = 0;
    for facts in all_facts.iter().filter(|f| f.ahead.count > 0) {
        if let Some(id) = facts.source_id {
            if let Ok(paths) = repo.changed_paths(facts.base_id, id, 5000) {
                pushed_paths.extend(paths);
            }
            newest = newest.max(repo.commit_time(id).map(|t| t * 1000 + 999).unwrap_or(0));
        }
    }
    ruling.facts["pushed_paths"] = json!(pushed_paths.len());
    let described: Vec<String> = all_facts
        .iter()
        .filter(|f| f.ahead.count > 0)
        .map(|f| {
            format!(
                "{} to `{}/{}` ({})",
                plural(f.ahead.count, "commit"),
                f.remote,
                f.destination,
                subjects(&f.ahead)
            )
        })
        .collect();
    let what = if described.is_empty() {
        format!("`{cmd}` would publish tags to `{remote}`")
    } else {
        format!("`{cmd}` would publish {}", described.join(", "))
    };
    let scope = Scope::Paths(pushed_paths);
    verify_scoped(ruling, ctx, Some(repo), newest, &what, &scope)
}

fn guard(mut ruling: Ruling, ctx: &Context, repo: &Repo, gated: &Gated, cmd: &str) -> Ruling {
    let Some(op) = &gated.destructive else {
        return ruling;
    };
    let changes = match repo.changes() {
        Ok(c) => c,
        Err(e) => {
            ruling.facts = json!({"error": e.to_string()});
            return ask(
                ruling,
                ctx,
                format!(
                    "`{cmd}` {}, and hookjudge cannot tell what it would lose ({e}).",
                    gated.what
                ),
                DecidedBy::Facts,
            );
        }
    };
    const KEEP_CHANGES: &str = "Commit or stash them first (`git stash`), or ask the user";
    const KEEP_COMMITS: &str =
        "Push them or put a branch on them first (`git branch keep <commit>`), or ask the user";
    let within = |paths: &[String]| -> Vec<String> {
        changes
            .modified
            .iter()
            .filter(|f| paths.iter().any(|p| path_covers(p, f)))
            .cloned()
            .collect()
    };
    let commits_lost = |branch: Option<&str>, to: &str| -> Result<Vec<String>, String> {
        match repo.lost_by_move(branch, to) {
            Ok(c) if c.count > 0 => Ok(vec![format!(
                "{} that no other branch, tag or remote has ({})",
                plural(c.count, "commit"),
                subjects(&c)
            )]),
            Ok(_) => Ok(Vec::new()),
            Err(e) => Err(e.to_string()),
        }
    };
    let (lost, hint): (Vec<String>, &str) = match op {
        Destructive::ResetHard => (changes.modified.clone(), KEEP_CHANGES),
        Destructive::DiscardPaths { paths } => (within(paths), KEEP_CHANGES),
        Destructive::Checkout {
            args,
            dashdash,
            force,
        } => {
            // Git's reading: before `--`, a first word that names a commit is a tree-ish and
            // the rest are paths; alone, a branch name switches branches.
            let (treeish, paths): (Option<&String>, &[String]) = match dashdash {
                Some(k) => (args[..*k].first(), &args[*k..]),
                None => match args.split_first() {
                    Some((first, rest)) if repo.resolve_rev(first).is_some() => (Some(first), rest),
                    _ => (None, &args[..]),
                },
            };
            let lost = if paths.is_empty() {
                if *force {
                    changes.modified.clone()
                } else {
                    Vec::new() // a switch carries local changes over, or git refuses
                }
            } else {
                within(paths)
            };
            let _ = treeish;
            (lost, KEEP_CHANGES)
        }
        Destructive::Clean {
            ignored, forced, ..
        } => {
            if !forced && !repo.clean_needs_no_force() {
                (Vec::new(), "") // git refuses without `-f`
            } else {
                let mut lost = changes.untracked.clone();
                if *ignored {
                    lost.push("(ignored files too: `-x`/`-X`)".into());
                }
                (
                    lost,
                    "Move or commit what you need, or run `git clean -n` to review, or ask the user",
                )
            }
        }
        Destructive::StashDrop { after_stash } | Destructive::StashClear { after_stash } => {
            let n = if matches!(op, Destructive::StashDrop { .. }) {
                repo.stash_count().min(1)
            } else {
                repo.stash_count()
            };
            let mut lost: Vec<String> = (0..n).map(|i| format!("stash@{{{i}}}")).collect();
            if *after_stash {
                // The stash made earlier in this line holds the current changes.
                lost = changes
                    .modified
                    .iter()
                    .chain(&changes.untracked)
                    .cloned()
                    .collect();
            }
            (
                lost,
                "Apply or branch the stash first (`git stash branch`), or ask the user",
            )
        }
        Destructive::RemoveFiles { paths, names } => {
            let lost = changes
                .modified
                .iter()
                .chain(&changes.untracked)
                .filter(|f| paths.iter().any(|p| path_covers(p, f)))
                .filter(|f| {
                    let name = f.trim_end_matches('/').rsplit('/').next().unwrap_or(f);
                    names.is_empty() || names.iter().any(|n| super::glob::matches(n, name))
                })
                .cloned()
                .collect();
            (lost, KEEP_CHANGES)
        }
        Destructive::BranchDelete { branches } => {
            let mut lost = Vec::new();
            for b in branches {
                // `update-ref -d HEAD` deletes the branch HEAD is on.
                let current = repo.branch();
                let b = match (b.as_str(), &current) {
                    ("HEAD", Some(c)) => c,
                    _ => b,
                };
                if let Ok(only) = repo.only_on_branch(b)
                    && only.count > 0
                {
                    lost.push(format!(
                        "{} only on `{b}` ({})",
                        plural(only.count, "commit"),
                        subjects(&only)
                    ));
                }
            }
            (lost, "Merge or push the branch first, or ask the user")
        }
        Destructive::MoveBranch {
            branch,
            to,
            discard,
        } => {
            let mut lost = match commits_lost(branch.as_deref(), to) {
                Ok(l) => l,
                Err(e) => {
                    ruling.facts = json!({"error": e});
                    return ask(
                        ruling,
                        ctx,
                        format!(
                            "`{cmd}` {}, and hookjudge cannot tell what it would lose ({e}).",
                            gated.what
                        ),
                        DecidedBy::Facts,
                    );
                }
            };
            let on_head = branch.is_none() || branch.as_deref() == repo.branch().as_deref();
            if *discard && on_head {
                lost.extend(changes.modified.iter().cloned());
            }
            (lost, if *discard { KEEP_CHANGES } else { KEEP_COMMITS })
        }
    };
    ruling.facts = json!({"would_lose": lost});
    ruling.decided_by = DecidedBy::Facts;
    if lost.is_empty() {
        return ruling;
    }
    ruling.decision = Decision::Deny;
    let shown: Vec<String> = lost.iter().take(5).cloned().collect();
    let more = if lost.len() > 5 {
        format!(" and {} more", lost.len() - 5)
    } else {
        String::new()
    };
    let hint = if lost.iter().any(|l| l.contains(" commit")) && hint == KEEP_CHANGES {
        "Commit, stash or push what you need first, or ask the user"
    } else {
        hint
    };
    ruling.reason = format!(
        "hookjudge gate [destructive]: `{cmd}` {} and would lose {}{more}. {hint}.",
        gated.what,
        shown.join(", ")
    );
    ruling
}

/// Whether the pathspec `p` (a path, a directory, `.`, `*` or `:/`) covers the file `f`.
fn path_covers(p: &str, f: &str) -> bool {
    let p = p.trim_start_matches("./").trim_start_matches(":/");
    p.is_empty()
        || p == "."
        || p == "*"
        || f == p
        || f.starts_with(&format!("{}/", p.trim_end_matches('/')))
        || (p.contains('*') && super::evidence::glob_match(p, f))
}

/// The newest change in ms: changed files' mtimes, and HEAD's commit time (whole seconds, so
/// counted as the end of its second: an artifact from the same second is not provably newer).
fn newest_change(repo: &Repo, changes: Option<&super::facts::Changes>) -> i64 {
    let head = repo.head().map(|(_, t)| t * 1000 + 999).unwrap_or(0);
    changes
        .and_then(|c| c.newest_mtime_ms)
        .unwrap_or(0)
        .max(head)
}

fn verify(ruling: Ruling, ctx: &Context, repo: Option<&Repo>, what: &str) -> Ruling {
    verify_with(ruling, ctx, repo, 0, what)
}

/// Which changes count against evidence: all of them (a commit takes the work tree), or only
/// those to the given repository paths (a push sends commits, not the uncommitted edits).
pub enum Scope {
    Everything,
    Paths(Vec<String>),
}

fn verify_with(
    ruling: Ruling,
    ctx: &Context,
    repo: Option<&Repo>,
    newest_change: i64,
    what: &str,
) -> Ruling {
    verify_scoped(ruling, ctx, repo, newest_change, what, &Scope::Everything)
}

/// Silent when there is fresh evidence; otherwise the judge; otherwise a human.
fn verify_scoped(
    mut ruling: Ruling,
    ctx: &Context,
    repo: Option<&Repo>,
    newest_change: i64,
    what: &str,
    scope: &Scope,
) -> Ruling {
    if ctx.approved {
        ruling.decided_by = DecidedBy::Approval;
        return ruling;
    }
    let mut finding = Finding::None;
    if let Some(root) = repo.and_then(|r| r.work_tree.as_deref()) {
        finding = evidence::artifacts(root, &ctx.settings.artifacts, newest_change, ctx.now);
    }
    let root = repo.and_then(|r| r.work_tree.clone());
    let relevant = |path: &str| -> bool {
        let Scope::Paths(paths) = scope else {
            return true;
        };
        let rel = match &root {
            Some(r) => Path::new(path)
                .strip_prefix(r)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| path.to_owned()),
            None => path.to_owned(),
        };
        paths.contains(&rel)
    };
    if !finding.is_fresh()
        && let Some(transcript) = ctx.transcript
        && let Ok(tests) = regex::Regex::new(&ctx.settings.test_commands)
    {
        let reader = evidence::Reader {
            tests: &tests,
            relevant: &relevant,
            cwd: ctx.cwd,
            commits_only: matches!(scope, Scope::Paths(_)),
        };
        // Waits briefly for a just-finished test run's result to land (agents write it
        // asynchronously), reading only what was appended meanwhile.
        let from_transcript = transcript.tests(&reader);
        if from_transcript != Finding::None || finding == Finding::None {
            finding = from_transcript;
        }
    }
    ruling.evidence = Some(finding.clone());
    if finding.is_fresh() {
        ruling.decided_by = DecidedBy::Evidence;
        return ruling;
    }
    let account = describe(&finding);
    // Test results older than the change are conclusive: the agent can act on that at once.
    let stale = matches!(
        finding,
        Finding::StaleArtifact { .. }
            | Finding::FailedArtifact { .. }
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
        return ruling;
    }
    // The judge reads what happened last and says whether verification was reported.
    if let (Some((judge, layer2)), Some(transcript)) = (ctx.judge, ctx.transcript) {
        let activity = transcript.recent_activity(4000);
        if !activity.trim().is_empty() {
            let text = crate::redact::redact(&format!(
                "{activity}\n\n(The agent now runs: {})",
                ruling.command
            ))
            .text;
            match layer2.ask(judge, &text) {
                Answer::Fields { fields, reason, .. } => {
                    ruling.decided_by = DecidedBy::Judge;
                    if !judge.block_when.holds(&fields) {
                        return ruling;
                    }
                    ruling.decision = Decision::Deny;
                    let why = reason.map(|r| format!(" (judge: {r})")).unwrap_or_default();
                    ruling.reason = format!(
                        "hookjudge gate [{}]: {what}, but nothing shows the code was verified after its last change: {account}{why}. Run the tests this change needs, report the results, then run the command again.",
                        ruling.class.name()
                    );
                    return ruling;
                }
                Answer::Failed { cause, .. } => {
                    ruling.facts["judge_failure"] = json!(cause);
                }
                Answer::Unjudged => {}
            }
        }
    }
    ask(
        ruling,
        ctx,
        format!(
            "{what}; hookjudge found no proof of verification since the last change ({account})."
        ),
        DecidedBy::JudgeFailed,
    )
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

fn ask(mut ruling: Ruling, ctx: &Context, why: String, by: DecidedBy) -> Ruling {
    if ctx.approved {
        ruling.decided_by = DecidedBy::Approval;
        return ruling;
    }
    ruling.decision = Decision::Ask;
    ruling.decided_by = by;
    ruling.reason = format!("hookjudge gate [{}]: {why}", ruling.class.name());
    ruling
}

fn describe(finding: &Finding) -> String {
    match finding {
        Finding::StaleArtifact {
            path,
            change_is_newer_by_ms,
        } => {
            format!(
                "the newest test results (`{}`) are {} older than the last change",
                path.display(),
                seconds(*change_is_newer_by_ms / 1000)
            )
        }
        Finding::FailedArtifact { path, failed } => format!(
            "the newest test results (`{}`) report {}",
            path.display(),
            plural(*failed, "failure")
        ),
        Finding::ChangeAfterTests {
            tool,
            last_test: Some(t),
        } if tool == super::evidence::NO_CHANGE_SEEN => format!("the last test run failed ({t})"),
        Finding::ChangeAfterTests {
            tool,
            last_test: Some(t),
            // Read newest first, the failed run came after the change.
        } => format!("the last test run, after files changed ({tool}), failed ({t})"),
        Finding::ChangeAfterTests {
            tool,
            last_test: None,
        } => format!("files changed ({tool}) and no test run followed"),
        Finding::None => "no test artifacts and no test run in the session".into(),
        Finding::TestRunPending { command } => {
            format!("the result of `{command}` is not in the session yet")
        }
        Finding::FreshArtifact { .. } | Finding::TestRunAfterChange { .. } => "verified".into(),
    }
}

fn seconds(s: i64) -> String {
    match s {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s => format!("{} h", s / 3600),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn subjects(commits: &Commits) -> String {
    let mut parts: Vec<String> = commits
        .first
        .iter()
        .take(3)
        .map(|c| format!("{} {}", c.id, c.subject))
        .collect();
    if commits.count > 3 {
        parts.push(format!("… {} more", commits.count - 3));
    }
    parts.join("; ")
}

/// `release/*` matches `release/1.2`; `*` stays within a segment.
pub fn branch_matches(pattern: &str, branch: &str) -> bool {
    let (p, b): (Vec<&str>, Vec<&str>) =
        (pattern.split('/').collect(), branch.split('/').collect());
    p.len() == b.len()
        && p.iter().zip(&b).all(|(p, b)| {
            *p == "*" || p == b || (p.ends_with('*') && b.starts_with(p.trim_end_matches('*')))
        })
}

fn short(command: &str) -> String {
    let one_line: String = command.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 120 {
        format!("{}…", one_line.chars().take(119).collect::<String>())
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_branch_patterns() {
        assert!(branch_matches("main", "main"));
        assert!(branch_matches("release/*", "release/1.2"));
        assert!(!branch_matches("release/*", "release"));
        assert!(!branch_matches("main", "maintenance"));
    }
}
