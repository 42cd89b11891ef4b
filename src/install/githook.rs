//! The git pre-push hook: installed in the repository's hooks folder (or `core.hooksPath`),
//! chaining to a hook that was there before instead of replacing it.
//!
//! A hook in a folder inside the work tree (`core.hooksPath=.husky`) is committed, so it names
//! `hookjudge` by name and lets a teammate without hookjudge push (with a notice) unless the
//! repository requires it; a hook in `.git/hooks` is this clone's own and names the binary.

use std::path::{Path, PathBuf};

use super::{Error, ErrorKind};

const TEMPLATE: &str = include_str!("../../hooks-templates/pre-push");
/// Marks our hook, so that a re-install replaces it and an uninstall finds it.
pub const MARKER: &str = "hookjudge pre-push hook";
/// The previous hook, kept and run after ours.
pub const PREVIOUS: &str = "pre-push.before-hookjudge";

/// How the hook finds hookjudge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// This binary, by absolute path; the push stops when it is gone.
    Absolute(PathBuf),
    /// `hookjudge` from PATH; `required` stops the push when there is none.
    OnPath { required: bool },
}

/// The hook's text.
pub fn script(program: &Program) -> String {
    let (name, required) = match program {
        Program::Absolute(p) => (p.to_string_lossy().into_owned(), true),
        Program::OnPath { required } => ("hookjudge".to_owned(), *required),
    };
    TEMPLATE
        .replace("@HOOKJUDGE@", &name)
        .replace("@REQUIRED@", if required { "yes" } else { "no" })
}

/// The program named in an installed hook's text: `hookjudge` or an absolute path.
pub fn program_of(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("hookjudge=\""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
}

/// Whether `dir` is inside the work tree at `root` (so committed, or meant to be).
pub fn is_shared(dir: &Path, root: &Path) -> bool {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (dir, root) = (canonical(dir), canonical(root));
    dir.starts_with(&root) && !dir.starts_with(root.join(".git"))
}

/// The hooks folder of the repository at `root`.
pub fn hooks_dir(root: &Path) -> Result<PathBuf, Error> {
    let repo =
        gix::discover(root).map_err(|e| Error::new(root, ErrorKind::NoRepository(Box::new(e))))?;
    // An empty `core.hooksPath` runs no hook (git reads it as "none"): the hook goes where it
    // runs once that is unset, not into the work tree an empty path would name.
    let configured = repo
        .config_snapshot()
        .string("core.hooksPath")
        .map(|p| p.to_string())
        .filter(|p| !p.trim().is_empty());
    Ok(match configured {
        Some(p) if Path::new(&p).is_absolute() => PathBuf::from(p),
        Some(p) => repo.workdir().unwrap_or(root).join(p),
        None => repo.git_dir().join("hooks"),
    })
}

/// What installing changed.
#[derive(Debug, PartialEq, Eq)]
pub enum Installed {
    Created,
    Updated,
    Unchanged,
    /// An existing hook was kept as `pre-push.before-hookjudge` and is chained.
    Chained,
}

/// Installs the hook (`dry_run`: only says what it would do).
pub fn install(dir: &Path, program: &Program, dry_run: bool) -> Result<Installed, Error> {
    let hook = dir.join("pre-push");
    let wanted = script(program);
    let current = std::fs::read_to_string(&hook).ok();
    let outcome = match &current {
        Some(text) if text == &wanted => return Ok(Installed::Unchanged),
        Some(text) if text.contains(MARKER) => Installed::Updated,
        Some(_) if dir.join(PREVIOUS).exists() => {
            return Err(Error::new(hook, ErrorKind::PreviousHookInTheWay));
        }
        Some(_) => Installed::Chained,
        None => Installed::Created,
    };
    if dry_run {
        return Ok(outcome);
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::new(dir, ErrorKind::CreateDir(e)))?;
    if outcome == Installed::Chained {
        std::fs::rename(&hook, dir.join(PREVIOUS))
            .map_err(|e| Error::new(&hook, ErrorKind::KeepPreviousHook(e)))?;
    }
    super::files::write(&hook, &wanted, false)?;
    make_executable(&hook)?;
    Ok(outcome)
}

/// Removes our hook and puts a chained one back. Returns whether anything changed.
pub fn uninstall(dir: &Path, dry_run: bool) -> Result<bool, Error> {
    let hook = dir.join("pre-push");
    let ours = std::fs::read_to_string(&hook).is_ok_and(|t| t.contains(MARKER));
    if !ours {
        return Ok(false);
    }
    if dry_run {
        return Ok(true);
    }
    std::fs::remove_file(&hook).map_err(|e| Error::new(&hook, ErrorKind::Remove(e)))?;
    if dir.join(PREVIOUS).exists() {
        std::fs::rename(dir.join(PREVIOUS), &hook)
            .map_err(|e| Error::new(&hook, ErrorKind::RestorePreviousHook(e)))?;
    }
    Ok(true)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    let failed = |e| Error::new(path, ErrorKind::MakeExecutable(e));
    let mut perms = std::fs::metadata(path).map_err(failed)?.permissions();
    perms.set_mode(perms.mode() | 0o755);
    std::fs::set_permissions(path, perms).map_err(failed)
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<(), Error> {
    Ok(())
}
