//! The git pre-push hook: installed in the repository's hooks folder (or `core.hooksPath`),
//! chaining to a hook that was there before instead of replacing it.

use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("../../hooks-templates/pre-push");
/// Marks our hook, so that a re-install replaces it and an uninstall finds it.
const MARKER: &str = "hookjudge pre-push hook";
/// The previous hook, kept and run after ours.
pub const PREVIOUS: &str = "pre-push.before-hookjudge";

/// The hook's text for `binary`.
pub fn script(binary: &Path) -> String {
    TEMPLATE.replace("@HOOKJUDGE@", &binary.to_string_lossy())
}

/// The hooks folder of the repository at `root`.
pub fn hooks_dir(root: &Path) -> Result<PathBuf, String> {
    let repo = gix::discover(root)
        .map_err(|e| format!("no git repository at `{}`: {e}", root.display()))?;
    let configured = repo
        .config_snapshot()
        .string("core.hooksPath")
        .map(|p| p.to_string());
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
pub fn install(dir: &Path, binary: &Path, dry_run: bool) -> Result<Installed, String> {
    let hook = dir.join("pre-push");
    let wanted = script(binary);
    let current = std::fs::read_to_string(&hook).ok();
    let outcome = match &current {
        Some(text) if text == &wanted => return Ok(Installed::Unchanged),
        Some(text) if text.contains(MARKER) => Installed::Updated,
        Some(_) if dir.join(PREVIOUS).exists() => {
            return Err(format!(
                "both `{}` and `{PREVIOUS}` exist; move one away, then run `hookjudge init --git-hook` again",
                hook.display()
            ));
        }
        Some(_) => Installed::Chained,
        None => Installed::Created,
    };
    if dry_run {
        return Ok(outcome);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    if outcome == Installed::Chained {
        std::fs::rename(&hook, dir.join(PREVIOUS))
            .map_err(|e| format!("cannot keep the existing hook as `{PREVIOUS}`: {e}"))?;
    }
    super::files::write(&hook, &wanted)?;
    make_executable(&hook)?;
    Ok(outcome)
}

/// Removes our hook and puts a chained one back. Returns whether anything changed.
pub fn uninstall(dir: &Path, dry_run: bool) -> Result<bool, String> {
    let hook = dir.join("pre-push");
    let ours = std::fs::read_to_string(&hook).is_ok_and(|t| t.contains(MARKER));
    if !ours {
        return Ok(false);
    }
    if dry_run {
        return Ok(true);
    }
    std::fs::remove_file(&hook).map_err(|e| format!("cannot remove `{}`: {e}", hook.display()))?;
    let _ = std::fs::remove_file(super::files::backup_path(&hook));
    if dir.join(PREVIOUS).exists() {
        std::fs::rename(dir.join(PREVIOUS), &hook)
            .map_err(|e| format!("cannot restore the previous hook: {e}"))?;
    }
    Ok(true)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mut perms = std::fs::metadata(path)
        .map_err(|e| e.to_string())?
        .permissions();
    perms.set_mode(perms.mode() | 0o755);
    std::fs::set_permissions(path, perms)
        .map_err(|e| format!("cannot make `{}` executable: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<(), String> {
    Ok(())
}
