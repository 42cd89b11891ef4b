//! What a ruling rests on, as the decision log and `hookjudge check --json` write it under
//! `facts`: one shape per decision path, with that path's own keys, and the judge's failure on
//! top when the judge was asked and could not answer.

use serde::Serialize;

use crate::gate::facts::{Changes, PushFacts};

/// The facts a ruling rests on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RulingFacts {
    #[serde(flatten)]
    pub read: Read,
    /// Why the gate's judge gave no answer: its call failed, or it does not build from the
    /// configuration. Written last, after what was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge_failure: Option<String>,
}

/// What the gate read for one action, by the path its decision took. Each variant writes its
/// fields as the keys of `facts` (no tag: the keys tell the shapes apart).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Read {
    /// Nothing: the policy ruled, or the decision did not get as far as reading (`{}`).
    #[default]
    Nothing,
    /// hookjudge's recursion guard is set, so nothing was judged.
    RecursionGuard { recursion_guard: bool },
    /// A publish or deploy whose repository cannot be read: the evidence alone decides.
    NoRepository { repository: String },
    /// What could not be read: the repository, the refs a push sends, or what a destructive
    /// operation would lose.
    Unreadable { error: String },
    /// Git refuses the push: the remote it names is not configured (`configured: false`), or
    /// it names none and there is none to default to (`remote: null`).
    NoRemote {
        remote: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        configured: Option<bool>,
    },
    /// What a push sends, ref by ref; once it is verified against the evidence, how many paths
    /// its commits change, or why that is unknown.
    Push {
        refs: Vec<PushFacts>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pushed_paths: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A commit, publish or deploy: the branch (`null` when detached) and the uncommitted work
    /// (`null` when the status cannot be read, and `error` says why).
    Work {
        branch: Option<String>,
        changes: Option<Changes>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// What a destructive operation would lose (empty: nothing).
    WouldLose { would_lose: Vec<String> },
}

impl RulingFacts {
    /// Facts of one decision path, with no judge failure.
    pub fn of(read: Read) -> RulingFacts {
        RulingFacts {
            read,
            judge_failure: None,
        }
    }

    /// An error reading what the decision rests on.
    pub fn unreadable(error: impl ToString) -> RulingFacts {
        RulingFacts::of(Read::Unreadable {
            error: error.to_string(),
        })
    }

    /// The refs a push sends, when it pushes; none otherwise.
    pub fn pushed_refs(&self) -> Option<&[PushFacts]> {
        match &self.read {
            Read::Push { refs, .. } => Some(refs),
            _ => None,
        }
    }
}
