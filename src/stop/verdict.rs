//! From the judges' outcomes to how a Stop ends: the loop breaker's admission, the block reason
//! the agent reads and the notes the human reads.

use std::path::Path;

use crate::agent::StopOutcome;
use crate::judge::Judge;
use crate::judge::evaluate::{Decision, Verdict};
use crate::log::{StopAction, StopRecord};
use crate::stop::ledger::{self, Admission, Limits};

/// Applies the loop breaker to the judges in `record` (their decisions, `released`, `action`
/// and `decision` are updated) and says how the Stop ends. `judges` give the reasons.
pub fn conclude(
    record: &mut StopRecord,
    judges: &[Judge],
    limits: Limits,
    state_dir: &Path,
    session: &str,
) -> StopOutcome {
    let blocking: Vec<&str> = record
        .judges
        .iter()
        .filter(|o| o.decision == Decision::Block)
        .map(|o| o.judge.as_str())
        .collect();
    let failed: Vec<String> = record
        .judges
        .iter()
        .filter(|o| o.verdict == Some(Verdict::Fail))
        .map(|o| o.judge.clone())
        .collect();
    let mut notes: Vec<String> = Vec::new();
    if !failed.is_empty() {
        notes.push(format!(
            "could not judge with {} (see `hookjudge log`)",
            names(&failed)
        ));
    }
    let mut outcome = StopOutcome::Allow;
    if !blocking.is_empty() {
        let admission = ledger::admit(
            state_dir,
            session,
            record.prompt.as_deref(),
            record.stop_hook_active,
            &blocking,
            limits,
        )
        .unwrap_or_else(|e| {
            record.errors.push(format!(
                "loop-breaker ledger unavailable ({e}); using stop_hook_active"
            ));
            without_ledger(&blocking, record.stop_hook_active)
        });
        for judged in &mut record.judges {
            if admission.released.contains(&judged.judge) {
                judged.decision = Decision::Allow;
            }
        }
        if !admission.released.is_empty() {
            notes.push(release_note(&admission.released, limits));
        }
        record.released = admission.released;
        if admission.admitted.is_empty() {
            record.action = StopAction::Release;
        } else {
            record.decision = Decision::Block;
            record.action = StopAction::Block;
            outcome = StopOutcome::Block {
                reason: block_reason(&admission.admitted, judges, &session_evidence(record)),
                notice: None,
            };
        }
    }
    if record.action == StopAction::Allow && !failed.is_empty() {
        record.judges_failed();
    }
    if outcome == StopOutcome::Allow && !notes.is_empty() {
        outcome = StopOutcome::Notice(format!("hookjudge: {}.", notes.join("; ")));
    }
    outcome
}

/// Without a ledger, `stop_hook_active` is the only loop guard left: block once per prompt.
fn without_ledger(blocking: &[&str], stop_hook_active: bool) -> Admission {
    let all = blocking.iter().map(|s| (*s).to_owned()).collect();
    if stop_hook_active {
        Admission {
            admitted: vec![],
            released: all,
        }
    } else {
        Admission {
            admitted: all,
            released: vec![],
        }
    }
}

/// The evidence of each judge the session's facts decided: (judge, what the session shows).
fn session_evidence(record: &StopRecord) -> Vec<(String, String)> {
    record
        .judges
        .iter()
        .filter(|o| {
            o.layer2.as_ref().and_then(|l| l.call.provider.as_deref())
                == Some(crate::judge::claims::FACTS_PROVIDER)
        })
        .filter_map(|o| Some((o.judge.clone(), o.reason.clone()?)))
        .collect()
}

/// What the agent is told: each admitted judge's reason (with what the session shows, when
/// its facts decided), and how to answer a wrong block.
pub fn block_reason(
    admitted: &[String],
    judges: &[Judge],
    evidence: &[(String, String)],
) -> String {
    let reasons: Vec<String> = admitted
        .iter()
        .filter_map(|name| judges.iter().find(|j| j.name == *name))
        .map(|j| match evidence.iter().find(|(n, _)| *n == j.name) {
            Some((_, shown)) => format!(
                "hookjudge [{}]: {} The session shows: {shown}.",
                j.name, j.reason
            ),
            None => format!("hookjudge [{}]: {}", j.name, j.reason),
        })
        .collect();
    format!(
        "{}\nIf this does not apply to your response, say why in one sentence; you will not be blocked for it again on this prompt.",
        reasons.join("\n")
    )
}

/// What the human is told when the loop breaker lets the turn end despite `released`.
fn release_note(released: &[String], limits: Limits) -> String {
    format!(
        "{} still {} but the turn was allowed to end (loop breaker: at most {} block(s) per judge and {} per prompt); please review the response",
        names(released),
        if released.len() == 1 {
            "objects"
        } else {
            "object"
        },
        limits.per_judge,
        limits.per_prompt
    )
}

fn names(judges: &[String]) -> String {
    judges
        .iter()
        .map(|j| format!("`{j}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::evaluate::JudgeOutcome;
    use crate::judge::layer1::Signal;
    use crate::log::JudgeEntry;

    fn judged(name: &str, decision: Decision, verdict: Verdict) -> JudgeEntry {
        JudgeOutcome {
            judge: name.into(),
            layer1: Signal::Trigger,
            pattern: None,
            refused_bypass: None,
            verdict: Some(verdict),
            decision,
            fields: None,
            reason: None,
            layer2: None,
            asked: true,
            second_reading: None,
        }
        .into()
    }

    fn builtins() -> Vec<Judge> {
        crate::judge::builtin_specs()
            .iter()
            .filter_map(|(n, s)| Judge::from_spec(n, s).unwrap())
            .collect()
    }

    const LIMITS: Limits = Limits {
        per_judge: 1,
        per_prompt: 2,
    };

    #[test]
    fn a_block_is_admitted_once_then_released_with_a_note() {
        let state = tempfile::tempdir().unwrap();
        let judges = builtins();
        let mut record = StopRecord::new();
        record.prompt = Some("p".into());
        record.judges = vec![
            judged("commit", Decision::Block, Verdict::Violation),
            judged("scope-check", Decision::Allow, Verdict::Allow),
        ];
        let first = conclude(&mut record, &judges, LIMITS, state.path(), "s");
        let StopOutcome::Block { reason, notice } = &first else {
            panic!("{first:?}")
        };
        assert!(reason.starts_with("hookjudge [commit]: "), "{reason}");
        assert!(reason.ends_with("blocked for it again on this prompt."));
        assert_eq!((notice, record.action), (&None, StopAction::Block));

        let mut again = StopRecord::new();
        again.prompt = Some("p".into());
        again.stop_hook_active = true;
        again.judges = vec![judged("commit", Decision::Block, Verdict::Violation)];
        let second = conclude(&mut again, &judges, LIMITS, state.path(), "s");
        assert_eq!(again.action, StopAction::Release);
        assert_eq!(again.released, ["commit"]);
        assert_eq!(again.judges[0].decision, Decision::Allow);
        let StopOutcome::Notice(note) = second else {
            panic!("{second:?}")
        };
        assert!(
            note.starts_with("hookjudge: `commit` still objects"),
            "{note}"
        );
    }

    #[test]
    fn a_failed_judge_fails_open_with_a_note() {
        let state = tempfile::tempdir().unwrap();
        let mut record = StopRecord::new();
        record.judges = vec![judged("commit", Decision::Allow, Verdict::Fail)];
        let outcome = conclude(&mut record, &builtins(), LIMITS, state.path(), "s");
        assert_eq!(record.action, StopAction::FailOpen);
        // A judge that failed without an LLM call failed on its pattern.
        assert_eq!(record.cause.as_deref(), Some("bad_pattern"));
        assert_eq!(
            outcome,
            StopOutcome::Notice(
                "hookjudge: could not judge with `commit` (see `hookjudge log`).".into()
            )
        );
        let mut quiet = StopRecord::new();
        quiet.judges = vec![judged("commit", Decision::Allow, Verdict::Allow)];
        let outcome = conclude(&mut quiet, &builtins(), LIMITS, state.path(), "s");
        assert_eq!(
            (outcome, quiet.action),
            (StopOutcome::Allow, StopAction::Allow)
        );
    }

    #[test]
    fn without_a_ledger_stop_hook_active_releases() {
        assert_eq!(without_ledger(&["a"], false).admitted, ["a"]);
        assert_eq!(without_ledger(&["a"], true).released, ["a"]);
    }
}
