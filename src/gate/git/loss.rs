//! Git commands that lose branches, stashes or changes in forms the verb table does not
//! read: a forced rename or copy over a branch (`branch -M`/`-C`), a mixed
//! `reset HEAD~1` (the commit leaves the branch), `worktree add -B`, making a branch a
//! symbolic ref, deleting the stash ref or its log entries (`update-ref -d refs/stash`,
//! `reflog delete stash@{0}`, `reflog expire`), `git mv -f` over a file, a forced
//! `worktree remove` (in that worktree's repository), and reversing a
//! patch over changed files (`git diff | git apply -R`). Each names the operation; the
//! repository's facts say whether anything would be lost.

use crate::gate::classify::Destructive;

/// What `git VERB WORDS…` (operands as git parsed them) may lose, as (what, operation), and
/// the directory of the repository it loses it in when that is not the command's own (the
/// worktree `worktree remove` deletes).
pub(super) fn losses(
    verb: &str,
    words: &[String],
    operands: &[&str],
) -> Vec<(&'static str, Destructive, Option<String>)> {
    let has = |flag: &str| words.iter().any(|w| w == flag);
    let short = |letter: char| {
        words
            .iter()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains(letter))
    };
    let after = |flag: &str| {
        words
            .iter()
            .position(|w| w == flag)
            .and_then(|i| words.get(i + 1))
            .cloned()
    };
    let mut out: Vec<(&'static str, Destructive)> = Vec::new();
    let mut elsewhere = None;
    match verb {
        // `branch -M new`, `branch -C old new`: `new` now points where `old` (or HEAD) does.
        "branch" if short('M') || short('C') => {
            let names: Vec<&str> = words
                .iter()
                .map(String::as_str)
                .filter(|w| !w.starts_with('-'))
                .collect();
            let (from, to) = match names.as_slice() {
                [new] => ("HEAD", *new),
                [old, new, ..] => (*old, *new),
                [] => return Vec::new(),
            };
            out.push((
                "renames or copies a branch over another",
                Destructive::MoveBranch {
                    branch: Some(to.to_owned()),
                    to: from.to_owned(),
                    discard: false,
                },
            ));
        }
        // `--soft` keeps the commit's changes staged, ready to commit again; a mixed reset
        // leaves them unstaged among whatever else changed.
        "reset"
            if !["--hard", "--keep", "--merge", "--soft"]
                .iter()
                .any(|f| has(f)) =>
        {
            if let [to] = operands
                && is_revision(to)
            {
                out.push((
                    "moves the branch back (its newer commits leave it)",
                    Destructive::MoveBranch {
                        branch: None,
                        to: (*to).to_owned(),
                        discard: false,
                    },
                ));
            }
        }
        // Git refuses to remove a worktree holding changes unless forced: then they go with it.
        "worktree" if operands.first() == Some(&"remove") && (short('f') || has("--force")) => {
            if let Some(path) = operands.get(1) {
                elsewhere = Some((
                    "removes a worktree with its uncommitted changes",
                    Destructive::RemoveFiles {
                        paths: vec![".".to_owned()],
                        names: Vec::new(),
                        select: None,
                    },
                    Some((*path).to_owned()),
                ));
            }
        }
        "worktree" if operands.first() == Some(&"add") => {
            if let Some(name) = after("-B") {
                let start = operands.get(2).copied().unwrap_or("HEAD");
                out.push((
                    "resets a branch for a new worktree",
                    Destructive::MoveBranch {
                        branch: Some(name),
                        to: start.to_owned(),
                        discard: false,
                    },
                ));
            }
        }
        "symbolic-ref" if !short('d') && !has("--delete") => {
            if let [name, target, ..] = operands
                && let Some(branch) = name.strip_prefix("refs/heads/")
            {
                out.push((
                    "makes a branch point elsewhere",
                    Destructive::MoveBranch {
                        branch: Some(branch.to_owned()),
                        to: (*target).to_owned(),
                        discard: false,
                    },
                ));
            }
        }
        "update-ref" if short('d') && operands.first() == Some(&"refs/stash") => {
            out.push((
                "deletes the stash ref",
                Destructive::StashClear { after_stash: false },
            ));
        }
        "reflog" => match operands.first() {
            Some(&"delete") if operands[1..].iter().any(|o| o.contains("stash@{")) => {
                out.push((
                    "drops a stash",
                    Destructive::StashDrop { after_stash: false },
                ));
            }
            Some(&"expire") if !has("--dry-run") && !short('n') => out.push((
                "expires reflog entries, stashes among them",
                Destructive::StashClear { after_stash: false },
            )),
            _ => {}
        },
        "mv" if (short('f') || has("--force")) && operands.len() >= 2 => {
            out.push((
                "moves a file over another",
                Destructive::RemoveFiles {
                    paths: vec![operands[operands.len() - 1].to_owned()],
                    names: Vec::new(),
                    select: None,
                },
            ));
        }
        "apply"
            if (short('R') || has("--reverse"))
                && !["--check", "--stat", "--numstat", "--summary", "--cached"]
                    .iter()
                    .any(|f| has(f)) =>
        {
            out.push((
                "reverses a patch in the work tree",
                Destructive::DiscardPaths {
                    paths: vec![".".to_owned()],
                },
            ));
        }
        _ => {}
    }
    out.into_iter()
        .map(|(what, op)| (what, op, None))
        .chain(elsewhere)
        .collect()
}

/// A word that names a commit relative to another, or a commit id (`HEAD~1`, `@^`,
/// `origin/main@{1}`, `3f2a9c1`): not a path to unstage.
fn is_revision(word: &str) -> bool {
    word.contains(['~', '^'])
        || word.contains("@{")
        || (word.len() >= 7 && word.len() <= 40 && word.chars().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(verb: &str, line: &str) -> Vec<&'static str> {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let operands: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| !w.starts_with('-'))
            .collect();
        losses(verb, &words, &operands)
            .into_iter()
            .map(|(w, ..)| w)
            .collect()
    }

    #[test]
    fn each_form_is_read() {
        assert_eq!(ops("branch", "-M main").len(), 1);
        assert_eq!(ops("branch", "-C other main").len(), 1);
        assert_eq!(ops("reset", "HEAD~1").len(), 1);
        assert_eq!(ops("reflog", "delete stash@{0}").len(), 1);
        assert_eq!(ops("reflog", "expire --expire=now --all").len(), 1);
        assert_eq!(ops("update-ref", "-d refs/stash").len(), 1);
        assert_eq!(ops("symbolic-ref", "refs/heads/main refs/heads/x").len(), 1);
        assert_eq!(ops("mv", "-f a b").len(), 1);
        assert_eq!(ops("apply", "-R").len(), 1);
        assert_eq!(ops("worktree", "remove --force ../wt").len(), 1);
    }

    #[test]
    fn everyday_forms_are_not() {
        for (verb, line) in [
            ("branch", "-m old new"),
            ("branch", "-a"),
            ("reset", "src/app.py"),
            ("reset", ""),
            ("reset", "--hard HEAD~1"),
            ("reset", "--soft HEAD~1"),
            ("reflog", "show"),
            ("symbolic-ref", "HEAD"),
            ("mv", "a b"),
            ("apply", "fix.patch"),
            ("apply", "-R --check fix.patch"),
            ("worktree", "remove ../wt"),
        ] {
            assert!(ops(verb, line).is_empty(), "{verb} {line}");
        }
    }
}
