//! `hookjudge uninstall`: take out exactly what `init` put in (see [`crate::install::undo`]),
//! after the person at the terminal has said yes.

use std::io::{self, Write};

use super::init::{refuse_inside_agent, target};
use super::{ExitStatus, UserError};
use crate::cli::UninstallArgs;
use crate::config;
use crate::install::settings::{self, Scope};
use crate::install::target::Target;
use crate::install::undo::{self, Removal, Undone};
use crate::support::{dirs, term};

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
    // What would go, found by a dry pass, so that the question names it, in the future tense:
    // nothing has changed yet.
    let removes = summary(&removals(&t, true)?, Tense::Future);
    if removes.is_empty() {
        return uninstall_pass(&t, false, &mut io::stdout().lock());
    }
    let mut tty = super::trust::person_for("uninstall")?;
    let mut question = vec![format!(
        "hookjudge uninstall ({} scope in {}) would take hookjudge's hooks out:",
        t.scope.name(),
        t.root.display()
    )];
    question.extend(removes);
    question.extend(kept(&t));
    let width = term::width();
    let lines: Vec<String> = question
        .iter()
        .flat_map(|line| term::fill(line, width, hanging(line)))
        .collect();
    tty.say(&format!("{}\n", lines.join("\n")));
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
            diff: Some(diff), ..
        } = removal
        {
            // Shown in full, the generated schema too: a deletion diff is what lets `patch -p1`
            // remove the file as `uninstall` would.
            let _ = write!(out, "{diff}");
        }
    }
    report(t, dry_run, out, &summary(&removed, Tense::Past));
    Ok(ExitStatus::Success)
}

/// Whether a summary says what was done or what would be.
#[derive(Clone, Copy)]
enum Tense {
    Past,
    Future,
}

impl Tense {
    /// The verb for `undone`, and the column the names start in.
    fn verb(self, undone: Verb) -> (&'static str, usize) {
        let (past, future) = match undone {
            Verb::Restore => ("restored", "would restore"),
            Verb::Remove => ("removed", "would remove"),
            Verb::Update => ("updated", "would update"),
        };
        match self {
            Tense::Past => (past, 10),
            Tense::Future => (future, 13),
        }
    }
}

/// What happens to one file.
#[derive(Clone, Copy)]
enum Verb {
    Restore,
    Remove,
    Update,
}

/// Where a summary line's continuation starts: under the file's name.
fn hanging(line: &str) -> &'static str {
    const UNDER_NAME: [&str; 2] = ["             ", "                "];
    if line.starts_with("  would ") {
        UNDER_NAME[1]
    } else if line.starts_with("  ") {
        UNDER_NAME[0]
    } else {
        "  "
    }
}

/// The line that says what `uninstall` leaves, and why: the repository's config is the team's.
fn kept(t: &Target) -> Option<String> {
    (t.scope != Scope::User && t.root.join(config::REPO_FILE).exists()).then(|| {
        format!(
            "`{}` is kept: it is the repository's shared settings (the team's, possibly with its edits), not hookjudge's hooks; delete it yourself if you no longer want it",
            config::REPO_FILE
        )
    })
}

/// One line per file for the summary, in `tense`.
fn summary(removed: &[Removal], tense: Tense) -> Vec<String> {
    let line = |verb: Verb, name: &str, rest: String| {
        let (verb, column) = tense.verb(verb);
        format!("  {verb:<column$} {name}{rest}")
    };
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
                    Undone::Restored => line(
                        Verb::Restore,
                        name,
                        format!("  (as it was before `hookjudge init`{backups})"),
                    ),
                    Undone::Removed => line(
                        Verb::Remove,
                        name,
                        format!("  (`hookjudge init` had created it{backups})"),
                    ),
                    Undone::Edited => {
                        line(Verb::Update, name, "  (hookjudge's entries removed)".into())
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
                line(Verb::Remove, name, restored.into())
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
        if let Some(kept) = kept(t) {
            let _ = term::say(out, &format!("# {kept}"), "#   ");
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
        let _ = term::say(
            out,
            &format!(
                "hookjudge uninstall: {} scope in {}",
                t.scope.name(),
                t.root.display()
            ),
            "  ",
        );
        for line in lines {
            let _ = term::say(out, line, hanging(line));
        }
        if t.scope != Scope::User {
            let _ = term::say(
                out,
                &format!(
                    "note: `{}` (the repository's shared settings) and the decision log were kept; delete them yourself if you no longer want them",
                    config::REPO_FILE
                ),
                "      ",
            );
        }
    }
}
