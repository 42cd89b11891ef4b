//! Reading a `git` command line the way git does: its global options (`-C`, `-c`,
//! `--config-env`, `--git-dir`, `--work-tree`), configuration given on the command line or in the
//! environment (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`, `GIT_CONFIG_PARAMETERS`), aliases (from the
//! command line, from `git config alias.…` earlier in the same line, and from the repository's
//! and the user's git config), and each subcommand's options with git's abbreviation rule.

use std::path::{Path, PathBuf};

use super::classify::{Class, Destructive, Gated, PushSpec, Target};
use super::git_options::{self as opts, Flags};
use super::shell::{SimpleCommand, Word};

/// How many alias expansions are followed (git itself stops at loops).
const MAX_ALIAS_DEPTH: usize = 8;

/// Aliases defined by earlier commands of the same line (`git config alias.ship push`).
#[derive(Debug, Clone, Default)]
pub struct LineAliases(pub Vec<(String, String)>);

/// A git command, read.
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    pub target: Target,
    /// `-c`/`--config-env`/`GIT_CONFIG_*` pairs, lower-cased keys, in order.
    pub config: Vec<(String, String)>,
    /// The subcommand and its words, after alias expansion; `None` for `git` alone or `--help`.
    pub verb: Option<Word>,
    pub args: Vec<Word>,
    /// A global option or alias step could not be read (a computed value).
    pub unreadable: Option<String>,
    /// A `!shell` alias: the command it runs.
    pub shell_alias: Option<String>,
}

impl Invocation {
    fn config_value(&self, key: &str) -> Option<&str> {
        self.config
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Whether `cmd` runs git: `git`, a path to it, or `git-<verb>` (`…/git-core/git-push`).
pub fn is_git(cmd: &SimpleCommand) -> bool {
    cmd.program()
        .is_some_and(|p| p == "git" || p.strip_prefix("git-").is_some_and(opts::is_builtin))
}

/// Reads the global part of a git command line and expands aliases.
pub fn read(cmd: &SimpleCommand, line: &LineAliases) -> Invocation {
    let mut inv = Invocation {
        target: Target {
            dir: cmd.cwd.clone(),
            git_dir: env_path(cmd, "GIT_DIR"),
            work_tree: env_path(cmd, "GIT_WORK_TREE"),
        },
        ..Invocation::default()
    };
    env_config(cmd, &mut inv);
    let program = cmd.program().unwrap_or("git");
    let mut words: Vec<Word> = cmd.argv[1..].to_vec();
    if let Some(verb) = program.strip_prefix("git-") {
        words.insert(0, Word::Literal(verb.to_owned()));
    }
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let Some(arg) = word.literal() else {
            inv.verb = Some(word.clone());
            inv.args = words[i + 1..].to_vec();
            return inv;
        };
        if !arg.starts_with('-') {
            break;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (arg, None),
        };
        if matches!(
            name,
            "-h" | "--help" | "-v" | "--version" | "--html-path" | "--man-path" | "--info-path"
        ) {
            return inv; // git prints and exits
        }
        let value = if opts::GLOBAL_VALUE_OPTIONS.contains(&name) && inline.is_none() {
            i += 1;
            match words.get(i) {
                Some(Word::Literal(v)) => Some(v.clone()),
                Some(Word::Dynamic(src)) => {
                    inv.unreadable = Some(format!("`{name} {src}` is computed at run time"));
                    None
                }
                None => None,
            }
        } else {
            inline
        };
        let base = inv.target.dir.clone();
        match (name, value) {
            ("-C", Some(v)) => {
                inv.target.dir = Some(resolve(&base, &v));
            }
            ("--git-dir", Some(v)) => inv.target.git_dir = Some(resolve(&base, &v)),
            ("--work-tree", Some(v)) => inv.target.work_tree = Some(resolve(&base, &v)),
            ("-c", Some(v)) => {
                let (k, val) = v.split_once('=').unwrap_or((&v, "true"));
                inv.config.push((k.to_ascii_lowercase(), val.to_owned()));
            }
            ("--config-env", Some(v)) => {
                // `--config-env=key=ENVVAR`: the value comes from the environment.
                let (k, var) = v.split_once('=').unwrap_or((&v, ""));
                let val = cmd
                    .env_var(var)
                    .and_then(Word::literal)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("${var}"));
                inv.config.push((k.to_ascii_lowercase(), val));
            }
            _ => {}
        }
        i += 1;
    }
    let mut words: Vec<Word> = words.split_off(i.min(words.len()));
    // Aliases: a built-in always wins; otherwise the command line, this line's `git config
    // alias.…`, then the repository's and the user's config.
    for _ in 0..MAX_ALIAS_DEPTH {
        let Some(Word::Literal(verb)) = words.first().cloned() else {
            break;
        };
        if opts::is_builtin(&verb) {
            break;
        }
        let key = format!("alias.{}", verb.to_ascii_lowercase());
        let found = inv
            .config_value(&key)
            .map(str::to_owned)
            .or_else(|| {
                line.0
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v.clone())
            })
            .or_else(|| config_alias(&inv.target, &key));
        let Some(expansion) = found else {
            // Another config file named by the environment may define the alias.
            if let Some((name, file)) = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"]
                .iter()
                .find_map(|n| cmd.env_var(n).map(|w| (n, w.text().to_owned())))
                .filter(|(_, f)| !f.is_empty() && f != "/dev/null")
            {
                inv.unreadable = Some(format!(
                    "`{verb}` is no git command and may be an alias in `{file}` (`{name}`)"
                ));
            }
            break;
        };
        if let Some(shell) = expansion.strip_prefix('!') {
            let rest: Vec<&str> = words[1..].iter().map(Word::text).collect();
            inv.shell_alias = Some(format!("{shell} {}", rest.join(" ")).trim().to_owned());
            inv.verb = None;
            return inv;
        }
        let Ok(mut parts) = shell_words::split(&expansion) else {
            inv.unreadable = Some(format!("the alias `{verb}` does not parse"));
            break;
        };
        // An alias may start with global options (`-c x=y push`): keep only the command.
        while parts.first().is_some_and(|p| p.starts_with('-')) {
            let p = parts.remove(0);
            if p == "-c" && !parts.is_empty() {
                let v = parts.remove(0);
                let (k, val) = v.split_once('=').unwrap_or((&v, "true"));
                inv.config.push((k.to_ascii_lowercase(), val.to_owned()));
            }
        }
        let tail = words.split_off(1);
        words = parts.into_iter().map(Word::Literal).chain(tail).collect();
    }
    let mut iter = words.into_iter();
    inv.verb = iter.next();
    inv.args = iter.collect();
    inv
}

/// `alias.<name>` from the target repository's config (which includes the user's).
fn config_alias(target: &Target, key: &str) -> Option<String> {
    let repo = match (&target.git_dir, &target.dir) {
        (Some(g), _) => gix::open(g).ok()?,
        (None, Some(d)) => gix::discover(d).ok()?,
        (None, None) => return None,
    };
    let config = repo.config_snapshot();
    config.string(key).map(|v| v.to_string())
}

/// `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` and `GIT_CONFIG_PARAMETERS`.
fn env_config(cmd: &SimpleCommand, inv: &mut Invocation) {
    let count = cmd
        .env_var("GIT_CONFIG_COUNT")
        .and_then(Word::literal)
        .and_then(|c| c.parse::<usize>().ok())
        .unwrap_or(0);
    for n in 0..count.min(64) {
        if let Some(k) = cmd
            .env_var(&format!("GIT_CONFIG_KEY_{n}"))
            .and_then(Word::literal)
        {
            let v = cmd
                .env_var(&format!("GIT_CONFIG_VALUE_{n}"))
                .map(Word::text)
                .unwrap_or("");
            inv.config.push((k.to_ascii_lowercase(), v.to_owned()));
        }
    }
    if let Some(params) = cmd.env_var("GIT_CONFIG_PARAMETERS") {
        for part in shell_words::split(params.text()).unwrap_or_default() {
            let (k, v) = part.split_once('=').unwrap_or((&part, "true"));
            inv.config.push((k.to_ascii_lowercase(), v.to_owned()));
        }
    }
}

fn env_path(cmd: &SimpleCommand, name: &str) -> Option<PathBuf> {
    cmd.env_var(name)
        .and_then(Word::literal)
        .map(|v| resolve(&cmd.cwd, v))
}

fn resolve(base: &Option<PathBuf>, path: &str) -> PathBuf {
    match base {
        Some(b) if !path.starts_with('/') => b.join(path),
        _ => PathBuf::from(path),
    }
}

/// Aliases a command defines for later commands of the line: `git config [--global] alias.x v`.
pub fn defines_alias(cmd: &SimpleCommand) -> Option<(String, String)> {
    if !is_git(cmd) {
        return None;
    }
    let inv = read(cmd, &LineAliases::default());
    if inv.verb.as_ref().and_then(Word::literal) != Some("config") {
        return None;
    }
    let words: Vec<&str> = inv.args.iter().filter_map(Word::literal).collect();
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-') && *w != "set")
        .collect();
    match operands.as_slice() {
        [key, value, ..] if key.to_ascii_lowercase().starts_with("alias.") => {
            Some((key.to_ascii_lowercase(), (*value).to_owned()))
        }
        _ => None,
    }
}

/// What the classifier found for one git command.
pub enum Found {
    Gated(Vec<Gated>),
    /// The verb (or a global option) is computed at run time.
    Unreadable(String),
    /// A `!shell` alias: the text of what it runs, to be read as a script.
    ShellAlias(String),
    /// What the command does, and a program a config value on its command line makes git run
    /// (to be read as a script).
    GatedAndProgram(Vec<Gated>, String),
}

/// Names the gated actions of a git command.
/// Config keys whose value git runs as a program (through the shell when it has spaces).
const PROGRAM_KEYS: [&str; 14] = [
    "core.fsmonitor",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.askpass",
    "core.alternaterefscommand",
    "diff.external",
    "sequence.editor",
    "credential.helper",
    "gpg.program",
    "uploadpack.packobjectshook",
    "pager.*",
    "filter.*",
    "diff.*.textconv",
];

/// A program a config value on the command line makes git run, when it names a gated action
/// (`-c core.fsmonitor='git push #' status`): read as a script.
fn program_config(inv: &Invocation) -> Option<String> {
    inv.config.iter().find_map(|(key, value)| {
        let runs = PROGRAM_KEYS.iter().any(|k| match k.split_once('*') {
            Some((pre, post)) => {
                key.starts_with(pre) && key.ends_with(post.trim_start_matches('.'))
            }
            None => key == k,
        }) || key.starts_with("merge.") && key.ends_with(".driver");
        let names_gated = value
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .any(super::tools::is_gated_program);
        (runs && names_gated).then(|| value.clone())
    })
}

pub fn classify(cmd: &SimpleCommand, line: &LineAliases, earlier_stash: bool) -> Found {
    let found = classify_verb(cmd, line, earlier_stash);
    // `-c core.fsmonitor='git push #' status`: the program runs besides the command itself.
    let has_config = cmd.argv.iter().any(|w| {
        w.literal()
            .is_some_and(|a| a == "-c" || a.starts_with("--config-env"))
    }) || cmd.env.iter().any(|(k, _)| k.starts_with("GIT_CONFIG"));
    match (found, has_config) {
        (Found::Gated(gated), true) => match program_config(&read(cmd, line)) {
            Some(program) => Found::GatedAndProgram(gated, program),
            None => Found::Gated(gated),
        },
        (found, _) => found,
    }
}

fn classify_verb(cmd: &SimpleCommand, line: &LineAliases, earlier_stash: bool) -> Found {
    let inv = read(cmd, line);
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
            out.push(gated(Class::Commit, "creates a commit"));
            if flags.risky("no-verify", "n") || hooks_off {
                out.push(gated(Class::HookBypass, "skips the commit hooks"));
            }
        }
        "merge" | "cherry-pick" | "revert" | "am" | "pull"
            if flags.risky("no-verify", "") || hooks_off =>
        {
            out.push(gated(Class::HookBypass, "skips the commit hooks"));
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

/// Whether a path names a git directory or lies inside one.
pub fn in_git_dir(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == ".git")
}
