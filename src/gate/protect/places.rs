//! The places an agent may not write: hookjudge's state, data (the decision log) and config dirs, the config file
//! `HOOKJUDGE_CONFIG` names, the binary the hooks run, hookjudge's pre-push hook and the
//! agents' settings files, with the directories holding them; and a command word as the paths
//! the shell would pass (`~`, the tracked `cd`, globs matched against the file system).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::HUMAN_ONLY;
use crate::agent::{Agent, LocalFile};
use crate::support::dirs;
use crate::support::paths::normalize;

/// Files holding hooks that the agent table does not name as `init`'s targets: Codex also reads
/// hooks from its `config.toml`, and Crush reads `.crush.json` beside `crush.json`.
const OTHER_HOOK_FILES: [&str; 2] = [".codex/config.toml", ".crush.json"];

/// Settings files whose hook entries an agent may not change, by path suffix: every file the
/// agent table says an agent reads its hooks from (project, checkout and user), so that a new
/// agent in the table is protected without an edit here.
pub(super) fn settings_files() -> &'static [&'static str] {
    static FILES: OnceLock<Vec<&'static str>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files: Vec<&'static str> = Agent::ALL
            .iter()
            .flat_map(|agent| {
                let hooks = agent.hook_files();
                let local = match hooks.local {
                    LocalFile::Own(file) => Some(file),
                    LocalFile::Project | LocalFile::User => None,
                };
                [Some(hooks.project), local, Some(hooks.user)]
            })
            .flatten()
            .chain(OTHER_HOOK_FILES)
            .collect();
        files.sort_unstable();
        files.dedup();
        files
    })
}

/// The places an agent may not write.
pub(super) struct Protected {
    pub(super) dirs: Vec<PathBuf>,
    /// Single files: the config `HOOKJUDGE_CONFIG` names, which applies in full.
    pub(super) files: Vec<PathBuf>,
    pub(super) binary: Option<PathBuf>,
    pub(super) home: Option<PathBuf>,
}

impl Protected {
    pub(super) fn here() -> Protected {
        // The data dir holds the decision log: every decision is logged, and the agent may
        // read the log (`hookjudge log`), not delete it.
        let mut dirs = vec![dirs::state_dir(), dirs::data_dir()];
        if let Some(config) = dirs::config_file().parent() {
            dirs.push(config.to_path_buf());
        }
        let binary = std::env::current_exe()
            .ok()
            .map(|b| b.canonicalize().unwrap_or(b));
        let files = std::env::var_os(crate::support::dirs::CONFIG_ENV)
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
    pub(super) fn what(&self, path: &Path) -> Option<&'static str> {
        let path = normalize(path);
        let real = real_path(&path);
        for p in [&path, &real] {
            if self.dirs.iter().any(|d| p.starts_with(normalize(d))) {
                return Some(
                    "changes hookjudge's own state, config or decision log (trust, approvals, the log)",
                );
            }
            if self.binary.as_deref() == Some(p.as_path()) {
                return Some("changes the hookjudge binary the hooks run");
            }
            if on_path_as(p, &["hookjudge", "hookjudge.exe"]) {
                return Some(
                    "puts a program named hookjudge on PATH, where hooks installed by name find it",
                );
            }
            // `~/.local/bin/git`: a wrapper in front of git can run every push with its hooks
            // off (`-c core.hooksPath=/dev/null`), hookjudge's pre-push hook among them.
            if self.home.as_deref().is_some_and(|h| p.starts_with(h)) && on_path_as(p, &["git"]) {
                return Some(
                    "puts a program named git on PATH in front of git, which can run pushes with hookjudge's pre-push hook off",
                );
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

    /// Whether `path` is a directory above hookjudge's own state dir, config or binary (not
    /// only an agent's settings): what lands there from an archive or a tree that cannot be
    /// read first may be any of them.
    pub(super) fn holds_own(&self, path: &Path) -> bool {
        let path = normalize(path);
        let real = real_path(&path);
        let inside =
            |p: &Path| p != path && p != real && (p.starts_with(&path) || p.starts_with(&real));
        self.dirs.iter().any(|d| inside(&normalize(d)))
            || self.files.iter().any(|f| inside(f))
            || self.binary.as_deref().is_some_and(inside)
    }

    /// Whether `path` is the folder an agent keeps its hook settings in (`.claude`, `~/.codex`),
    /// holding them.
    pub(super) fn is_settings_folder(&self, path: &Path) -> bool {
        let path = normalize(path);
        settings_files().iter().any(|settings| {
            let (dir, _) = settings.split_once('/').unwrap_or((settings, ""));
            path.file_name().is_some_and(|n| n == dir)
                && path.parent().is_some_and(|p| p.join(settings).is_file())
        })
    }

    /// Why `path`, a directory, holds a protected file, if it does (deleting or moving it
    /// takes the file with it).
    pub(super) fn holds_protected(&self, path: &Path) -> Option<&'static str> {
        let path = normalize(path);
        if self.holds_own(&path) {
            return Some(
                "moves or deletes a directory holding hookjudge's state, config or binary",
            );
        }
        for settings in settings_files() {
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
    pub(super) fn expanded(&self, word: &str, cwd: Option<&Path>) -> Vec<PathBuf> {
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
    pub(super) fn word_path(&self, word: &str, cwd: Option<&Path>) -> PathBuf {
        // A word the parser left as written because it holds a variable keeps its double
        // quotes (`"$HOME/.local/state"`): the shell removes them.
        let unquoted;
        let word = if word.contains('"') {
            unquoted = word.replace('"', "");
            unquoted.as_str()
        } else {
            word
        };
        let word = word.trim_start_matches("file://");
        // `~`, `$HOME` and `${HOME}` alone are HOME itself (`find ~ -name … -delete`).
        let word = match word {
            "~" | "$HOME" | "${HOME}" => "~/",
            _ => word,
        };
        let below_home = ["~/", "$HOME/", "${HOME}/"]
            .iter()
            .find_map(|prefix| word.strip_prefix(prefix));
        if let (Some(rest), Some(home)) = (below_home, &self.home) {
            return home.join(rest);
        }
        match cwd {
            Some(cwd) if !word.starts_with('/') => cwd.join(word),
            _ => PathBuf::from(word),
        }
    }
}

pub(super) fn settings_file(path: &Path) -> bool {
    let text = path.to_string_lossy();
    settings_files().iter().any(|s| ends_with_path(&text, s))
}

/// Whether `path` ends with the whole components of `suffix` (`a/crush.json` ends with
/// `crush.json`; `a/mycrush.json` does not).
fn ends_with_path(path: &str, suffix: &str) -> bool {
    path.strip_suffix(suffix)
        .is_some_and(|head| head.is_empty() || head.ends_with('/'))
}

/// The path with its existing part resolved through symlinks.
pub(super) fn real_path(path: &Path) -> PathBuf {
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
    pub(super) fn may_concern(&self, command: &str) -> bool {
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
            || names_a_git_dir(&plain)
            // `git config -e`: an editor writes git's configuration.
            || (plain.contains("config") && (plain.contains(" -e") || plain.contains("--edit")))
            || settings_files()
                .iter()
                .any(|s| plain.contains(s.trim_end_matches(".json").trim_end_matches(".toml")))
            || self.dirs.iter().any(|d| mentions(d))
            || self
                .files
                .iter()
                .any(|f| mentions(f) || f.file_name().is_some_and(|n| mentions(Path::new(n))))
            || self.binary.as_deref().is_some_and(mentions)
            || self.names_a_folder_above(&plain)
    }

    /// Whether a command may name a directory above a protected place (`rm -rf ~/.local/state`,
    /// `mv ~/.cargo ~/.cargo.old`, `cd ~ && rm -rf .local`): below HOME, its path from HOME
    /// (`.local/state`, `.local`), which `~/…`, `$HOME/…` and the absolute path all contain;
    /// elsewhere its absolute path below the top level. HOME and the top-level folders are left
    /// out: they are in too many lines, and deleting them is the catastrophic class's. Nothing
    /// is allocated: this runs on every shell command.
    fn names_a_folder_above(&self, plain: &str) -> bool {
        let home = self.home.as_deref();
        let places = self.dirs.iter().chain(&self.files).chain(&self.binary);
        places.into_iter().any(|place| {
            place
                .ancestors()
                .skip(1)
                .take_while(|above| Some(*above) != home && above.components().count() >= 3)
                .any(|above| {
                    let named = match home.and_then(|h| above.strip_prefix(h).ok()) {
                        Some(below_home) => below_home.to_str(),
                        None => above.to_str(),
                    };
                    named.is_some_and(|n| !n.is_empty() && plain.contains(n))
                })
        })
    }
}

/// Whether a line names a `.git` folder as a word of its own (`cd .git`, `./.git`), not as the
/// end of a URL (`…/repo.git`) or a longer name (`.gitignore`), which are in too many lines to
/// parse them all.
fn names_a_git_dir(plain: &str) -> bool {
    let name_char = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    plain.match_indices(".git").any(|(at, _)| {
        let before = plain[..at].chars().next_back();
        let after = plain[at + 4..].chars().next();
        !before.is_some_and(name_char) && !after.is_some_and(name_char)
    })
}

/// Whether `path` is a file named one of `names` in a directory on PATH: hooks installed by
/// name (team mode) run the first `hookjudge` there, so writing one shadows or replaces it.
fn on_path_as(path: &Path, names: &[&str]) -> bool {
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| names.contains(&n));
    named
        && path.parent().is_some_and(|dir| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .any(|on_path| !on_path.as_os_str().is_empty() && normalize(&on_path) == dir)
        })
}

/// Words in a command line that may concern hookjudge's places (checked before parsing).
pub(super) const PATH_HINTS: [&str; 11] = [
    "hook",
    "bin/git",
    // git's configuration: `.git/config`, `~/.gitconfig`, `~/.config/git/config` (and
    // `cd .git && … >> config`, read by [`names_a_git_dir`]).
    ".git/",
    "git/config",
    "pre-push",
    "gitconfig",
    ".claude",
    ".codex",
    ".gemini",
    "settings",
    "config.toml",
];

/// Names in a path built at run time that could make it a protected path.
pub(super) const PROTECTED_NAMES: [&str; 11] = [
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
