//! `hookjudge trust`: the user trusts a repository's `.hookjudge.json` as it is now (see
//! [`crate::config::trust`]); `--list` and `--revoke` manage the records.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{ExitStatus, UserError};
use crate::agent::human::{self, Refusal, Tty};
use crate::cli::TrustArgs;
use crate::config::trust::{self, Store};
use crate::config::{self, Settings};

/// The terminal of the person who runs `hookjudge COMMAND`, or the error that says why only a
/// person at their own terminal may run it (see [`human::person`]).
pub(super) fn person_for(command: &str) -> Result<Tty, UserError> {
    human::person().map_err(|refusal| {
        let hint = match refusal {
            Refusal::InsideAgent(_) => format!(
                "open a terminal outside the agent and run `hookjudge {command}` there yourself"
            ),
            Refusal::NoTerminal | Refusal::NotInFront(_) => format!(
                "run `hookjudge {command}` yourself in your own terminal; it asks you there, and nothing else can answer"
            ),
        };
        UserError::new(format!(
            "`hookjudge {command}` weakens hookjudge, so only you may run it, at your own terminal: {refusal}; nothing was changed"
        ))
        .hint(hint)
    })
}

pub(super) fn trust(args: &TrustArgs) -> Result<ExitStatus, UserError> {
    if let Some(why) = human::inside_agent() {
        return Err(UserError::new(format!(
            "`hookjudge trust` is for you to run in your own terminal, not for an agent ({why})"
        ))
        .hint(
            "open a terminal outside the agent, review the file, and run `hookjudge trust` there",
        ));
    }
    if args.list {
        return list();
    }
    let path = target(args.path.as_deref())?;
    let mut out = io::stdout().lock();
    if args.revoke {
        // Revoking only makes hookjudge stricter: no terminal needed.
        let was = trust::revoke(&path).map_err(|e| UserError::new(e.to_string()))?;
        let line = if was {
            format!("hookjudge trust: `{}` is no longer trusted", path.display())
        } else {
            format!("hookjudge trust: `{}` was not trusted", path.display())
        };
        writeln!(out, "{line}").map_err(UserError::output)?;
        return Ok(ExitStatus::Success);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| UserError::new(format!("cannot read `{}`: {e}", path.display())))?;
    let file = config::parse(&text).map_err(|e| {
        UserError::new(format!("`{}` is not valid config: {e}", path.display()))
            .hint("fix the file first (see `hookjudge config schema`); nothing was trusted")
    })?;
    let below = layers_below();
    let unlocked = trust::stricter_only(file, &below).ignored;
    let summary = if unlocked.is_empty() {
        "it only makes hookjudge stricter, which applies without trust too".to_string()
    } else {
        format!("trusting it also applies {}", unlocked.join("; "))
    };
    let question = format!(
        "`{}` ({}): {summary}.\n",
        path.display(),
        crate::support::hash::content_hash(text.as_bytes())
    );
    // Only a person at the controlling terminal trusts a file, and the answer is always read
    // from it: a process an agent started in the background of a terminal it inherited has
    // the terminal too, but cannot type on it.
    let mut tty = person_for("trust")?;
    tty.say(&question);
    if !tty.confirm("Trust this file as it is now?") {
        writeln!(out, "hookjudge trust: nothing was trusted").map_err(UserError::output)?;
        return Ok(ExitStatus::Attention);
    }
    // The content shown is the content trusted: a file changed while the question waited is
    // not.
    let entry =
        trust::trust_content(&path, text.as_bytes()).map_err(|e| UserError::new(e.to_string()))?;
    writeln!(
        out,
        "hookjudge trust: `{}` is trusted as {}; any change makes it untrusted again",
        entry.path.display(),
        entry.hash
    )
    .map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

/// The file named by `path`: a config file, or a directory whose repository's file is meant.
fn target(path: Option<&Path>) -> Result<PathBuf, UserError> {
    let cwd = super::current_dir();
    let given = path.map(|p| cwd.join(p));
    let dir = match &given {
        Some(p) if p.is_file() => return Ok(p.clone()),
        Some(p) => p.clone(),
        None => cwd.clone(),
    };
    let root = crate::support::paths::repo_root(&dir).unwrap_or(dir);
    let file = root.join(config::REPO_FILE);
    if !file.is_file() {
        return Err(UserError::new(format!("there is no `{}`", file.display()))
            .hint("run it in a repository that has a `.hookjudge.json`, or name the file"));
    }
    Ok(file)
}

/// The settings of the layers below a repository file: the user's own (loaded from a
/// directory outside any repository).
fn layers_below() -> Settings {
    Settings::load(&std::env::temp_dir(), None).unwrap_or_else(|_| Settings::defaults())
}

fn list() -> Result<ExitStatus, UserError> {
    let store = Store::load();
    let mut out = io::stdout().lock();
    if store.files.is_empty() {
        writeln!(out, "hookjudge trust: no file is trusted").map_err(UserError::output)?;
        return Ok(ExitStatus::Success);
    }
    for entry in &store.files {
        let state = match std::fs::read(&entry.path) {
            Ok(bytes) if crate::support::hash::content_hash(&bytes) == entry.hash => "trusted",
            Ok(_) => "changed since trusted (untrusted)",
            Err(_) => "missing",
        };
        writeln!(
            out,
            "{}  {}  {}  (since {})",
            entry.path.display(),
            entry.hash,
            state,
            entry.trusted_at
        )
        .map_err(UserError::output)?;
    }
    Ok(ExitStatus::Success)
}
