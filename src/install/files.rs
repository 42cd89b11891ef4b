//! Writing users' files safely: follow symlinks to the file they name, refuse read-only files,
//! keep a backup that never replaces an earlier one, write atomically (a temporary file renamed
//! over the original, permissions kept), and show a diff for `--dry-run`.

use std::io;
use std::path::{Path, PathBuf};

use super::{Error, ErrorKind};

/// The file `path` names after following symlinks (also a dangling one: the file it would
/// create), so that a dotfiles link stays a link and its target is edited.
pub fn resolve(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&current) {
            Ok(target) => {
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                }
            }
            Err(_) => return current,
        }
    }
    current
}

/// The suffix of every backup, which the `.gitignore` line matches.
pub const BACKUP_SUFFIX: &str = ".hookjudge-backup";

/// Where the next backup of `path` goes: `<name>.hookjudge-backup`, or when that exists
/// `<name>.hookjudge-backup.2`, `.3`, …: an earlier backup is never overwritten.
pub fn backup_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let first = path.with_file_name(format!("{name}{BACKUP_SUFFIX}"));
    if std::fs::symlink_metadata(&first).is_err() {
        return first;
    }
    (2..)
        .map(|n| path.with_file_name(format!("{name}{BACKUP_SUFFIX}.{n}")))
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .expect("some number is free")
}

/// A file's text, `None` when it does not exist. A file that is not UTF-8 is refused, since
/// it cannot be edited as text.
pub fn read(path: &Path) -> Result<Option<String>, Error> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| Error::new(path, ErrorKind::NotText)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::new(path, ErrorKind::Read(e))),
    }
}

/// Refuses a file that exists and is read-only, before anything is written.
pub fn check_writable(path: &Path) -> Result<(), Error> {
    match std::fs::metadata(resolve(path)) {
        Ok(meta) if meta.permissions().readonly() => Err(Error::new(path, ErrorKind::ReadOnly)),
        _ => Ok(()),
    }
}

/// Replaces the file `path` names with `contents`: backup first (when `backup` and the file
/// exists), then an atomic rename. Returns the backup's path.
pub fn write(path: &Path, contents: &str, backup: bool) -> Result<Option<PathBuf>, Error> {
    let path = &resolve(path);
    let existing = std::fs::metadata(path).ok();
    if let Some(meta) = &existing
        && meta.permissions().readonly()
    {
        return Err(Error::new(path, ErrorKind::ReadOnly));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::new(dir, ErrorKind::CreateDir(e)))?;
    }
    let backup = match &existing {
        Some(_) if backup => {
            let b = backup_path(path);
            std::fs::copy(path, &b).map_err(|source| {
                Error::new(
                    path,
                    ErrorKind::Backup {
                        backup: b.clone(),
                        source,
                    },
                )
            })?;
            Some(b)
        }
        _ => None,
    };
    let tmp = path.with_file_name(format!(
        ".{}.hookjudge-{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        std::fs::write(&tmp, contents)?;
        if let Some(meta) = &existing {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::new(path, ErrorKind::Write(e)));
    }
    Ok(backup)
}

/// A unified-style line diff of two small texts.
pub fn diff(path: &Path, old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    // Longest common subsequence table; settings files are small.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = format!("--- {}\n+++ {}\n", path.display(), path.display());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] > lcs[i + 1][j]) {
            out.push_str(&format!("+{}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("-{}\n", a[i]));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_only_changes() {
        let d = diff(Path::new("f"), "a\nb\nc\n", "a\nx\nc\nd\n");
        assert_eq!(d, "--- f\n+++ f\n-b\n+x\n+d\n");
    }

    #[test]
    fn write_keeps_a_backup_and_refuses_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        assert_eq!(write(&p, "{}", true).unwrap(), None);
        let backup = write(&p, "{\"a\":1}", true).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "{}");
        let second = write(&p, "{\"a\":2}", true).unwrap().unwrap();
        assert_ne!(second, backup, "an earlier backup is never overwritten");
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "{}");
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "{\"a\":1}");
        assert!(second.to_string_lossy().ends_with(".hookjudge-backup.2"));
        let mut perms = std::fs::metadata(&p).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&p, perms).unwrap();
        assert!(matches!(
            write(&p, "x", true).unwrap_err().kind,
            ErrorKind::ReadOnly
        ));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":2}");
    }
}

#[cfg(all(test, unix))]
mod symlink_tests {
    use super::*;

    #[test]
    fn a_symlinked_file_stays_a_link_and_its_target_is_edited() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("dotfiles")).unwrap();
        let target = dir.path().join("dotfiles/settings.json");
        std::fs::write(&target, "{}").unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink("dotfiles/settings.json", &link).unwrap();
        assert_eq!(resolve(&link), dir.path().join("dotfiles/settings.json"));
        let backup = write(&link, "{\"a\":1}", true).unwrap().unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{\"a\":1}");
        assert_eq!(backup.parent().unwrap(), target.parent().unwrap());
    }
}
