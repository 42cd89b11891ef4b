//! Failing open: a Stop that cannot be judged ends the turn, logged with why and told to the
//! human, so that a broken judge or config never wedges a session.

use crate::agent::StopOutcome;
use crate::config;
use crate::log::StopRecord;
use crate::log::cause::Cause;

/// Marks `record` failed open because of `error`, whose cause is `cause`, and tells the human
/// `note`.
pub fn fail_open(record: &mut StopRecord, cause: Cause, error: String, note: &str) -> StopOutcome {
    record.fail_open(cause, error);
    StopOutcome::Notice(format!("hookjudge: {note}; the turn was allowed to end."))
}

/// What the human is told when the config does not load: a judge in it, or the rest.
pub fn config_note(e: &config::Error) -> &'static str {
    if judge_error(e) {
        "invalid judge in config, judges skipped (see `hookjudge log`)"
    } else {
        "invalid config, judges skipped (see `hookjudge log`)"
    }
}

/// Whether `e` is about a judge: a definition that does not build, or a pattern of one that is
/// not a regex.
fn judge_error(e: &config::Error) -> bool {
    match &e.kind {
        config::ErrorKind::Invalid { key, .. } => key.starts_with("judges."),
        config::ErrorKind::Judge { .. } => true,
        _ => false,
    }
}
