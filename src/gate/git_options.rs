//! Git's option tables and its rule for abbreviated long options.
//!
//! Git's subcommands parse their options with `parse-options`, which accepts any unambiguous
//! prefix of a long option (`--force-w` is `--force-with-lease`, `reset --har` is `--hard`).
//! A flag that makes a command *dangerous* counts when the word is a prefix of it at all (an
//! ambiguous prefix makes git fail, so counting it costs nothing); a flag that makes a command
//! *harmless* (`--dry-run`, `--help`) counts only when git would read it as that flag.

use std::sync::OnceLock;

use super::packed::{Reader, Words, Writer, bytes};

/// Global options of `git` itself (exact names only: `git.c` does not abbreviate) that take
/// the next word as their value.
pub const GLOBAL_VALUE_OPTIONS: [&str; 8] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--list-cmds",
];

/// Git commands that the gate reads (commit, publish or lose work); also the verbs that make a
/// computed program suspect.
pub const GATED_VERBS: [&str; 15] = [
    "commit",
    "push",
    "send-pack",
    "reset",
    "clean",
    "checkout",
    "switch",
    "restore",
    "rm",
    "stash",
    "branch",
    "update-ref",
    "read-tree",
    "checkout-index",
    "config",
];

/// Every git command that is not an alias (git runs a built-in before it looks up an alias).
/// Read through [`is_builtin`], packed (see `packed`).
const BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "backfill",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "gc",
    "get-tar-commit-id",
    "grep",
    "gui",
    "hash-object",
    "help",
    "hook",
    "index-pack",
    "init",
    "instaweb",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "pack-objects",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "repack",
    "replace",
    "replay",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// The long options of the subcommands the gate reads, as git's own usage lists them (needed
/// to tell an unambiguous abbreviation from an ambiguous one). Read through [`long_options`].
const LONG_OPTIONS: Keyed = &[
    (
        &["push", "send-pack"],
        &[
            "all",
            "branches",
            "mirror",
            "delete",
            "tags",
            "follow-tags",
            "dry-run",
            "porcelain",
            "force",
            "force-with-lease",
            "force-if-includes",
            "repo",
            "set-upstream",
            "thin",
            "no-thin",
            "quiet",
            "verbose",
            "progress",
            "no-progress",
            "prune",
            "no-verify",
            "verify",
            "atomic",
            "no-atomic",
            "push-option",
            "receive-pack",
            "exec",
            "signed",
            "no-signed",
            "recurse-submodules",
            "no-recurse-submodules",
            "ipv4",
            "ipv6",
            "no-force-with-lease",
            "stateless-rpc",
            "help",
        ],
    ),
    (
        &["commit"],
        &[
            "all",
            "patch",
            "interactive",
            "include",
            "only",
            "amend",
            "reset-author",
            "author",
            "date",
            "message",
            "file",
            "reuse-message",
            "reedit-message",
            "fixup",
            "squash",
            "signoff",
            "no-signoff",
            "trailer",
            "no-verify",
            "verify",
            "allow-empty",
            "allow-empty-message",
            "cleanup",
            "edit",
            "no-edit",
            "template",
            "untracked-files",
            "verbose",
            "quiet",
            "dry-run",
            "short",
            "branch",
            "porcelain",
            "long",
            "null",
            "status",
            "no-status",
            "gpg-sign",
            "no-gpg-sign",
            "pathspec-from-file",
            "pathspec-file-nul",
            "no-post-rewrite",
            "ahead-behind",
            "help",
        ],
    ),
    (
        &["reset"],
        &[
            "soft",
            "mixed",
            "hard",
            "merge",
            "keep",
            "quiet",
            "no-quiet",
            "patch",
            "intent-to-add",
            "pathspec-from-file",
            "pathspec-file-nul",
            "recurse-submodules",
            "no-recurse-submodules",
            "refresh",
            "no-refresh",
            "help",
        ],
    ),
    (
        &["checkout"],
        &[
            "quiet",
            "progress",
            "no-progress",
            "force",
            "ours",
            "theirs",
            "track",
            "no-track",
            "guess",
            "no-guess",
            "detach",
            "orphan",
            "ignore-skip-worktree-bits",
            "merge",
            "conflict",
            "patch",
            "ignore-other-worktrees",
            "overwrite-ignore",
            "no-overwrite-ignore",
            "recurse-submodules",
            "no-recurse-submodules",
            "overlay",
            "no-overlay",
            "pathspec-from-file",
            "pathspec-file-nul",
            "help",
        ],
    ),
    (
        &["switch"],
        &[
            "create",
            "force-create",
            "guess",
            "no-guess",
            "detach",
            "force",
            "discard-changes",
            "merge",
            "conflict",
            "quiet",
            "progress",
            "no-progress",
            "track",
            "no-track",
            "orphan",
            "ignore-other-worktrees",
            "recurse-submodules",
            "no-recurse-submodules",
            "help",
        ],
    ),
    (
        &["restore"],
        &[
            "source",
            "patch",
            "worktree",
            "staged",
            "quiet",
            "progress",
            "no-progress",
            "ours",
            "theirs",
            "merge",
            "conflict",
            "ignore-unmerged",
            "ignore-skip-worktree-bits",
            "recurse-submodules",
            "no-recurse-submodules",
            "overlay",
            "no-overlay",
            "pathspec-from-file",
            "pathspec-file-nul",
            "help",
        ],
    ),
    (
        &["clean"],
        &[
            "dry-run",
            "force",
            "interactive",
            "quiet",
            "exclude",
            "help",
        ],
    ),
    (
        &["rm"],
        &[
            "dry-run",
            "quiet",
            "cached",
            "force",
            "ignore-unmatch",
            "sparse",
            "pathspec-from-file",
            "pathspec-file-nul",
            "help",
        ],
    ),
    (
        &["branch"],
        &[
            "verbose",
            "quiet",
            "track",
            "no-track",
            "set-upstream-to",
            "unset-upstream",
            "color",
            "no-color",
            "remotes",
            "contains",
            "no-contains",
            "abbrev",
            "no-abbrev",
            "all",
            "delete",
            "move",
            "copy",
            "list",
            "show-current",
            "create-reflog",
            "edit-description",
            "force",
            "merged",
            "no-merged",
            "column",
            "no-column",
            "sort",
            "points-at",
            "ignore-case",
            "omit-empty",
            "format",
            "recurse-submodules",
            "help",
        ],
    ),
    (
        &["stash"],
        &[
            "patch",
            "staged",
            "keep-index",
            "no-keep-index",
            "include-untracked",
            "no-include-untracked",
            "all",
            "quiet",
            "message",
            "pathspec-from-file",
            "pathspec-file-nul",
            "index",
            "help",
        ],
    ),
    (
        &["read-tree"],
        &[
            "reset",
            "prefix",
            "index-output",
            "empty",
            "no-sparse-checkout",
            "dry-run",
            "verbose",
            "trivial",
            "aggressive",
            "quiet",
            "recurse-submodules",
            "exclude-per-directory",
            "help",
        ],
    ),
    (
        &["checkout-index"],
        &[
            "all",
            "force",
            "index",
            "no-create",
            "prefix",
            "quiet",
            "stage",
            "stdin",
            "temp",
            "ignore-skip-worktree-bits",
            "help",
        ],
    ),
    (
        &["update-ref"],
        &["no-deref", "stdin", "create-reflog", "help"],
    ),
    (
        &["config"],
        &[
            "global",
            "system",
            "local",
            "worktree",
            "file",
            "blob",
            "get",
            "get-all",
            "get-regexp",
            "get-urlmatch",
            "replace-all",
            "add",
            "unset",
            "unset-all",
            "rename-section",
            "remove-section",
            "list",
            "fixed-value",
            "type",
            "bool",
            "int",
            "bool-or-int",
            "path",
            "expiry-date",
            "no-type",
            "null",
            "name-only",
            "includes",
            "no-includes",
            "show-origin",
            "show-scope",
            "default",
            "edit",
            "get-color",
            "get-colorbool",
            "comment",
            "value",
            "all",
            "regexp",
            "url",
            "help",
        ],
    ),
];

/// How git reads a long option word (`--force-w`, `--message=x`) of `verb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongMatch {
    /// Exactly this option, or an abbreviation only it has.
    Is(&'static str),
    /// A prefix of several options: git refuses the command.
    Ambiguous,
    /// Not an option of this command as far as the table knows.
    Unknown,
}

/// Whether `verb` is a git command rather than an alias.
pub fn is_builtin(verb: &str) -> bool {
    static PACKED: Words<{ bytes(BUILTINS) }, { BUILTINS.len() }> = Words::pack(BUILTINS);
    PACKED.contains(verb)
}

/// Option lists by the subcommands they belong to.
type Keyed = &'static [(&'static [&'static str], &'static [&'static str])];

/// Writes both keyed tables (`N = 0` counts their bytes).
const fn pack_options<const N: usize>() -> Writer<N> {
    let mut w = Writer::new();
    let tables = [LONG_OPTIONS, LONG_VALUE_OPTIONS];
    let mut t = 0;
    while t < tables.len() {
        w.count(tables[t].len());
        let mut i = 0;
        while i < tables[t].len() {
            w.strs(tables[t][i].0);
            w.strs(tables[t][i].1);
            i += 1;
        }
        t += 1;
    }
    w
}

const PACKED_LEN: usize = pack_options::<0>().len;
static PACKED: [u8; PACKED_LEN] = pack_options::<PACKED_LEN>().finish();

type Decoded = Vec<(&'static [&'static str], &'static [&'static str])>;

/// The keyed tables, decoded on first use: the long options, the long options with a value.
fn decoded() -> &'static [Decoded; 2] {
    static TABLES: OnceLock<[Decoded; 2]> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut r = Reader::new(&PACKED);
        let mut table = || (0..r.count()).map(|_| (r.strs(), r.strs())).collect();
        let tables = [table(), table()];
        debug_assert!(r.done());
        tables
    })
}

fn lookup(table: &'static Decoded, verb: &str) -> &'static [&'static str] {
    table
        .iter()
        .find(|(verbs, _)| verbs.contains(&verb))
        .map_or(&[], |(_, options)| options)
}

/// The long options of `verb` (see [`LONG_OPTIONS`]).
pub fn long_options(verb: &str) -> &'static [&'static str] {
    lookup(&decoded()[0], verb)
}

/// The long options of `verb` that take a value (see [`LONG_VALUE_OPTIONS`]).
pub fn long_value_options(verb: &str) -> &'static [&'static str] {
    lookup(&decoded()[1], verb)
}

/// Resolves `--name` (without the value part) by git's abbreviation rule.
pub fn resolve_long(verb: &str, name: &str) -> LongMatch {
    let options = long_options(verb);
    if let Some(exact) = options.iter().find(|o| **o == name) {
        return LongMatch::Is(exact);
    }
    let mut candidates = options.iter().filter(|o| o.starts_with(name));
    match (candidates.next(), candidates.next()) {
        (Some(one), None) if !name.is_empty() => LongMatch::Is(one),
        (Some(_), Some(_)) => LongMatch::Ambiguous,
        _ => LongMatch::Unknown,
    }
}

/// The short options of `verb` that take a value (`-m msg`, or attached: `-mmsg`).
pub fn short_value_options(verb: &str) -> &'static str {
    match verb {
        "commit" => "mFCcSt",
        "push" | "send-pack" => "o",
        "checkout" => "bB",
        "switch" => "cC",
        "restore" => "s",
        "clean" => "eE",
        "stash" => "m",
        "branch" => "u",
        "reset" | "rm" | "read-tree" | "checkout-index" | "update-ref" => "",
        _ => "",
    }
}

/// Long options of each verb that take the next word as their value when no `=` is given.
/// Read through [`long_value_options`].
const LONG_VALUE_OPTIONS: Keyed = &[
    (
        &["commit"],
        &[
            "author",
            "date",
            "message",
            "file",
            "reuse-message",
            "reedit-message",
            "fixup",
            "squash",
            "trailer",
            "cleanup",
            "template",
            "pathspec-from-file",
        ],
    ),
    (
        &["push", "send-pack"],
        &["repo", "push-option", "receive-pack", "exec"],
    ),
    (&["checkout"], &["orphan", "conflict", "pathspec-from-file"]),
    (
        &["switch"],
        &["create", "force-create", "orphan", "conflict"],
    ),
    (&["restore"], &["source", "conflict", "pathspec-from-file"]),
    (&["clean"], &["exclude"]),
    (&["stash"], &["message", "pathspec-from-file"]),
    (
        &["branch"],
        &[
            "set-upstream-to",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "sort",
            "points-at",
            "format",
        ],
    ),
    (&["read-tree"], &["prefix", "index-output"]),
    (&["checkout-index"], &["prefix", "stage"]),
    (
        &["config"],
        &["file", "blob", "type", "default", "comment", "value"],
    ),
];

/// One option or operand of a git subcommand, as git's option parser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A long option resolved to its full name (or the word as written when unknown).
    Long {
        name: String,
        value: Option<String>,
        /// Only a prefix shared by several options (git refuses it).
        ambiguous: bool,
    },
    /// One short option (`-fd` is two), with its value when it takes one.
    Short { flag: char, value: Option<String> },
    /// An operand (after `--`, or not starting with `-`).
    Operand(String),
    /// The `--` separator.
    Separator,
}

/// Splits the words after `verb` into options and operands the way `parse-options` does.
pub fn parse_args(verb: &str, words: &[String]) -> Vec<Arg> {
    let mut out = Vec::new();
    let short_values = short_value_options(verb);
    let long_values = long_value_options(verb);
    let mut i = 0;
    let mut operands_only = false;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if operands_only || w == "-" || !w.starts_with('-') {
            out.push(Arg::Operand(w.clone()));
            continue;
        }
        if w == "--" {
            out.push(Arg::Separator);
            operands_only = true;
            continue;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            let (full, ambiguous) = match resolve_long(verb, name) {
                LongMatch::Is(full) => (full.to_owned(), false),
                LongMatch::Ambiguous => (name.to_owned(), true),
                LongMatch::Unknown => (name.to_owned(), false),
            };
            let value = match inline {
                Some(v) => Some(v),
                None if long_values.contains(&full.as_str()) => {
                    let v = words.get(i).cloned();
                    i += 1;
                    v
                }
                None => None,
            };
            out.push(Arg::Long {
                name: full,
                value,
                ambiguous,
            });
            continue;
        }
        let cluster: Vec<char> = w[1..].chars().collect();
        for (k, flag) in cluster.iter().enumerate() {
            if short_values.contains(*flag) {
                let attached: String = cluster[k + 1..].iter().collect();
                let value = if !attached.is_empty() {
                    Some(attached)
                } else if *flag == 'S' {
                    None // `-S[keyid]`: the value is optional and only attached
                } else {
                    let v = words.get(i).cloned();
                    i += 1;
                    v
                };
                out.push(Arg::Short { flag: *flag, value });
                break;
            }
            out.push(Arg::Short {
                flag: *flag,
                value: None,
            });
        }
    }
    out
}

/// What a parsed argument list says about flags, by git's reading.
pub struct Flags<'a> {
    pub args: &'a [Arg],
}

impl Flags<'_> {
    /// A long option that is, or abbreviates (even ambiguously), `name`; or one of `shorts`.
    pub fn risky(&self, name: &str, shorts: &str) -> bool {
        self.args.iter().any(|a| match a {
            Arg::Long {
                name: n, ambiguous, ..
            } => n == name || (*ambiguous && name.starts_with(n.as_str())),
            Arg::Short { flag, .. } => shorts.contains(*flag),
            _ => false,
        })
    }

    /// A long option git reads as exactly `name` (unambiguously), or one of `shorts`.
    /// The last of `--name`, `--no-name` and `-s` decides (`--dry-run --no-dry-run` runs).
    pub fn surely(&self, name: &str, shorts: &str) -> bool {
        let negated = format!("no-{name}");
        self.args
            .iter()
            .rev()
            .find_map(|a| match a {
                Arg::Long {
                    name: n, ambiguous, ..
                } if n == name && !ambiguous => Some(true),
                Arg::Long { name: n, .. } if *n == negated => Some(false),
                Arg::Short { flag, .. } if shorts.contains(*flag) => Some(true),
                _ => None,
            })
            .unwrap_or(false)
    }

    /// The value of the last `--name`/`-s` given.
    pub fn value(&self, name: &str, shorts: &str) -> Option<&str> {
        self.args.iter().rev().find_map(|a| match a {
            Arg::Long { name: n, value, .. } if n == name => value.as_deref(),
            Arg::Short { flag, value } if shorts.contains(*flag) => value.as_deref(),
            _ => None,
        })
    }

    /// The operands, and the index of the first one after `--` (if any).
    pub fn operands(&self) -> (Vec<&str>, Option<usize>) {
        let mut out = Vec::new();
        let mut after = None;
        for a in self.args {
            match a {
                Arg::Operand(o) => out.push(o.as_str()),
                Arg::Separator if after.is_none() => after = Some(out.len()),
                _ => {}
            }
        }
        (out, after)
    }

    /// `--help`/`-h` stops the command before it does anything (parse-options exits 129).
    pub fn help(&self) -> bool {
        self.args.iter().any(|a| match a {
            Arg::Long {
                name, ambiguous, ..
            } => name == "help" && !ambiguous,
            Arg::Short { flag, .. } => *flag == 'h',
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_tables_read_back_as_written() {
        assert_eq!(decoded()[0], LONG_OPTIONS);
        assert_eq!(decoded()[1], LONG_VALUE_OPTIONS);
        for verb in BUILTINS {
            assert!(is_builtin(verb), "{verb}");
        }
        assert!(!is_builtin("ship") && !is_builtin(""));
        assert_eq!(long_options("send-pack"), long_options("push"));
        assert!(long_options("log").is_empty() && long_value_options("log").is_empty());
    }

    #[test]
    fn abbreviations_follow_git() {
        assert_eq!(
            resolve_long("push", "force-w"),
            LongMatch::Is("force-with-lease")
        );
        assert_eq!(resolve_long("push", "force"), LongMatch::Is("force"));
        assert_eq!(resolve_long("push", "forc"), LongMatch::Ambiguous);
        assert_eq!(resolve_long("push", "no-verif"), LongMatch::Is("no-verify"));
        assert_eq!(resolve_long("reset", "har"), LongMatch::Is("hard"));
        assert_eq!(resolve_long("clean", "forc"), LongMatch::Is("force"));
        assert_eq!(resolve_long("push", "dry"), LongMatch::Is("dry-run"));
    }

    #[test]
    fn clusters_stop_at_a_value() {
        let words: Vec<String> = ["-am", "fix -n", "-nq"].map(String::from).into();
        let args = parse_args("commit", &words);
        let flags = Flags { args: &args };
        assert!(flags.surely("", "n"), "-nq holds -n");
        assert_eq!(flags.value("message", "m"), Some("fix -n"));
        let words: Vec<String> = ["-mn"].map(String::from).into();
        let args = parse_args("commit", &words);
        assert!(!Flags { args: &args }.surely("", "n"), "-mn is a message");
    }
}
