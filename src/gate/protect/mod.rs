//! Self-protection: actions an agent may not take against hookjudge itself.
//!
//! Denied, with a reason telling the agent to leave it to the user: running `hookjudge
//! approve|trust|init|uninstall` or `check --yes` (also through `env`, `sudo`, `bash -c`,
//! `script -c`, `$(which hookjudge)`, or an interpreter whose code names hookjudge); changing
//! hookjudge's state dir (trust records, approvals), its user config or the binary the hooks
//! run; and changing the hook entries of an agent's settings (`hooks`, `disableAllHooks`,
//! `hooksConfig`, `env`), through the shell or through the agents' file-writing tools (Claude
//! Code `Write`/`Edit`/`MultiEdit`, Codex `apply_patch`, Gemini CLI `write_file`/`replace`).
//! Reading is allowed: `hookjudge log|stats|doctor|judge|config show|check`, `cat` of a state
//! file, `git diff` of a settings file.
//!
//! The parts: `places` (what is protected, and a command word as the paths it names), `readers`
//! (programs that only read what they name),
//! `running` (command lines that run hookjudge), `file_tools` (the agents' file-writing
//! tools and patches), `find` (whether `find` and `git` remove what they name), `scripts` (script files, heredocs and written scripts, read before
//! they run), [`env_files`] (the env files the agents load), `faked` (artifacts written
//! without a test run), `copies` (tree copies, archives and links landing on those places),
//! `installs` (package installers that put a `hookjudge` where the hooks run it), `stash`
//! (`git stash -u`/`-a`, which take untracked hook settings away), `git_config` (git's
//! configuration written other than by `git config`).

mod copies;
pub mod env_files;
mod faked;
mod file_tools;
mod find;
mod git_config;
mod installs;
mod places;
mod readers;
mod running;
mod scripts;
mod stash;

use std::path::{Path, PathBuf};

use crate::gate::shell::{self, SimpleCommand, Word};

use crate::support::paths::normalize;
pub use faked::{EvidenceSettings, faked_evidence};
pub use file_tools::file_tool;
use file_tools::{patch_check, shell_patch};
use places::{PROTECTED_NAMES, Protected};
use running::{
    ARGUMENT_FEEDERS, computed_arguments, interpreter_writes, names_human_only, on_path_is,
    option_value, subcommand,
};

/// `hookjudge` subcommands only a person may run.
pub(super) const HUMAN_ONLY: [&str; 4] = ["approve", "trust", "init", "uninstall"];

/// Programs whose arguments are data, never run: naming `hookjudge approve` in them is fine.
const DATA_PROGRAMS: [&str; 8] = [
    "echo",
    "printf",
    "grep",
    "rg",
    "git",
    "cat",
    "man",
    "hookjudge",
];

/// Interpreters whose inline code is read for `hookjudge`.
const INTERPRETERS: [&str; 12] = [
    "python",
    "python3",
    "node",
    "perl",
    "ruby",
    "php",
    "deno",
    "bun",
    "lua",
    "pwsh",
    "osascript",
    "tclsh",
];

/// The reason the gate gives the agent for a denied self-protection action.
pub fn reason(what: &str) -> String {
    format!(
        "hookjudge gate [self-protection]: this {what}. Only the user may change hookjudge's installation, trust or approvals. Do not retry it or work around it; if it is needed, stop and ask the user to do it themselves."
    )
}

/// Why deleting `path` (absolute; a file, or a directory with what it holds) would take
/// something hookjudge protects with it, if it would: for deletions no word of the line names
/// (`git clean`).
pub fn deleting(path: &Path) -> Option<&'static str> {
    let protected = Protected::here();
    protected
        .what(path)
        .map(|_| "deletes a file holding hookjudge's or an agent's hook settings")
        .or_else(|| protected.holds_protected(path))
}

/// What a shell command would do against hookjudge, if anything: the text for [`reason`].
pub fn shell_command(command: &str, cwd: &Path) -> Option<String> {
    let protected = Protected::here();
    if let Some(patch) = shell_patch(command)
        && let Some(what) = patch_check(&protected, patch, Some(cwd))
    {
        return Some(what);
    }
    // `echo HOOKJUDGE_CONFIG=… >> .env`: an env file an agent CLI loads, named in the line.
    if let Some(what) = env_files::text_writes(command) {
        return Some(format!("command {what}"));
    }
    // `python3 - <<EOF … EOF`, `cat > x.py <<EOF … EOF`: code in a heredoc, run now or later.
    for body in scripts::heredoc_bodies(command)
        .into_iter()
        .filter(|_| scripts::heredocs_are_code(command))
    {
        if let Some(what) = scripts::code_concerns(&body, &protected) {
            return Some(format!("command holds code that {what}"));
        }
    }
    if !protected.may_concern(command)
        && !copies::may_copy_tree(command)
        && !installs::may_install(command)
        && !command.contains("stash")
        && !scripts::may_run_script(command)
        && !env_files::names_env_file(command)
    {
        return None;
    }
    let mut bodies: Vec<(String, Option<PathBuf>)> = vec![(command.to_owned(), Some(cwd.into()))];
    let mut seen = 0;
    while let Some((text, dir)) = bodies.pop() {
        seen += 1;
        if seen > 16 {
            return Some("command nests too many scripts to check against hookjudge".into());
        }
        // Redirects belong to the statement, not to its command: read them from the text.
        for target in redirect_targets(&text) {
            if let Some(what) = redirected(&protected, &target, dir.as_deref()) {
                return Some(what);
            }
        }
        let script = shell::parse(&text, dir.as_deref().unwrap_or(cwd));
        // `cd DIR && echo x > f`: the shell may read `f` from any directory a `cd` reached.
        for target in redirect_targets(&text) {
            for cmd in &script.commands {
                if cmd.cwd != dir
                    && let Some(what) = redirected(&protected, &target, cmd.cwd.as_deref())
                {
                    return Some(what);
                }
            }
        }
        for cmd in &script.commands {
            if let Some(what) = one_command(cmd, &protected, &mut bodies) {
                return Some(what);
            }
        }
    }
    None
}

fn one_command(
    cmd: &SimpleCommand,
    protected: &Protected,
    bodies: &mut Vec<(String, Option<PathBuf>)>,
) -> Option<String> {
    let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
    if words.is_empty() {
        return None; // a bare assignment runs nothing
    }
    let program = cmd.program().unwrap_or("");
    let first = words.first().copied().unwrap_or("");
    let names_hookjudge = program.starts_with("hookjudge")
        || on_path_is(cmd, &words, protected)
        || (cmd.argv.first().is_some_and(|w| w.literal().is_none()) && first.contains("hookjudge"))
        || protected.binary.as_deref().is_some_and(|b| {
            cmd.argv
                .first()
                .and_then(Word::literal)
                .is_some_and(|w| normalize(&protected.word_path(w, cmd.cwd.as_deref())) == b)
        });
    if names_hookjudge && let Some(what) = computed_arguments(&cmd.argv[1..]) {
        return Some(what);
    }
    if names_hookjudge {
        let sub = subcommand(&words[1..]);
        if let Some(sub) = sub.filter(|s| HUMAN_ONLY.contains(s)) {
            return Some(format!("command runs `hookjudge {sub}`"));
        }
        if sub == Some("check") && words.contains(&"--yes") {
            return Some("command runs `hookjudge check --yes`, which records an approval".into());
        }
    } else if cmd.argv.first().is_some_and(|w| w.literal().is_none())
        && words[1..].iter().any(|w| HUMAN_ONLY.contains(w))
    {
        return Some(format!(
            "command runs a program named at run time (`{first}`) with a subcommand only the user may run"
        ));
    }
    // `setsid hookjudge approve`, `unbuffer hookjudge trust`: hookjudge as an argument.
    if let Some(at) = words.iter().skip(1).position(|w| {
        w.rsplit('/')
            .next()
            .is_some_and(|b| b.starts_with("hookjudge"))
    }) {
        if let Some(what) = computed_arguments(&cmd.argv[at + 2..]) {
            return Some(format!("{what} through `{program}`"));
        }
        if ARGUMENT_FEEDERS.contains(&program) && subcommand(&words[at + 2..]).is_none() {
            return Some(format!(
                "command runs hookjudge with a subcommand `{program}` reads at run time"
            ));
        }
    }
    if let Some(at) = words.iter().skip(1).position(|w| {
        w.rsplit('/')
            .next()
            .is_some_and(|b| b.starts_with("hookjudge"))
    }) && let Some(sub) = subcommand(&words[at + 2..]).filter(|s| HUMAN_ONLY.contains(s))
    {
        return Some(format!(
            "command runs `hookjudge {sub}` through `{program}`"
        ));
    }
    // `watch "hookjudge approve"`, `tmux new 'hookjudge trust'`: a string another program runs.
    if !DATA_PROGRAMS.contains(&program)
        && let Some(sub) = words[1..].iter().find_map(|w| names_human_only(w))
    {
        return Some(format!(
            "command runs `hookjudge {sub}` through `{program}`"
        ));
    }
    // `alias hj=hookjudge`: a name for hookjudge whose later uses no parser can follow.
    if program == "alias" && words[1..].iter().any(|w| w.contains("hookjudge")) {
        return Some("command defines an alias for hookjudge".into());
    }
    // `script -qc BODY`: the body runs in a shell with a terminal.
    if program == "script"
        && let Some(body) = option_value(&cmd.argv, &["-c", "--command"], 'c')
    {
        match body {
            Word::Literal(body) => bodies.push((body, cmd.cwd.clone())),
            Word::Dynamic(src) if src.contains("hookjudge") => {
                return Some("command runs a script body that names hookjudge".into());
            }
            Word::Dynamic(_) => {}
        }
    }
    let interpreter = INTERPRETERS.iter().any(|i| {
        program
            .strip_prefix(i)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    });
    if interpreter {
        let code = words[1..].join(" ");
        if code.contains("hookjudge") && HUMAN_ONLY.iter().any(|v| code.contains(v)) {
            return Some(format!("command runs hookjudge through `{program}`"));
        }
    }
    // Interpreter code that writes files and names hooks or hookjudge's places.
    if interpreter && let Some(what) = interpreter_writes(program, &words[1..].join(" ")) {
        return Some(what);
    }
    // A script file it runs, read now: a shell script as commands, other code for what it
    // writes.
    if let Some((path, shell)) = scripts::script_file(cmd)
        && let Some(code) = scripts::read_script(&path)
    {
        if let Some(what) = scripts::code_concerns(&code, protected) {
            return Some(format!(
                "command runs `{}`, a script that {what}",
                path.display()
            ));
        }
        if shell {
            bodies.push((code, cmd.cwd.clone()));
        }
    }
    // Redirects of this command, from the directory it runs in (after `cd`).
    for target in &cmd.writes {
        if let Some(what) = redirected(protected, target.text(), cmd.cwd.as_deref()) {
            return Some(what);
        }
    }
    if let Some(what) = git_config::command_writes(protected, program, &words, cmd.cwd.as_deref()) {
        return Some(what);
    }
    // Writes to protected files: any argument that is a protected path, unless the program
    // only reads.
    if !readers::read_only(cmd, &words) {
        // `find .` lists and `git fetch .` reads: only a form that removes puts its
        // directories at risk.
        let removes = REMOVERS.contains(&program)
            && match program {
                "find" => find::find_may_remove(&words[1..], protected),
                "git" => find::git_may_remove(&words[1..]),
                // rsync only removes with `--delete…` or `--remove-source-files`; without,
                // it copies, which `copies` reads.
                "rsync" => words[1..]
                    .iter()
                    .any(|w| w.starts_with("--del") || *w == "--remove-source-files"),
                // Archivers that delete what they archived.
                "tar" => words.contains(&"--remove-files"),
                "zip" => words[1..].iter().any(|w| {
                    *w == "--move"
                        || (w.starts_with('-') && !w.starts_with("--") && w.contains('m'))
                }),
                _ => true,
            };
        for (at, target) in words.iter().enumerate().skip(1) {
            if let Some(what) = written_target(protected, target, cmd.cwd.as_deref()) {
                return Some(what);
            }
            // `git -C . stash list`: the directory git runs in is not what it removes.
            let git_place = program == "git" && find::GIT_VALUED.contains(&words[at - 1]);
            if removes
                && !git_place
                && let Some(what) = removed_target(protected, target, cmd.cwd.as_deref())
            {
                return Some(what);
            }
        }
        // `cp /tmp/x .env`: the env file gets the source's lines.
        if COPIERS.contains(&program)
            && let [sources @ .., last] = &words[1..]
            && env_files::is_env_file(Path::new(last))
        {
            for source in sources.iter().filter(|s| !s.starts_with('-')) {
                let path = protected.word_path(source, cmd.cwd.as_deref());
                if let Some(text) = scripts::read_script(&path)
                    && let Some(name) = env_files::newly_set("", &text)
                {
                    return Some(format!(
                        "command {}",
                        env_files::env_reason(
                            &name,
                            &protected.word_path(last, cmd.cwd.as_deref())
                        )
                    ));
                }
            }
        }
        // `cp -r stage/. ~/.local/state/`: a tree lands above hookjudge's places.
        // Writes no word of the line names: what lands from a tree, an archive or a link, what
        // an installer puts in place, what a stash takes away.
        let cwd = cmd.cwd.as_deref();
        let unnamed = match program {
            "cp" | "rsync" => copies::tree_copy(protected, program, &words, cwd),
            "tar" | "gtar" | "bsdtar" => copies::tar_extract(protected, program, &words, cwd),
            "unzip" => copies::unzip(protected, &words, cwd),
            "ln" => copies::link_to_protected(protected, &words, cwd),
            "cargo" => installs::cargo_install(protected, &words, cwd),
            "git" => stash::stash_takes_settings(&words, cwd),
            _ => None,
        };
        if let Some(what) = unnamed {
            return Some(what);
        }
        // `mv hooks.json ~/.codex/`: a source lands in the target directory under its name.
        if COPIERS.contains(&program)
            && let [sources @ .., last] = &words[1..]
        {
            let dir = protected.word_path(last, cmd.cwd.as_deref());
            if dir.is_dir() {
                for source in sources.iter().filter(|s| !s.starts_with('-')) {
                    let Some(name) = Path::new(source).file_name() else {
                        continue;
                    };
                    if let Some(what) = protected.what(&dir.join(name)) {
                        return Some(format!("command {what} (`{}`)", dir.join(name).display()));
                    }
                }
            }
        }
    }
    None
}

/// Programs that move, delete, truncate or change the mode of what they are given: naming a
/// directory that holds a protected file is as bad as naming the file.
const REMOVERS: [&str; 15] = [
    "mv", "rm", "rmdir", "unlink", "shred", "truncate", "chmod", "chown", "chgrp", "chattr", "git",
    "rsync", "find", "tar", "zip",
];

/// Programs whose last argument may be a directory the other arguments land in.
const COPIERS: [&str; 4] = ["mv", "cp", "ln", "install"];

/// What deleting, moving or truncating `target` would do against hookjudge: a directory that
/// holds a protected file (`.claude`, `~/.codex`, `.git/hooks` with hookjudge's pre-push hook,
/// the state dir's parent).
fn removed_target(protected: &Protected, target: &str, cwd: Option<&Path>) -> Option<String> {
    if target.starts_with('-') {
        return None;
    }
    for path in protected.expanded(target, cwd) {
        if let Some(what) = protected.holds_protected(&path) {
            return Some(format!("command {what} (`{}`)", path.display()));
        }
    }
    None
}

/// What a redirect to `target` would do against hookjudge: a protected place, or git's
/// configuration (only a write of it is refused, so it is not among the places any argument
/// may name).
fn redirected(protected: &Protected, target: &str, cwd: Option<&Path>) -> Option<String> {
    written_target(protected, target, cwd).or_else(|| git_config::written(protected, target, cwd))
}

/// What writing `target` (a word: a path, `--out=PATH`) would do against hookjudge.
fn written_target(protected: &Protected, target: &str, cwd: Option<&Path>) -> Option<String> {
    for candidate in target.split(['=', ':']).chain([target]) {
        if candidate.is_empty() {
            continue;
        }
        for path in protected.expanded(candidate, cwd) {
            if let Some(what) = protected.what(&path) {
                return Some(format!("command {what} (`{}`)", path.display()));
            }
        }
    }
    // A path built from a variable (`$XDG_STATE_HOME/hookjudge/…`, `$D/settings.json`):
    // cannot be resolved, so its literal part decides.
    if target.contains('$') && PROTECTED_NAMES.iter().any(|n| target.contains(n)) {
        return Some(format!(
            "command writes a path built at run time under hookjudge's directories (`{target}`)"
        ));
    }
    None
}

/// The targets of `>`, `>>`, `&>`, `>|` in a simple command's source.
pub(super) fn redirect_targets(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find('>') {
        let (after, target) = redirect_target(&rest[at + 1..]);
        out.extend(target.map(str::to_owned));
        rest = after;
    }
    out
}

/// The file a redirection writes to, read from the text after its first `>`: the rest of the
/// text past the operator (`>>`, `>|`, `>&`), and the target word without its quotes.
pub(super) fn redirect_target(after_gt: &str) -> (&str, Option<&str>) {
    let rest = after_gt.trim_start_matches(['>', '|', '&']).trim_start();
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | ')'))
        .unwrap_or(rest.len());
    let target = rest[..end].trim_matches(['"', '\'']);
    (rest, (!target.is_empty()).then_some(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_assignments_and_plain_mentions_are_not_commands() {
        let cwd = Path::new("/w");
        assert_eq!(shell_command("A=hookjudge", cwd), None);
        assert_eq!(
            shell_command("HOOKJUDGE_APPROVED=1; echo hookjudge", cwd),
            None
        );
        assert!(shell_command("A=1 hookjudge approve", cwd).is_some());
    }

    #[test]
    fn redirect_targets_are_found() {
        assert_eq!(
            redirect_targets("echo {} > ~/.local/state/hookjudge/approvals.json"),
            ["~/.local/state/hookjudge/approvals.json"]
        );
        assert_eq!(redirect_targets("cmd >>out 2>&1"), ["out", "1"]);
    }
}
