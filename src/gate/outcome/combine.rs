//! One answer from the rulings on a command's actions: a deny wins over an ask (the agent can
//! act on a deny at once, and the person need not be asked about a command that will not
//! run), an ask over silence.

use crate::gate::decide::{Decision, Ruling};

/// The decision on the whole command: the strongest of its rulings.
pub fn worst(rulings: &[Ruling]) -> Decision {
    if rulings.iter().any(|r| r.decision == Decision::Deny) {
        Decision::Deny
    } else if rulings.iter().any(|r| r.decision == Decision::Ask) {
        Decision::Ask
    } else {
        Decision::Silent
    }
}

/// The decision on the whole command, with the reasons of the rulings that made it.
pub fn combine(rulings: &[Ruling]) -> (Decision, String) {
    let decision = worst(rulings);
    let made_it: Vec<&Ruling> = rulings.iter().filter(|r| r.decision == decision).collect();
    match decision {
        Decision::Silent => (decision, String::new()),
        _ => (decision, join_reasons(&made_it)),
    }
}

/// The reasons, one a line; a reason repeated next to itself once.
pub(super) fn join_reasons(rulings: &[&Ruling]) -> String {
    let mut reasons: Vec<&str> = rulings.iter().map(|r| r.reason.as_str()).collect();
    reasons.dedup();
    reasons.join("\n")
}
