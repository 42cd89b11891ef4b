//! Writing users' files safely: refuse read-only files, keep a backup, write atomically (a
//! temporary file renamed over the original, permissions kept), and show a diff for `--dry-run`.

use std::path::{Path, PathBuf};

/// The backup kept next to a file that `init` or `uninstall` changed.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".hookjudge-backup");
    path.with_file_name(name)
}

/// Replaces `path` with `contents`: backup first, then an atomic rename.
pub fn write(path: &Path, contents: &str) -> Result<Option<PathBuf>, String> {
    let existing = std::fs::metadata(path).ok();
    if let Some(meta) = &existing
        && meta.permissions().readonly()
    {
        return Err(format!(
            "`{}` is read-only; nothing was written",
            path.display()
        ));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    }
    let backup = match &existing {
        Some(_) => {
            let b = backup_path(path);
            std::fs::copy(path, &b).map_err(|e| {
                format!(
                    "cannot back up `{}` to `{}`: {e}; nothing was written",
                    path.display(),
                    b.display()
                )
            })?;
            Some(b)
        }
        None => None,
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
        return Err(format!(
            "cannot write `{}`: {e}; the original is unchanged",
            path.display()
        ));
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
        assert_eq!(write(&p, "{}").unwrap(), None);
        let backup = write(&p, "{\"a\":1}").unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(backup).unwrap(), "{}");
        let mut perms = std::fs::metadata(&p).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&p, perms).unwrap();
        assert!(write(&p, "x").unwrap_err().contains("read-only"));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{\"a\":1}");
    }
}
