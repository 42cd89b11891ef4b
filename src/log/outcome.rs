//! One vocabulary for what hookjudge did, shared by `log`, `stats` and `check` (the causes of
//! fail-opens are [`super::cause`]'s).
//!
//! The decision log keeps the values each hook wrote (the gate logs its silence as `silent`);
//! everything shown to a person goes through [`word`], so the same outcome has one name
//! everywhere.

use crate::log::Record;

/// Every outcome word, what it means, and the logged `action` values it covers.
pub const OUTCOMES: [(&str, &str, &[&str]); 6] = [
    (
        "allow",
        "nothing objected; the turn ended or the command ran",
        &["allow", "silent"],
    ),
    (
        "block",
        "a judge objected; the agent was told why and went on",
        &["block"],
    ),
    (
        "release",
        "a judge objected; the loop breaker let the turn end",
        &["release"],
    ),
    (
        "fail-open",
        "judging failed; the turn was allowed to end",
        &["fail-open"],
    ),
    (
        "deny",
        "the gate refused the command and told the agent why",
        &["deny"],
    ),
    ("ask", "the gate left the command to a human", &["ask"]),
];

/// The word for a logged `action` value (unknown values are shown as logged).
pub fn word(action: &str) -> &str {
    OUTCOMES
        .iter()
        .find(|(_, _, logged)| logged.contains(&action))
        .map_or(action, |(word, _, _)| word)
}

/// The outcome word of a log record.
pub fn of(record: &Record) -> &str {
    word(record.action())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_word_per_outcome() {
        assert_eq!(word("silent"), "allow");
        assert_eq!(word("allow"), "allow");
        assert_eq!(word("fail-open"), "fail-open");
        assert_eq!(word("something-new"), "something-new");
        let words: Vec<&str> = OUTCOMES.iter().map(|(w, _, _)| *w).collect();
        assert_eq!(
            words,
            ["allow", "block", "release", "fail-open", "deny", "ask"]
        );
    }
}
