//! Git's option tables and its rule for abbreviated long options.
//!
//! Git's subcommands parse their options with `parse-options`, which accepts any unambiguous
//! prefix of a long option (`--force-w` is `--force-with-lease`, `reset --har` is `--hard`).
//! A flag that makes a command *dangerous* counts when the word is a prefix of it at all (an
//! ambiguous prefix makes git fail, so counting it costs nothing); a flag that makes a command
//! *harmless* (`--dry-run`, `--help`) counts only when git would read it as that flag.

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

mod builtins;
mod long;
mod long_table;

pub use builtins::is_builtin;
pub use long::{long_options, long_value_options};

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
        "rebase" => "sXxC",
        "config" => "f",
        "reset" | "rm" | "read-tree" | "checkout-index" | "update-ref" => "",
        _ => "",
    }
}

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
