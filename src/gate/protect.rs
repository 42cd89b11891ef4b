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

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::patch;
use super::shell::{self, SimpleCommand, Word};
use crate::agent::HookInput;
use crate::config::dirs;

/// `hookjudge` subcommands only a person may run.
const HUMAN_ONLY: [&str; 4] = ["approve", "trust", "init", "uninstall"];

/// Settings files whose hook entries an agent may not change, by path suffix.
const SETTINGS_FILES: [&str; 5] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
];

/// Keys of an agent's settings that decide whether hookjudge runs.
const HOOK_KEYS: [&str; 4] = ["hooks", "disableAllHooks", "hooksConfig", "env"];

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

/// The agents' file-writing tools.
const FILE_TOOLS: [&str; 6] = [
    "Write",
    "Edit",
    "MultiEdit",
    "apply_patch",
    "write_file",
    "replace",
];

/// Whether `tool` is one of the agents' file-writing tools.
pub fn is_file_tool(tool: &str) -> bool {
    FILE_TOOLS.contains(&tool)
}

/// The reason the gate gives the agent for a denied self-protection action.
pub fn reason(what: &str) -> String {
    format!(
        "hookjudge gate [self-protection]: this {what}. Only the user may change hookjudge's installation, trust or approvals. Do not retry it or work around it; if it is needed, stop and ask the user to do it themselves."
    )
}

/// The places an agent may not write.
struct Protected {
    dirs: Vec<PathBuf>,
    /// Single files: the config `HOOKJUDGE_CONFIG` names, which applies in full.
    files: Vec<PathBuf>,
    binary: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl Protected {
    fn here() -> Protected {
        let mut dirs = vec![dirs::state_dir()];
        if let Some(config) = dirs::config_file().parent() {
            dirs.push(config.to_path_buf());
        }
        let binary = std::env::current_exe()
            .ok()
            .map(|b| b.canonicalize().unwrap_or(b));
        let files = std::env::var_os(crate::config::CONFIG_ENV)
            .filter(|p| !p.is_empty())
            .map(|p| normalize(&PathBuf::from(p)))
            .into_iter()
            .collect();
        Protected {
            dirs,
            files,
            binary,
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// What `path` is, when it is protected.
    fn what(&self, path: &Path) -> Option<&'static str> {
        let path = normalize(path);
        let real = real_path(&path);
        for p in [&path, &real] {
            if self.dirs.iter().any(|d| p.starts_with(normalize(d))) {
                return Some("changes hookjudge's own state or config (trust, approvals)");
            }
            if self.binary.as_deref() == Some(p.as_path()) {
                return Some("changes the hookjudge binary the hooks run");
            }
            if self.files.iter().any(|f| f == p) {
                return Some("changes the config file `HOOKJUDGE_CONFIG` names");
            }
        }
        if path.ends_with(".git/hooks/pre-push")
            && std::fs::read_to_string(&path).is_ok_and(|t| t.contains("hookjudge"))
        {
            return Some("changes hookjudge's git pre-push hook");
        }
        if settings_file(&path) {
            return Some("changes an agent's hook settings");
        }
        None
    }

    /// Why `path`, a directory, holds a protected file, if it does (deleting or moving it
    /// takes the file with it).
    fn holds_protected(&self, path: &Path) -> Option<&'static str> {
        let path = normalize(path);
        let real = real_path(&path);
        let inside =
            |p: &Path| p != path && p != real && (p.starts_with(&path) || p.starts_with(&real));
        if self.dirs.iter().any(|d| inside(&normalize(d)))
            || self.files.iter().any(|f| inside(f))
            || self.binary.as_deref().is_some_and(inside)
        {
            return Some(
                "moves or deletes a directory holding hookjudge's state, config or binary",
            );
        }
        for settings in SETTINGS_FILES {
            let (dir, _) = settings.split_once('/').unwrap_or((settings, ""));
            let named = path.file_name().is_some_and(|n| n == dir);
            if path.join(settings).is_file()
                || (named && path.parent().is_some_and(|p| p.join(settings).is_file()))
            {
                return Some("moves or deletes a directory holding an agent's hook settings");
            }
        }
        for hook in ["pre-push", "hooks/pre-push", ".git/hooks/pre-push"] {
            if std::fs::read_to_string(path.join(hook)).is_ok_and(|t| t.contains("hookjudge")) {
                return Some(
                    "moves or deletes the directory holding hookjudge's git pre-push hook",
                );
            }
        }
        None
    }

    /// A word as the paths the shell would pass: a glob (`.cl*`, `hook?udge`) matched against
    /// the file system; the word itself when nothing matches (the shell passes it unchanged).
    fn expanded(&self, word: &str, cwd: Option<&Path>) -> Vec<PathBuf> {
        let path = self.word_path(word, cwd);
        // The directory may be a glob too (`cd .cl* && …`).
        if !path.to_string_lossy().contains(['*', '?', '[']) {
            return vec![path];
        }
        let mut found = vec![PathBuf::new()];
        for part in path.components() {
            let text = part.as_os_str().to_string_lossy();
            let matcher = text
                .contains(['*', '?', '['])
                .then(|| globset::Glob::new(&text).ok().map(|g| g.compile_matcher()))
                .flatten();
            let mut next = Vec::new();
            for base in &found {
                match &matcher {
                    None => next.push(base.join(part)),
                    Some(m) => {
                        let Ok(entries) = std::fs::read_dir(base) else {
                            continue;
                        };
                        for entry in entries.flatten().take(512) {
                            if m.is_match(entry.file_name()) {
                                next.push(base.join(entry.file_name()));
                            }
                        }
                    }
                }
            }
            next.truncate(512);
            found = next;
        }
        if found.is_empty() {
            found.push(path);
        }
        found
    }

    /// A word of a command as a path: `~` expanded, relative to `cwd`.
    fn word_path(&self, word: &str, cwd: Option<&Path>) -> PathBuf {
        let word = word.trim_start_matches("file://");
        if let (Some(rest), Some(home)) = (word.strip_prefix("~/"), &self.home) {
            return home.join(rest);
        }
        match cwd {
            Some(cwd) if !word.starts_with('/') => cwd.join(word),
            _ => PathBuf::from(word),
        }
    }
}

fn settings_file(path: &Path) -> bool {
    let text = path.to_string_lossy();
    SETTINGS_FILES.iter().any(|s| text.ends_with(s))
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The path with its existing part resolved through symlinks.
fn real_path(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
    let mut real = existing.canonicalize().unwrap_or(existing);
    for name in rest.iter().rev() {
        real.push(name);
    }
    real
}

impl Protected {
    /// Quick test before parsing: could `command` concern hookjudge at all?
    fn may_concern(&self, command: &str) -> bool {
        let plain: String = command
            .chars()
            .filter(|c| !matches!(c, '\\' | '"' | '\''))
            .collect();
        let mentions = |p: &Path| {
            p.to_str()
                .is_some_and(|p| !p.is_empty() && plain.contains(p))
        };
        plain.contains("hookjudge")
            || PATH_HINTS.iter().any(|h| plain.contains(h))
            || plain.contains(['*', '?', '['])
            || HUMAN_ONLY
                .iter()
                .filter(|v| **v != "init")
                .any(|v| plain.contains(&format!(" {v}")))
            || plain.contains(".git/hooks")
            || SETTINGS_FILES
                .iter()
                .any(|s| plain.contains(s.trim_end_matches(".json").trim_end_matches(".toml")))
            || self.dirs.iter().any(|d| mentions(d))
            || self
                .files
                .iter()
                .any(|f| mentions(f) || f.file_name().is_some_and(|n| mentions(Path::new(n))))
            || self.binary.as_deref().is_some_and(mentions)
    }
}

/// What a shell command would do against hookjudge, if anything: the text for [`reason`].
pub fn shell_command(command: &str, cwd: &Path) -> Option<String> {
    let protected = Protected::here();
    if let Some(patch) = shell_patch(command)
        && let Some(what) = patch_check(&protected, patch, Some(cwd))
    {
        return Some(what);
    }
    if !protected.may_concern(command) {
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
            if let Some(what) = written_target(&protected, &target, dir.as_deref()) {
                return Some(what);
            }
        }
        let script = shell::parse(&text, dir.as_deref().unwrap_or(cwd));
        // `cd DIR && echo x > f`: the shell may read `f` from any directory a `cd` reached.
        for target in redirect_targets(&text) {
            for cmd in &script.commands {
                if cmd.cwd != dir
                    && let Some(what) = written_target(&protected, &target, cmd.cwd.as_deref())
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
    // Redirects of this command, from the directory it runs in (after `cd`).
    for target in &cmd.writes {
        if let Some(what) = written_target(protected, target.text(), cmd.cwd.as_deref()) {
            return Some(what);
        }
    }
    // Writes to protected files: any argument that is a protected path, unless the program
    // only reads.
    if !read_only(cmd, &words) {
        let removes = REMOVERS.contains(&program);
        for target in &words[1..] {
            if let Some(what) = written_target(protected, target, cmd.cwd.as_deref()) {
                return Some(what);
            }
            if removes && let Some(what) = removed_target(protected, target, cmd.cwd.as_deref()) {
                return Some(what);
            }
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

/// Words in a command line that may concern hookjudge's places (checked before parsing).
const PATH_HINTS: [&str; 6] = [
    "hook",
    ".claude",
    ".codex",
    ".gemini",
    "settings",
    "config.toml",
];

/// Programs that move, delete, truncate or change the mode of what they are given: naming a
/// directory that holds a protected file is as bad as naming the file.
const REMOVERS: [&str; 13] = [
    "mv", "rm", "rmdir", "unlink", "shred", "truncate", "chmod", "chown", "chgrp", "chattr", "git",
    "rsync", "find",
];

/// Programs whose last argument may be a directory the other arguments land in.
const COPIERS: [&str; 4] = ["mv", "cp", "ln", "install"];

/// Names in a path built at run time that could make it a protected path.
const PROTECTED_NAMES: [&str; 11] = [
    "hookjudge",
    ".claude",
    ".codex",
    ".gemini",
    "settings.json",
    "settings.local.json",
    "hooks.json",
    "config.toml",
    "approvals.json",
    "trust.json",
    "pre-push",
];

/// Signs that interpreter code writes, moves or deletes files, or runs programs.
const WRITE_HINTS: [&str; 18] = [
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
fn interpreter_writes(program: &str, code: &str) -> Option<String> {
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

/// Whether the program, found on `PATH`, is the hookjudge binary under another name (only
/// looked up for a human-only subcommand).
fn on_path_is(cmd: &SimpleCommand, words: &[&str], protected: &Protected) -> bool {
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
        .is_some_and(|p| p == *binary)
}

/// The human-only subcommand in a string that runs `hookjudge SUB`, if any.
fn names_human_only(text: &str) -> Option<&'static str> {
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
const ARGUMENT_FEEDERS: [&str; 2] = ["xargs", "parallel"];

/// A hookjudge command line whose subcommand (or, for `check`, whose options) is computed at
/// run time (`$(…)`, `$VAR`, `"$@"`): it may be a subcommand only the user may run, so it is
/// denied like one.
fn computed_arguments(args: &[Word]) -> Option<String> {
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
fn subcommand<'a>(args: &[&'a str]) -> Option<&'a str> {
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
fn option_value(argv: &[Word], long: &[&str], short: char) -> Option<Word> {
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

fn read_only(cmd: &SimpleCommand, words: &[&str]) -> bool {
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

/// The targets of `>`, `>>`, `&>`, `>|` in a simple command's source.
fn redirect_targets(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find('>') {
        rest = rest[at + 1..]
            .trim_start_matches(['>', '|', '&'])
            .trim_start();
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | ')'))
            .unwrap_or(rest.len());
        let target = rest[..end].trim_matches(['"', '\'']);
        if !target.is_empty() {
            out.push(target.to_owned());
        }
    }
    out
}

/// What a file-writing tool call would do against hookjudge, if anything.
pub fn file_tool(input: &HookInput) -> Option<String> {
    let tool = input.tool_name.as_deref()?;
    let tool_input = input.tool_input.as_ref()?;
    let cwd = input.cwd.as_deref().map(PathBuf::from);
    let protected = Protected::here();
    let resolve = |p: &str| protected.word_path(p, cwd.as_deref());
    let patch = ["command", "input", "patch"]
        .iter()
        .find_map(|k| tool_input[k].as_str())
        .filter(|p| tool == "apply_patch" || p.trim_start().starts_with("*** Begin Patch"));
    if let Some(patch) = patch {
        return patch_check(&protected, patch, cwd.as_deref());
    }
    let path = tool_input["file_path"]
        .as_str()
        .or(tool_input["path"].as_str())
        .or(tool_input["absolute_path"].as_str())?;
    let path = resolve(path);
    let what = protected.what(&path)?;
    if settings_file(&path) {
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        let after = edited(tool, tool_input, &before)?;
        if !changes_hooks(&path, &before, &after) {
            return None;
        }
    }
    Some(format!("edit {what} (`{}`)", path.display()))
}

/// The file's text after the tool call; `None` when the call leaves it unchanged.
fn edited(tool: &str, input: &Value, before: &str) -> Option<String> {
    let replace = |text: &str, edit: &Value| -> String {
        let old = edit["old_string"].as_str().unwrap_or("");
        let new = edit["new_string"].as_str().unwrap_or("");
        if old.is_empty() {
            return format!("{new}{text}");
        }
        if edit["replace_all"].as_bool() == Some(true)
            || edit["expected_replacements"]
                .as_u64()
                .is_some_and(|n| n > 1)
        {
            text.replace(old, new)
        } else {
            text.replacen(old, new, 1)
        }
    };
    let after = match tool {
        "Write" | "write_file" => input["content"].as_str().unwrap_or("").to_owned(),
        "MultiEdit" => input["edits"]
            .as_array()?
            .iter()
            .fold(before.to_owned(), |t, e| replace(&t, e)),
        _ => replace(before, input),
    };
    (after != before).then_some(after)
}

/// Whether the change from `before` to `after` touches what decides whether hooks run.
fn changes_hooks(path: &Path, before: &str, after: &str) -> bool {
    if path.extension().is_some_and(|e| e == "toml") {
        let changed = diff_lines(before, after);
        return changed.iter().any(|l| mentions_hooks(l));
    }
    let parse = |t: &str| -> Option<Value> {
        if t.trim().is_empty() {
            Some(Value::Object(Default::default()))
        } else {
            serde_json::from_str(t).ok()
        }
    };
    let (Some(b), Some(a)) = (parse(before), parse(after)) else {
        return true; // a settings file that does not parse any more turns its hooks off
    };
    HOOK_KEYS.iter().any(|k| b.get(k) != a.get(k))
}

fn mentions_hooks(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    [
        "hook",
        "hookjudge",
        "disableallhooks",
        "\"env\"",
        "[env",
        "env =",
    ]
    .iter()
    .any(|k| lower.contains(k))
}

/// Lines only in one of the two texts.
fn diff_lines(before: &str, after: &str) -> Vec<String> {
    let b: std::collections::HashSet<&str> = before.lines().collect();
    let a: std::collections::HashSet<&str> = after.lines().collect();
    b.symmetric_difference(&a).map(|l| l.to_string()).collect()
}

/// What an `apply_patch` patch would do against hookjudge: each file it touches, with a
/// settings file judged on its content after the patch (as the `Write`/`Edit` path does).
fn patch_check(protected: &Protected, patch: &str, cwd: Option<&Path>) -> Option<String> {
    for file in patch::parse(patch) {
        for (name, moved) in [(Some(&file.path), false), (file.move_to.as_ref(), true)] {
            let Some(name) = name else { continue };
            let path = protected.word_path(name, cwd);
            let Some(what) = protected.what(&path) else {
                continue;
            };
            if settings_file(&path)
                && !moved
                && file.action != patch::Action::Delete
                && file.move_to.is_none()
            {
                let before = std::fs::read_to_string(&path).unwrap_or_default();
                let after = match file.action {
                    patch::Action::Add => Some(file.added()),
                    _ => patch::apply(&before, &file.chunks),
                };
                match after {
                    Some(after) if !changes_hooks(&path, &before, &after) => continue,
                    Some(_) => {}
                    None => {
                        return Some(format!(
                            "patch does not apply to {} and {what} (`{}`)",
                            "the file as it is",
                            path.display()
                        ));
                    }
                }
            }
            return Some(format!("patch {what} (`{}`)", path.display()));
        }
    }
    None
}

/// The patch text of `apply_patch` run through the shell (`apply_patch <<'EOF' … EOF`,
/// `apply_patch '…'`), which Codex applies as a patch.
fn shell_patch(command: &str) -> Option<&str> {
    let start = command.find("*** Begin Patch")?;
    if !command.contains("apply_patch") && !command.contains("applypatch") {
        return None;
    }
    let rest = &command[start..];
    let end = rest
        .find("*** End Patch")
        .map_or(rest.len(), |e| e + "*** End Patch".len());
    Some(&rest[..end])
}

/// Programs that write the files named in their arguments (besides redirects).
const ARTIFACT_WRITERS: [&str; 12] = [
    "touch", "cp", "mv", "ln", "install", "tee", "dd", "rsync", "sed", "truncate", "echo", "printf",
];

/// A command that writes a file the gate reads as proof of a test run (`gate.artifacts`:
/// `.pytest_cache/v/cache/lastfailed`, `junit.xml`, …) without running the tests: a faked
/// verification, gated as a hook bypass like a write to `.hookjudge/verified`. `artifacts` is
/// asked for only when the line may name one.
pub fn faked_evidence(
    command: &str,
    cwd: &Path,
    artifacts: impl FnOnce() -> Vec<String>,
) -> Option<super::classify::Gated> {
    let lower = command.to_ascii_lowercase();
    // A user-added glob can name anything: any line that writes a file may concern it.
    let writes = lower.contains('>')
        || lower
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|w| ARTIFACT_WRITERS.contains(&w));
    if !writes {
        return None;
    }
    let mut globs: Vec<String> = super::evidence::DEFAULT_ARTIFACTS
        .iter()
        .map(|g| (*g).to_owned())
        .collect();
    globs.extend(artifacts());
    let is_artifact = |word: &str, dir: Option<&Path>| {
        let path = match dir {
            Some(dir) if !word.starts_with('/') => dir.join(word),
            _ => PathBuf::from(word),
        };
        let parts: Vec<String> = normalize(&path)
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        // Relative to any directory (the repository root is one of them); a file only (the
        // directories holding artifacts may be made by anyone).
        (0..parts.len()).any(|i| {
            let rel = parts[i..].join("/");
            super::glob::covers(&rel, &globs)
                && globs.iter().any(|g| {
                    globset::Glob::new(g)
                        .ok()
                        .is_some_and(|g| g.compile_matcher().is_match(&rel))
                })
        })
    };
    let script = shell::parse(command, cwd);
    let redirected = redirect_targets(command);
    for cmd in &script.commands {
        let program = cmd.program().unwrap_or("");
        let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
        let by_args = ARTIFACT_WRITERS.contains(&program)
            && !matches!(program, "echo" | "printf")
            && words[1..]
                .iter()
                .any(|w| !w.starts_with('-') && is_artifact(w, cmd.cwd.as_deref()));
        let by_redirect = cmd
            .writes
            .iter()
            .map(Word::text)
            .chain(redirected.iter().map(String::as_str))
            .any(|w| is_artifact(w, cmd.cwd.as_deref()));
        if by_args || by_redirect {
            return Some(super::classify::Gated {
                class: super::classify::Class::HookBypass,
                command: cmd.source.clone(),
                target: super::classify::Target {
                    dir: cmd.cwd.clone(),
                    git_dir: None,
                    work_tree: None,
                },
                push: None,
                destructive: None,
                what: "writes a file hookjudge reads as proof of a test run (`gate.artifacts`) without running the tests".into(),
            });
        }
    }
    None
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

    #[test]
    fn settings_edits_that_leave_hooks_alone_pass() {
        let path = Path::new("/r/.claude/settings.json");
        let before = r#"{"permissions": {"allow": []}, "hooks": {"Stop": []}}"#;
        assert!(!changes_hooks(
            path,
            before,
            r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": []}}"#
        ));
        assert!(changes_hooks(
            path,
            before,
            r#"{"permissions": {"allow": []}, "hooks": {"Stop": []}, "disableAllHooks": true}"#
        ));
        assert!(changes_hooks(path, before, "not json"));
    }
}
