//! `git rebase`: which commits a rebase leaves on no ref, and the todo list an editor named on
//! the line may rewrite (a row of the git verb table, `verbs`).

use super::verbs::{Action, Reading, act, destroys};
use crate::gate::classify::{Class, Destructive};

/// Flags that act on a rebase already under way, rather than start one.
const REBASE_UNDER_WAY: [&str; 6] = [
    "continue",
    "abort",
    "quit",
    "skip",
    "edit-todo",
    "show-current-patch",
];

/// Editors that leave the todo list as git wrote it (every commit picked).
const TODO_KEPT_BY: [&str; 3] = ["true", ":", "cat"];

/// `git rebase [--onto NEWBASE] [UPSTREAM [BRANCH]]`: BRANCH (HEAD's by default) is rebuilt
/// on NEWBASE (UPSTREAM without `--onto`) from its commits after UPSTREAM; the commits below
/// UPSTREAM that NEWBASE lacks leave it. An interactive rebase whose todo list a program
/// given on the line edits may drop any commit it replays: that program is not read.
pub(super) fn rebase(r: &Reading) -> Vec<Action> {
    let flags = &r.flags;
    if REBASE_UNDER_WAY.iter().any(|f| flags.surely(f, "")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if flags.risky("interactive", "i")
        && let Some(editor) = todo_editor(r)
        && !TODO_KEPT_BY.contains(&editor.trim())
    {
        out.push(act(
            Class::Unparsed,
            "rebases with a todo list a program edits (it may drop commits)",
        ));
    }
    if flags.risky("root", "") {
        return out; // every commit of the branch is replayed
    }
    let upstream = r.operands.first().copied().unwrap_or("@{u}");
    let onto = flags
        .value("onto", "")
        .filter(|_| !flags.risky("keep-base", ""))
        .unwrap_or(upstream);
    out.push(destroys(
        "rebases the branch onto a new base",
        Destructive::Rebase {
            branch: r.operands.get(1).map(|b| (*b).to_owned()),
            onto: onto.to_owned(),
            upstream: upstream.to_owned(),
        },
    ));
    out
}

/// The program that edits an interactive rebase's todo list, when the line gives one: git's
/// sequence editor, else its editor.
fn todo_editor(r: &Reading) -> Option<String> {
    let env = |k: &str| r.cmd.env_var(k).map(|w| w.text().to_owned());
    let config = |k: &str| {
        r.inv
            .config
            .iter()
            .rev()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    env("GIT_SEQUENCE_EDITOR")
        .or_else(|| config("sequence.editor"))
        .or_else(|| env("GIT_EDITOR"))
        .or_else(|| config("core.editor"))
}
