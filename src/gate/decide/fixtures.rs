//! The test repository the gate's decision tests rule on, as facts: a work tree at `/r` on
//! `main`, or a push from it with an upstream and `origin` configured; and the gated action
//! itself. Shared by the tables of `decide` and the rules of `outcome`, so that each reads the
//! same repository.

use std::path::PathBuf;

use super::{Ruling, Step};
use crate::gate::classify::{Class, Gated, Target};
use crate::gate::facts::{self, Changes, PushFacts};
use crate::gate::gather::{PushRepoFacts, RepoFacts, WorkFacts};

/// A gated action of `class`, typed as `command`, that "does the thing".
pub fn gated(class: Class, command: &str) -> Gated {
    Gated {
        class,
        command: command.into(),
        target: Target::default(),
        push: None,
        destructive: None,
        what: "does the thing".into(),
    }
}

/// The ruling of a step that needed no more facts.
pub fn ruled(step: Step) -> Ruling {
    match step {
        Step::Ruled(r) => r,
        Step::Needs(n) => panic!("needs {n:?}"),
    }
}

/// The work tree at `/r`, on `branch`, with `changes`, its head committed at 100 s.
pub fn work(changes: Result<Changes, facts::Error>, branch: Option<&str>) -> RepoFacts {
    RepoFacts::Work(WorkFacts {
        work_tree: Some(PathBuf::from("/r")),
        branch: branch.map(str::to_owned),
        changes,
        head_time: Some(100),
        takes_only_not_code: false,
    })
}

/// A push from the work tree at `/r`, which has an upstream and `origin`: the `refs` it
/// pushes, the `pushed` paths they change, its newest commit at 7 999 ms.
pub fn push_repo(
    refs: Option<Result<Vec<PushFacts>, facts::Error>>,
    pushed: &[&str],
) -> PushRepoFacts {
    PushRepoFacts {
        work_tree: Some(PathBuf::from("/r")),
        has_upstream: true,
        origin_configured: true,
        refs,
        pushed_paths: Ok(pushed.iter().map(|p| (*p).to_owned()).collect()),
        newest_commit_ms: 7_999,
        ..PushRepoFacts::default()
    }
}
