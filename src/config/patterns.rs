//! Every regex a config file sets, checked when the file is loaded (not when a judge first
//! needs it): a pattern that is not a regex, or whose regex would be too big, names its key
//! (`judges.commit.add_triggers[1]`, `speech.add_masks[0]`) and the judge it belongs to, so the
//! file can be fixed before any hook runs on it.

use crate::config::{ConfigFile, ErrorKind};
use crate::judge::speech::{self, RuleError};
use crate::judge::{self, Pattern, PatternError};

/// The pattern lists of a judge, as the config names them, and what each pattern is.
const JUDGE_PATTERN_LISTS: [(&str, &str); 5] = [
    ("triggers", "trigger"),
    ("add_triggers", "trigger"),
    ("broad_triggers", "broad trigger"),
    ("bypasses", "bypass"),
    ("add_bypasses", "bypass"),
];

/// The first pattern of `file` that is not a regex or too big, as the error that names its
/// key. Patterns are prepared the way judges and the speech view prepare them
/// ([`Pattern::new`]): parsed, and compiled only when their size may exceed the limit.
pub fn check(file: &ConfigFile) -> Result<(), ErrorKind> {
    for (name, spec) in file.judges.iter().flatten() {
        for (list, what) in JUDGE_PATTERN_LISTS {
            let bad = match list {
                "triggers" => first_bad(&spec.triggers),
                "add_triggers" => first_bad(&spec.add_triggers),
                "broad_triggers" => first_bad(&spec.broad_triggers),
                "bypasses" => first_bad(&spec.bypasses),
                _ => first_bad(&spec.add_bypasses),
            };
            if let Some((i, pattern, error)) = bad {
                let error = judge::Error {
                    judge: name.clone(),
                    kind: judge::ErrorKind::BadPattern {
                        what,
                        pattern,
                        error,
                    },
                };
                return Err(invalid(format!("judges.{name}.{list}[{i}]"), error));
            }
        }
    }
    if let Some(rules) = &file.speech {
        for (list, what, patterns) in [
            ("add_masks", speech::MASK, &rules.add_masks),
            (
                "add_shown_headings",
                speech::SHOWN_HEADING,
                &rules.add_shown_headings,
            ),
        ] {
            if let Some((i, pattern, error)) = first_bad(patterns) {
                let error = RuleError {
                    what,
                    pattern,
                    error,
                };
                return Err(invalid(format!("speech.{list}[{i}]"), error));
            }
        }
    }
    Ok(())
}

/// The first of `patterns` that [`Pattern::new`] refuses: its index, source and why.
fn first_bad<S: AsRef<str>>(patterns: &Option<Vec<S>>) -> Option<(usize, String, PatternError)> {
    patterns
        .iter()
        .flatten()
        .enumerate()
        .find_map(|(i, source)| {
            let source = source.as_ref();
            Pattern::new(source)
                .err()
                .map(|e| (i, source.to_owned(), e))
        })
}

fn invalid(key: String, error: impl std::fmt::Display) -> ErrorKind {
    ErrorKind::Invalid {
        key,
        message: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(json: &str) -> Result<(), ErrorKind> {
        check(&crate::config::parse(json).unwrap())
    }

    /// The key and message of the error `json` is refused with.
    #[track_caller]
    fn refused(json: &str) -> (String, String) {
        match checked(json) {
            Err(ErrorKind::Invalid { key, message }) => (key, message),
            other => panic!("{json} checks: {other:?}"),
        }
    }

    #[test]
    fn a_pattern_that_is_not_a_regex_names_its_judge_and_key() {
        assert!(checked(r#"{"judges": {"commit": {"add_triggers": ["fine", "ok"]}}}"#).is_ok());
        for (json, key) in [
            (
                r#"{"judges": {"commit": {"add_triggers": ["fine", "(unclosed"]}}}"#,
                "judges.commit.add_triggers[1]",
            ),
            (
                r#"{"judges": {"mine": {"bypasses": ["[z-a]"]}}}"#,
                "judges.mine.bypasses[0]",
            ),
            (
                r#"{"judges": {"scope-check": {"broad_triggers": ["a", "b", "c{2,1}"]}}}"#,
                "judges.scope-check.broad_triggers[2]",
            ),
        ] {
            let (found, message) = refused(json);
            assert_eq!(found, key);
            let judge = key.split('.').nth(1).unwrap();
            assert!(
                message.starts_with(&format!("judge `{judge}`: "))
                    && message.contains("is not a valid regex"),
                "{message}"
            );
        }
        assert!(checked("{}").is_ok());
    }

    #[test]
    fn a_speech_rule_that_is_not_a_regex_or_too_big_names_its_key() {
        assert!(
            checked(r#"{"speech": {"add_masks": ["fine"], "add_shown_headings": ["^ok$"]}}"#)
                .is_ok()
        );
        for (json, key, start) in [
            (
                r#"{"speech": {"add_masks": ["fine", "(unclosed"]}}"#,
                "speech.add_masks[1]",
                "speech mask pattern `(unclosed` is not a valid regex",
            ),
            (
                r#"{"speech": {"add_shown_headings": ["(?:a{1000}){1000}"]}}"#,
                "speech.add_shown_headings[0]",
                "shown heading pattern `(?:a{1000}){1000}` is too big",
            ),
        ] {
            let (found, message) = refused(json);
            assert_eq!(found, key);
            assert!(message.starts_with(start), "{message}");
        }
    }

    #[test]
    fn a_pattern_too_big_to_compile_names_its_judge_and_key() {
        let (key, message) =
            refused(r#"{"judges": {"mine": {"add_bypasses": ["ok", "(?:a{1000}){1000}"]}}}"#);
        assert_eq!(key, "judges.mine.add_bypasses[1]");
        assert!(
            message.starts_with("judge `mine`: bypass pattern `(?:a{1000}){1000}` is too big"),
            "{message}"
        );
    }
}
