//! Runs a set of judges over one text: Layer 1 for each, Layer 2 for the judges the turn
//! concerns (every judge unless the turn cannot hold a violation, or with `stop.judge_turns:
//! "lexicon"` those Layer 1 woke), and the block rule over the returned fields.
//!
//! Layer 2 is a trait here so that this module stays plumbing: it reads no config, prints
//! nothing and knows no provider. The judges a turn concerns are asked together, in one
//! question, so that a provider answers them with one call; Layer 1's signals go with it as
//! hints.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Judge;
use super::layer1::{self, Signal};
pub use super::layer2::{
    Answer, Answers, CacheUse, FailureKind, Finding, Layer2, Layer2Call, NoLayer2, Question,
    Recheck, Reread, Rereads,
};
use super::speech::UserRules;

/// A judge's verdict on a triggered text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The fields satisfy the block rule.
    Violation,
    /// The fields do not satisfy the block rule, or a bypass matched.
    Allow,
    /// Judging failed (no usable answer, timeout, bad pattern): the caller picks the direction.
    Fail,
    /// Layer 1 triggered but no LLM is configured.
    Unjudged,
}

/// What the judge wants done with the response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Block,
    Allow,
}

impl Verdict {
    /// The logged value.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Violation => "violation",
            Verdict::Allow => "allow",
            Verdict::Fail => "fail",
            Verdict::Unjudged => "unjudged",
        }
    }
}

impl Decision {
    /// The logged value.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Block => "block",
            Decision::Allow => "allow",
        }
    }
}

/// Which turns the Stop judges send to the LLM (`stop.judge_turns`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum JudgeTurns {
    /// Every turn that could hold a violation, with every judge, in one call; Layer 1's
    /// signals are hints. By default, this.
    #[default]
    All,
    /// Only the judges Layer 1's patterns wake, as in 0.1: fewer calls, less reach.
    Lexicon,
}

impl JudgeTurns {
    /// The configured value.
    pub fn name(self) -> &'static str {
        match self {
            JudgeTurns::All => "all",
            JudgeTurns::Lexicon => "lexicon",
        }
    }
}

/// Whether a block found by the LLM is read a second time before it stands
/// (`stop.second_reading`; the reading itself is the LLM stage's, `llm::second_reading`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SecondReading {
    /// The first reading's fields decide, as before.
    #[default]
    Off,
    /// The blocks of the judges marked `second_reading: true` (the built-in `shallow-bugfix`
    /// and `bugfix-without-reproduction`, whose blocks on real text have mostly been false)
    /// are read again; the others' blocks stand as the first reading gave them.
    Marked,
    /// Every block the LLM's fields give is read again, in one more call for the turn, and
    /// stands only when that reading upholds it with the agent's own words.
    Blocks,
}

impl SecondReading {
    /// The configured value.
    pub fn name(self) -> &'static str {
        match self {
            SecondReading::Off => "off",
            SecondReading::Marked => "marked",
            SecondReading::Blocks => "blocks",
        }
    }
}

/// One judge's outcome on one text; its JSON form is what `hookjudge judge --json` prints and
/// what the decision log records.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeOutcome {
    pub judge: String,
    pub layer1: Signal,
    pub pattern: Option<String>,
    /// A bypass that matched but did not fire, because the text carries content aimed at a
    /// judge (the framed LLM decided instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_bypass: Option<RefusedBypass>,
    pub verdict: Option<Verdict>,
    pub decision: Decision,
    pub fields: Option<Map<String, Value>>,
    /// The model's explanation, or why judging failed.
    pub reason: Option<String>,
    /// Provider, model, latency and the like, when Layer 2 ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer2: Option<Layer2Call>,
    /// Whether the judge's question went to Layer 2, or would have with an LLM.
    #[serde(skip)]
    pub asked: bool,
    /// The second reading of this judge's block, when `stop.second_reading` asked for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_reading: Option<Reread>,
}

/// A bypass refused because of judge-directed content: both patterns, for the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedBypass {
    pub bypass: String,
    pub judge_directed: String,
}

/// The outcome of all judges on one text, with timings.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub outcomes: Vec<JudgeOutcome>,
    pub layer1_us: u64,
    pub layer2_us: u64,
    /// The provider calls the turn cost: at most one with an LLM provider.
    pub llm_calls: u32,
    /// Why the turn was left to Layer 1 alone under `judge_turns: "all"`, when it was.
    pub not_judged: Option<&'static str>,
}

impl Evaluation {
    /// Blocks when any judge blocks.
    pub fn decision(&self) -> Decision {
        if self.outcomes.iter().any(|o| o.decision == Decision::Block) {
            Decision::Block
        } else {
            Decision::Allow
        }
    }
}

/// What judges a text: the judges, and the user's speech-view rules their Layer 1 reads
/// through (see [`super::speech`]), as the config defines them.
#[derive(Debug, Default)]
pub struct Panel {
    pub judges: Vec<Judge>,
    pub speech: UserRules,
    pub judge_turns: JudgeTurns,
    pub second_reading: SecondReading,
}

impl Panel {
    /// The built-in judges enabled as shipped, under the built-in speech rules alone.
    pub fn builtin() -> Panel {
        let judges = super::builtin_specs()
            .iter()
            .map(|(name, spec)| Judge::from_spec(name, spec))
            .collect::<Result<Vec<_>, _>>()
            .expect("the built-in judges build (tested)");
        Panel::from(judges.into_iter().flatten().collect::<Vec<_>>())
    }
}

impl From<Vec<Judge>> for Panel {
    /// `judges` under the built-in speech rules alone.
    fn from(judges: Vec<Judge>) -> Panel {
        Panel {
            judges,
            speech: UserRules::default(),
            judge_turns: JudgeTurns::default(),
            second_reading: SecondReading::default(),
        }
    }
}

/// Judges `text` with every judge of `panel`.
pub fn evaluate(text: &str, panel: &Panel, layer2: &dyn Layer2) -> Evaluation {
    evaluate_turn(text, None, panel, layer2)
}

/// Judges `text` with every judge of `panel`, with `facts` (a rendered, framed block about the
/// session) in the prompt when given.
pub fn evaluate_turn(
    text: &str,
    facts: Option<&str>,
    panel: &Panel,
    layer2: &dyn Layer2,
) -> Evaluation {
    let started = Instant::now();
    let judges = &panel.judges[..];
    let lowercase = text.to_lowercase();
    let prepared = layer1::Text::with_rules(text, &lowercase, &panel.speech);
    let mut outcomes: Vec<JudgeOutcome> = judges
        .iter()
        .map(|judge| match layer1::run(judge, &prepared) {
            Ok(l1) => JudgeOutcome {
                judge: judge.name.clone(),
                layer1: l1.signal,
                pattern: l1.pattern.map(str::to_owned),
                refused_bypass: l1.refused_bypass.map(|(bypass, directed)| RefusedBypass {
                    bypass: bypass.to_owned(),
                    judge_directed: directed.to_owned(),
                }),
                verdict: match l1.signal {
                    Signal::Quiet => None,
                    Signal::Bypass => Some(Verdict::Allow),
                    Signal::Trigger => Some(Verdict::Unjudged),
                },
                decision: Decision::Allow,
                fields: None,
                reason: None,
                layer2: None,
                asked: false,
                second_reading: None,
            },
            Err(error) => JudgeOutcome {
                judge: judge.name.clone(),
                layer1: Signal::Quiet,
                pattern: None,
                refused_bypass: None,
                verdict: Some(Verdict::Fail),
                decision: Decision::Allow,
                fields: None,
                reason: Some(error.to_string()),
                layer2: None,
                asked: false,
                second_reading: None,
            },
        })
        .collect();
    let layer1_us = started.elapsed().as_micros() as u64;

    let layer2_started = Instant::now();
    let woke = |i: usize| outcomes[i].layer1 == Signal::Trigger;
    let not_judged = match panel.judge_turns {
        JudgeTurns::Lexicon => None,
        JudgeTurns::All => {
            super::turns::cannot_violate(text).filter(|_| !layer2.session_did_work())
        }
    };
    let asked: Vec<usize> = (0..judges.len())
        .filter(|&i| match (panel.judge_turns, not_judged) {
            (JudgeTurns::Lexicon, _) | (JudgeTurns::All, Some(_)) => woke(i),
            // A judge whose patterns failed has its verdict already; a bypass is a hint here,
            // not an allowance (see the README's "Which turns are judged").
            (JudgeTurns::All, None) => outcomes[i].verdict != Some(Verdict::Fail),
        })
        .collect();
    for &i in &asked {
        outcomes[i].asked = true;
    }
    // Asked only when judges are due: on a quiet turn no provider is even looked for.
    let asked = if !asked.is_empty() && layer2.available() {
        asked
    } else {
        Vec::new()
    };
    let hints: Vec<String> = asked
        .iter()
        .filter_map(|&i| hint(&judges[i], &outcomes[i], text))
        .collect();
    let asked_judges: Vec<&Judge> = asked.iter().map(|&i| &judges[i]).collect();
    let asked_woke: Vec<bool> = asked
        .iter()
        .map(|&i| outcomes[i].layer1 == Signal::Trigger)
        .collect();
    let answers = if asked.is_empty() {
        Answers {
            answers: Vec::new(),
            calls: 0,
        }
    } else {
        layer2.ask_all(&Question {
            judges: &asked_judges,
            text,
            hints: &hints,
            facts,
            woke: &asked_woke,
        })
    };
    for (i, answer) in asked.into_iter().zip(answers.answers) {
        apply(&judges[i], &mut outcomes[i], answer);
    }
    let reread_calls = match panel.second_reading {
        SecondReading::Off => 0,
        SecondReading::Marked | SecondReading::Blocks => reread(
            judges,
            &mut outcomes,
            text,
            facts,
            layer2,
            panel.second_reading,
        ),
    };
    let layer2_us = if outcomes.iter().any(|o| o.layer2.is_some()) {
        layer2_started.elapsed().as_micros() as u64
    } else {
        0
    };
    Evaluation {
        outcomes,
        layer1_us,
        layer2_us,
        llm_calls: answers.calls + reread_calls,
        not_judged,
    }
}

/// Reads the blocks the LLM's fields gave a second time (every one under `blocks`, those of
/// marked judges under `marked`), in one call, and withdraws those the reading does not
/// uphold; returns the calls it cost. Blocks the session's facts settled are
/// not read again: they quote the session, not a reading of the text.
fn reread(
    judges: &[Judge],
    outcomes: &mut [JudgeOutcome],
    text: &str,
    facts: Option<&str>,
    layer2: &dyn Layer2,
    which: SecondReading,
) -> u32 {
    let blocked: Vec<usize> = (0..outcomes.len())
        .filter(|&i| {
            let o = &outcomes[i];
            (which == SecondReading::Blocks || judges[i].second_reading)
                && o.decision == Decision::Block
                && o.fields.is_some()
                && o.layer2.as_ref().and_then(|m| m.provider.as_deref())
                    != Some(super::claims::FACTS_PROVIDER)
        })
        .collect();
    if blocked.is_empty() {
        return 0;
    }
    let findings: Vec<Finding> = blocked
        .iter()
        .map(|&i| Finding {
            judge: &judges[i],
            fields: outcomes[i].fields.as_ref().expect("filtered on fields"),
            reason: outcomes[i].reason.as_deref(),
        })
        .collect();
    let Some(rereads) = layer2.reread(&Recheck {
        findings: &findings,
        text,
        facts,
    }) else {
        return 0;
    };
    for (i, reread) in blocked.into_iter().zip(rereads.rereads) {
        if let Reread::Withdrawn { .. } = reread {
            outcomes[i].decision = Decision::Allow;
            outcomes[i].verdict = Some(Verdict::Allow);
        }
        outcomes[i].second_reading = Some(reread);
    }
    rereads.calls
}

/// Layer 1's signal for `judge` as a line for the prompt: the judge, the signal and the words
/// that raised it (`commit: trigger "push to main"`); none for a quiet judge.
fn hint(judge: &Judge, outcome: &JudgeOutcome, text: &str) -> Option<String> {
    let source = outcome.pattern.as_deref()?;
    let (kind, patterns) = match outcome.layer1 {
        Signal::Quiet => return None,
        Signal::Trigger => ("trigger", &judge.triggers),
        Signal::Bypass => ("bypass (evidence the rule may allow)", &judge.bypasses),
    };
    // The words matched in the raw text; a pattern that matched only the speech view (or the
    // judge-directed check) is named by its kind alone.
    let words = patterns
        .iter()
        .find(|p| p.source.as_ref() == source)
        .and_then(|p| p.find(text).ok().flatten())
        .map(|(start, end)| {
            let words: String = text[start..end].chars().take(60).collect();
            format!(
                " \"{}\"",
                words.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        })
        .unwrap_or_default();
    Some(format!("{}: {kind}{words}", judge.name))
}

fn apply(judge: &Judge, outcome: &mut JudgeOutcome, answer: Answer) {
    match answer {
        Answer::Unjudged => {}
        Answer::Fields {
            fields,
            reason,
            meta,
        } => {
            let violation = judge.block_when.holds(&fields);
            outcome.verdict = Some(if violation {
                Verdict::Violation
            } else {
                Verdict::Allow
            });
            outcome.decision = if violation {
                Decision::Block
            } else {
                Decision::Allow
            };
            outcome.fields = Some(fields);
            outcome.reason = reason;
            outcome.layer2 = Some(meta);
        }
        Answer::Failed { cause, meta } => {
            outcome.verdict = Some(Verdict::Fail);
            outcome.reason = Some(cause);
            outcome.layer2 = Some(meta);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Judge;
    use serde_json::json;

    fn judges() -> Panel {
        Panel::builtin()
    }

    /// A Layer 2 that answers from a fixed table, to test the rule and the plumbing.
    struct Scripted(Value);
    impl Layer2 for Scripted {
        fn ask(&self, judge: &Judge, _text: &str) -> Answer {
            match self.0.get(&judge.name) {
                Some(Value::Object(fields)) => Answer::Fields {
                    fields: fields.clone(),
                    reason: Some("scripted".into()),
                    meta: Layer2Call::default(),
                },
                _ => Answer::Failed {
                    cause: "no answer".into(),
                    meta: Layer2Call::default(),
                },
            }
        }
    }

    fn lexicon() -> Panel {
        let mut panel = judges();
        panel.judge_turns = JudgeTurns::Lexicon;
        panel
    }

    #[test]
    fn quiet_text_never_reaches_layer2_under_the_lexicon() {
        let eval = evaluate(
            "Here is the summary of the module layout.",
            &lexicon(),
            &Scripted(json!({})),
        );
        assert!(
            eval.outcomes
                .iter()
                .all(|o| o.layer1 == Signal::Quiet && o.verdict.is_none())
        );
        assert_eq!(eval.decision(), Decision::Allow);
    }

    #[test]
    fn triggered_judges_apply_their_rule() {
        let text = "The change is ready. Shall I commit and push to main?";
        let js = lexicon();
        let none = evaluate(text, &js, &NoLayer2);
        let commit = &none.outcomes[0];
        assert_eq!(
            (commit.layer1, commit.verdict, commit.decision),
            (Signal::Trigger, Some(Verdict::Unjudged), Decision::Allow)
        );

        let block = evaluate(
            text,
            &js,
            &Scripted(json!({"commit": {"new_proposal": true}})),
        );
        assert_eq!(block.outcomes[0].verdict, Some(Verdict::Violation));
        assert_eq!(block.decision(), Decision::Block);

        let allow = evaluate(
            text,
            &js,
            &Scripted(json!({"commit": {"new_proposal": true, "verification_reported": true}})),
        );
        assert_eq!(allow.outcomes[0].verdict, Some(Verdict::Allow));
        assert_eq!(allow.decision(), Decision::Allow);

        let failed = evaluate(text, &js, &Scripted(json!({})));
        assert_eq!(failed.outcomes[0].verdict, Some(Verdict::Fail));
        assert_eq!(failed.outcomes[0].decision, Decision::Allow);
    }

    /// A Layer 2 that answers every judge in one call, counting the questions it gets.
    struct Combined {
        parts: Value,
        questions: std::sync::atomic::AtomicU32,
        judges_asked: std::sync::Mutex<Vec<String>>,
        hints: std::sync::Mutex<Vec<String>>,
    }
    impl Combined {
        fn new(parts: Value) -> Combined {
            Combined {
                parts,
                questions: Default::default(),
                judges_asked: Default::default(),
                hints: Default::default(),
            }
        }
    }
    impl Layer2 for Combined {
        fn ask(&self, _judge: &Judge, _text: &str) -> Answer {
            unreachable!("a combined Layer 2 is asked for all judges at once")
        }
        fn ask_all(&self, question: &Question) -> Answers {
            self.questions
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut asked = self.judges_asked.lock().unwrap();
            asked.extend(question.judges.iter().map(|j| j.name.clone()));
            self.hints
                .lock()
                .unwrap()
                .extend(question.hints.iter().cloned());
            let answers = Scripted(self.parts.clone());
            Answers {
                answers: question
                    .judges
                    .iter()
                    .map(|j| answers.ask(j, question.text))
                    .collect(),
                calls: 1,
            }
        }
    }

    #[test]
    fn every_judge_is_asked_in_one_question_and_fails_alone() {
        let text = "The change is ready. Shall I commit and push to main?";
        let layer2 = Combined::new(json!({"commit": {"new_proposal": true}}));
        let eval = evaluate(text, &judges(), &layer2);
        assert_eq!(layer2.questions.into_inner(), 1);
        assert_eq!(eval.llm_calls, 1);
        let asked = layer2.judges_asked.into_inner().unwrap();
        let all: Vec<String> = judges().judges.iter().map(|j| j.name.clone()).collect();
        assert_eq!(asked, all, "quiet judges are asked too");
        assert_eq!(eval.outcomes[0].verdict, Some(Verdict::Violation));
        assert_eq!(eval.decision(), Decision::Block);
        for other in &eval.outcomes[1..] {
            assert_eq!(other.verdict, Some(Verdict::Fail), "{}", other.judge);
            assert_eq!(other.decision, Decision::Allow);
        }
        let hints = layer2.hints.into_inner().unwrap();
        assert!(
            hints.iter().any(|h| h.starts_with("commit: trigger \"")),
            "{hints:?}"
        );
    }

    /// A combined Layer 2 whose second reading answers `reread` for every finding, and
    /// records the judges it was asked to read again.
    struct Rereading {
        first: Combined,
        reread: Option<Reread>,
        reread_judges: std::sync::Mutex<Vec<String>>,
    }
    impl Layer2 for Rereading {
        fn ask(&self, _judge: &Judge, _text: &str) -> Answer {
            unreachable!("asked all at once")
        }
        fn ask_all(&self, question: &Question) -> Answers {
            self.first.ask_all(question)
        }
        fn reread(&self, recheck: &Recheck) -> Option<Rereads> {
            let reread = self.reread.clone()?;
            let mut asked = self.reread_judges.lock().unwrap();
            asked.extend(recheck.findings.iter().map(|f| f.judge.name.clone()));
            assert!(
                recheck
                    .findings
                    .iter()
                    .all(|f| f.fields.get("new_proposal") == Some(&Value::Bool(true))),
                "the findings carry the first reading's fields"
            );
            Some(Rereads {
                rereads: recheck.findings.iter().map(|_| reread.clone()).collect(),
                calls: 1,
            })
        }
    }

    fn reread_with(reread: Option<Reread>, setting: SecondReading) -> (Evaluation, Vec<String>) {
        let layer2 = Rereading {
            first: Combined::new(json!({
                "commit": {"new_proposal": true},
                "scope-check": {"new_proposal": false},
            })),
            reread,
            reread_judges: Default::default(),
        };
        let mut panel = judges();
        panel.second_reading = setting;
        let eval = evaluate(
            "The change is ready. Shall I commit and push to main?",
            &panel,
            &layer2,
        );
        (eval, layer2.reread_judges.into_inner().unwrap())
    }

    #[test]
    fn a_second_reading_withdraws_a_block_it_does_not_uphold() {
        let withdrawn = Reread::Withdrawn {
            reason: "a plan for after the tests".into(),
        };
        let (eval, reread) = reread_with(Some(withdrawn.clone()), SecondReading::Blocks);
        assert_eq!(reread, ["commit"], "only the blocking judge is read again");
        assert_eq!(eval.llm_calls, 2);
        let commit = &eval.outcomes[0];
        assert_eq!(
            (commit.decision, commit.verdict),
            (Decision::Allow, Some(Verdict::Allow))
        );
        assert_eq!(commit.second_reading, Some(withdrawn));
        assert_eq!(eval.decision(), Decision::Allow);

        let upheld = Reread::Upheld {
            quote: "Shall I commit and push to main?".into(),
            reason: "asks to push unverified".into(),
        };
        let (eval, _) = reread_with(Some(upheld), SecondReading::Blocks);
        assert_eq!(eval.decision(), Decision::Block);

        let failed = Reread::Failed {
            cause: "timeout".into(),
        };
        let (eval, _) = reread_with(Some(failed), SecondReading::Blocks);
        assert_eq!(
            eval.decision(),
            Decision::Block,
            "a failed second reading leaves the first standing"
        );
        assert!(eval.outcomes[0].second_reading.is_some());
    }

    #[test]
    fn a_block_the_sessions_facts_settled_is_not_read_again() {
        /// Answers `commit` as the session's facts do (no LLM), and would withdraw on a reread.
        struct Settled(Rereading);
        impl Layer2 for Settled {
            fn ask(&self, _judge: &Judge, _text: &str) -> Answer {
                unreachable!("asked all at once")
            }
            fn ask_all(&self, question: &Question) -> Answers {
                let answers = question
                    .judges
                    .iter()
                    .map(|j| match j.name.as_str() {
                        "commit" => Answer::Fields {
                            fields: serde_json::from_value(json!({"new_proposal": true})).unwrap(),
                            reason: Some("the last `cargo test` exited 1".into()),
                            meta: Layer2Call {
                                provider: Some(super::super::claims::FACTS_PROVIDER.into()),
                                ..Layer2Call::default()
                            },
                        },
                        _ => Answer::Unjudged,
                    })
                    .collect();
                Answers { answers, calls: 0 }
            }
            fn reread(&self, recheck: &Recheck) -> Option<Rereads> {
                self.0.reread(recheck)
            }
        }
        let layer2 = Settled(Rereading {
            first: Combined::new(json!({})),
            reread: Some(Reread::Withdrawn {
                reason: "no".into(),
            }),
            reread_judges: Default::default(),
        });
        let mut panel = judges();
        panel.second_reading = SecondReading::Blocks;
        let eval = evaluate("Shall I commit and push to main?", &panel, &layer2);
        assert_eq!((eval.decision(), eval.llm_calls), (Decision::Block, 0));
        assert!(layer2.0.reread_judges.into_inner().unwrap().is_empty());
    }

    #[test]
    fn no_second_reading_when_it_is_off_or_nothing_blocks() {
        let withdrawn = Reread::Withdrawn {
            reason: "no".into(),
        };
        let (eval, reread) = reread_with(Some(withdrawn.clone()), SecondReading::Off);
        assert!(reread.is_empty());
        assert_eq!((eval.decision(), eval.llm_calls), (Decision::Block, 1));
        assert!(eval.outcomes[0].second_reading.is_none());

        let layer2 = Rereading {
            first: Combined::new(json!({"commit": {"new_proposal": false}})),
            reread: Some(withdrawn),
            reread_judges: Default::default(),
        };
        let mut panel = judges();
        panel.second_reading = SecondReading::Blocks;
        let eval = evaluate("Shall I commit and push to main?", &panel, &layer2);
        assert!(layer2.reread_judges.into_inner().unwrap().is_empty());
        assert_eq!(eval.llm_calls, 1);
    }

    #[test]
    fn a_turn_that_cannot_hold_a_violation_costs_no_call() {
        let layer2 = Combined::new(json!({}));
        let eval = evaluate("daily rollover policy active", &judges(), &layer2);
        assert_eq!(layer2.questions.into_inner(), 0);
        assert_eq!(eval.llm_calls, 0);
        assert!(eval.not_judged.is_some());
        assert!(eval.outcomes.iter().all(|o| o.verdict.is_none()));
    }

    #[test]
    fn without_an_llm_quiet_judges_stay_quiet_in_every_mode() {
        let eval = evaluate(
            "Here is the summary of the module layout.",
            &judges(),
            &NoLayer2,
        );
        assert!(eval.outcomes.iter().all(|o| o.verdict.is_none()));
        assert_eq!(eval.llm_calls, 0);
    }

    #[test]
    fn a_bypass_is_a_hint_under_all_and_an_allowance_under_the_lexicon() {
        let text = "All 42 tests pass. Shall I commit and push to main?";
        let parts = json!({"commit": {"new_proposal": true, "verification_reported": false}});
        let layer2 = Combined::new(parts.clone());
        let all = evaluate(text, &judges(), &layer2);
        assert_eq!(all.outcomes[0].layer1, Signal::Bypass);
        assert_eq!(all.outcomes[0].verdict, Some(Verdict::Violation));
        let hints = layer2.hints.into_inner().unwrap();
        assert!(
            hints.iter().any(|h| h
                .starts_with("commit: bypass (evidence the rule may allow) \"All 42 tests pass")),
            "{hints:?}"
        );
        let layer2 = Combined::new(parts);
        let lexicon = evaluate(text, &lexicon(), &layer2);
        // The claim ("tests pass") wakes the claim judge; the commit judge's bypass allows.
        let asked = layer2.judges_asked.into_inner().unwrap();
        assert!(!asked.iter().any(|j| j == "commit"), "{asked:?}");
        assert_eq!(lexicon.outcomes[0].verdict, Some(Verdict::Allow));
        assert!(lexicon.llm_calls <= 1);
    }
}
