//! A push: silent when git would refuse it or it publishes nothing, denied when a force push
//! would rewrite a protected branch or drop commits the remote has, asked about when it mirrors
//! or deletes, silent when the pushed commits change only documentation and metadata
//! (`gate.not_code`), and otherwise verified against what the pushed commits change.

use super::text::{branch_matches, plural, subjects};
use super::{DecidedBy, Decision, Read, Ruling, RulingFacts, Step, ask, verify};
use crate::gate::classify::Gated;
use crate::gate::gather::{Facts, PushRepoFacts, Scope};

pub(super) fn push(
    mut ruling: Ruling,
    facts: &Facts,
    repo: &PushRepoFacts,
    gated: &Gated,
    cmd: &str,
    protected_branches: &[String],
) -> Step {
    let spec = gated.push.clone().unwrap_or_default();
    if let Some(src) = &spec.computed {
        let why = format!(
            "`{cmd}` {}, and where to is computed at run time (`{src}`).",
            gated.what
        );
        return Step::Ruled(ask(ruling, facts, why, DecidedBy::Facts));
    }
    if spec.added_on_line {
        // Its branches cannot be read before the line adds it: every change counts against
        // the evidence, and even verified work is a person's call.
        let what = format!(
            "`{cmd}` pushes to `{}`, a remote the same line adds, whose branches hookjudge cannot read beforehand",
            spec.remote.as_deref().unwrap_or_default()
        );
        return match verify(
            ruling,
            facts,
            repo.work_tree.clone(),
            repo.newest_commit_ms,
            &what,
            Scope::Everything,
        ) {
            Step::Ruled(r) if r.decision == Decision::Silent => {
                Step::Ruled(ask(r, facts, format!("{what}."), DecidedBy::Facts))
            }
            other => other,
        };
    }
    if let (Some(remote), Some(false)) = (&spec.remote, repo.named_remote_configured) {
        ruling.facts = RulingFacts::of(Read::NoRemote {
            remote: Some(remote.clone()),
            configured: Some(false),
        });
        ruling.decided_by = DecidedBy::Facts;
        return Step::Ruled(ruling); // git refuses: no such remote
    }
    if spec.remote.is_none() && !repo.has_upstream && !repo.origin_configured {
        ruling.facts = RulingFacts::of(Read::NoRemote {
            remote: None,
            configured: None,
        });
        ruling.decided_by = DecidedBy::Facts;
        return Step::Ruled(ruling); // nowhere to push: git refuses
    }
    let all_facts = match &repo.refs {
        Some(Ok(f)) => f,
        Some(Err(e)) => {
            ruling.facts = RulingFacts::unreadable(e);
            let why = format!("`{cmd}` pushes, but hookjudge cannot tell what ({e}).");
            return Step::Ruled(ask(ruling, facts, why, DecidedBy::Facts));
        }
        None => {
            let why = format!("`{cmd}` pushes, but hookjudge did not read what.");
            return Step::Ruled(ask(ruling, facts, why, DecidedBy::Facts));
        }
    };
    ruling.facts = RulingFacts::of(Read::Push {
        refs: all_facts.clone(),
        pushed_paths: None,
        error: None,
    });
    let remote = all_facts
        .first()
        .map(|f| f.remote.clone())
        .or_else(|| spec.remote.clone())
        .unwrap_or_default();
    if spec.force && !spec.delete {
        for pushed in all_facts {
            let destination = format!("{}/{}", pushed.remote, pushed.destination);
            if protected_branches
                .iter()
                .any(|p| branch_matches(p, &pushed.destination))
            {
                ruling.decision = Decision::Deny;
                ruling.decided_by = DecidedBy::Facts;
                ruling.reason = format!(
                    "hookjudge gate [push]: `{cmd}` force-pushes to the protected branch `{}`. Push without force after integrating the remote (`git pull --rebase`), or push to another branch.",
                    pushed.destination
                );
                return Step::Ruled(ruling);
            }
            if pushed.behind.count > 0 {
                ruling.decision = Decision::Deny;
                ruling.decided_by = DecidedBy::Facts;
                ruling.reason = format!(
                    "hookjudge gate [push]: `{cmd}` would discard {} on `{destination}` that `{}` lacks ({}). Fetch and integrate them (`git pull --rebase`), then push without force.",
                    plural(pushed.behind.count, "commit"),
                    pushed.source,
                    subjects(&pushed.behind)
                );
                return Step::Ruled(ruling);
            }
        }
    }
    if spec.mirror {
        let why = format!("`{cmd}` {} on `{remote}`.", gated.what);
        return Step::Ruled(ask(ruling, facts, why, DecidedBy::Policy));
    }
    if spec.delete {
        let why = format!("`{cmd}` deletes a branch or tag on `{remote}`.");
        return Step::Ruled(ask(ruling, facts, why, DecidedBy::Policy));
    }
    let ahead: usize = all_facts.iter().map(|f| f.ahead.count).sum();
    if ahead == 0 && !spec.tags {
        ruling.decided_by = DecidedBy::Facts;
        return Step::Ruled(ruling); // nothing to publish
    }
    // Every pushed commit changes only documentation and metadata: no test run could fail.
    if repo.commits_only_not_code {
        ruling.decided_by = DecidedBy::Facts;
        return Step::Ruled(ruling);
    }
    // What is pushed is the commits: an uncommitted edit is not part of it, but a pushed file
    // changed after the tests is.
    let scope = match &repo.pushed_paths {
        Ok(paths) => Scope::Paths(paths.clone()),
        // What the commits change is unknown: every change counts against the evidence.
        Err(_) => Scope::Everything,
    };
    if let Read::Push {
        pushed_paths,
        error,
        ..
    } = &mut ruling.facts.read
    {
        *pushed_paths = repo.pushed_paths.as_ref().ok().map(Vec::len);
        *error = repo.pushed_paths.as_ref().err().map(ToString::to_string);
    }
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
    let work_tree = repo.work_tree.clone();
    verify(
        ruling,
        facts,
        work_tree,
        repo.newest_commit_ms,
        &what,
        scope,
    )
}
