//! Decision tables: facts in, ruling out, no repository, transcript or LLM.

use std::path::PathBuf;

use super::fixtures::{gated, push_repo, ruled, work};
use super::*;
use crate::gate::classify::{Destructive, PushSpec};
use crate::gate::clean::CleanLoss;
use crate::gate::facts::{self, Changes, CommitLine, Commits, PushFacts};
use crate::gate::gather::{DestructiveFacts, Evidence, PushRepoFacts};

fn with_policy(class: Class, policy: Policy) -> GateSettings {
    let mut settings = GateSettings::default();
    settings.policies.retain(|(c, _)| *c != class);
    settings.policies.push((class, policy));
    settings
}

fn changes(modified: &[&str], untracked: &[&str], newest: Option<i64>) -> Changes {
    Changes {
        modified: modified.iter().map(|s| s.to_string()).collect(),
        untracked: untracked.iter().map(|s| s.to_string()).collect(),
        newest_mtime_ms: newest,
        ..Changes::default()
    }
}

fn commits(n: usize) -> Commits {
    Commits {
        count: n,
        first: (0..n.min(3))
            .map(|i| CommitLine {
                id: format!("c{i}"),
                subject: format!("subject {i}"),
            })
            .collect(),
    }
}

#[track_caller]
fn expect(step: Step, decision: Decision, by: DecidedBy, reason_has: &str) -> Ruling {
    let r = ruled(step);
    assert_eq!((r.decision, r.decided_by), (decision, by), "{}", r.reason);
    assert!(
        r.reason.contains(reason_has),
        "{:?} lacks {reason_has:?}",
        r.reason
    );
    r
}

#[test]
fn the_policy_decides_first_for_every_class() {
    for class in Class::ALL {
        let g = gated(class, "x");
        let facts = Facts::default();
        let step = decide(&g, &facts, &with_policy(class, Policy::Allow));
        expect(step, Decision::Silent, DecidedBy::Policy, "");
        let step = decide(&g, &facts, &with_policy(class, Policy::Deny));
        expect(
            step,
            Decision::Deny,
            DecidedBy::Policy,
            &format!("[{}]", class.name()),
        );
        let step = decide(&g, &facts, &with_policy(class, Policy::Ask));
        expect(step, Decision::Ask, DecidedBy::Policy, "`x` does");
        let approved = Facts {
            approved: true,
            ..Facts::default()
        };
        let step = decide(&g, &approved, &with_policy(class, Policy::Ask));
        expect(step, Decision::Silent, DecidedBy::Approval, "");
    }
    let deny = |class| {
        ruled(decide(
            &gated(class, "x"),
            &Facts::default(),
            &with_policy(class, Policy::Deny),
        ))
    };
    assert!(
        deny(Class::HookBypass)
            .reason
            .contains("without `--no-verify`")
    );
    assert!(
        deny(Class::Catastrophic)
            .reason
            .contains("Delete only the paths")
    );
    assert!(deny(Class::Push).reason.contains("`gate.push` is `deny`"));
}

#[test]
fn unparsed_and_catastrophic_lines_go_to_a_human_under_any_checking_policy() {
    for class in [Class::Unparsed, Class::Catastrophic] {
        for policy in [Policy::Verify, Policy::Guard] {
            let step = decide(
                &gated(class, "x"),
                &Facts::default(),
                &with_policy(class, policy),
            );
            expect(step, Decision::Ask, DecidedBy::Policy, "x");
        }
    }
    let step = decide(
        &gated(Class::Unparsed, "x"),
        &Facts::default(),
        &GateSettings::default(),
    );
    expect(
        step,
        Decision::Ask,
        DecidedBy::Policy,
        "cannot tell what `x` does",
    );
}

#[test]
fn an_unreadable_repository() {
    let facts = Facts {
        repo: RepoFacts::Unreadable(facts::Error::new("no git repository at `/x`")),
        ..Facts::default()
    };
    let s = GateSettings::default();
    for class in [Class::Commit, Class::Push, Class::Destructive] {
        let r = expect(
            decide(&gated(class, "x"), &facts, &s),
            Decision::Ask,
            DecidedBy::Facts,
            "cannot read its repository (no git repository at `/x`)",
        );
        assert_eq!(
            r.facts,
            RulingFacts::unreadable("no git repository at `/x`")
        );
    }
    // A publish or deploy need not happen in a repository: the evidence decides.
    for class in [Class::Publish, Class::Deploy] {
        let s = with_policy(class, Policy::Verify);
        let query = EvidenceQuery {
            work_tree: None,
            newest_change: 0,
            scope: Scope::Everything,
        };
        assert!(matches!(
            decide(&gated(class, "x"), &facts, &s),
            Step::Needs(Need::Evidence(q)) if q == query
        ));
    }
    let facts = Facts {
        evidence: Some(Evidence {
            artifacts: Finding::None,
            transcript: None,
        }),
        judge: Some(JudgeSaid::Nothing),
        ..facts
    };
    let r = expect(
        decide(
            &gated(Class::Publish, "x"),
            &facts,
            &GateSettings::default(),
        ),
        Decision::Ask,
        DecidedBy::JudgeFailed,
        "no proof of verification",
    );
    assert_eq!(
        r.facts.read,
        Read::NoRepository {
            repository: "no git repository at `/x`".into()
        }
    );
}

#[test]
fn a_commit_with_nothing_to_take_is_left_to_git() {
    let s = GateSettings::default();
    let empty = Facts {
        repo: work(Ok(Changes::default()), Some("main")),
        ..Facts::default()
    };
    let commit = |command: &str| Gated {
        what: crate::gate::classify::COMMITS_THE_CHANGES.into(),
        ..gated(Class::Commit, command)
    };
    let r = expect(
        decide(&commit("git commit"), &empty, &s),
        Decision::Silent,
        DecidedBy::Facts,
        "",
    );
    assert_eq!(r.repo, Some(PathBuf::from("/r")));
    for command in ["git commit --amend", "git commit --allow-empty"] {
        assert!(matches!(
            decide(&commit(command), &empty, &s),
            Step::Needs(Need::Evidence(_))
        ));
    }
    // A merge, a cherry-pick or `npm version` commits on a clean tree.
    for command in ["git merge --no-ff topic", "npm version patch"] {
        assert!(matches!(
            decide(&gated(Class::Commit, command), &empty, &s),
            Step::Needs(Need::Evidence(_))
        ));
    }
    // A status that cannot be read is no proof of "nothing to commit".
    let unreadable = Facts {
        repo: RepoFacts::Work(WorkFacts {
            work_tree: None,
            branch: None,
            changes: Err(facts::Error::new("cannot read the status")),
            head_time: None,
            takes_only_not_code: false,
        }),
        ..Facts::default()
    };
    assert!(matches!(
        decide(&gated(Class::Commit, "git commit"), &unreadable, &s),
        Step::Needs(Need::Evidence(_))
    ));
}

#[test]
fn the_newest_change_is_the_newest_file_or_the_end_of_heads_second() {
    let s = GateSettings::default();
    for (mtime, newest) in [
        (Some(500_000), 500_000),
        (Some(50), 100_999),
        (None, 100_999),
    ] {
        let facts = Facts {
            repo: work(Ok(changes(&["a.rs"], &[], mtime)), Some("main")),
            ..Facts::default()
        };
        let Step::Needs(Need::Evidence(q)) =
            decide(&gated(Class::Commit, "git commit"), &facts, &s)
        else {
            panic!("evidence is needed");
        };
        assert_eq!(
            (q.newest_change, q.scope, q.work_tree),
            (newest, Scope::Everything, Some(PathBuf::from("/r")))
        );
    }
}

/// (artifacts, transcript, judge, decision, decided by, the reason contains).
type EvidenceRow = (
    Finding,
    Option<Finding>,
    Option<JudgeSaid>,
    Decision,
    DecidedBy,
    &'static str,
);

#[test]
fn evidence_and_judge_table() {
    let fresh = Finding::FreshArtifact {
        path: "/r/junit.xml".into(),
        age_ms: 5,
    };
    let stale = Finding::StaleArtifact {
        path: "/r/junit.xml".into(),
        change_is_newer_by_ms: 90_000,
    };
    let failed = Finding::FailedArtifact {
        path: "/r/junit.xml".into(),
        failed: 2,
    };
    let ran = Finding::TestRunAfterChange {
        command: "cargo test".into(),
    };
    let edited = Finding::ChangeAfterTests {
        tool: "Edit".into(),
        last_test: None,
    };
    let failed_run = Finding::ChangeAfterTests {
        tool: "Edit".into(),
        last_test: Some("`cargo test` failed".into()),
    };
    let pending = Finding::TestRunPending {
        command: "cargo test".into(),
    };
    let blocks = JudgeSaid::Answer {
        blocks: true,
        reason: Some("no tests".into()),
    };
    let passes = JudgeSaid::Answer {
        blocks: false,
        reason: None,
    };
    let failure = JudgeSaid::Failed("timed out".into());
    use Decision::*;
    // (artifacts, transcript, judge, decision, decided by, reason contains)
    let table: Vec<EvidenceRow> = vec![
        (fresh.clone(), None, None, Silent, DecidedBy::Evidence, ""),
        (
            Finding::None,
            Some(ran.clone()),
            None,
            Silent,
            DecidedBy::Evidence,
            "",
        ),
        // The session's run after the change outweighs an old report.
        (
            stale.clone(),
            Some(ran.clone()),
            None,
            Silent,
            DecidedBy::Evidence,
            "",
        ),
        (
            stale.clone(),
            None,
            None,
            Deny,
            DecidedBy::Evidence,
            "(`/r/junit.xml`) are 90 s older than the last change",
        ),
        (
            stale.clone(),
            Some(Finding::None),
            None,
            Deny,
            DecidedBy::Evidence,
            "older than the last change",
        ),
        (
            failed,
            None,
            None,
            Deny,
            DecidedBy::Evidence,
            "report 2 failures",
        ),
        (
            Finding::None,
            Some(failed_run),
            None,
            Deny,
            DecidedBy::Evidence,
            "did not pass: `cargo test` failed",
        ),
        (
            Finding::None,
            Some(edited.clone()),
            Some(blocks.clone()),
            Deny,
            DecidedBy::Judge,
            "(judge: no tests)",
        ),
        (
            Finding::None,
            Some(edited.clone()),
            Some(passes.clone()),
            Silent,
            DecidedBy::Judge,
            "",
        ),
        (
            Finding::None,
            Some(pending.clone()),
            Some(passes),
            Silent,
            DecidedBy::Judge,
            "",
        ),
        (
            Finding::None,
            Some(pending),
            Some(JudgeSaid::Nothing),
            Ask,
            DecidedBy::JudgeFailed,
            "is not in the session yet",
        ),
        (
            Finding::None,
            None,
            Some(failure),
            Ask,
            DecidedBy::JudgeFailed,
            "no test artifacts and no test run",
        ),
        (
            Finding::None,
            Some(edited.clone()),
            Some(JudgeSaid::Nothing),
            Ask,
            DecidedBy::JudgeFailed,
            "files changed (Edit) and no test run followed",
        ),
        // No provider: a person decides, and the log says why apart from a failed judge.
        (
            Finding::None,
            Some(edited),
            Some(JudgeSaid::NoLlm),
            Ask,
            DecidedBy::NoLlm,
            "files changed (Edit) and no test run followed",
        ),
    ];
    for (artifacts, transcript, judge, decision, by, reason) in table {
        let facts = Facts {
            repo: work(Ok(changes(&["a.rs"], &[], Some(1))), Some("main")),
            evidence: Some(Evidence {
                artifacts: artifacts.clone(),
                transcript: transcript.clone(),
            }),
            judge: judge.clone(),
            ..Facts::default()
        };
        let r = ruled(decide(
            &gated(Class::Commit, "git commit"),
            &facts,
            &GateSettings::default(),
        ));
        assert_eq!(
            (r.decision, r.decided_by),
            (decision, by),
            "{artifacts:?} {transcript:?} {judge:?}: {}",
            r.reason
        );
        assert!(r.reason.contains(reason), "{:?} lacks {reason:?}", r.reason);
        if judge == Some(JudgeSaid::Failed("timed out".into())) {
            assert_eq!(r.facts.judge_failure.as_deref(), Some("timed out"));
        }
    }
}

#[test]
fn the_judge_is_asked_only_when_the_evidence_is_inconclusive() {
    let facts = |artifacts| Facts {
        repo: work(Ok(changes(&["a.rs"], &[], Some(1))), Some("main")),
        evidence: Some(Evidence {
            artifacts,
            transcript: None,
        }),
        ..Facts::default()
    };
    let s = GateSettings::default();
    let g = gated(Class::Commit, "git commit");
    assert!(matches!(
        decide(&g, &facts(Finding::None), &s),
        Step::Needs(Need::Judge)
    ));
    let fresh = Finding::FreshArtifact {
        path: "/r/j.xml".into(),
        age_ms: 1,
    };
    assert!(matches!(decide(&g, &facts(fresh), &s), Step::Ruled(_)));
    // An approval needs neither evidence nor the judge.
    let approved = Facts {
        approved: true,
        repo: work(Ok(changes(&["a.rs"], &[], None)), Some("main")),
        ..Facts::default()
    };
    expect(
        decide(&g, &approved, &s),
        Decision::Silent,
        DecidedBy::Approval,
        "",
    );
}

fn push_facts(destination: &str, ahead: usize, behind: usize) -> PushFacts {
    PushFacts {
        remote: "origin".into(),
        source: "feature".into(),
        destination: destination.into(),
        ahead: commits(ahead),
        behind: commits(behind),
        ..PushFacts::default()
    }
}

fn pushing(spec: PushSpec, repo: PushRepoFacts) -> (Gated, Facts) {
    let mut g = gated(Class::Push, "git push");
    g.push = Some(spec);
    let facts = Facts {
        repo: RepoFacts::Push(repo),
        ..Facts::default()
    };
    (g, facts)
}

fn configured(refs: Vec<PushFacts>) -> PushRepoFacts {
    push_repo(Some(Ok(refs)), &["src/a.rs"])
}

/// A push to a remote the line adds: its branches are unreadable beforehand (git would say
/// "no such remote" to the gate), so it is judged on the evidence for every change: denied
/// after a failed run, asked about after a passing one.
#[test]
fn a_push_to_a_remote_the_line_adds_is_judged() {
    let spec = PushSpec {
        remote: Some("backup".into()),
        added_on_line: true,
        ..PushSpec::default()
    };
    let unknown = PushRepoFacts {
        named_remote_configured: Some(false),
        refs: None,
        ..configured(vec![])
    };
    let (g, facts) = pushing(spec, unknown);
    let Step::Needs(Need::Evidence(q)) = decide(&g, &facts, &GateSettings::default()) else {
        panic!("evidence is needed");
    };
    assert_eq!(q.scope, Scope::Everything);
    let with = |transcript: Finding| Facts {
        evidence: Some(Evidence {
            artifacts: Finding::None,
            transcript: Some(transcript),
        }),
        judge: Some(JudgeSaid::Nothing),
        ..facts.clone()
    };
    let failed = with(Finding::ChangeAfterTests {
        tool: "Edit".into(),
        last_test: Some("`pytest` failed".into()),
    });
    let r = ruled(decide(&g, &failed, &GateSettings::default()));
    assert_eq!(r.decision, Decision::Deny, "{}", r.reason);
    let passed = with(Finding::TestRunAfterChange {
        command: "pytest".into(),
    });
    let r = ruled(decide(&g, &passed, &GateSettings::default()));
    assert_eq!(r.decision, Decision::Ask, "{}", r.reason);
    assert!(
        r.reason.contains("a remote the same line adds"),
        "{}",
        r.reason
    );
}

#[test]
fn push_table() {
    let force = PushSpec {
        force: true,
        ..PushSpec::default()
    };
    let to_origin = PushSpec {
        remote: Some("upstream".into()),
        ..PushSpec::default()
    };
    use Decision::*;
    let rows: Vec<(&str, PushSpec, PushRepoFacts, Decision, DecidedBy, &str)> = vec![
        (
            "computed",
            PushSpec {
                computed: Some("$r".into()),
                ..PushSpec::default()
            },
            configured(vec![]),
            Ask,
            DecidedBy::Facts,
            "computed at run time (`$r`)",
        ),
        (
            "no such remote",
            to_origin.clone(),
            PushRepoFacts {
                named_remote_configured: Some(false),
                ..configured(vec![])
            },
            Silent,
            DecidedBy::Facts,
            "",
        ),
        (
            "nowhere to push",
            PushSpec::default(),
            PushRepoFacts {
                has_upstream: false,
                origin_configured: false,
                ..configured(vec![])
            },
            Silent,
            DecidedBy::Facts,
            "",
        ),
        (
            "unreadable refs",
            PushSpec::default(),
            PushRepoFacts {
                refs: Some(Err(facts::Error::new("cannot resolve `x`"))),
                ..configured(vec![])
            },
            Ask,
            DecidedBy::Facts,
            "cannot tell what (cannot resolve `x`)",
        ),
        (
            "force to protected",
            force.clone(),
            configured(vec![push_facts("release/2", 1, 0)]),
            Deny,
            DecidedBy::Facts,
            "protected branch `release/2`",
        ),
        (
            "force drops commits",
            force.clone(),
            configured(vec![push_facts("feature", 1, 2)]),
            Deny,
            DecidedBy::Facts,
            "discard 2 commits on `origin/feature`",
        ),
        (
            "mirror",
            PushSpec {
                mirror: true,
                ..PushSpec::default()
            },
            configured(vec![push_facts("main", 1, 0)]),
            Ask,
            DecidedBy::Policy,
            "on `origin`",
        ),
        (
            "delete",
            PushSpec {
                delete: true,
                force: true,
                ..PushSpec::default()
            },
            configured(vec![push_facts("main", 0, 3)]),
            Ask,
            DecidedBy::Policy,
            "deletes a branch or tag on `origin`",
        ),
        (
            "nothing ahead",
            PushSpec::default(),
            configured(vec![push_facts("main", 0, 0)]),
            Silent,
            DecidedBy::Facts,
            "",
        ),
    ];
    for (name, spec, repo, decision, by, reason) in rows {
        let (g, facts) = pushing(spec, repo);
        let r = ruled(decide(&g, &facts, &GateSettings::default()));
        assert_eq!(
            (r.decision, r.decided_by),
            (decision, by),
            "{name}: {}",
            r.reason
        );
        assert!(
            r.reason.contains(reason),
            "{name}: {:?} lacks {reason:?}",
            r.reason
        );
    }
    // A force push that drops nothing, to an unprotected branch, is verified like any push,
    // against what the pushed commits change.
    let (g, facts) = pushing(force, configured(vec![push_facts("feature", 2, 0)]));
    let Step::Needs(Need::Evidence(q)) = decide(&g, &facts, &GateSettings::default()) else {
        panic!("evidence is needed");
    };
    assert_eq!(
        q,
        EvidenceQuery {
            work_tree: Some(PathBuf::from("/r")),
            newest_change: 7_999,
            scope: Scope::Paths(vec!["src/a.rs".into()]),
        }
    );
    let facts = Facts {
        evidence: Some(Evidence {
            artifacts: Finding::None,
            transcript: None,
        }),
        judge: Some(JudgeSaid::Nothing),
        ..facts
    };
    expect(
        decide(&g, &facts, &GateSettings::default()),
        Decision::Ask,
        DecidedBy::JudgeFailed,
        "would publish 2 commits to `origin/feature` (c0 subject 0; c1 subject 1)",
    );
}

fn clean_op(forced: bool, ignored: bool, paths: &[&str]) -> Destructive {
    Destructive::Clean {
        directories: true,
        ignored,
        only_ignored: false,
        excludes: Vec::new(),
        paths: paths.iter().map(|s| s.to_string()).collect(),
        forced,
    }
}

fn guarding(op: Destructive, repo: DestructiveFacts) -> Step {
    let mut g = gated(Class::Destructive, "git x");
    g.destructive = Some(op);
    decide(
        &g,
        &Facts {
            repo: RepoFacts::Destructive(repo),
            ..Facts::default()
        },
        &GateSettings::default(),
    )
}

#[test]
fn destructive_table() {
    let dirty = || DestructiveFacts {
        changes: Ok(changes(&["src/a.rs", "docs/b.md"], &["new.txt"], None)),
        branch: Some("main".into()),
        ..DestructiveFacts::default()
    };
    let clean = DestructiveFacts::default;
    let paths = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    use Decision::*;
    let rows: Vec<(&str, Destructive, DestructiveFacts, Decision, &str)> = vec![
        (
            "reset, dirty",
            Destructive::ResetHard,
            dirty(),
            Deny,
            "would lose src/a.rs, docs/b.md. Commit or stash them first",
        ),
        ("reset, clean", Destructive::ResetHard, clean(), Silent, ""),
        (
            "discard a path",
            Destructive::DiscardPaths {
                paths: paths(&["src"]),
            },
            dirty(),
            Deny,
            "would lose src/a.rs.",
        ),
        (
            "discard another",
            Destructive::DiscardPaths {
                paths: paths(&["lib"]),
            },
            dirty(),
            Silent,
            "",
        ),
        (
            "checkout a path",
            Destructive::Checkout {
                args: paths(&["src"]),
                dashdash: None,
                force: false,
            },
            dirty(),
            Deny,
            "would lose src/a.rs.",
        ),
        (
            "switch to a branch",
            Destructive::Checkout {
                args: paths(&["other"]),
                dashdash: None,
                force: false,
            },
            DestructiveFacts {
                first_arg_is_commit: true,
                ..dirty()
            },
            Silent,
            "",
        ),
        (
            "switch to a commit",
            Destructive::Checkout {
                args: paths(&["HEAD~1"]),
                dashdash: None,
                force: false,
            },
            DestructiveFacts {
                first_arg_is_commit: true,
                ..dirty()
            },
            Silent,
            "",
        ),
        (
            "paths after a commit",
            Destructive::Checkout {
                args: paths(&["HEAD", "docs"]),
                dashdash: None,
                force: false,
            },
            DestructiveFacts {
                first_arg_is_commit: true,
                ..dirty()
            },
            Deny,
            "docs/b.md",
        ),
        (
            "forced switch",
            Destructive::Checkout {
                args: paths(&["HEAD~1"]),
                dashdash: None,
                force: true,
            },
            DestructiveFacts {
                first_arg_is_commit: true,
                ..dirty()
            },
            Deny,
            "src/a.rs, docs/b.md",
        ),
        (
            "after dashdash",
            Destructive::Checkout {
                args: paths(&["main", "src"]),
                dashdash: Some(1),
                force: false,
            },
            dirty(),
            Deny,
            "src/a.rs.",
        ),
        (
            "clean unforced",
            clean_op(false, false, &[]),
            dirty(),
            Silent,
            "",
        ),
        (
            "clean, no force needed",
            clean_op(false, false, &[]),
            DestructiveFacts {
                clean_needs_no_force: true,
                clean: Some(Ok(CleanLoss {
                    lost: paths(&["new.txt"]),
                    protected: Vec::new(),
                })),
                ..dirty()
            },
            Deny,
            "new.txt",
        ),
        (
            "clean -fx of build output only",
            clean_op(true, true, &["dist"]),
            DestructiveFacts {
                clean: Some(Ok(CleanLoss::default())),
                ..dirty()
            },
            Silent,
            "",
        ),
        (
            "clean -fdX taking hook settings",
            clean_op(true, true, &[]),
            DestructiveFacts {
                clean: Some(Ok(CleanLoss {
                    lost: paths(&["notes.log"]),
                    protected: vec![(
                        ".claude/".into(),
                        "moves or deletes a directory holding an agent's hook settings",
                    )],
                })),
                ..dirty()
            },
            Deny,
            "[self-protection]: this command moves or deletes a directory holding an agent's hook settings (`.claude/`)",
        ),
        (
            "clean, what it deletes unread",
            clean_op(true, false, &[]),
            dirty(),
            Ask,
            "what it deletes was not read",
        ),
        (
            "stash drop",
            Destructive::StashDrop { after_stash: false },
            DestructiveFacts {
                stash_count: 3,
                ..dirty()
            },
            Deny,
            "would lose stash@{0}. Apply or branch",
        ),
        (
            "stash clear",
            Destructive::StashClear { after_stash: false },
            DestructiveFacts {
                stash_count: 2,
                ..dirty()
            },
            Deny,
            "stash@{0}, stash@{1}",
        ),
        (
            "no stash",
            Destructive::StashClear { after_stash: false },
            dirty(),
            Silent,
            "",
        ),
        (
            "stash then drop",
            Destructive::StashDrop { after_stash: true },
            dirty(),
            Deny,
            "src/a.rs, docs/b.md, new.txt",
        ),
        (
            "rm by name",
            Destructive::RemoveFiles {
                paths: paths(&["."]),
                names: paths(&["*.md"]),
                select: None,
            },
            dirty(),
            Deny,
            "docs/b.md.",
        ),
        (
            "branch only commits",
            Destructive::BranchDelete {
                branches: paths(&["topic"]),
            },
            DestructiveFacts {
                only_on_branch: vec![("topic".into(), commits(4))],
                ..dirty()
            },
            Deny,
            "4 commits only on `topic` (c0 subject 0; c1 subject 1; c2 subject 2; … 1 more). Merge or push",
        ),
        (
            "branch merged",
            Destructive::BranchDelete {
                branches: paths(&["topic"]),
            },
            DestructiveFacts {
                only_on_branch: vec![("topic".into(), commits(0))],
                ..dirty()
            },
            Silent,
            "",
        ),
        (
            "move loses commits",
            Destructive::MoveBranch {
                branch: None,
                to: "HEAD~2".into(),
                discard: false,
            },
            DestructiveFacts {
                lost_by_move: Some(Ok(commits(2))),
                ..clean()
            },
            Deny,
            "2 commits that no other branch, tag or remote has (c0 subject 0; c1 subject 1). Push them",
        ),
        (
            "hard move on HEAD",
            Destructive::MoveBranch {
                branch: Some("main".into()),
                to: "HEAD~2".into(),
                discard: true,
            },
            DestructiveFacts {
                lost_by_move: Some(Ok(commits(1))),
                ..dirty()
            },
            Deny,
            "Commit, stash or push what you need first",
        ),
        (
            "rebase drops commits below its upstream",
            Destructive::Rebase {
                branch: None,
                onto: "main".into(),
                upstream: "HEAD~2".into(),
            },
            DestructiveFacts {
                lost_by_move: Some(Ok(commits(1))),
                ..dirty()
            },
            Deny,
            "1 commit that no other branch, tag or remote has (c0 subject 0). Push them",
        ),
        (
            "rebase replays every commit",
            Destructive::Rebase {
                branch: None,
                onto: "main".into(),
                upstream: "main".into(),
            },
            DestructiveFacts {
                lost_by_move: Some(Ok(commits(0))),
                ..dirty()
            },
            Silent,
            "",
        ),
        (
            "move nothing",
            Destructive::MoveBranch {
                branch: Some("other".into()),
                to: "x".into(),
                discard: true,
            },
            DestructiveFacts {
                lost_by_move: Some(Ok(commits(0))),
                ..dirty()
            },
            Silent,
            "",
        ),
    ];
    for (name, op, repo, decision, reason) in rows {
        let r = ruled(guarding(op, repo));
        assert_eq!(
            (r.decision, r.decided_by),
            (decision, DecidedBy::Facts),
            "{name}: {}",
            r.reason
        );
        assert!(
            r.reason.contains(reason),
            "{name}: {:?} lacks {reason:?}",
            r.reason
        );
    }
    for repo in [
        DestructiveFacts {
            changes: Err(facts::Error::new("cannot read the status")),
            ..clean()
        },
        DestructiveFacts {
            lost_by_move: Some(Err(facts::Error::new("cannot resolve `x` to a commit"))),
            ..clean()
        },
    ] {
        let op = Destructive::MoveBranch {
            branch: None,
            to: "x".into(),
            discard: false,
        };
        let r = expect(
            guarding(op, repo),
            Decision::Ask,
            DecidedBy::Facts,
            "cannot tell what it would lose (cannot",
        );
        assert!(matches!(&r.facts.read, Read::Unreadable { error } if error.starts_with("cannot")));
    }
    let many: Vec<&str> = vec!["a", "b", "c", "d", "e", "f", "g"];
    let repo = DestructiveFacts {
        changes: Ok(changes(&many, &[], None)),
        ..clean()
    };
    expect(
        guarding(Destructive::ResetHard, repo),
        Decision::Deny,
        DecidedBy::Facts,
        "a, b, c, d, e and 2 more.",
    );
}

#[test]
fn a_push_whose_changed_paths_are_unknown_counts_every_change() {
    let repo = PushRepoFacts {
        pushed_paths: Err(facts::Error::new("cannot read a commit's tree")),
        ..configured(vec![push_facts("feature", 1, 0)])
    };
    let (g, facts) = pushing(PushSpec::default(), repo);
    let Step::Needs(Need::Evidence(q)) = decide(&g, &facts, &GateSettings::default()) else {
        panic!("evidence is needed");
    };
    assert_eq!(q.scope, Scope::Everything);
    let facts = Facts {
        evidence: Some(Evidence {
            artifacts: Finding::None,
            transcript: None,
        }),
        judge: Some(JudgeSaid::Nothing),
        ..facts
    };
    let r = ruled(decide(&g, &facts, &GateSettings::default()));
    assert!(matches!(
        &r.facts.read,
        Read::Push { error: Some(e), pushed_paths: None, .. } if e == "cannot read a commit's tree"
    ));
}

#[test]
fn facts_that_were_not_gathered_leave_the_action_to_a_human() {
    let s = GateSettings::default();
    assert!(rests_on_repository(Class::Push, &s));
    assert!(!rests_on_repository(Class::Deploy, &s), "`ask` by default");
    assert!(!rests_on_repository(
        Class::Catastrophic,
        &with_policy(Class::Catastrophic, Policy::Guard)
    ));
    let r = expect(
        decide(&gated(Class::Push, "git push"), &Facts::default(), &s),
        Decision::Ask,
        DecidedBy::Facts,
        "has no facts about it",
    );
    assert!(
        r.reason
            .starts_with("hookjudge gate [push]: `git push` does the thing")
    );
}
