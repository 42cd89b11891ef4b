//! Writing what `init` planned, all or nothing: a write that fails puts back the files already
//! written, and each write is recorded (see [`super::record`]) so that `uninstall` can undo it.

use std::fmt;
use std::path::{Path, PathBuf};

use super::plan::Planned;
use super::{Error, ErrorKind, files, record};

/// The files written.
#[derive(Debug)]
pub struct Written<'a> {
    /// Each file written, with its backup.
    pub files: Vec<(&'a Planned, Option<PathBuf>)>,
    /// Install records that could not be kept (then `uninstall` removes only our entries).
    pub warnings: Vec<Error>,
}

/// A write that failed, and how putting back the files already written went.
#[derive(Debug)]
pub struct WriteFailed {
    pub error: Error,
    /// Each file already written, by name, and whether it was put back.
    pub undone: Vec<(String, Result<(), Error>)>,
}

impl fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        if self.undone.is_empty() {
            return Ok(());
        }
        let undone: Vec<String> = self
            .undone
            .iter()
            .map(|(name, result)| match result {
                Ok(()) => format!("`{name}` was put back"),
                Err(e) => format!("`{name}` could not be put back: {e}"),
            })
            .collect();
        write!(f, " ({})", undone.join("; "))
    }
}

impl std::error::Error for WriteFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Writes every planned file that changes, or none.
pub fn write_all<'a>(plans: &'a [Planned], state: &Path) -> Result<Written<'a>, WriteFailed> {
    let mut written = Written {
        files: Vec::new(),
        warnings: Vec::new(),
    };
    for plan in plans {
        if plan.unchanged() {
            continue;
        }
        let created_dirs = plan
            .path
            .parent()
            .map(record::missing_dirs)
            .unwrap_or_default();
        match files::write(&plan.path, &plan.new, plan.old.is_some())
            .and_then(|backup| make_executable(plan).map(|()| backup))
        {
            Ok(backup) => {
                if plan.record
                    && let Err(e) = save_record(state, plan, created_dirs, backup.as_deref())
                {
                    written.warnings.push(e);
                }
                written.files.push((plan, backup));
            }
            Err(error) => {
                let undone = written
                    .files
                    .iter()
                    .rev()
                    .map(|(p, backup)| (p.name.clone(), put_back(p, backup.as_deref(), state)))
                    .collect();
                return Err(WriteFailed { error, undone });
            }
        }
    }
    Ok(written)
}

/// Makes a script the agent runs as a program executable (one that was there keeps its mode).
fn make_executable(plan: &Planned) -> Result<(), Error> {
    #[cfg(unix)]
    if plan.executable {
        use std::os::unix::fs::PermissionsExt;
        let failed = |e| Error::new(&plan.path, ErrorKind::MakeExecutable(e));
        let meta = std::fs::metadata(&plan.path).map_err(failed)?;
        let mut perms = meta.permissions();
        perms.set_mode(perms.mode() | 0o755);
        std::fs::set_permissions(&plan.path, perms).map_err(failed)?;
    }
    #[cfg(not(unix))]
    let _ = plan;
    Ok(())
}

/// Records one write for `uninstall`.
fn save_record(
    state: &Path,
    plan: &Planned,
    created_dirs: Vec<PathBuf>,
    backup: Option<&Path>,
) -> Result<(), Error> {
    let mut r = record::updated(
        record::load(state, &plan.path),
        &plan.path,
        plan.old.as_deref(),
        &plan.new,
        plan.has_ours_before,
    );
    for m in &plan.created_members {
        if !r.created_members.contains(m) {
            r.created_members.push(m.clone());
        }
    }
    r.created_dirs.extend(created_dirs);
    r.backups.extend(backup.map(Path::to_path_buf));
    record::save(state, &r)
}

/// Puts one written file back as it was, and drops its backup and record.
fn put_back(plan: &Planned, backup: Option<&Path>, state: &Path) -> Result<(), Error> {
    let restored = match &plan.old {
        Some(old) => files::write(&plan.path, old, false).map(|_| ()),
        None => std::fs::remove_file(&plan.path)
            .map_err(|e| Error::new(&plan.path, ErrorKind::Remove(e))),
    };
    // The backup holds what was just put back; one left behind is only clutter.
    if let Some(b) = backup {
        let _ = std::fs::remove_file(b);
    }
    if plan.record {
        record::forget(state, &plan.path);
    }
    restored
}
