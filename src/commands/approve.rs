//! `hookjudge approve`: the user approves, on their own terminal, one command the gate held back
//! (see [`crate::gate::approval`]).

use std::io::{self, Write};

use super::{ExitStatus, UserError};
use crate::agent::human;
use crate::cli::ApproveArgs;
use crate::gate::approval::{self, APPROVAL_TTL_MS, Request};
use crate::support::term;
use crate::support::time::Timestamp;

pub(super) fn approve(args: &ApproveArgs) -> Result<ExitStatus, UserError> {
    if let Some(why) = human::inside_agent() {
        return Err(UserError::new(format!(
            "`hookjudge approve` is for you to run in your own terminal, not for an agent ({why})"
        ))
        .hint("open a terminal outside the agent and run `hookjudge approve` there"));
    }
    let now = Timestamp::now().millis;
    let pending = approval::pending(now);
    let mut out = io::stdout().lock();
    if args.list {
        if pending.is_empty() {
            writeln!(out, "hookjudge approve: no command waits for approval")
                .map_err(UserError::output)?;
        }
        for r in &pending {
            writeln!(out, "{}", describe(r, now)).map_err(UserError::output)?;
        }
        return Ok(ExitStatus::Success);
    }
    // Asks on the terminal of the person running it: nothing without one (an agent's tool, a
    // hook, a job an agent left in the background) can approve.
    let mut tty = super::trust::person_for("approve")?;
    if pending.is_empty() {
        writeln!(out, "hookjudge approve: no command waits for approval")
            .map_err(UserError::output)?;
        return Ok(ExitStatus::Success);
    }
    let chosen = match &args.id {
        Some(id) => pending.iter().find(|r| r.id == *id).ok_or_else(|| {
            UserError::new(format!("no command waits for approval under the id `{id}`"))
                .hint("`hookjudge approve --list` shows the ids")
        })?,
        None if pending.len() == 1 => &pending[0],
        None => {
            for r in &pending {
                tty.say(&format!("{}\n", describe(r, now)));
            }
            let answer = tty
                .ask("Which id do you approve? (empty: none) ")
                .unwrap_or_default();
            match pending.iter().find(|r| r.id == answer) {
                Some(r) => r,
                None => {
                    writeln!(out, "hookjudge approve: nothing was approved")
                        .map_err(UserError::output)?;
                    return Ok(ExitStatus::Attention);
                }
            }
        }
    };
    tty.say(&format!("{}\n", describe(chosen, now)));
    let question = format!(
        "Approve this exact command, in this repository, for one run within {} minutes?",
        APPROVAL_TTL_MS / 60_000
    );
    // Room for the ` [y/N] ` the question ends with.
    let question = term::fill(&question, term::width().saturating_sub(7), "").join("\n");
    if !tty.confirm(&question) {
        writeln!(out, "hookjudge approve: nothing was approved").map_err(UserError::output)?;
        return Ok(ExitStatus::Attention);
    }
    let approved = approval::approve(&chosen.id, Timestamp::now().millis)
        .map_err(|e| UserError::new(e.to_string()))?;
    let done = format!(
        "hookjudge approve: approved `{}` in `{}` for one run; tell the agent to run it again",
        approved.command,
        approved.repo.display()
    );
    term::say(&mut out, &done, "  ").map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}

/// The request as the person reads it, wrapped to the terminal's width: who asks, where, the
/// command on a line of its own, and why it was held back.
fn describe(r: &Request, now: i64) -> String {
    let minutes = (now - r.requested_ms).max(0) / 60_000;
    let width = term::width();
    let mut lines = term::fill(
        &format!(
            "[{}] {} wants to run, {} min ago, in `{}`:",
            r.id,
            r.agent,
            minutes,
            r.repo.display()
        ),
        width,
        "    ",
    );
    // The exact command, as it will run: never re-flowed.
    lines.push(format!("    {}", r.command));
    lines.extend(term::fill(
        &format!(
            "  held back because: {}",
            r.reason.trim_start_matches("hookjudge: ")
        ),
        width,
        "    ",
    ));
    lines.join("\n")
}
