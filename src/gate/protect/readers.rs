//! Programs and git subcommands that only read the files they name: naming a protected file
//! with them is no write (`cat .claude/settings.json`, `git diff .codex/hooks.json`).

use crate::gate::shell::SimpleCommand;

/// Programs that only read the files they are given (no output redirect allowed with them).
const READ_ONLY: [&str; 24] = [
    "cat",
    "less",
    "more",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ls",
    "stat",
    "wc",
    "file",
    "diff",
    "jq",
    "bat",
    "test",
    "[",
    "realpath",
    "readlink",
    "du",
    "md5sum",
    "sha256sum",
    "sha1sum",
];

/// Git subcommands that do not change the files they name.
const GIT_READ_ONLY: [&str; 8] = [
    "diff", "log", "show", "status", "blame", "add", "commit", "ls-files",
];

/// Whether `cmd` only reads the files it names.
pub(super) fn read_only(cmd: &SimpleCommand, words: &[&str]) -> bool {
    let program = cmd.program().unwrap_or("");
    if program == "git" {
        let sub = words[1..]
            .iter()
            .find(|w| !w.starts_with('-'))
            .copied()
            .unwrap_or("");
        return GIT_READ_ONLY.contains(&sub);
    }
    if program.starts_with("hookjudge") {
        return true; // its human-only subcommands were checked above
    }
    READ_ONLY.contains(&program) && !words.iter().any(|w| w.starts_with("-i") && program == "jq")
}
