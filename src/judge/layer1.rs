//! Layer 1: fast pattern signals that decide whether a judge needs the LLM at all.
//!
//! A trigger is a signal, not a verdict: text that triggers nothing is allowed at once; a
//! trigger followed by a bypass (evidence that the rule would allow anyway, such as reported
//! test results) is allowed without an LLM call; any other trigger goes to Layer 2. Bypasses are
//! only consulted after a trigger, so a quiet text never pays for them.

use serde::Serialize;

use super::Judge;

/// What Layer 1 found for one judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Signal {
    /// No trigger pattern matched.
    Quiet,
    /// A trigger matched and no bypass did: Layer 2 decides.
    Trigger,
    /// A trigger matched, and so did a bypass.
    Bypass,
}

/// Layer 1's outcome: the signal and the pattern that decided it (the trigger, or the bypass).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome<'j> {
    pub signal: Signal,
    pub pattern: Option<&'j str>,
}

/// Runs a judge's Layer 1 over `text`, whose lowercase form is `lowercase`.
///
/// Errors name the pattern that failed to compile (only possible for user patterns).
pub fn run<'j>(
    judge: &'j Judge,
    text: &str,
    lowercase: &super::literals::TextIndex,
) -> Result<Outcome<'j>, String> {
    let Some(trigger) = first_match(&judge.triggers, text, lowercase)? else {
        return Ok(Outcome {
            signal: Signal::Quiet,
            pattern: None,
        });
    };
    if let Some(bypass) = first_match(&judge.bypasses, text, lowercase)? {
        return Ok(Outcome {
            signal: Signal::Bypass,
            pattern: Some(bypass),
        });
    }
    Ok(Outcome {
        signal: Signal::Trigger,
        pattern: Some(trigger),
    })
}

fn first_match<'j>(
    patterns: &'j [super::Pattern],
    text: &str,
    lowercase: &super::literals::TextIndex,
) -> Result<Option<&'j str>, String> {
    for pattern in patterns {
        if pattern.is_match(text, lowercase)? {
            return Ok(Some(&pattern.source));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{Judge, builtin_specs};

    fn judge(name: &str) -> Judge {
        let (_, spec) = builtin_specs()
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap();
        Judge::from_spec(name, &spec).unwrap().unwrap()
    }

    #[track_caller]
    fn case(judge: &Judge, text: &str, expected: Signal) {
        let lower = text.to_lowercase();
        let out = run(judge, text, &crate::judge::literals::TextIndex::new(&lower)).unwrap();
        assert_eq!(
            out.signal, expected,
            "{}: {text:?} (pattern {:?})",
            judge.name, out.pattern
        );
    }

    #[test]
    fn commit_signals_from_the_article() {
        let commit = judge("commit");
        // The false-positive families of plain regex hooks are quiet or bypassed.
        case(&commit, "I committed the fix in a1b2c3d.", Signal::Quiet);
        case(
            &commit,
            "Q1: commit now?\nQ2: create another branch first?",
            Signal::Bypass,
        );
        case(
            &commit,
            "I will commit after the tests complete.",
            Signal::Bypass,
        );
        case(
            &commit,
            "All tests PASS, cmp OK. Shall I commit?",
            Signal::Bypass,
        );
        // Proposals before verification trigger.
        case(
            &commit,
            "The refactor is done. Shall I commit and push?",
            Signal::Trigger,
        );
        case(
            &commit,
            "Everything looks good, I'll push to main now.",
            Signal::Trigger,
        );
        case(
            &commit,
            "実装が終わりました。コミットしてよろしいですか？",
            Signal::Trigger,
        );
        case(&commit, "修改完成了，我现在提交并推送。", Signal::Trigger);
        case(
            &commit,
            "Soll ich das jetzt committen und pushen?",
            Signal::Trigger,
        );
    }

    #[test]
    fn bypass_needs_a_trigger_first() {
        let commit = judge("commit");
        case(
            &commit,
            "All tests passed. The docs are updated.",
            Signal::Quiet,
        );
    }
}
