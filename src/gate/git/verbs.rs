//! What each git subcommand does to shared state: commits, pushes, hook bypasses and the
//! destructive operations, read with each subcommand's options.

use super::opts::{self, Flags};
use super::{Found, Invocation, LineAliases, read};
use crate::gate::classify::{COMMITS_THE_CHANGES, Class, Destructive, Gated, PushSpec};
use crate::gate::repos::Repos;
use crate::gate::shell::{SimpleCommand, Word};

pub(super) fn classify_verb(
    cmd: &SimpleCommand,
    line: &LineAliases,
    repos: &Repos,
    earlier_stash: bool,
) -> Found {
    let inv = read(cmd, line, repos);
    if let Some(shell) = inv.shell_alias {
        return Found::ShellAlias(shell);
    }
    if let Some(why) = inv.unreadable {
        return Found::Unreadable(why);
    }
    let verb = match &inv.verb {
        None => return Found::Gated(Vec::new()),
        Some(Word::Dynamic(src)) => {
            return Found::Unreadable(format!("the git command `{src}` is computed at run time"));
        }
        Some(Word::Literal(v)) => v.clone(),
    };
    let mut dynamic_arg = None;
    let words: Vec<String> = inv
        .args
        .iter()
        .map(|w| {
            if let Word::Dynamic(src) = w {
                dynamic_arg.get_or_insert_with(|| src.clone());
            }
            w.text().to_owned()
        })
        .collect();
    // `git push --help` becomes `git help push`.
    if words.first().is_some_and(|w| w == "--help") {
        return Found::Gated(Vec::new());
    }
    let args = opts::parse_args(&verb, &words);
    let flags = Flags { args: &args };
    if flags.help() && !matches!(verb.as_str(), "grep" | "log" | "show") {
        return Found::Gated(Vec::new());
    }
    let source = cmd.source.clone();
    let target = inv.target.clone();
    let gated = |class: Class, what: &str| Gated {
        class,
        command: source.clone(),
        target: target.clone(),
        push: None,
        destructive: None,
        what: what.to_owned(),
    };
    let destroys = |what: &str, op: Destructive| {
        let mut g = gated(Class::Destructive, what);
        g.destructive = Some(op);
        g
    };
    let hooks_off = hooks_bypassed(cmd, &inv);
    let (operands, dashdash) = flags.operands();
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let mut out = Vec::new();
    // `git submodule foreach 'git push'`: the rest is a command line run in each submodule.
    if verb == "submodule" && operands.first() == Some(&"foreach") {
        let script: Vec<&str> = operands[1..].to_vec();
        return Found::ShellAlias(script.join(" "));
    }
    match verb.as_str() {
        "commit" => {
            if flags.surely("dry-run", "") {
                return Found::Gated(out);
            }
            out.push(gated(Class::Commit, COMMITS_THE_CHANGES));
            if flags.risky("no-verify", "n") || hooks_off {
                out.push(gated(Class::HookBypass, "skips the commit hooks"));
            }
        }
        "merge" | "cherry-pick" | "revert" | "am" | "pull" => {
            if let Some(what) = commits_other_history(&verb, &flags) {
                out.push(gated(Class::Commit, what));
            }
            if flags.risky("no-verify", "") || hooks_off {
                out.push(gated(Class::HookBypass, "skips the commit hooks"));
            }
        }
        "commit-tree" => out.push(gated(Class::Commit, "creates a commit object")),
        // `git subtree push --prefix=lib origin branch`: pushes a split history.
        "subtree" if operands.first() == Some(&"push") => {
            out.push(gated(Class::Push, "pushes a subtree's history"));
        }
        // `git -C ../origin.git fetch ../work main:main`: writing a branch of a bare
        // repository (the remote other clones push to) is a push from the remote's side.
        "fetch" if writes_branch_of_bare(&inv, &operands) => {
            out.push(gated(
                Class::Push,
                "writes a branch of a bare repository (a push from the remote's side)",
            ));
        }
        "push" | "send-pack" => {
            if flags.surely("dry-run", "n") {
                return Found::Gated(out);
            }
            let mut spec = push_spec(&flags, &operands);
            spec.computed = dynamic_arg.clone();
            if spec.remote.as_deref() == Some(".")
                && spec.refspecs.iter().any(|r| r.contains("refs/remotes/"))
            {
                out.push(gated(
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
            let mut g = gated(Class::Push, what);
            g.push = Some(spec);
            out.push(g);
            if flags.risky("no-verify", "") || hooks_off {
                out.push(gated(Class::HookBypass, "skips the pre-push hook"));
            }
        }
        "config" => {
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
                out.push(gated(Class::HookBypass, "changes `core.hooksPath`"));
            }
        }
        "update-ref" => {
            let deleting = flags.surely("", "d");
            let refs: Vec<&str> = operands.clone();
            if refs.iter().any(|r| r.starts_with("refs/remotes/")) {
                out.push(gated(
                    Class::HookBypass,
                    "rewrites a remote-tracking ref hookjudge reads",
                ));
            } else if flags.surely("stdin", "") {
                out.push(gated(Class::Unparsed, "updates refs read from its input"));
            } else if let Some(branch) = refs.first().and_then(|r| r.strip_prefix("refs/heads/")) {
                if deleting {
                    out.push(destroys(
                        "deletes a branch",
                        Destructive::BranchDelete {
                            branches: vec![branch.to_owned()],
                        },
                    ));
                } else if let Some(to) = refs.get(1) {
                    out.push(destroys(
                        "moves a branch",
                        Destructive::MoveBranch {
                            branch: Some(branch.to_owned()),
                            to: (*to).to_owned(),
                            discard: false,
                        },
                    ));
                }
            } else if refs.first() == Some(&"HEAD") && deleting {
                out.push(destroys(
                    "deletes HEAD's branch",
                    Destructive::BranchDelete {
                        branches: vec!["HEAD".to_owned()],
                    },
                ));
            } else if refs.first() == Some(&"HEAD")
                && let Some(to) = refs.get(1)
            {
                out.push(destroys(
                    "moves HEAD's branch",
                    Destructive::MoveBranch {
                        branch: None,
                        to: (*to).to_owned(),
                        discard: false,
                    },
                ));
            }
        }
        "reset" => {
            let hard = flags.risky("hard", "") || flags.risky("merge", "");
            let keep = flags.risky("keep", "");
            if hard || keep {
                let to = operands.first().copied().filter(|_| dashdash != Some(0));
                match to {
                    Some(to) if to != "HEAD" && to != "@" => out.push(destroys(
                        "moves the branch and discards uncommitted changes",
                        Destructive::MoveBranch {
                            branch: None,
                            to: to.to_owned(),
                            discard: hard,
                        },
                    )),
                    _ if hard => out.push(destroys(
                        "discards uncommitted changes",
                        Destructive::ResetHard,
                    )),
                    _ => {}
                }
            }
        }
        "checkout" => {
            let force = flags.risky("force", "f");
            if let Some(name) = flags.value("", "B") {
                out.push(destroys(
                    "resets a branch",
                    Destructive::MoveBranch {
                        branch: Some(name.to_owned()),
                        to: operands.first().copied().unwrap_or("HEAD").to_owned(),
                        discard: force,
                    },
                ));
            } else if flags.value("", "b").is_some() || flags.risky("orphan", "") {
                if force {
                    out.push(destroys("discards local changes", Destructive::ResetHard));
                }
            } else if !flags.risky("patch", "p")
                && (force
                    || dashdash.is_some()
                    || operands.len() > 1
                    || operands.first().is_some_and(|o| may_be_path(cmd, o)))
            {
                out.push(destroys(
                    "discards changes to files",
                    Destructive::Checkout {
                        args: owned(&operands),
                        dashdash,
                        force,
                    },
                ));
            }
        }
        "switch" => {
            let force = flags.risky("force", "f") || flags.risky("discard-changes", "");
            if let Some(name) = flags.value("force-create", "C") {
                out.push(destroys(
                    "resets a branch",
                    Destructive::MoveBranch {
                        branch: Some(name.to_owned()),
                        to: operands.first().copied().unwrap_or("HEAD").to_owned(),
                        discard: force,
                    },
                ));
            } else if force {
                out.push(destroys(
                    "discards local changes while switching",
                    Destructive::ResetHard,
                ));
            }
        }
        "restore" => {
            let staged = flags.risky("staged", "S");
            let worktree = flags.risky("worktree", "W");
            if (!staged || worktree) && !flags.risky("patch", "p") && !operands.is_empty() {
                out.push(destroys(
                    "discards changes to files",
                    Destructive::DiscardPaths {
                        paths: owned(&operands),
                    },
                ));
            }
        }
        "rm" => {
            let cached = flags.risky("cached", "");
            if flags.risky("force", "f") && !cached && !flags.surely("dry-run", "n") {
                out.push(destroys(
                    "deletes files with their uncommitted changes",
                    Destructive::DiscardPaths {
                        paths: owned(&operands),
                    },
                ));
            }
        }
        "clean" if !(flags.surely("dry-run", "n") || flags.surely("interactive", "i")) => {
            let forced = flags.risky("force", "f")
                || inv.config_value("clean.requireforce") == Some("false");
            out.push(destroys(
                "deletes untracked files",
                Destructive::Clean {
                    directories: flags.surely("", "d"),
                    ignored: flags.surely("", "xX"),
                    forced,
                },
            ));
        }
        "stash" => {
            let sub = operands.first().copied();
            match sub {
                Some("drop") => out.push(destroys(
                    "drops a stash",
                    Destructive::StashDrop {
                        after_stash: earlier_stash,
                    },
                )),
                Some("clear") => out.push(destroys(
                    "drops every stash",
                    Destructive::StashClear {
                        after_stash: earlier_stash,
                    },
                )),
                _ => {}
            }
        }
        "branch" => {
            let delete =
                flags.surely("", "D") || (flags.risky("delete", "d") && flags.risky("force", "f"));
            let moving = flags.risky("force", "f") && !flags.risky("delete", "dD");
            if delete {
                out.push(destroys(
                    "force-deletes branches",
                    Destructive::BranchDelete {
                        branches: owned(&operands),
                    },
                ));
            } else if moving && !operands.is_empty() {
                out.push(destroys(
                    "moves a branch",
                    Destructive::MoveBranch {
                        branch: Some(operands[0].to_owned()),
                        to: operands.get(1).copied().unwrap_or("HEAD").to_owned(),
                        discard: false,
                    },
                ));
            }
        }
        "read-tree"
            if flags.surely("", "u") && (flags.risky("reset", "") || flags.surely("", "m")) =>
        {
            out.push(destroys("overwrites the work tree", Destructive::ResetHard));
        }
        "checkout-index" if flags.risky("force", "f") => {
            let paths = if flags.risky("all", "a") {
                vec![".".to_owned()]
            } else {
                owned(&operands)
            };
            out.push(destroys(
                "overwrites files in the work tree",
                Destructive::DiscardPaths { paths },
            ));
        }
        _ => {}
    }
    if out.is_empty()
        && let Some(src) = dynamic_arg
        && matches!(
            verb.as_str(),
            "push" | "commit" | "reset" | "checkout" | "clean" | "branch"
        )
    {
        return Found::Unreadable(format!(
            "an argument of `git {verb}` is computed at run time ({src})"
        ));
    }
    Found::Gated(out)
}

/// What a merge, cherry-pick, revert or `am` commits, unless its flags say it commits nothing
/// (`--no-commit`, `--squash`, a fast-forward only) or it stops a sequence (`--abort`).
/// `pull` merges what the remote has: it is not counted as the agent's commit.
fn commits_other_history(verb: &str, flags: &Flags) -> Option<&'static str> {
    let stops = ["abort", "quit", "show-current-patch"]
        .iter()
        .any(|f| flags.surely(f, ""));
    if stops {
        return None;
    }
    match verb {
        "merge"
            if !(flags.surely("ff-only", "")
                || flags.surely("no-commit", "")
                || flags.surely("squash", "")) =>
        {
            Some("creates a merge commit")
        }
        "cherry-pick" | "revert" if !flags.surely("no-commit", "n") => {
            Some("creates commits from other commits")
        }
        "am" => Some("creates commits from patches"),
        _ => None,
    }
}

/// `fetch SRC X:Y` into a bare repository, where `Y` names a branch (not a remote-tracking ref).
fn writes_branch_of_bare(inv: &Invocation, operands: &[&str]) -> bool {
    let writes_branch = operands.iter().skip(1).any(|refspec| {
        refspec.split_once(':').is_some_and(|(_, dst)| {
            !dst.is_empty()
                && !dst.starts_with("refs/remotes/")
                && dst != "FETCH_HEAD"
                && (dst.starts_with("refs/heads/") || !dst.starts_with("refs/"))
        })
    });
    let git_dir = inv
        .target
        .git_dir
        .clone()
        .or_else(|| inv.target.dir.clone());
    writes_branch
        && git_dir.is_some_and(|d| {
            !d.join(".git").exists() && d.join("HEAD").is_file() && d.join("objects").is_dir()
        })
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

/// Hooks switched off by the environment or by configuration for this one command.
fn hooks_bypassed(cmd: &SimpleCommand, inv: &Invocation) -> bool {
    let env_literal = |k: &str| cmd.env_var(k).and_then(Word::literal);
    env_literal("HUSKY") == Some("0")
        || env_literal("HUSKY_SKIP_HOOKS").is_some_and(|v| v == "1" || v == "true")
        || inv.config.iter().any(|(k, _)| k == "core.hookspath")
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
