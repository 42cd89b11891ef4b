//! A destructive operation: silent when it would lose nothing, denied (with what it would lose
//! and how to keep it) when it would.

use super::text::{path_covers, plural, subjects};
use super::{DecidedBy, Decision, Read, Ruling, RulingFacts, ask};
use crate::gate::classify::{Destructive, Gated};
use crate::gate::gather::{DestructiveFacts, Facts};

const KEEP_CHANGES: &str = "Commit or stash them first (`git stash`), or ask the user";
const KEEP_COMMITS: &str =
    "Push them or put a branch on them first (`git branch keep <commit>`), or ask the user";

pub(super) fn guard(
    mut ruling: Ruling,
    facts: &Facts,
    repo: &DestructiveFacts,
    gated: &Gated,
    cmd: &str,
) -> Ruling {
    let Some(op) = &gated.destructive else {
        return ruling;
    };
    let cannot_tell = |mut ruling: Ruling, e: &str| {
        ruling.facts = RulingFacts::unreadable(e);
        let why = format!(
            "`{cmd}` {}, and hookjudge cannot tell what it would lose ({e}).",
            gated.what
        );
        ask(ruling, facts, why, DecidedBy::Facts)
    };
    let changes = match &repo.changes {
        Ok(c) => c,
        Err(e) => return cannot_tell(ruling, &e.to_string()),
    };
    let within = |paths: &[String]| -> Vec<String> {
        changes
            .modified
            .iter()
            .filter(|f| paths.iter().any(|p| path_covers(p, f)))
            .cloned()
            .collect()
    };
    let (lost, hint): (Vec<String>, &str) = match op {
        Destructive::ResetHard => (changes.modified.clone(), KEEP_CHANGES),
        Destructive::ResetMerge => (changes.staged_only.clone(), KEEP_CHANGES),
        Destructive::DiscardPaths { paths } => (within(paths), KEEP_CHANGES),
        Destructive::Checkout {
            args,
            dashdash,
            force,
        } => {
            // Git's reading: before `--`, a first word that names a commit is a tree-ish and
            // the rest are paths; alone, a branch name switches branches.
            let paths: &[String] = match dashdash {
                Some(k) => &args[*k..],
                None if repo.first_arg_is_commit => &args[1..],
                None => &args[..],
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
            (lost, KEEP_CHANGES)
        }
        Destructive::Clean { forced, .. } => {
            if !forced && !repo.clean_needs_no_force {
                (Vec::new(), "") // git refuses without `-f`
            } else {
                let loss = match &repo.clean {
                    Some(Ok(loss)) => loss,
                    Some(Err(e)) => return cannot_tell(ruling, &e.to_string()),
                    None => return cannot_tell(ruling, "what it deletes was not read"),
                };
                if let Some((_, why)) = loss.protected.first() {
                    let named: Vec<String> = loss
                        .protected
                        .iter()
                        .map(|(p, _)| format!("`{p}`"))
                        .collect();
                    ruling.facts = RulingFacts::of(Read::WouldLose {
                        would_lose: loss.protected.iter().map(|(p, _)| p.clone()).collect(),
                    });
                    ruling.decision = Decision::Deny;
                    ruling.decided_by = DecidedBy::Facts;
                    ruling.reason = crate::gate::protect::reason(&format!(
                        "command {why} ({})",
                        named.join(", ")
                    ));
                    return ruling;
                }
                (
                    loss.lost.clone(),
                    "Move or commit what you need, or run `git clean -n` to review, or ask the user",
                )
            }
        }
        Destructive::StashDrop { after_stash } | Destructive::StashClear { after_stash } => {
            let n = if matches!(op, Destructive::StashDrop { .. }) {
                repo.stash_count.min(1)
            } else {
                repo.stash_count
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
        Destructive::RemoveFiles {
            paths,
            names,
            select,
        } => {
            let lost = changes
                .modified
                .iter()
                .chain(
                    changes
                        .untracked
                        .iter()
                        .filter(|u| !repo.session_scratch.contains(u)),
                )
                .filter(|f| paths.iter().any(|p| path_covers(p, f)))
                .filter(|f| match select {
                    Some(select) => select.selects(f),
                    None => {
                        let name = f.trim_end_matches('/').rsplit('/').next().unwrap_or(f);
                        names.is_empty()
                            || names.iter().any(|n| crate::gate::glob::matches(n, name))
                    }
                })
                .cloned()
                .collect();
            (lost, KEEP_CHANGES)
        }
        Destructive::BranchDelete { .. } => {
            let lost = repo
                .only_on_branch
                .iter()
                .filter(|(_, only)| only.count > 0)
                .map(|(b, only)| {
                    format!(
                        "{} only on `{b}` ({})",
                        plural(only.count, "commit"),
                        subjects(only)
                    )
                })
                .collect();
            (lost, "Merge or push the branch first, or ask the user")
        }
        Destructive::MoveBranch { .. } | Destructive::Rebase { .. } => {
            // A rebase keeps uncommitted changes (git refuses to start over them).
            let discard = matches!(op, Destructive::MoveBranch { discard: true, .. });
            let mut lost = match &repo.lost_by_move {
                Some(Ok(c)) if c.count > 0 => vec![format!(
                    "{} that no other branch, tag or remote has ({})",
                    plural(c.count, "commit"),
                    subjects(c)
                )],
                Some(Ok(_)) => Vec::new(),
                Some(Err(e)) => return cannot_tell(ruling, &e.to_string()),
                None => return cannot_tell(ruling, "the history was not read"),
            };
            let on_head = match op {
                Destructive::MoveBranch { branch, .. } => {
                    branch.is_none() || branch.as_deref() == repo.branch.as_deref()
                }
                _ => false,
            };
            if discard && on_head {
                lost.extend(changes.modified.iter().cloned());
            }
            (lost, if discard { KEEP_CHANGES } else { KEEP_COMMITS })
        }
    };
    ruling.facts = RulingFacts::of(Read::WouldLose {
        would_lose: lost.clone(),
    });
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
