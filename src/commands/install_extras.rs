//! `hookjudge install-extras`: the man pages and shell completions, which `cargo install` does
//! not install, written where `man` and the shells look (see [`places`]); `install/install.sh`
//! runs it too, so both put the files in the same places.
//!
//! The man pages are the ones in `man/`, built into the binary (a test keeps them equal to the
//! CLI and this table equal to the folder); the completions are generated from the CLI.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

use super::{ExitStatus, UserError};
use crate::cli::{Cli, InstallExtrasArgs};
use crate::support::term;

/// Every man page, by file name.
pub const MAN_PAGES: [(&str, &str); 18] = [
    ("hookjudge.1", include_str!("../../man/hookjudge.1")),
    (
        "hookjudge-approve.1",
        include_str!("../../man/hookjudge-approve.1"),
    ),
    (
        "hookjudge-check.1",
        include_str!("../../man/hookjudge-check.1"),
    ),
    (
        "hookjudge-completions.1",
        include_str!("../../man/hookjudge-completions.1"),
    ),
    (
        "hookjudge-config.1",
        include_str!("../../man/hookjudge-config.1"),
    ),
    (
        "hookjudge-doctor.1",
        include_str!("../../man/hookjudge-doctor.1"),
    ),
    (
        "hookjudge-eval.1",
        include_str!("../../man/hookjudge-eval.1"),
    ),
    (
        "hookjudge-gate.1",
        include_str!("../../man/hookjudge-gate.1"),
    ),
    (
        "hookjudge-init.1",
        include_str!("../../man/hookjudge-init.1"),
    ),
    (
        "hookjudge-install-extras.1",
        include_str!("../../man/hookjudge-install-extras.1"),
    ),
    (
        "hookjudge-judge.1",
        include_str!("../../man/hookjudge-judge.1"),
    ),
    ("hookjudge-log.1", include_str!("../../man/hookjudge-log.1")),
    (
        "hookjudge-redact.1",
        include_str!("../../man/hookjudge-redact.1"),
    ),
    (
        "hookjudge-replay.1",
        include_str!("../../man/hookjudge-replay.1"),
    ),
    (
        "hookjudge-stats.1",
        include_str!("../../man/hookjudge-stats.1"),
    ),
    (
        "hookjudge-stop.1",
        include_str!("../../man/hookjudge-stop.1"),
    ),
    (
        "hookjudge-trust.1",
        include_str!("../../man/hookjudge-trust.1"),
    ),
    (
        "hookjudge-uninstall.1",
        include_str!("../../man/hookjudge-uninstall.1"),
    ),
];

/// Where each shell looks for completions under a data folder (`PREFIX/share`, or
/// `$XDG_DATA_HOME`), and the file name it expects.
const COMPLETIONS: [(Shell, &str, &str); 3] = [
    (Shell::Bash, "bash-completion/completions", "hookjudge"),
    (Shell::Zsh, "zsh/site-functions", "_hookjudge"),
    (Shell::Fish, "fish/vendor_completions.d", "hookjudge.fish"),
];

/// Where the files go: the man pages' `man1` folder and the data folder of the completions.
struct Places {
    man1: PathBuf,
    data: PathBuf,
}

/// With `--prefix`, everything under it. Otherwise the man pages go next to the binary when it
/// is in a `bin` folder (`~/.cargo/share/man` for `~/.cargo/bin/hookjudge`, where `man` looks
/// for a `bin` on PATH), else under `~/.local`; the completions go to `$XDG_DATA_HOME` (else
/// `~/.local/share`), where bash-completion and fish look.
fn places(prefix: Option<&Path>) -> Result<Places, UserError> {
    if let Some(prefix) = prefix {
        return Ok(Places {
            man1: prefix.join("share/man/man1"),
            data: prefix.join("share"),
        });
    }
    let local = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".local"))
        .ok_or_else(|| {
            UserError::new("HOME is not set, so there is no `~/.local`")
                .hint("name the folder: `hookjudge install-extras --prefix DIR`")
        })?;
    let binary = super::init::binary()?;
    let root = binary
        .parent()
        .filter(|dir| dir.file_name().is_some_and(|n| n == "bin"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| local.clone());
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .unwrap_or_else(|| local.join("share"));
    Ok(Places {
        man1: root.join("share/man/man1"),
        data,
    })
}

/// Writes (or with `--dry-run` lists) every file, one line each.
pub(super) fn install_extras(args: &InstallExtrasArgs) -> Result<ExitStatus, UserError> {
    let places = places(args.prefix.as_deref())?;
    let mut files: Vec<(PathBuf, String)> = MAN_PAGES
        .iter()
        .map(|(name, text)| (places.man1.join(name), (*text).to_owned()))
        .collect();
    for (shell, dir, name) in COMPLETIONS {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "hookjudge", &mut script);
        files.push((
            places.data.join(dir).join(name),
            String::from_utf8_lossy(&script).into_owned(),
        ));
    }
    let mut out = io::stdout().lock();
    for (path, text) in &files {
        if !args.dry_run {
            write(path, text)?;
        }
        let verb = if args.dry_run { "would write" } else { "wrote" };
        writeln!(out, "{verb} {}", path.display()).map_err(UserError::output)?;
    }
    let man_dir = places.man1.parent().unwrap_or(&places.man1);
    let bin = man_dir
        .parent()
        .and_then(Path::parent)
        .map(|root| root.join("bin"))
        .unwrap_or_default();
    let hint = format!(
        "`man hookjudge` reads `{}` when `{}` is on PATH (or add it to MANPATH); start a new shell for the completions (zsh: add `{}` to `fpath`)",
        man_dir.display(),
        bin.display(),
        places.data.join("zsh/site-functions").display()
    );
    term::say(&mut out, &hint, "  ").map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

fn write(path: &Path, text: &str) -> Result<(), UserError> {
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, text))
        .map_err(|e| {
            UserError::new(format!("cannot write `{}`: {e}", path.display()))
                .hint("choose a folder you can write with `--prefix DIR`")
        })
}
