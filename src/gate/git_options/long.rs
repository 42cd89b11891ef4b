//! The long options of the git subcommands the gate reads, and which of them take a value,
//! packed at compile time (see `packed`) and decoded on first use.

use std::sync::OnceLock;

use crate::gate::packed::{Reader, Writer};

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
        &["rebase"],
        &[
            "onto",
            "keep-base",
            "no-keep-base",
            "continue",
            "abort",
            "quit",
            "skip",
            "edit-todo",
            "show-current-patch",
            "apply",
            "merge",
            "interactive",
            "exec",
            "root",
            "autosquash",
            "no-autosquash",
            "autostash",
            "no-autostash",
            "fork-point",
            "no-fork-point",
            "rebase-merges",
            "no-rebase-merges",
            "strategy",
            "strategy-option",
            "stat",
            "no-stat",
            "verify",
            "no-verify",
            "quiet",
            "verbose",
            "signoff",
            "committer-date-is-author-date",
            "reset-author-date",
            "ignore-date",
            "ignore-whitespace",
            "whitespace",
            "force-rebase",
            "no-ff",
            "update-refs",
            "no-update-refs",
            "reapply-cherry-picks",
            "no-reapply-cherry-picks",
            "allow-empty-message",
            "empty",
            "keep-empty",
            "no-keep-empty",
            "rerere-autoupdate",
            "no-rerere-autoupdate",
            "gpg-sign",
            "no-gpg-sign",
            "reschedule-failed-exec",
            "no-reschedule-failed-exec",
            "trailer",
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
    (
        &["rebase"],
        &[
            "onto",
            "exec",
            "strategy",
            "strategy-option",
            "whitespace",
            "empty",
            "trailer",
        ],
    ),
    (&["read-tree"], &["prefix", "index-output"]),
    (&["checkout-index"], &["prefix", "stage"]),
    (
        &["config"],
        &["file", "blob", "type", "default", "comment", "value"],
    ),
];

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_tables_read_back_as_written() {
        assert_eq!(decoded()[0], LONG_OPTIONS);
        assert_eq!(decoded()[1], LONG_VALUE_OPTIONS);
        assert_eq!(long_options("send-pack"), long_options("push"));
        assert!(long_options("log").is_empty() && long_value_options("log").is_empty());
    }
}
