//! What earlier commands of a line change about a later git command: branches renamed, a
//! stash popped, remotes added (read by `classify` as it walks the line in order).

use super::classify::{Class, Destructive, Gated, Known};

/// What earlier commands of the line change about `found`: a branch renamed earlier is
/// judged by the commits it held under its old name; changes a stash pop brought back are
/// not in the facts read before the line runs, so discarding them asks.
pub(super) fn line_facts(found: &mut Vec<Gated>, known: &Known) {
    let original = |name: &str| {
        known.renamed.iter().rev().fold(
            name.to_owned(),
            |n, (new, old)| if n == *new { old.clone() } else { n },
        )
    };
    let mut asks = Vec::new();
    for g in found.iter_mut() {
        match &mut g.destructive {
            Some(Destructive::BranchDelete { branches }) => {
                for b in branches.iter_mut() {
                    *b = original(b);
                }
            }
            Some(Destructive::MoveBranch { branch, .. }) => {
                if let Some(b) = branch.as_deref() {
                    let old = original(b);
                    *branch = (old != "HEAD").then_some(old);
                }
            }
            _ => {}
        }
        let discards = matches!(
            g.destructive,
            Some(
                Destructive::ResetHard
                    | Destructive::ResetMerge
                    | Destructive::DiscardPaths { .. }
                    | Destructive::Checkout { .. }
                    | Destructive::Clean { .. }
                    | Destructive::MoveBranch { discard: true, .. }
            )
        );
        if known.unstashed && discards {
            let mut ask = g.clone();
            ask.class = Class::Unparsed;
            ask.destructive = None;
            ask.what = "discards changes, after a stash pop earlier on the line brought back changes hookjudge cannot see yet".into();
            asks.push(ask);
        }
    }
    found.extend(asks);
}

/// `git remote add [-f] [-t BRANCH] [-m HEAD] NAME URL`: the remote's name.
pub(super) fn added_remote(words: &[&str]) -> Option<String> {
    let at = words.windows(2).position(|w| w == ["remote", "add"])?;
    let mut rest = words[at + 2..].iter();
    while let Some(w) = rest.next() {
        match *w {
            "-t" | "--track" | "-m" | "--master" => {
                rest.next();
            }
            w if w.starts_with('-') => {}
            name => return Some(name.to_owned()),
        }
    }
    None
}
