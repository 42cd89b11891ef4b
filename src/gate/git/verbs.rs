//! What each git subcommand does to shared state, as a table: each row names subcommands and
//! the rule that reads their options and operands into actions (a commit, a push, a hook
//! bypass, a destructive operation). A subcommand without a row does nothing the gate rules on.

use super::opts::{self, Flags};
use super::{Found, Invocation};
use crate::gate::classify::{COMMITS_THE_CHANGES, Class, Destructive, Gated, PushSpec, Target};
use crate::gate::shell::{SimpleCommand, Word};

/// A row of the table: the subcommands it covers, the flags (long name, short letters) after
/// which they surely do nothing, and the rule.
struct GitVerb {
    names: &'static [&'static str],
    harmless: &'static [(&'static str, &'static str)],
    rule: Rule,
}

enum Rule {
    /// The subcommand always does this (unless `--help`).
    Always(Class, &'static str),
    /// Read from the subcommand's flags and operands.
    Reads(fn(&Reading) -> Vec<Action>),
}

/// The table, in the order of what the subcommands do: commit, push, hooks and git's own
/// state, then the ways to lose work.
const VERBS: &[GitVerb] = &[
    GitVerb {
        names: &["commit"],
        harmless: &[("dry-run", "")],
        rule: Rule::Reads(commit),
    },
    GitVerb {
        names: &["merge", "cherry-pick", "revert", "am", "pull"],
        harmless: &[],
        rule: Rule::Reads(commits_other_history),
    },
    GitVerb {
        names: &["commit-tree"],
        harmless: &[],
        rule: Rule::Always(Class::Commit, "creates a commit object"),
    },
    GitVerb {
        names: &["push", "send-pack"],
        harmless: &[("dry-run", "n")],
        rule: Rule::Reads(push),
    },
    GitVerb {
        names: &["subtree"],
        harmless: &[],
        rule: Rule::Reads(subtree),
    },
    GitVerb {
        names: &["fetch"],
        harmless: &[],
        rule: Rule::Reads(fetch),
    },
    GitVerb {
        names: &["config"],
        harmless: &[],
        rule: Rule::Reads(config),
    },
    GitVerb {
        names: &["update-ref"],
        harmless: &[],
        rule: Rule::Reads(update_ref),
    },
    GitVerb {
        names: &["reset"],
        harmless: &[],
        rule: Rule::Reads(reset),
    },
    GitVerb {
        names: &["checkout"],
        harmless: &[],
        rule: Rule::Reads(checkout),
    },
    GitVerb {
        names: &["switch"],
        harmless: &[],
        rule: Rule::Reads(switch),
    },
    GitVerb {
        names: &["restore"],
        harmless: &[],
        rule: Rule::Reads(restore),
    },
    GitVerb {
        names: &["rm"],
        harmless: &[],
        rule: Rule::Reads(rm),
    },
    GitVerb {
        names: &["clean"],
        harmless: &[],
        rule: Rule::Reads(clean),
    },
    GitVerb {
        names: &["stash"],
        harmless: &[],
        rule: Rule::Reads(stash),
    },
    GitVerb {
        names: &["branch"],
        harmless: &[],
        rule: Rule::Reads(branch),
    },
    GitVerb {
        names: &["read-tree"],
        harmless: &[],
        rule: Rule::Reads(read_tree),
    },
    GitVerb {
        names: &["checkout-index"],
        harmless: &[],
        rule: Rule::Reads(checkout_index),
    },
];

/// Subcommands whose computed argument may decide what they do: asked about when nothing
/// else is found.
const COMPUTED_ARGUMENT_MATTERS: [&str; 6] =
    ["push", "commit", "reset", "checkout", "clean", "branch"];

/// One subcommand's words, as its rule reads them.
struct Reading<'a> {
    verb: &'a str,
    flags: Flags<'a>,
    operands: Vec<&'a str>,
    /// Index in `operands` of the first one after `--`.
    dashdash: Option<usize>,
    cmd: &'a SimpleCommand,
    inv: &'a Invocation,
    /// Hooks are switched off for this command (`HUSKY=0`, `-c core.hooksPath=…`).
    hooks_off: bool,
    /// An earlier command of the line stashed the current changes.
    earlier_stash: bool,
    /// The source of the first argument computed at run time.
    computed: Option<String>,
}

impl Reading<'_> {
    fn owned_operands(&self) -> Vec<String> {
        self.operands.iter().map(|s| s.to_string()).collect()
    }
}

/// What a rule found, before it is tied to the command and its repository.
struct Action {
    class: Class,
    what: &'static str,
    push: Option<PushSpec>,
    destructive: Option<Destructive>,
    /// Where the action happens when not in the command's own repository.
    target: Option<Target>,
}

fn act(class: Class, what: &'static str) -> Action {
    Action {
        class,
        what,
        push: None,
        destructive: None,
        target: None,
    }
}

fn destroys(what: &'static str, op: Destructive) -> Action {
    Action {
        destructive: Some(op),
        ..act(Class::Destructive, what)
    }
}

/// Names the gated actions of the git command `inv` (read once, by the caller).
pub(super) fn classify_verb(cmd: &SimpleCommand, inv: &Invocation, earlier_stash: bool) -> Found {
    if let Some(shell) = &inv.shell_alias {
        return Found::ShellAlias(shell.clone());
    }
    if let Some(why) = &inv.unreadable {
        return Found::Unreadable(why.clone());
    }
    let verb = match &inv.verb {
        None => return Found::Gated(Vec::new()),
        Some(Word::Dynamic(src)) => {
            return Found::Unreadable(format!("the git command `{src}` is computed at run time"));
        }
        Some(Word::Literal(v)) => v.as_str(),
    };
    let mut computed = None;
    let words: Vec<String> = inv
        .args
        .iter()
        .map(|w| {
            if let Word::Dynamic(src) = w {
                computed.get_or_insert_with(|| src.clone());
            }
            w.text().to_owned()
        })
        .collect();
    // `git push --help` becomes `git help push`.
    if words.first().is_some_and(|w| w == "--help") {
        return Found::Gated(Vec::new());
    }
    let args = opts::parse_args(verb, &words);
    let parsed = Flags { args: &args };
    if parsed.help() && !matches!(verb, "grep" | "log" | "show") {
        return Found::Gated(Vec::new());
    }
    let (operands, dashdash) = parsed.operands();
    // `git submodule foreach 'git push'`: the rest is a command line run in each submodule.
    if verb == "submodule" && operands.first() == Some(&"foreach") {
        return Found::ShellAlias(operands[1..].join(" "));
    }
    let reading = Reading {
        verb,
        flags: Flags { args: &args },
        operands,
        dashdash,
        cmd,
        inv,
        hooks_off: hooks_bypassed(cmd, inv),
        earlier_stash,
        computed,
    };
    let row = VERBS.iter().find(|row| row.names.contains(&verb));
    let harmless = row.is_some_and(|row| {
        row.harmless
            .iter()
            .any(|(long, shorts)| reading.flags.surely(long, shorts))
    });
    if harmless {
        return Found::Gated(Vec::new());
    }
    let mut actions = match row.map(|row| &row.rule) {
        Some(Rule::Always(class, what)) => vec![act(*class, what)],
        Some(Rule::Reads(rule)) => rule(&reading),
        None => Vec::new(),
    };
    // Branches, stashes and changes lost in forms read by `loss`; a worktree removed elsewhere
    // is judged in that worktree.
    for (what, op, elsewhere) in super::loss::losses(verb, &words, &reading.operands) {
        let mut action = destroys(what, op);
        if let Some(dir) = elsewhere {
            let base = inv.target.dir.clone().or_else(|| cmd.cwd.clone());
            action.target = Some(Target {
                dir: base.map(|b| b.join(&dir)).or(Some(dir.into())),
                git_dir: None,
                work_tree: None,
            });
        }
        actions.push(action);
    }
    if actions.is_empty()
        && let Some(src) = reading.computed
        && COMPUTED_ARGUMENT_MATTERS.contains(&verb)
    {
        return Found::Unreadable(format!(
            "an argument of `git {verb}` is computed at run time ({src})"
        ));
    }
    Found::Gated(
        actions
            .into_iter()
            .map(|a| Gated {
                class: a.class,
                command: cmd.source.clone(),
                target: a.target.unwrap_or_else(|| inv.target.clone()),
                push: a.push,
                destructive: a.destructive,
                what: a.what.to_owned(),
            })
            .collect(),
    )
}

fn commit(r: &Reading) -> Vec<Action> {
    let mut out = vec![act(Class::Commit, COMMITS_THE_CHANGES)];
    if r.flags.risky("no-verify", "n") || r.hooks_off {
        out.push(act(Class::HookBypass, "skips the commit hooks"));
    }
    out
}

/// A merge, cherry-pick, revert or `am` commits, unless its flags say it commits nothing
/// (`--no-commit`, `--squash`, a fast-forward only) or it stops a sequence (`--abort`).
/// `pull` merges what the remote has: it is not counted as the agent's commit.
fn commits_other_history(r: &Reading) -> Vec<Action> {
    let flags = &r.flags;
    let stops = ["abort", "quit", "show-current-patch"]
        .iter()
        .any(|f| flags.surely(f, ""));
    let what = match r.verb {
        _ if stops => None,
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
    };
    let mut out: Vec<Action> = what.map(|w| act(Class::Commit, w)).into_iter().collect();
    if flags.risky("no-verify", "") || r.hooks_off {
        out.push(act(Class::HookBypass, "skips the commit hooks"));
    }
    out
}

fn push(r: &Reading) -> Vec<Action> {
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
    if r.flags.risky("no-verify", "") || r.hooks_off {
        out.push(act(Class::HookBypass, "skips the pre-push hook"));
    }
    out
}

/// `git subtree push --prefix=lib origin branch`: pushes a split history.
fn subtree(r: &Reading) -> Vec<Action> {
    if r.operands.first() == Some(&"push") {
        vec![act(Class::Push, "pushes a subtree's history")]
    } else {
        Vec::new()
    }
}

/// `git -C ../origin.git fetch ../work main:main`: writing a branch of a bare repository (the
/// remote other clones push to) is a push from the remote's side.
fn fetch(r: &Reading) -> Vec<Action> {
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
        vec![act(
            Class::Push,
            "writes a branch of a bare repository (a push from the remote's side)",
        )]
    } else {
        Vec::new()
    }
}

fn config(r: &Reading) -> Vec<Action> {
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

fn update_ref(r: &Reading) -> Vec<Action> {
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

fn reset(r: &Reading) -> Vec<Action> {
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
        _ if hard => vec![destroys(
            "discards uncommitted changes",
            Destructive::ResetHard,
        )],
        _ => Vec::new(),
    }
}

fn checkout(r: &Reading) -> Vec<Action> {
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

fn switch(r: &Reading) -> Vec<Action> {
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

fn restore(r: &Reading) -> Vec<Action> {
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

fn rm(r: &Reading) -> Vec<Action> {
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

fn clean(r: &Reading) -> Vec<Action> {
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
            forced,
        },
    )]
}

fn stash(r: &Reading) -> Vec<Action> {
    let after_stash = r.earlier_stash;
    match r.operands.first().copied() {
        Some("drop") => vec![destroys(
            "drops a stash",
            Destructive::StashDrop { after_stash },
        )],
        Some("clear") => vec![destroys(
            "drops every stash",
            Destructive::StashClear { after_stash },
        )],
        _ => Vec::new(),
    }
}

/// `git stash` / `git stash push` / `save`: the changes move into a stash (a later `stash
/// drop` of the line loses them).
pub(super) fn stashes(inv: &Invocation) -> bool {
    inv.verb.as_ref().and_then(Word::literal) == Some("stash")
        && matches!(
            inv.args.first().and_then(Word::literal),
            None | Some("push" | "save" | "-u" | "--include-untracked" | "-a" | "--all" | "-m")
        )
}

fn branch(r: &Reading) -> Vec<Action> {
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

fn read_tree(r: &Reading) -> Vec<Action> {
    let flags = &r.flags;
    if flags.surely("", "u") && (flags.risky("reset", "") || flags.surely("", "m")) {
        vec![destroys("overwrites the work tree", Destructive::ResetHard)]
    } else {
        Vec::new()
    }
}

fn checkout_index(r: &Reading) -> Vec<Action> {
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
