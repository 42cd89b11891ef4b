//! The procedural rows of the git verb table (`verbs`): the subcommands whose class and
//! target depend on more than a flag, each read by one function from its flags and operands
//! (a push's destination, the refs `update-ref` writes, the paths a checkout may discard).

use super::opts::Flags;
use super::verbs::{Action, Reading, act, destroys};
use crate::gate::classify::{Class, Destructive, PushSpec};
use crate::gate::shell::SimpleCommand;

pub(super) fn push(r: &Reading) -> Vec<Action> {
    let mut spec = push_spec(&r.flags, &r.operands);
    spec.computed = r.computed.clone();
    let mut out = Vec::new();
    if spec.remote.as_deref() == Some(".")
        && spec.refspecs.iter().any(|s| s.contains("refs/remotes/"))
    {
        out.push(act(
            Class::HookBypass,
            "rewrites a remote-tracking ref hookjudge reads",
        ));
    }
    let what = if spec.mirror {
        "mirrors every ref, deleting remote refs that are not local"
    } else if spec.delete {
        "deletes remote refs"
    } else if spec.force {
        "force-pushes"
    } else {
        "pushes commits"
    };
    out.push(Action {
        push: Some(spec),
        ..act(Class::Push, what)
    });
    out
}

/// `git -C ../origin.git fetch ../work main:main`: writing a branch of a bare repository (the
/// remote other clones push to) is a push from the remote's side.
pub(super) fn fetch(r: &Reading) -> Vec<Action> {
    let writes_branch = r.operands.iter().skip(1).any(|refspec| {
        refspec.split_once(':').is_some_and(|(_, dst)| {
            !dst.is_empty()
                && !dst.starts_with("refs/remotes/")
                && dst != "FETCH_HEAD"
                && (dst.starts_with("refs/heads/") || !dst.starts_with("refs/"))
        })
    });
    let git_dir = r
        .inv
        .target
        .git_dir
        .clone()
        .or_else(|| r.inv.target.dir.clone());
    let bare = git_dir.is_some_and(|d| {
        !d.join(".git").exists() && d.join("HEAD").is_file() && d.join("objects").is_dir()
    });
    if writes_branch && bare {
        return vec![act(
            Class::Push,
            "writes a branch of a bare repository (a push from the remote's side)",
        )];
    }
    // `git fetch origin +main:main`, `git fetch . a:b`: the local branch is set to what was
    // fetched, as `git branch -f` would set it (without `+`, only when that fast-forwards).
    let remote = r.operands.first().copied().unwrap_or("origin");
    r.operands
        .iter()
        .skip(1)
        .filter_map(|refspec| refspec.trim_start_matches('+').split_once(':'))
        .filter_map(|(src, dst)| {
            let branch = match dst.strip_prefix("refs/heads/") {
                Some(b) => b,
                None if !dst.is_empty() && !dst.starts_with("refs/") && dst != "FETCH_HEAD" => dst,
                None => return None,
            };
            let src = src.strip_prefix("refs/heads/").unwrap_or(src);
            let to = if remote == "." || src.is_empty() {
                src.to_owned()
            } else {
                format!("refs/remotes/{remote}/{src}")
            };
            (!to.is_empty()).then(|| {
                destroys(
                    "sets a local branch to what it fetches",
                    Destructive::MoveBranch {
                        branch: Some(branch.to_owned()),
                        to,
                        discard: false,
                    },
                )
            })
        })
        .collect()
}

pub(super) fn config(r: &Reading) -> Vec<Action> {
    let (flags, operands) = (&r.flags, &r.operands);
    let key_set = |needle: &str| {
        operands.len() >= 2
            && operands[0].eq_ignore_ascii_case(needle)
            && !flags.risky("get", "")
            && !flags.risky("list", "l")
    };
    let setting = |k: &str| {
        key_set(k)
            || (operands.first() == Some(&"set")
                && operands.get(1).is_some_and(|o| o.eq_ignore_ascii_case(k)))
    };
    if setting("core.hookspath") {
        vec![act(Class::HookBypass, "changes `core.hooksPath`")]
    } else {
        Vec::new()
    }
}

pub(super) fn update_ref(r: &Reading) -> Vec<Action> {
    let deleting = r.flags.surely("", "d");
    let refs = &r.operands;
    let action = if refs.iter().any(|s| s.starts_with("refs/remotes/")) {
        act(
            Class::HookBypass,
            "rewrites a remote-tracking ref hookjudge reads",
        )
    } else if r.flags.surely("stdin", "") {
        act(Class::Unparsed, "updates refs read from its input")
    } else if let Some(branch) = refs.first().and_then(|s| s.strip_prefix("refs/heads/")) {
        if deleting {
            destroys(
                "deletes a branch",
                Destructive::BranchDelete {
                    branches: vec![branch.to_owned()],
                },
            )
        } else if let Some(to) = refs.get(1) {
            destroys(
                "moves a branch",
                Destructive::MoveBranch {
                    branch: Some(branch.to_owned()),
                    to: (*to).to_owned(),
                    discard: false,
                },
            )
        } else {
            return Vec::new();
        }
    } else if refs.first() == Some(&"HEAD") && deleting {
        destroys(
            "deletes HEAD's branch",
            Destructive::BranchDelete {
                branches: vec!["HEAD".to_owned()],
            },
        )
    } else if refs.first() == Some(&"HEAD")
        && let Some(to) = refs.get(1)
    {
        destroys(
            "moves HEAD's branch",
            Destructive::MoveBranch {
                branch: None,
                to: (*to).to_owned(),
                discard: false,
            },
        )
    } else {
        return Vec::new();
    };
    vec![action]
}

pub(super) fn reset(r: &Reading) -> Vec<Action> {
    let hard = r.flags.risky("hard", "") || r.flags.risky("merge", "");
    let keep = r.flags.risky("keep", "");
    if !(hard || keep) {
        return Vec::new();
    }
    let to = r
        .operands
        .first()
        .copied()
        .filter(|_| r.dashdash != Some(0));
    match to {
        Some(to) if to != "HEAD" && to != "@" => vec![destroys(
            "moves the branch and discards uncommitted changes",
            Destructive::MoveBranch {
                branch: None,
                to: to.to_owned(),
                discard: hard,
            },
        )],
        // `--merge` in place keeps what the work tree changed, and puts back what is staged.
        _ if hard && !r.flags.risky("hard", "") => vec![destroys(
            "puts staged changes back to the commit",
            Destructive::ResetMerge,
        )],
        _ if hard => vec![destroys(
            "discards uncommitted changes",
            Destructive::ResetHard,
        )],
        _ => Vec::new(),
    }
}

pub(super) fn checkout(r: &Reading) -> Vec<Action> {
    let flags = &r.flags;
    let force = flags.risky("force", "f");
    if let Some(name) = flags.value("", "B") {
        return vec![destroys(
            "resets a branch",
            Destructive::MoveBranch {
                branch: Some(name.to_owned()),
                to: r.operands.first().copied().unwrap_or("HEAD").to_owned(),
                discard: force,
            },
        )];
    }
    if flags.value("", "b").is_some() || flags.risky("orphan", "") {
        return if force {
            vec![destroys("discards local changes", Destructive::ResetHard)]
        } else {
            Vec::new()
        };
    }
    let restores = !flags.risky("patch", "p")
        && (force
            || r.dashdash.is_some()
            || r.operands.len() > 1
            || r.operands.first().is_some_and(|o| may_be_path(r.cmd, o)));
    if !restores {
        return Vec::new();
    }
    vec![destroys(
        "discards changes to files",
        Destructive::Checkout {
            args: r.owned_operands(),
            dashdash: r.dashdash,
            force,
        },
    )]
}

pub(super) fn switch(r: &Reading) -> Vec<Action> {
    let force = r.flags.risky("force", "f") || r.flags.risky("discard-changes", "");
    if let Some(name) = r.flags.value("force-create", "C") {
        vec![destroys(
            "resets a branch",
            Destructive::MoveBranch {
                branch: Some(name.to_owned()),
                to: r.operands.first().copied().unwrap_or("HEAD").to_owned(),
                discard: force,
            },
        )]
    } else if force {
        vec![destroys(
            "discards local changes while switching",
            Destructive::ResetHard,
        )]
    } else {
        Vec::new()
    }
}

pub(super) fn restore(r: &Reading) -> Vec<Action> {
    let staged = r.flags.risky("staged", "S");
    let worktree = r.flags.risky("worktree", "W");
    if (!staged || worktree) && !r.flags.risky("patch", "p") && !r.operands.is_empty() {
        vec![destroys(
            "discards changes to files",
            Destructive::DiscardPaths {
                paths: r.owned_operands(),
            },
        )]
    } else {
        Vec::new()
    }
}

pub(super) fn rm(r: &Reading) -> Vec<Action> {
    let cached = r.flags.risky("cached", "");
    if r.flags.risky("force", "f") && !cached && !r.flags.surely("dry-run", "n") {
        vec![destroys(
            "deletes files with their uncommitted changes",
            Destructive::DiscardPaths {
                paths: r.owned_operands(),
            },
        )]
    } else {
        Vec::new()
    }
}

pub(super) fn clean(r: &Reading) -> Vec<Action> {
    let flags = &r.flags;
    if flags.surely("dry-run", "n") || flags.surely("interactive", "i") {
        return Vec::new();
    }
    let forced =
        flags.risky("force", "f") || r.inv.config_value("clean.requireforce") == Some("false");
    vec![destroys(
        "deletes untracked files",
        Destructive::Clean {
            directories: flags.surely("", "d"),
            ignored: flags.surely("", "xX"),
            only_ignored: flags.surely("", "X"),
            excludes: exclude_patterns(flags),
            paths: r.owned_operands(),
            forced,
        },
    )]
}

/// Every `-e`/`--exclude` pattern of a `git clean`, in order.
fn exclude_patterns(flags: &crate::gate::git_options::Flags) -> Vec<String> {
    use crate::gate::git_options::Arg;
    flags
        .args
        .iter()
        .filter_map(|a| match a {
            Arg::Long { name, value, .. } if name == "exclude" => value.clone(),
            Arg::Short { flag: 'e', value } => value.clone(),
            _ => None,
        })
        .collect()
}

/// `git stash drop`: the stash it drops may hold the changes an earlier `git stash` of the
/// line put there.
pub(super) fn drop_stash(r: &Reading) -> Vec<Action> {
    vec![destroys(
        "drops a stash",
        Destructive::StashDrop {
            after_stash: r.earlier_stash,
        },
    )]
}

pub(super) fn clear_stash(r: &Reading) -> Vec<Action> {
    vec![destroys(
        "drops every stash",
        Destructive::StashClear {
            after_stash: r.earlier_stash,
        },
    )]
}

pub(super) fn branch(r: &Reading) -> Vec<Action> {
    let flags = &r.flags;
    let delete = flags.surely("", "D") || (flags.risky("delete", "d") && flags.risky("force", "f"));
    let moving = flags.risky("force", "f") && !flags.risky("delete", "dD");
    if delete {
        vec![destroys(
            "force-deletes branches",
            Destructive::BranchDelete {
                branches: r.owned_operands(),
            },
        )]
    } else if moving && !r.operands.is_empty() {
        vec![destroys(
            "moves a branch",
            Destructive::MoveBranch {
                branch: Some(r.operands[0].to_owned()),
                to: r.operands.get(1).copied().unwrap_or("HEAD").to_owned(),
                discard: false,
            },
        )]
    } else {
        Vec::new()
    }
}

pub(super) fn read_tree(r: &Reading) -> Vec<Action> {
    let flags = &r.flags;
    if flags.surely("", "u") && (flags.risky("reset", "") || flags.surely("", "m")) {
        vec![destroys("overwrites the work tree", Destructive::ResetHard)]
    } else {
        Vec::new()
    }
}

pub(super) fn checkout_index(r: &Reading) -> Vec<Action> {
    if !r.flags.risky("force", "f") {
        return Vec::new();
    }
    let paths = if r.flags.risky("all", "a") {
        vec![".".to_owned()]
    } else {
        r.owned_operands()
    };
    vec![destroys(
        "overwrites files in the work tree",
        Destructive::DiscardPaths { paths },
    )]
}

/// A lone `git checkout X` restores files only when `X` names something in the work tree (or
/// a pathspec); otherwise it switches branches, which loses nothing.
fn may_be_path(cmd: &SimpleCommand, operand: &str) -> bool {
    if operand.contains(['*', '?', '[']) || operand.starts_with(':') || operand == "." {
        return true;
    }
    match &cmd.cwd {
        Some(dir) => dir.join(operand).exists(),
        None => true,
    }
}

fn push_spec(flags: &Flags, operands: &[&str]) -> PushSpec {
    let mut spec = PushSpec {
        force: flags.risky("force", "f")
            || flags.risky("force-with-lease", "")
            || flags.risky("force-if-includes", ""),
        delete: flags.risky("delete", "d") || flags.risky("prune", ""),
        tags: flags.risky("tags", "") || flags.risky("follow-tags", ""),
        all: flags.risky("all", "") || flags.risky("branches", "") || flags.risky("mirror", ""),
        mirror: flags.risky("mirror", ""),
        ..PushSpec::default()
    };
    if spec.mirror {
        spec.force = true;
        spec.delete = true;
    }
    let repo = flags.value("repo", "");
    let mut positional = operands.iter();
    spec.remote = repo
        .map(str::to_owned)
        .or_else(|| positional.next().map(|s| s.to_string()));
    for refspec in positional {
        if refspec.starts_with('+') {
            spec.force = true;
        }
        if refspec.starts_with(':') {
            spec.delete = true;
        }
        if *refspec == "--all" {
            spec.all = true;
        }
        spec.refspecs.push(refspec.to_string());
    }
    spec
}
