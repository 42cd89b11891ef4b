//! Why installing or removing hookjudge could not read or change a file, as a type: the file
//! (or folder) at fault and the operation that failed, so that a caller can collect several
//! (`init` plans every file before it writes any) and the message says what to do next.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::settings::MergeError;

/// A file `init` or `uninstall` could not read or change.
#[derive(Debug)]
pub struct Error {
    /// The file (or folder, for [`ErrorKind::CreateDir`]) at fault.
    pub path: PathBuf,
    pub kind: ErrorKind,
}

/// What failed on [`Error::path`].
#[derive(Debug)]
pub enum ErrorKind {
    /// The file exists and is read-only; it is refused before anything is written.
    ReadOnly,
    /// The file is not UTF-8 text, so it cannot be edited as JSON.
    NotText,
    /// The file is not valid JSON; a file that is not is reported, never rewritten.
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    /// The settings file is JSON of a shape our entries cannot be merged into.
    Merge(MergeError),
    Read(io::Error),
    /// The folder cannot be created.
    CreateDir(io::Error),
    /// The backup of the file to `backup` failed, so the file was not written.
    Backup {
        backup: PathBuf,
        source: io::Error,
    },
    /// Writing the temporary file or renaming it over the original failed.
    Write(io::Error),
    Remove(io::Error),
    /// No git repository at the path (the git hook needs one).
    NoRepository(Box<gix::Error>),
    /// The pre-push hook is someone else's and the place ours keeps it is taken as well.
    PreviousHookInTheWay,
    /// The existing hook could not be moved aside to chain it.
    KeepPreviousHook(io::Error),
    /// The hook that was there before could not be put back.
    RestorePreviousHook(io::Error),
    MakeExecutable(io::Error),
    /// The install record (what `uninstall` undoes) could not be kept.
    SaveRecord(io::Error),
    /// A file `init` writes whole (an agent's plugin) exists and is not hookjudge's.
    NotOurs,
    /// Codex's `config.toml` cannot take its sandbox keys.
    CodexConfig(crate::install::settings::CodexSandboxError),
}

impl Error {
    pub fn new(path: impl Into<PathBuf>, kind: ErrorKind) -> Error {
        Error {
            path: path.into(),
            kind,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.kind {
            ErrorKind::ReadOnly => write!(f, "`{path}` is read-only; nothing was written"),
            ErrorKind::NotOurs => write!(
                f,
                "`{path}` exists and is not hookjudge's; move it away, then run `hookjudge init` again"
            ),
            ErrorKind::NotText => write!(f, "`{path}` is not UTF-8 text; it was left untouched"),
            ErrorKind::NotJson {
                line,
                column,
                message,
            } => write!(
                f,
                "`{path}` is not valid JSON (line {line}, column {column}: {message}); it was left untouched"
            ),
            ErrorKind::Merge(e) => write!(f, "`{path}`: {e}"),
            ErrorKind::CodexConfig(e) => write!(
                f,
                "`{path}`: {e}; fix it (or leave out `--boundary agent`), then run `hookjudge init` again"
            ),
            ErrorKind::Read(e) => write!(f, "cannot read `{path}`: {e}"),
            ErrorKind::CreateDir(e) => write!(f, "cannot create `{path}`: {e}"),
            ErrorKind::Backup { backup, source } => write!(
                f,
                "cannot back up `{path}` to `{}`: {source}; nothing was written",
                backup.display()
            ),
            ErrorKind::Write(e) => {
                write!(f, "cannot write `{path}`: {e}; the original is unchanged")
            }
            ErrorKind::Remove(e) => write!(f, "cannot remove `{path}`: {e}"),
            ErrorKind::NoRepository(e) => write!(
                f,
                "no git repository at `{path}`: {e} (`--git-hook` needs a git repository)"
            ),
            ErrorKind::PreviousHookInTheWay => write!(
                f,
                "both `{path}` and `{}` exist; move one away, then run `hookjudge init --git-hook` again",
                super::githook::PREVIOUS
            ),
            ErrorKind::KeepPreviousHook(e) => write!(
                f,
                "cannot keep the existing hook `{path}` as `{}`: {e}; nothing was installed",
                super::githook::PREVIOUS
            ),
            ErrorKind::RestorePreviousHook(e) => write!(
                f,
                "cannot restore the previous hook as `{path}`: {e}; rename `{}` to `pre-push` yourself",
                super::githook::PREVIOUS
            ),
            ErrorKind::MakeExecutable(e) => write!(
                f,
                "cannot make `{path}` executable: {e}; run `chmod +x` on it, or git skips the hook"
            ),
            ErrorKind::SaveRecord(e) => write!(
                f,
                "cannot keep the install record `{path}`: {e}; `uninstall` will remove only hookjudge's entries"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Read(e)
            | ErrorKind::CreateDir(e)
            | ErrorKind::Backup { source: e, .. }
            | ErrorKind::Write(e)
            | ErrorKind::Remove(e)
            | ErrorKind::KeepPreviousHook(e)
            | ErrorKind::RestorePreviousHook(e)
            | ErrorKind::MakeExecutable(e)
            | ErrorKind::SaveRecord(e) => Some(e),
            ErrorKind::NoRepository(e) => Some(e.as_ref()),
            ErrorKind::Merge(e) => Some(e),
            ErrorKind::CodexConfig(e) => Some(e),
            ErrorKind::ReadOnly
            | ErrorKind::NotText
            | ErrorKind::NotJson { .. }
            | ErrorKind::PreviousHookInTheWay
            | ErrorKind::NotOurs => None,
        }
    }
}
