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

/// Lines of context around each change in a diff, as `diff -u` and `git diff` show.
const CONTEXT: usize = 3;

/// One line of an edit script.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Same,
    Removed,
    Added,
}

/// A unified diff of a small text file, as `patch -p1` applies it from the folder `name` is
/// relative to (`a/NAME`, `b/NAME`; `/dev/null` for a file created or removed), with hunks of
/// 3 lines of context; empty when nothing changes. Line ends are kept as they are (CRLF
/// included), and a last line without one is marked as `diff` marks it.
pub fn diff(name: &str, old: Option<&str>, new: Option<&str>) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.unwrap_or("").split_inclusive('\n').collect();
    let b: Vec<&str> = new.unwrap_or("").split_inclusive('\n').collect();
    let ops = edit_script(&a, &b);
    let mut out = format!(
        "--- {}\n+++ {}\n",
        old.map_or("/dev/null".to_owned(), |_| format!("a/{name}")),
        new.map_or("/dev/null".to_owned(), |_| format!("b/{name}")),
    );
    for (start, end) in hunks(&ops) {
        let before = |op: Op| ops[..start].iter().filter(|(o, _)| *o != op).count();
        let within = |op: Op| ops[start..end].iter().filter(|(o, _)| *o != op).count();
        let (old_len, new_len) = (within(Op::Added), within(Op::Removed));
        // A range of no lines starts at the line before it.
        let first = |before: usize, len: usize| before + usize::from(len > 0);
        out.push_str(&format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            first(before(Op::Added), old_len),
            first(before(Op::Removed), new_len)
        ));
        for (op, line) in &ops[start..end] {
            out.push(match op {
                Op::Same => ' ',
                Op::Removed => '-',
                Op::Added => '+',
            });
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// The edit script from `a` to `b` (longest common subsequence; settings files are small).
fn edit_script<'t>(a: &[&'t str], b: &[&'t str]) -> Vec<(Op, &'t str)> {
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
    let mut ops = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((Op::Same, a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] > lcs[i + 1][j]) {
            ops.push((Op::Added, b[j]));
            j += 1;
        } else {
            ops.push((Op::Removed, a[i]));
            i += 1;
        }
    }
    ops
}

/// The ranges of `ops` shown as hunks: each change with its context, ranges that touch merged.
fn hunks(ops: &[(Op, &str)]) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (k, _) in ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _))| *op != Op::Same)
    {
        let (start, end) = (k.saturating_sub(CONTEXT), (k + 1 + CONTEXT).min(ops.len()));
        match ranges.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => ranges.push((start, end)),
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_are_unified_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
        let new = "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13";
        assert_eq!(
            diff("f", Some(old), Some(new)),
            "--- a/f\n+++ b/f\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n\\ No newline at end of file\n"
        );
        assert_eq!(diff("f", Some("x\n"), Some("x\n")), "");
        assert_eq!(
            diff("d/f", None, Some("a\r\n")),
            "--- /dev/null\n+++ b/d/f\n@@ -0,0 +1,1 @@\n+a\r\n"
        );
        assert_eq!(
            diff("f", Some("a\n"), None),
            "--- a/f\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n"
        );
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
