//! `hookjudge uninstall`: take out exactly what `init` put in (see [`crate::install::undo`]),
//! after the person at the terminal has said yes.

use std::io::{self, Write};

use super::init::{refuse_inside_agent, target};
use super::{ExitStatus, UserError};
use crate::cli::UninstallArgs;
use crate::config;
use crate::install::plan::SCHEMA_FILE;
use crate::install::settings::{self, Scope};
use crate::install::target::Target;
use crate::install::undo::{self, Removal, Undone};
use crate::support::dirs;

/// Removes our entries and our git hook.
///
/// Removing hooks switches protection off, so it is only for the person at the terminal:
/// without `--dry-run`, the removals are shown and confirmed on the controlling terminal
/// first (see [`crate::agent::human::person`]); nothing else (a script, an agent's tool, a job left
/// in the background) can answer.
pub(super) fn uninstall(args: &UninstallArgs) -> Result<ExitStatus, UserError> {
    refuse_inside_agent("uninstall")?;
    let t = target(args.agent, args.scope, true, true)?;
    if args.dry_run {
        return uninstall_pass(&t, true, &mut io::stdout().lock());
    }
    // What would go, found by a dry pass, so that the question names it.
    let removes = summary(&removals(&t, true)?);
    if removes.is_empty() {
        return uninstall_pass(&t, false, &mut io::stdout().lock());
    }
    let mut tty = super::trust::person_for("uninstall")?;
    tty.say(&format!(
        "hookjudge uninstall ({} scope in {}) would take hookjudge's hooks out:\n{}\n",
        t.scope.name(),
        t.root.display(),
        removes.join("\n")
    ));
    if !tty.confirm("Remove them, so that hookjudge no longer checks these agents?") {
        let _ = writeln!(io::stdout(), "hookjudge uninstall: nothing was removed");
        return Ok(ExitStatus::Attention);
    }
    uninstall_pass(&t, false, &mut io::stdout().lock())
}

/// Takes out (or, with `dry_run`, works out) every file's part of ours and the git hook.
fn removals(t: &Target, dry_run: bool) -> Result<Vec<Removal>, UserError> {
    undo::remove_all(t, dry_run, &dirs::state_dir()).map_err(|e| {
        let hint = e.hint();
        let error = UserError::new(e.to_string());
        match hint {
            Some(hint) => error.hint(hint),
            None => error,
        }
    })
}

fn uninstall_pass(t: &Target, dry_run: bool, out: &mut dyn Write) -> Result<ExitStatus, UserError> {
    let removed = removals(t, dry_run)?;
    for removal in &removed {
        if let Removal::File {
            name,
            diff: Some(diff),
            ..
        } = removal
        {
            // Generated and hundreds of lines long: named, not shown, as `init --dry-run` does.
            if name.ends_with(SCHEMA_FILE) {
                let _ = writeln!(
                    out,
                    "# {}: removes the config's JSON Schema ({} lines; `hookjudge init` wrote it)",
                    t.diff_name(&t.root.join(SCHEMA_FILE)),
                    diff.lines()
                        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
                        .count()
                );
                continue;
            }
            let _ = write!(out, "{diff}");
        }
    }
    report(t, dry_run, out, &summary(&removed));
    Ok(ExitStatus::Success)
}

/// One line per file for the summary.
fn summary(removed: &[Removal]) -> Vec<String> {
    removed
        .iter()
        .map(|removal| match removal {
            Removal::File {
                name,
                undone,
                backups,
                ..
            } => {
                let backups = match backups.as_slice() {
                    [] => String::new(),
                    [one] => format!("; backup `{one}` removed with it"),
                    many => format!(
                        "; backups {} removed with it",
                        many.iter()
                            .map(|b| format!("`{b}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                match undone {
                    Undone::Restored => {
                        format!("  restored   {name}  (as it was before `hookjudge init`{backups})")
                    }
                    Undone::Removed => {
                        format!("  removed    {name}  (`hookjudge init` had created it{backups})")
                    }
                    Undone::Edited => {
                        format!("  updated    {name}  (hookjudge's entries removed)")
                    }
                }
            }
            Removal::GitHook {
                name,
                previous_back,
            } => {
                let restored = if *previous_back {
                    " (the previous hook is back)"
                } else {
                    ""
                };
                format!("  removed    {name}{restored}")
            }
        })
        .collect()
}

fn report(t: &Target, dry_run: bool, out: &mut dyn Write, lines: &[String]) {
    if dry_run {
        // Comment lines, which `patch` skips: what the diffs above do, and what has no diff.
        for line in lines {
            let _ = writeln!(out, "# would be {}", line.trim_start());
        }
        let _ = if lines.is_empty() {
            writeln!(
                out,
                "# dry run: nothing of hookjudge's to remove in {} scope here",
                t.scope.name()
            )
        } else {
            writeln!(
                out,
                "# dry run: nothing was written; `patch -p1` in `{}` applies the diffs above",
                t.diff_base().display()
            )
        };
        return;
    }
    if lines.is_empty() {
        let _ = writeln!(
            out,
            "hookjudge uninstall: nothing of hookjudge's was installed ({} scope) in {}",
            t.scope.name(),
            t.root.display()
        );
        for agent in &t.agents {
            for (scope, path) in settings::installed_elsewhere(*agent, t.scope, &t.root, &t.home) {
                let _ = writeln!(
                    out,
                    "note: `{}` runs hookjudge; `hookjudge uninstall --agent {} --scope {}` removes it",
                    path.display(),
                    agent.name(),
                    scope.name()
                );
            }
        }
    } else {
        let _ = writeln!(
            out,
            "hookjudge uninstall: {} scope in {}",
            t.scope.name(),
            t.root.display()
        );
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        if t.scope != Scope::User {
            let _ = writeln!(
                out,
                "note: `{}` and the decision log were kept; delete them yourself if you no longer want them",
                config::REPO_FILE
            );
        }
    }
}
