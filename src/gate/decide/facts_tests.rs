//! The facts of each decision path, as the decision log and `check --json` write them: pinned
//! byte for byte, so that the shape of a ruling's facts never changes by accident.

use super::fixtures::{gated, push_repo, ruled, work};
use super::*;
use crate::gate::classify::{Destructive, PushSpec};
use crate::gate::facts::{self, Changes, CommitLine, Commits, PushFacts};
use crate::gate::gather::{DestructiveFacts, Evidence, PushRepoFacts};

fn commits(n: usize) -> Commits {
    Commits {
        count: n,
        first: (0..n)
            .map(|i| CommitLine {
                id: format!("c{i}"),
                subject: format!("subject \"{i}\""),
            })
            .collect(),
    }
}

fn unseen() -> Facts {
    Facts {
        evidence: Some(Evidence {
            artifacts: Finding::None,
            transcript: None,
        }),
        judge: Some(JudgeSaid::Failed("timed out".into())),
        ..Facts::default()
    }
}

fn pushed(spec: PushSpec, repo: PushRepoFacts, facts: Facts) -> Ruling {
    let mut g = gated(Class::Push, "git push");
    g.push = Some(spec);
    let facts = Facts {
        repo: RepoFacts::Push(repo),
        ..facts
    };
    ruled(decide(&g, &facts, &GateSettings::default()))
}

fn refs() -> Vec<PushFacts> {
    vec![PushFacts {
        remote: "origin".into(),
        source: "feature".into(),
        destination: "main".into(),
        tracking: Some("refs/remotes/origin/main".into()),
        ahead: commits(2),
        behind: commits(0),
        ..PushFacts::default()
    }]
}

fn repo(refs: Option<Result<Vec<PushFacts>, facts::Error>>) -> PushRepoFacts {
    push_repo(refs, &["src/a.rs", "b.rs"])
}

fn guarded(op: Destructive, repo: DestructiveFacts) -> Ruling {
    let mut g = gated(Class::Destructive, "git x");
    g.destructive = Some(op);
    let facts = Facts {
        repo: RepoFacts::Destructive(repo),
        ..Facts::default()
    };
    ruled(decide(&g, &facts, &GateSettings::default()))
}

/// Every path of `decide` that sets facts, with the JSON the code wrote before the facts were
/// typed (captured from that code).
#[test]
fn each_paths_facts_serialise_as_before() {
    let s = GateSettings::default();
    let unreadable = || RepoFacts::Unreadable(facts::Error::new("no git repository at `/x`"));
    let dirty = || Changes {
        modified: vec!["src/a.rs".into()],
        untracked: vec!["new.txt".into()],
        newest_mtime_ms: Some(5),
        ..Changes::default()
    };
    let spec_force = PushSpec {
        force: true,
        ..PushSpec::default()
    };
    let named = PushSpec {
        remote: Some("upstream".into()),
        ..PushSpec::default()
    };
    let cases: Vec<(&str, Ruling)> = vec![
        (
            "policy",
            ruled(decide(
                &gated(Class::Catastrophic, "rm -rf /"),
                &Facts::default(),
                &s,
            )),
        ),
        (
            "not read",
            ruled(decide(&gated(Class::Commit, "x"), &Facts::default(), &s)),
        ),
        (
            "unreadable",
            ruled(decide(
                &gated(Class::Commit, "x"),
                &Facts {
                    repo: unreadable(),
                    ..Facts::default()
                },
                &s,
            )),
        ),
        (
            "unreadable publish, judge failed",
            ruled(decide(
                &gated(Class::Publish, "x"),
                &Facts {
                    repo: unreadable(),
                    ..unseen()
                },
                &s,
            )),
        ),
        (
            "clean commit",
            ruled(decide(
                &Gated {
                    what: crate::gate::classify::COMMITS_THE_CHANGES.into(),
                    ..gated(Class::Commit, "git commit")
                },
                &Facts {
                    repo: work(Ok(Changes::default()), Some("main")),
                    ..Facts::default()
                },
                &s,
            )),
        ),
        (
            "work, judge failed",
            ruled(decide(
                &gated(Class::Commit, "git commit"),
                &Facts {
                    repo: work(Ok(dirty()), Some("main")),
                    ..unseen()
                },
                &s,
            )),
        ),
        (
            "work, status unreadable, detached",
            ruled(decide(
                &gated(Class::Commit, "git commit"),
                &Facts {
                    repo: work(Err(facts::Error::new("cannot read the status")), None),
                    ..unseen()
                },
                &s,
            )),
        ),
        (
            "work, judge said nothing",
            ruled(decide(
                &gated(Class::Commit, "git commit"),
                &Facts {
                    repo: work(Ok(dirty()), Some("main")),
                    judge: Some(JudgeSaid::Nothing),
                    ..unseen()
                },
                &s,
            )),
        ),
        (
            "push, computed",
            pushed(
                PushSpec {
                    computed: Some("$r".into()),
                    ..PushSpec::default()
                },
                repo(None),
                Facts::default(),
            ),
        ),
        (
            "push, no such remote",
            pushed(
                named.clone(),
                PushRepoFacts {
                    named_remote_configured: Some(false),
                    ..repo(None)
                },
                Facts::default(),
            ),
        ),
        (
            "push, nowhere",
            pushed(
                PushSpec::default(),
                PushRepoFacts {
                    has_upstream: false,
                    origin_configured: false,
                    ..repo(None)
                },
                Facts::default(),
            ),
        ),
        (
            "push, refs unreadable",
            pushed(
                PushSpec::default(),
                repo(Some(Err(facts::Error {
                    context: "cannot resolve `x`".into(),
                    cause: Some("no such ref".into()),
                }))),
                Facts::default(),
            ),
        ),
        (
            "push, refs not read",
            pushed(PushSpec::default(), repo(None), Facts::default()),
        ),
        (
            "push, force to protected",
            pushed(spec_force, repo(Some(Ok(refs()))), Facts::default()),
        ),
        (
            "push, nothing ahead",
            pushed(
                PushSpec::default(),
                repo(Some(Ok(vec![PushFacts {
                    ahead: commits(0),
                    ..refs()[0].clone()
                }]))),
                Facts::default(),
            ),
        ),
        (
            "push, judge failed",
            pushed(PushSpec::default(), repo(Some(Ok(refs()))), unseen()),
        ),
        (
            "push, paths unreadable",
            pushed(
                PushSpec::default(),
                PushRepoFacts {
                    pushed_paths: Err(facts::Error::new("cannot compare `a..b`")),
                    ..repo(Some(Ok(refs())))
                },
                Facts {
                    evidence: Some(Evidence {
                        artifacts: Finding::StaleArtifact {
                            path: "junit.xml".into(),
                            change_is_newer_by_ms: 4000,
                        },
                        transcript: None,
                    }),
                    ..Facts::default()
                },
            ),
        ),
        (
            "destructive, no operation",
            ruled(decide(
                &gated(Class::Destructive, "git x"),
                &Facts {
                    repo: RepoFacts::Destructive(DestructiveFacts::default()),
                    ..Facts::default()
                },
                &s,
            )),
        ),
        (
            "destructive, status unreadable",
            guarded(
                Destructive::ResetHard,
                DestructiveFacts {
                    changes: Err(facts::Error::new("cannot read the status")),
                    ..DestructiveFacts::default()
                },
            ),
        ),
        (
            "destructive, history not read",
            guarded(
                Destructive::MoveBranch {
                    branch: None,
                    to: "HEAD~2".into(),
                    discard: false,
                },
                DestructiveFacts::default(),
            ),
        ),
        (
            "destructive, would lose",
            guarded(
                Destructive::ResetHard,
                DestructiveFacts {
                    changes: Ok(dirty()),
                    ..DestructiveFacts::default()
                },
            ),
        ),
        (
            "destructive, loses nothing",
            guarded(Destructive::ResetHard, DestructiveFacts::default()),
        ),
    ];
    let expected: &[(&str, &str)] = &[
        ("policy", r#"{}"#),
        ("not read", r#"{}"#),
        ("unreadable", r#"{"error":"no git repository at `/x`"}"#),
        (
            "unreadable publish, judge failed",
            r#"{"repository":"no git repository at `/x`","judge_failure":"timed out"}"#,
        ),
        (
            "clean commit",
            r#"{"branch":"main","changes":{"modified":[],"untracked":[],"newest_mtime_ms":null}}"#,
        ),
        (
            "work, judge failed",
            r#"{"branch":"main","changes":{"modified":["src/a.rs"],"untracked":["new.txt"],"newest_mtime_ms":5},"judge_failure":"timed out"}"#,
        ),
        (
            "work, status unreadable, detached",
            r#"{"branch":null,"changes":null,"error":"cannot read the status","judge_failure":"timed out"}"#,
        ),
        (
            "work, judge said nothing",
            r#"{"branch":"main","changes":{"modified":["src/a.rs"],"untracked":["new.txt"],"newest_mtime_ms":5}}"#,
        ),
        ("push, computed", r#"{}"#),
        (
            "push, no such remote",
            r#"{"remote":"upstream","configured":false}"#,
        ),
        ("push, nowhere", r#"{"remote":null}"#),
        (
            "push, refs unreadable",
            r#"{"error":"cannot resolve `x`: no such ref"}"#,
        ),
        ("push, refs not read", r#"{}"#),
        (
            "push, force to protected",
            r#"{"refs":[{"remote":"origin","source":"feature","destination":"main","tracking":"refs/remotes/origin/main","ahead":{"count":2,"first":[{"id":"c0","subject":"subject \"0\""},{"id":"c1","subject":"subject \"1\""}]},"behind":{"count":0,"first":[]}}]}"#,
        ),
        (
            "push, nothing ahead",
            r#"{"refs":[{"remote":"origin","source":"feature","destination":"main","tracking":"refs/remotes/origin/main","ahead":{"count":0,"first":[]},"behind":{"count":0,"first":[]}}]}"#,
        ),
        (
            "push, judge failed",
            r#"{"refs":[{"remote":"origin","source":"feature","destination":"main","tracking":"refs/remotes/origin/main","ahead":{"count":2,"first":[{"id":"c0","subject":"subject \"0\""},{"id":"c1","subject":"subject \"1\""}]},"behind":{"count":0,"first":[]}}],"pushed_paths":2,"judge_failure":"timed out"}"#,
        ),
        (
            "push, paths unreadable",
            r#"{"refs":[{"remote":"origin","source":"feature","destination":"main","tracking":"refs/remotes/origin/main","ahead":{"count":2,"first":[{"id":"c0","subject":"subject \"0\""},{"id":"c1","subject":"subject \"1\""}]},"behind":{"count":0,"first":[]}}],"error":"cannot compare `a..b`"}"#,
        ),
        ("destructive, no operation", r#"{}"#),
        (
            "destructive, status unreadable",
            r#"{"error":"cannot read the status"}"#,
        ),
        (
            "destructive, history not read",
            r#"{"error":"the history was not read"}"#,
        ),
        ("destructive, would lose", r#"{"would_lose":["src/a.rs"]}"#),
        ("destructive, loses nothing", r#"{"would_lose":[]}"#),
    ];
    let got: Vec<(&str, String)> = cases
        .iter()
        .map(|(name, r)| (*name, serde_json::to_string(&r.facts).unwrap()))
        .collect();
    assert_eq!(got.len(), expected.len());
    // A gate judge that does not build: the hook adds why, after what was read.
    let mut misconfigured = cases[7].1.clone();
    misconfigured.facts.judge_failure = Some("bad `judges.gate-verification`".into());
    assert_eq!(
        serde_json::to_string(&misconfigured.facts).unwrap(),
        expected[7].1.strip_suffix('}').unwrap().to_owned()
            + r#","judge_failure":"bad `judges.gate-verification`"}"#
    );
    for ((name, json), (want_name, want)) in got.iter().zip(expected) {
        assert_eq!((name, json.as_str()), (want_name, *want));
    }
}
