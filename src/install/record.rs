//! What `init` changed, so that `uninstall` can undo exactly that: per file, the bytes before
//! (or that the file did not exist), the bytes written, the containers and folders created and
//! the backups made. Kept in the state dir, one small JSON file per edited file.
//!
//! When a file still holds the bytes `init` wrote, `uninstall` puts the original bytes back (or
//! removes the file it created); otherwise it takes out only our entries and the containers
//! listed here, keeping everything the user added since.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Error, ErrorKind};

/// What the file was before the first `init` that touched it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "bytes")]
pub enum Before {
    /// `init` created the file.
    Absent,
    /// The file's bytes before.
    Bytes(String),
    /// Unknown (ours were there already, or it changed after our last write): only a surgical
    /// removal is possible.
    Unknown,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// The file edited (symlinks followed).
    pub path: PathBuf,
    pub before: Before,
    /// The bytes of our last write.
    pub written: String,
    /// JSON containers created (`hooks`, `hooks.Stop`), removed when left empty.
    #[serde(default)]
    pub created_members: Vec<String>,
    /// Folders created for the file, innermost last.
    #[serde(default)]
    pub created_dirs: Vec<PathBuf>,
    /// Backups made by `init`, which hold nothing the original does not.
    #[serde(default)]
    pub backups: Vec<PathBuf>,
}

fn record_file(state_dir: &Path, path: &Path) -> PathBuf {
    let key = crate::support::hash::fnv1a(path.to_string_lossy().as_bytes());
    state_dir.join("installs").join(format!("{key:016x}.json"))
}

/// The record of `path`, if `init` wrote it. One that cannot be read counts as none:
/// `uninstall` then removes only our entries, which is always safe.
pub fn load(state_dir: &Path, path: &Path) -> Option<Record> {
    let text = std::fs::read_to_string(record_file(state_dir, path)).ok()?;
    serde_json::from_str::<Record>(&text)
        .ok()
        .filter(|r| r.path == path)
}

/// Keeps `record` for `uninstall`.
pub fn save(state_dir: &Path, record: &Record) -> Result<(), Error> {
    let file = record_file(state_dir, &record.path);
    let dir = file.parent().expect("has a parent");
    std::fs::create_dir_all(dir)
        .and_then(|()| {
            std::fs::write(
                &file,
                serde_json::to_string_pretty(record).expect("records serialise"),
            )
        })
        .map_err(|e| Error::new(&file, ErrorKind::SaveRecord(e)))
}

pub fn forget(state_dir: &Path, path: &Path) {
    let _ = std::fs::remove_file(record_file(state_dir, path));
}

/// The record after another write of `written` over `old` (the file's bytes just before).
pub fn updated(
    previous: Option<Record>,
    path: &Path,
    old: Option<&str>,
    written: &str,
    has_ours_before: bool,
) -> Record {
    match previous {
        Some(mut r) if Some(r.written.as_str()) == old => {
            r.written = written.to_owned();
            r
        }
        Some(mut r) => {
            r.before = Before::Unknown;
            r.written = written.to_owned();
            r
        }
        None => Record {
            path: path.to_path_buf(),
            before: match old {
                None => Before::Absent,
                Some(_) if has_ours_before => Before::Unknown,
                Some(bytes) => Before::Bytes(bytes.to_owned()),
            },
            written: written.to_owned(),
            created_members: Vec::new(),
            created_dirs: Vec::new(),
            backups: Vec::new(),
        },
    }
}

/// The folders `create_dir_all(dir)` would create, outermost first.
pub fn missing_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    missing
}
