//! What each git subcommand does to shared state, as a table: a row names a subcommand (and
//! the form of it, `stash drop`, when only that form acts), the flags that change its class
//! (those after which it surely does nothing, those after which it does not commit, the one
//! that skips its hooks), and what it does: a class with the words that say so, or a named
//! function in `rules` for the few whose class and target depend on their operands. A
//! subcommand without a row does nothing the gate rules on; `loss` adds the forms that lose
//! branches, stashes or changes in any subcommand.

use super::opts::{self, Flags};
use super::{Found, Invocation};
use super::{rebase, rules};
use crate::gate::classify::Class::{Commit, HookBypass, Push, Unparsed};
use crate::gate::classify::{COMMITS_THE_CHANGES, Class, Destructive, Gated, PushSpec, Target};
use crate::gate::shell::{SimpleCommand, Word};

/// A flag as `Flags` reads it: the long name and the short letters (either may be empty).
type Flag = (&'static str, &'static str);

/// A row of the table.
pub(super) struct GitVerb {
    pub(super) verb: &'static str,
    /// The first operand naming the one form of the subcommand the row covers (`stash drop`);
    /// `None`: every form.
    pub(super) form: Option<&'static str>,
    /// Flags after which the subcommand surely does nothing (`--dry-run`).
    pub(super) harmless: &'static [Flag],
    /// The flag that skips the subcommand's hooks, and what skipping them means; hooks
    /// switched off for the command (`HUSKY=0`, `-c core.hooksPath=…`) count the same.
    pub(super) skips_hooks: Option<(Flag, &'static str)>,
    /// A computed argument may decide what it does: asked about when nothing else is found.
    pub(super) computed_matters: bool,
    pub(super) rule: Rule,
}

/// What a row's subcommand does.
pub(super) enum Rule {
    /// This class, said in these words, unless one of the flags is surely given.
    Acts(Class, &'static str, &'static [Flag]),
    /// Read from the flags and operands by a function of `rules`, which names at most these
    /// classes.
    Reads(fn(&Reading) -> Vec<Action>, &'static [Class]),
    /// Nothing gated itself; only its hooks count (`pull` merges what the remote has: it is
    /// not the agent's commit).
    HooksOnly,
    /// Runs the rest of its operands as a command line (`submodule foreach 'git push'`), to be
    /// read as a script.
    RunsScript,
}

use Rule::{Acts, HooksOnly, Reads, RunsScript};

const fn row(verb: &'static str, rule: Rule) -> GitVerb {
    GitVerb {
        verb,
        form: None,
        harmless: &[],
        skips_hooks: None,
        computed_matters: false,
        rule,
    }
}

impl GitVerb {
    const fn form(self, form: &'static str) -> GitVerb {
        GitVerb {
            form: Some(form),
            ..self
        }
    }

    const fn harmless(self, flags: &'static [Flag]) -> GitVerb {
        GitVerb {
            harmless: flags,
            ..self
        }
    }

    const fn skips_hooks(self, flag: Flag, what: &'static str) -> GitVerb {
        GitVerb {
            skips_hooks: Some((flag, what)),
            ..self
        }
    }

    const fn computed_matters(self) -> GitVerb {
        GitVerb {
            computed_matters: true,
            ..self
        }
    }

    /// Whether the row may name `class` (its rule, or its hooks flag).
    pub(super) fn may_name(&self, class: Class) -> bool {
        let by_rule = match self.rule {
            Acts(acts, ..) => acts == class,
            Reads(_, classes) => classes.contains(&class),
            HooksOnly | RunsScript => false,
        };
        by_rule || (class == HookBypass && self.skips_hooks.is_some())
    }

    /// What the row's subcommand does, read from `r`.
    fn actions(&self, r: &Reading) -> Vec<Action> {
        let mut out = match self.rule {
            Acts(_, _, unless) if unless.iter().any(|(long, s)| r.flags.surely(long, s)) => {
                Vec::new()
            }
            Acts(class, what, _) => vec![act(class, what)],
            Reads(read, _) => read(r),
            HooksOnly | RunsScript => Vec::new(),
        };
        if let Some(((long, shorts), what)) = self.skips_hooks
            && (r.flags.risky(long, shorts) || r.hooks_off)
        {
            out.push(act(HookBypass, what));
        }
        debug_assert!(
            out.iter().all(|a| self.may_name(a.class)),
            "the row of `git {}` names a class it does not list",
            self.verb
        );
        out
    }
}

const NO_VERIFY: Flag = ("no-verify", "");
const COMMIT_HOOKS: &str = "skips the commit hooks";
const DRY_RUN: Flag = ("dry-run", "");
/// Flags that stop a merge, cherry-pick, revert or `am` sequence instead of committing.
const SEQUENCE_STOPS: &[Flag] = &[("abort", ""), ("quit", ""), ("show-current-patch", "")];

/// The table, in the order of what the subcommands do: commit, push, hooks and git's own
/// state, then the ways to lose work, then the commands git runs for others.
pub(super) static VERBS: &[GitVerb] = &[
    row("commit", Acts(Commit, COMMITS_THE_CHANGES, &[]))
        .harmless(&[DRY_RUN])
        .skips_hooks(("no-verify", "n"), COMMIT_HOOKS)
        .computed_matters(),
    // A merge, cherry-pick, revert or `am` commits unless its flags say it commits nothing
    // (`--no-commit`, `--squash`, a fast-forward only) or it stops a sequence (`--abort`).
    row(
        "merge",
        Acts(
            Commit,
            "creates a merge commit",
            &[
                ("abort", ""),
                ("quit", ""),
                ("show-current-patch", ""),
                ("ff-only", ""),
                ("no-commit", ""),
                ("squash", ""),
            ],
        ),
    )
    .skips_hooks(NO_VERIFY, COMMIT_HOOKS),
    row(
        "cherry-pick",
        Acts(Commit, "creates commits from other commits", PICK_STOPS),
    )
    .skips_hooks(NO_VERIFY, COMMIT_HOOKS),
    row(
        "revert",
        Acts(Commit, "creates commits from other commits", PICK_STOPS),
    )
    .skips_hooks(NO_VERIFY, COMMIT_HOOKS),
    row(
        "am",
        Acts(Commit, "creates commits from patches", SEQUENCE_STOPS),
    )
    .skips_hooks(NO_VERIFY, COMMIT_HOOKS),
    row("pull", HooksOnly).skips_hooks(NO_VERIFY, COMMIT_HOOKS),
    row("commit-tree", Acts(Commit, "creates a commit object", &[])),
    row("push", Reads(rules::push, &[Push, HookBypass]))
        .harmless(&[("dry-run", "n")])
        .skips_hooks(NO_VERIFY, PRE_PUSH)
        .computed_matters(),
    row("send-pack", Reads(rules::push, &[Push, HookBypass]))
        .harmless(&[("dry-run", "n")])
        .skips_hooks(NO_VERIFY, PRE_PUSH),
    row("subtree", Acts(Push, "pushes a subtree's history", &[])).form("push"),
    row("fetch", Reads(rules::fetch, &[Push, Class::Destructive])),
    row("config", Reads(rules::config, &[HookBypass])),
    row(
        "update-ref",
        Reads(
            rules::update_ref,
            &[HookBypass, Unparsed, Class::Destructive],
        ),
    ),
    row("reset", Reads(rules::reset, &[Class::Destructive])).computed_matters(),
    row(
        "rebase",
        Reads(rebase::rebase, &[Unparsed, Class::Destructive]),
    ),
    row("checkout", Reads(rules::checkout, &[Class::Destructive])).computed_matters(),
    row("switch", Reads(rules::switch, &[Class::Destructive])),
    row("restore", Reads(rules::restore, &[Class::Destructive])),
    row("rm", Reads(rules::rm, &[Class::Destructive])),
    row("clean", Reads(rules::clean, &[Class::Destructive])).computed_matters(),
    row("stash", Reads(rules::drop_stash, &[Class::Destructive])).form("drop"),
    row("stash", Reads(rules::clear_stash, &[Class::Destructive])).form("clear"),
    row("branch", Reads(rules::branch, &[Class::Destructive])).computed_matters(),
    row("read-tree", Reads(rules::read_tree, &[Class::Destructive])),
    row(
        "checkout-index",
        Reads(rules::checkout_index, &[Class::Destructive]),
    ),
    row("submodule", RunsScript).form("foreach"),
];

const PICK_STOPS: &[Flag] = &[
    ("abort", ""),
    ("quit", ""),
    ("show-current-patch", ""),
    ("no-commit", "n"),
];
const PRE_PUSH: &str = "skips the pre-push hook";

/// The row for `git VERB FIRST…`: the one for that form, else the one for every form.
pub(super) fn row_for(verb: &str, first: Option<&str>) -> Option<&'static GitVerb> {
    VERBS
        .iter()
        .find(|row| row.verb == verb && row.form.is_none_or(|form| first == Some(form)))
}

/// Subcommands whose `--help` is an option of their own (a pattern to look for), not help.
const HELP_IS_AN_OPERAND: [&str; 3] = ["grep", "log", "show"];

/// One subcommand's words, as its rule reads them.
pub(super) struct Reading<'a> {
    pub(super) flags: Flags<'a>,
    pub(super) operands: Vec<&'a str>,
    /// Index in `operands` of the first one after `--`.
    pub(super) dashdash: Option<usize>,
    pub(super) cmd: &'a SimpleCommand,
    pub(super) inv: &'a Invocation,
    /// Hooks are switched off for this command (`HUSKY=0`, `-c core.hooksPath=…`).
    pub(super) hooks_off: bool,
    /// An earlier command of the line stashed the current changes.
    pub(super) earlier_stash: bool,
    /// The source of the first argument computed at run time.
    pub(super) computed: Option<String>,
}

impl Reading<'_> {
    pub(super) fn owned_operands(&self) -> Vec<String> {
        self.operands.iter().map(|s| s.to_string()).collect()
    }
}

/// What a rule found, before it is tied to the command and its repository.
pub(super) struct Action {
    pub(super) class: Class,
    pub(super) what: &'static str,
    pub(super) push: Option<PushSpec>,
    pub(super) destructive: Option<Destructive>,
    /// Where the action happens when not in the command's own repository.
    pub(super) target: Option<Target>,
}

pub(super) fn act(class: Class, what: &'static str) -> Action {
    Action {
        class,
        what,
        push: None,
        destructive: None,
        target: None,
    }
}

pub(super) fn destroys(what: &'static str, op: Destructive) -> Action {
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
    if parsed.help() && !HELP_IS_AN_OPERAND.contains(&verb) {
        return Found::Gated(Vec::new());
    }
    let (operands, dashdash) = parsed.operands();
    let row = row_for(verb, operands.first().copied());
    // `git submodule foreach 'git push'`: the rest is a command line run in each submodule.
    if let Some(GitVerb {
        rule: RunsScript, ..
    }) = row
    {
        return Found::ShellAlias(operands.get(1..).unwrap_or_default().join(" "));
    }
    let reading = Reading {
        flags: Flags { args: &args },
        operands,
        dashdash,
        cmd,
        inv,
        hooks_off: hooks_bypassed(cmd, inv),
        earlier_stash,
        computed,
    };
    let harmless = row.is_some_and(|row| {
        row.harmless
            .iter()
            .any(|(long, shorts)| reading.flags.surely(long, shorts))
    });
    if harmless {
        return Found::Gated(Vec::new());
    }
    let mut actions = row.map(|row| row.actions(&reading)).unwrap_or_default();
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
        && row.is_some_and(|row| row.computed_matters)
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

/// `git stash` / `git stash push` / `save`: the changes move into a stash (a later `stash
/// drop` of the line loses them).
pub(super) fn stashes(inv: &Invocation) -> bool {
    inv.verb.as_ref().and_then(Word::literal) == Some("stash")
        && matches!(
            inv.args.first().and_then(Word::literal),
            None | Some("push" | "save" | "-u" | "--include-untracked" | "-a" | "--all" | "-m")
        )
}

/// `git stash pop` / `apply`: the stash's changes come back as uncommitted work, which the
/// facts read before the line runs do not show.
pub(super) fn unstashes(inv: &Invocation) -> bool {
    inv.verb.as_ref().and_then(Word::literal) == Some("stash")
        && matches!(
            inv.args.first().and_then(Word::literal),
            Some("pop" | "apply")
        )
}

/// `git branch -m [OLD] NEW` (`-M`, `--move`): `(NEW, OLD)`, OLD being `HEAD` for the
/// current branch. A later command of the line naming NEW acts on OLD's commits.
pub(super) fn renames(inv: &Invocation) -> Option<(String, String)> {
    if inv.verb.as_ref().and_then(Word::literal) != Some("branch") {
        return None;
    }
    let words: Vec<&str> = inv.args.iter().map(Word::literal).collect::<Option<_>>()?;
    let moves = words.iter().any(|w| {
        *w == "--move" || (w.starts_with('-') && !w.starts_with("--") && w.contains(['m', 'M']))
    });
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    match operands[..] {
        [new] if moves => Some((new.to_owned(), "HEAD".to_owned())),
        [old, new] if moves => Some((new.to_owned(), old.to_owned())),
        _ => None,
    }
}

/// Hooks switched off by the environment or by configuration for this one command.
fn hooks_bypassed(cmd: &SimpleCommand, inv: &Invocation) -> bool {
    let env_literal = |k: &str| cmd.env_var(k).and_then(Word::literal);
    env_literal("HUSKY") == Some("0")
        || env_literal("HUSKY_SKIP_HOOKS").is_some_and(|v| v == "1" || v == "true")
        || inv.config.iter().any(|(k, _)| k == "core.hookspath")
}
