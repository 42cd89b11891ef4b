//! Taking out what `init` put in: per file, the original bytes when nothing changed since
//! `init` (see [`super::record`]), otherwise only our entries; and the git hook, with the hook
//! that was there before put back.

use std::fmt;
use std::path::{Path, PathBuf};

use super::plan::SCHEMA_FILE;
use super::record::{self, Before, Record};
use super::settings::{self, Scope};
use super::target::Target;
use super::{Error, ErrorKind, codex_boundary, files, githook, ignore};
use crate::agent::Agent;
use crate::support::jsonc::{self, Encoding};

/// What `uninstall` did (or, in a dry run, would do) to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undone {
    /// Put back as it was before `init`.
    Restored,
    /// Removed: `init` had created it.
    Removed,
    /// Our entries taken out, the rest kept.
    Edited,
}

/// One file `uninstall` changed.
#[derive(Debug)]
pub enum Removal {
    File {
        /// The file as the user reads it ([`Target::shown`]).
        name: String,
        undone: Undone,
        /// In a dry run, the diff of the change.
        diff: Option<String>,
        /// The backups `init` kept beside it, which go with it (shown as the user reads them).
        backups: Vec<String>,
    },
    /// Our git pre-push hook.
    GitHook {
        name: String,
        /// The hook that was there before is back.
        previous_back: bool,
    },
}

/// A file `uninstall` could not change, and the agent whose settings it is.
#[derive(Debug)]
pub struct UndoError {
    pub error: Error,
    pub agent: Option<Agent>,
}

impl UndoError {
    /// The command to run once the file is fixed.
    pub fn hint(&self) -> Option<String> {
        match (&self.error.kind, self.agent) {
            (ErrorKind::NotJson { .. }, Some(agent)) => Some(format!(
                "fix the file, then run `hookjudge uninstall --agent {}` again",
                agent.name()
            )),
            _ => None,
        }
    }
}

impl fmt::Display for UndoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for UndoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<Error> for UndoError {
    fn from(error: Error) -> Self {
        UndoError { error, agent: None }
    }
}

/// Takes out (or, with `dry_run`, works out the diff of taking out) every file's part of ours
/// and the git hook.
pub fn remove_all(t: &Target, dry_run: bool, state: &Path) -> Result<Vec<Removal>, UndoError> {
    let mut targets: Vec<(PathBuf, Option<Agent>)> = t
        .settings_files()
        .into_iter()
        .map(|(agent, path)| (path, Some(agent)))
        .collect();
    let owned: Vec<PathBuf> = t.agents.iter().filter_map(|a| t.owned_file(*a)).collect();
    targets.extend(owned.iter().map(|path| (path.clone(), None)));
    if t.all_agents() {
        if let Some(ignore) = t.ignore_file() {
            targets.push((ignore, None));
        }
        if t.scope != Scope::User {
            targets.push((t.root.join(SCHEMA_FILE), None));
        }
    }
    // The settings files this pass takes our entries out of: a dry run leaves them as they
    // are, so they are counted as the real run leaves them.
    let emptied: Vec<PathBuf> = targets
        .iter()
        .filter(|(_, agent)| agent.is_some())
        .map(|(path, _)| files::resolve(path))
        .collect();
    let mut removals = Vec::new();
    // Codex's config first: a `.codex` folder `init` created goes with the hooks file after it.
    if t.agents.contains(&Agent::Codex) {
        let path = codex_boundary::config_path(t.scope, &t.root, &t.home);
        // Only what `init --boundary agent` recorded: the file is the user's otherwise.
        if record::load(state, &files::resolve(&path)).is_some() {
            let keys =
                |text: &str, members: &[String]| settings::remove_codex_sandbox(text, members);
            if let Some(undid) = undo(&path, &t.diff_name(&path), dry_run, state, &keys)? {
                removals.push(Removal::File {
                    name: t.shown(&path),
                    undone: undid.undone,
                    diff: undid.diff,
                    backups: undid.backups.iter().map(|b| t.shown(b)).collect(),
                });
            }
        }
    }
    for (path, agent) in &targets {
        // The schema serves every scope: it goes with the last install in this repository,
        // which is known once the settings files before it in the list are done.
        if agent.is_none() && path.ends_with(SCHEMA_FILE) && installed_anywhere(t, &emptied) {
            continue;
        }
        if let Some(agent) = agent {
            refuse_if_not_json(path, *agent)?;
        }
        let is_owned = owned.contains(path);
        let surgical = |text: &str, members: &[String]| -> String {
            match agent {
                Some(agent) => {
                    let (encoding, body) = Encoding::decode(text);
                    if jsonc::parse(&body).is_err() {
                        return text.to_owned();
                    }
                    encoding.encode(&settings::remove(&body, &settings::events(*agent), members))
                }
                // A plugin changed since `init` is the user's now: left as it is.
                None if is_owned || path.ends_with(SCHEMA_FILE) => text.to_owned(),
                None => ignore::remove(text),
            }
        };
        // Named before the change, as the file was.
        let name = t.shown(path);
        let diff_name = t.diff_name(path);
        if let Some(undid) = undo(path, &diff_name, dry_run, state, &surgical)? {
            removals.push(Removal::File {
                name,
                undone: undid.undone,
                diff: undid.diff,
                backups: undid.backups.iter().map(|b| t.shown(b)).collect(),
            });
        }
    }
    if let Ok(dir) = githook::hooks_dir(&t.root)
        && githook::uninstall(&dir, dry_run)?
    {
        removals.push(Removal::GitHook {
            name: t.shown(&dir.join("pre-push")),
            previous_back: dir.join("pre-push").exists() || dir.join(githook::PREVIOUS).exists(),
        });
    }
    Ok(removals)
}

/// Whether any agent's settings in any scope still run hookjudge once this pass is done: the
/// files in `emptied` (resolved) lose our entries in it, and count as having none.
fn installed_anywhere(t: &Target, emptied: &[PathBuf]) -> bool {
    Agent::INSTALLABLE.into_iter().any(|a| {
        [Scope::Project, Scope::Local, Scope::User]
            .into_iter()
            .map(|scope| settings::settings_path(a, scope, &t.root, &t.home))
            .filter(|path| !emptied.contains(&files::resolve(path)))
            .any(|path| {
                files::read(&path).ok().flatten().is_some_and(|raw| {
                    !settings::installed(a, &Encoding::decode(&raw).1).is_empty()
                })
            })
    })
}

/// A settings file that is not JSON is reported, never rewritten.
fn refuse_if_not_json(path: &Path, agent: Agent) -> Result<(), UndoError> {
    let real = files::resolve(path);
    if let Ok(Some(raw)) = files::read(&real)
        && let Err(e) = jsonc::parse(&Encoding::decode(&raw).1)
    {
        return Err(UndoError {
            error: Error::new(
                path,
                ErrorKind::NotJson {
                    line: e.line,
                    column: e.column,
                    message: e.message,
                },
            ),
            agent: Some(agent),
        });
    }
    Ok(())
}

/// What [`undo`] did to one file (or, in a dry run, would do).
struct Undid {
    undone: Undone,
    /// In a dry run, the diff of the change.
    diff: Option<String>,
    /// The backups removed with it (in a dry run, that would be).
    backups: Vec<PathBuf>,
}

/// Takes our part out of one file: the original bytes when nothing changed since `init`,
/// otherwise only our entries (`surgical`). `None` when there was nothing of ours; the diff
/// in a dry run; the backups removed with it (or, in a dry run, that would be).
fn undo(
    path: &Path,
    diff_name: &str,
    dry_run: bool,
    state: &Path,
    surgical: &dyn Fn(&str, &[String]) -> String,
) -> Result<Option<Undid>, Error> {
    let real = files::resolve(path);
    let rec: Option<Record> = record::load(state, &real);
    let Some(current) = files::read(&real)? else {
        record::forget(state, &real);
        return Ok(None);
    };
    let created = rec.as_ref().is_some_and(|r| r.before == Before::Absent);
    let members: &[String] = rec.as_ref().map_or(&[], |r| &r.created_members);
    let (new, undone) = match &rec {
        Some(r) if r.written == current => match &r.before {
            Before::Absent => (None, Undone::Removed),
            Before::Bytes(b) => (Some(b.clone()), Undone::Restored),
            Before::Unknown => (Some(surgical(&current, members)), Undone::Edited),
        },
        _ => {
            let new = surgical(&current, members);
            if created && (new.trim().is_empty() || is_empty_object(&new)) {
                (None, Undone::Removed)
            } else {
                (Some(new), Undone::Edited)
            }
        }
    };
    if new.as_deref() == Some(current.as_str()) {
        if !dry_run {
            record::forget(state, &real);
        }
        return Ok(None);
    }
    // The backups hold nothing the restored (or never existing) file does not.
    let backups: Vec<PathBuf> = match undone {
        Undone::Restored | Undone::Removed => rec
            .iter()
            .flat_map(|r| &r.backups)
            .filter(|b| b.exists())
            .cloned()
            .collect(),
        Undone::Edited => Vec::new(),
    };
    if dry_run {
        let diff = files::diff(diff_name, Some(&current), new.as_deref());
        return Ok(Some(Undid {
            undone,
            diff: Some(diff),
            backups,
        }));
    }
    match &new {
        None => {
            std::fs::remove_file(&real).map_err(|e| Error::new(&real, ErrorKind::Remove(e)))?;
            for dir in rec.iter().flat_map(|r| r.created_dirs.iter().rev()) {
                // Only when empty: never a folder the user has put something in since.
                let _ = std::fs::remove_dir(dir);
            }
        }
        Some(text) => {
            let exact = undone == Undone::Restored;
            files::write(&real, text, !exact)?;
        }
    }
    let mut removed = Vec::new();
    for backup in backups {
        if std::fs::remove_file(&backup).is_ok() {
            removed.push(backup);
        }
    }
    record::forget(state, &real);
    Ok(Some(Undid {
        undone,
        diff: None,
        backups: removed,
    }))
}

fn is_empty_object(text: &str) -> bool {
    jsonc::parse(&Encoding::decode(text).1)
        .is_ok_and(|p| matches!(&p.root.kind, jsonc::Kind::Object(m) if m.is_empty()))
}
