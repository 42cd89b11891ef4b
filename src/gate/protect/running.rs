//! Command lines that run hookjudge (under its name, a copy, a computed name or subcommand)
//! or interpreter code that writes hookjudge's places: how they are recognised.

use super::HUMAN_ONLY;
use super::places::{PROTECTED_NAMES, Protected};
use crate::gate::shell::{SimpleCommand, Word};

/// Signs that interpreter code writes, moves or deletes files, or runs programs.
pub(super) const WRITE_HINTS: [&str; 18] = [
    "write",
    "'w",
    "\"w",
    "'a'",
    "\"a\"",
    "'>",
    "\">",
    "unlink",
    "rename",
    "remove",
    "rmtree",
    "truncate",
    "chmod",
    "system",
    "subprocess",
    "exec",
    "spawn",
    "shutil",
];

/// Interpreter code (`python -c`, `node -e`, …) that writes files and whose text names hooks,
/// an agent's settings or hookjudge's places: strings built in code cannot be followed.
pub(super) fn interpreter_writes(program: &str, code: &str) -> Option<String> {
    let lower = code.to_ascii_lowercase();
    let writes = WRITE_HINTS.iter().any(|h| lower.contains(h));
    let names = std::iter::once("hook")
        .chain(PROTECTED_NAMES.iter().copied())
        .chain(["settings.local", "approvals", "clau", "codex", "gemini"])
        .find(|n| lower.contains(n));
    match (writes, names) {
        (true, Some(name)) => Some(format!(
            "command runs `{program}` code that writes files and names `{name}`"
        )),
        _ => None,
    }
}

/// Whether the program, found on `PATH`, is the hookjudge binary under another name (only
/// looked up for a human-only subcommand).
pub(super) fn on_path_is(cmd: &SimpleCommand, words: &[&str], protected: &Protected) -> bool {
    let Some(binary) = &protected.binary else {
        return false;
    };
    if !subcommand(&words[1.min(words.len())..]).is_some_and(|s| HUMAN_ONLY.contains(&s)) {
        return false;
    }
    let Some(name) = cmd.argv.first().and_then(Word::literal) else {
        return false;
    };
    let found = if name.contains('/') {
        Some(protected.word_path(name, cmd.cwd.as_deref()))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
    };
    found
        .and_then(|p| p.canonicalize().ok())
        .is_some_and(|p| p == *binary || same_contents(&p, binary))
}

/// Whether `copy` holds the same bytes as `binary`: a `cat` or `cp` copy of hookjudge under
/// another name (`../hj trust`) is hookjudge. Sizes first, so other programs cost one `stat`.
fn same_contents(copy: &std::path::Path, binary: &std::path::Path) -> bool {
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).ok();
    size(copy).is_some_and(|s| Some(s) == size(binary))
        && std::fs::read(copy)
            .ok()
            .is_some_and(|c| std::fs::read(binary).ok() == Some(c))
}

/// The human-only subcommand in a string that runs `hookjudge SUB`, if any.
pub(super) fn names_human_only(text: &str) -> Option<&'static str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let at = words.iter().position(|w| {
        w.rsplit('/')
            .next()
            .is_some_and(|b| b.starts_with("hookjudge"))
    })?;
    let sub = subcommand(&words[at + 1..])?;
    HUMAN_ONLY.iter().find(|h| **h == sub).copied()
}

/// Programs that append arguments read from their input to the command they run.
pub(super) const ARGUMENT_FEEDERS: [&str; 2] = ["xargs", "parallel"];

/// A hookjudge command line whose subcommand (or, for `check`, whose options) is computed at
/// run time (`$(…)`, `$VAR`, `"$@"`): it may be a subcommand only the user may run, so it is
/// denied like one.
pub(super) fn computed_arguments(args: &[Word]) -> Option<String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg {
            Word::Dynamic(src) => {
                return Some(format!(
                    "command runs hookjudge with a subcommand computed at run time (`{src}`)"
                ));
            }
            Word::Literal(a) if a == "--config" => i += 2,
            Word::Literal(a) if a.starts_with('-') => i += 1,
            Word::Literal(sub) => {
                let rest = &args[i + 1..];
                return (sub == "check" && rest.iter().any(|w| w.literal().is_none())).then(|| {
                    "command runs `hookjudge check` with options computed at run time".into()
                });
            }
        }
    }
    None
}

/// The first word that is not an option (skipping `--config FILE`).
pub(super) fn subcommand<'a>(args: &[&'a str]) -> Option<&'a str> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if *a == "--config" {
            i += 2;
            continue;
        }
        if !a.starts_with('-') {
            return Some(a);
        }
        i += 1;
    }
    None
}

/// The value of `-c BODY`, `-qc BODY`, `--command BODY` or `--command=BODY`.
pub(super) fn option_value(argv: &[Word], long: &[&str], short: char) -> Option<Word> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        let a = arg.literal()?;
        if let Some(v) = long.iter().find_map(|l| a.strip_prefix(&format!("{l}="))) {
            return Some(Word::Literal(v.to_owned()));
        }
        if long.contains(&a) || (a.starts_with('-') && !a.starts_with("--") && a.contains(short)) {
            return args.next().cloned();
        }
    }
    None
}
