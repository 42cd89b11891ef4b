//! Claims checked against the session: a final message that says tests, a build or a check
//! pass, or that something works now, is compared with what the session file shows (see
//! [`crate::transcript::facts`]).
//!
//! [`Grounded`] wraps the LLM stage. For the `unverified-claim` judge it answers itself when the
//! facts settle the claim (the last run failed, ran no test, or came before the last edit; no
//! run after an edit; or a passing run after the last edit), so no LLM is needed and the reason
//! quotes the evidence; claims about what the session cannot see (CI, a remote, the user's
//! machine), messages that also admit a failure or an unverified part, and turns the facts do
//! not settle go to the LLM. For the `commit` judge, "verification reported" counts only when
//! the session does not contradict it.

use std::sync::OnceLock;

use regex::RegexSet;
use serde_json::{Map, Value, json};

use super::Judge;
use super::evaluate::{Answer, Answers, Layer2, Layer2Call, Question, Recheck, Rereads};
use crate::transcript::facts::{ClaimKind, Settled, TurnFacts};

/// The judge of claims checked against the session.
pub const CLAIM_JUDGE: &str = "unverified-claim";

/// The judge whose `verification_reported` the session may contradict.
const COMMIT_JUDGE: &str = "commit";

/// The provider named in the log when the session's facts answered instead of an LLM.
pub const FACTS_PROVIDER: &str = "session facts";

/// What the session cannot see: a claim about these goes to the LLM.
const UNSEEN: [&str; 6] = [
    r"\b(ci|github actions|gitlab ci|pipeline|workflow run|buildkite|jenkins|circleci)\b",
    r"\b(staging|production|prod|deployed|the server|remote|in the cloud)\b",
    r"\b(your|the user'?s) (machine|computer|laptop|environment|setup|browser|device)\b|\bon your (end|side)\b",
    r"(本番|ステージング|CIで|CI が|CIが|お手元|あなたの環境)",
    r"(线上|生产环境|预发|你的(电脑|机器|环境))",
    r"\b(en producción|in produzione|en production|in der produktion|auf deinem rechner|sur votre machine)\b",
];

/// Words that admit a failure or an unverified part: the message is not a plain claim, so the
/// LLM reads it.
const ADMITS: [&str; 5] = [
    r"\b(fail|fails|failing|failed|failure|failures|broken|error)\b",
    r"\b(not|never|haven't|hasn't|didn't|couldn't|cannot|can't|unable to)\b[^.\n]{0,40}\b(run|ran|verify|verified|test|tested|check|checked|build|built)\b",
    r"(失敗|未検証|実行していません|確認していません|できませんでした)",
    r"(失败|未验证|没有运行|无法运行|未运行)",
    r"\b(échoue|échec|fehlgeschlagen|schlägt fehl|falla|fallan|fallito|falliscono|thất bại|lỗi)\b",
];

/// Words that name the tests, and those that name a build or a check: which run a claim
/// rests on.
const TESTS: [&str; 4] = [
    r"\b(tests?|specs?|suite|passed)\b",
    r"(テスト|测试)",
    r"\b(pruebas|prueba)\b",
    r"\bkiểm thử\b",
];
const BUILD: [&str; 3] = [
    r"\b(build|builds|compil\w*|lint\w*|type ?check\w*|clippy|tsc|mypy|eslint|kompilierung)\b",
    r"(ビルド|コンパイル|リント|型チェック)",
    r"(构建|编译|检查)",
];

fn set(patterns: &'static [&'static str], cell: &'static OnceLock<RegexSet>) -> &'static RegexSet {
    cell.get_or_init(|| {
        regex::RegexSetBuilder::new(patterns)
            .case_insensitive(true)
            .build()
            .expect("the claim patterns are valid (tested)")
    })
}

/// What a claim in `text` rests on.
pub fn claim_kind(text: &str) -> ClaimKind {
    static T: OnceLock<RegexSet> = OnceLock::new();
    static B: OnceLock<RegexSet> = OnceLock::new();
    if set(&TESTS, &T).is_match(text) {
        ClaimKind::Tests
    } else if set(&BUILD, &B).is_match(text) {
        ClaimKind::Build
    } else {
        ClaimKind::Works
    }
}

/// Whether `text` is a plain local claim, which the facts may settle: it names nothing the
/// session cannot see and admits no failure or unverified part.
fn plain_local_claim(text: &str) -> bool {
    static U: OnceLock<RegexSet> = OnceLock::new();
    static A: OnceLock<RegexSet> = OnceLock::new();
    static NONE_FAILED: OnceLock<regex::Regex> = OnceLock::new();
    // "42 passed, 0 failed" and "no errors" admit nothing.
    let none_failed = NONE_FAILED.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(0|no|zero)\s+(failed|failures?|failing|errors?)\b")
            .expect("valid")
    });
    let text = none_failed.replace_all(text, "");
    !set(&UNSEEN, &U).is_match(&text) && !set(&ADMITS, &A).is_match(&text)
}

/// What the session says of the claim in `text`, when it settles it.
pub fn settle(facts: &TurnFacts, text: &str) -> Option<Settled> {
    if !plain_local_claim(text) {
        return None;
    }
    match facts.check(claim_kind(text)) {
        Settled::Open => None,
        settled => Some(settled),
    }
}

/// Reads the session's facts, once, when a judge first needs them.
pub type FactsLoader<'a> = Box<dyn Fn() -> Option<TurnFacts> + Send + Sync + 'a>;

/// The LLM stage grounded in the session's facts (see the module's documentation). The facts
/// are read only when a woken judge needs them: a quiet turn reads nothing.
pub struct Grounded<'a> {
    inner: &'a dyn Layer2,
    facts: OnceLock<Option<TurnFacts>>,
    load: FactsLoader<'a>,
}

impl<'a> Grounded<'a> {
    pub fn new(inner: &'a dyn Layer2, load: FactsLoader<'a>) -> Grounded<'a> {
        Grounded {
            inner,
            facts: OnceLock::new(),
            load,
        }
    }

    /// The turn's facts, read on first use (`None`: no session file, or it cannot be read).
    pub fn facts(&self) -> Option<&TurnFacts> {
        self.facts.get_or_init(|| (self.load)()).as_ref()
    }

    /// The facts block for the LLM's prompt: `given`, or the session's facts rendered, when an
    /// LLM will read it.
    fn block(&self, given: Option<&str>) -> Option<String> {
        match given {
            Some(given) => Some(given.to_owned()),
            None if self.inner.available() => {
                self.facts().and_then(|f| f.render(FACTS_BLOCK_BYTES))
            }
            None => None,
        }
    }

    /// The facts as a block for the LLM prompt (see [`TurnFacts::render`]), at most
    /// `max_bytes`.
    pub fn facts_block(&self, max_bytes: usize) -> Option<String> {
        self.facts()?.render(max_bytes)
    }
}

impl Layer2 for Grounded<'_> {
    /// The facts can settle a claim with no LLM: without one, the session is still read.
    fn available(&self) -> bool {
        self.inner.available() || self.facts().is_some()
    }

    fn session_did_work(&self) -> bool {
        self.facts().is_some_and(|f| !f.steps.is_empty())
    }

    /// One call for the judges the facts do not settle, with the facts in its prompt. The
    /// claim judge is settled from the facts only when Layer 1 saw a claim in the text (a
    /// turn judged because every turn is has none to settle: the LLM reads it, with the facts).
    fn ask_all(&self, question: &Question) -> Answers {
        let facts = self.facts();
        let settled: Vec<Option<Answer>> = question
            .judges
            .iter()
            .zip(question.woke)
            .map(|(judge, &woke)| {
                if judge.name != CLAIM_JUDGE {
                    return None;
                }
                // With no session to compare a claim with, the claim judge has nothing to go
                // on (an LLM would have to take or doubt the text's word): it is not asked.
                let Some(facts) = facts else {
                    return Some(Answer::Unjudged);
                };
                if !woke {
                    return None;
                }
                match settle(facts, question.text)? {
                    Settled::Contradicted(evidence) => Some(answer(false, evidence)),
                    Settled::Supported(evidence) => Some(answer(true, evidence)),
                    Settled::Open => None,
                }
            })
            .collect();
        let rest: Vec<&Judge> = question
            .judges
            .iter()
            .zip(&settled)
            .filter(|(_, s)| s.is_none())
            .map(|(j, _)| *j)
            .collect();
        let rest_woke: Vec<bool> = question
            .woke
            .iter()
            .zip(&settled)
            .filter(|(_, s)| s.is_none())
            .map(|(w, _)| *w)
            .collect();
        // Layer 1's hints for the judges in the call only: a hint for the claim judge when it
        // is not asked would tell the model of a judge it has no task for.
        let hints: Vec<String> = question
            .hints
            .iter()
            .filter(|hint| {
                rest.iter().any(|j| {
                    hint.strip_prefix(j.name.as_str())
                        .is_some_and(|h| h.starts_with(": "))
                })
            })
            .cloned()
            .collect();
        let block = self.block(question.facts);
        let mut asked = if rest.is_empty() {
            Answers {
                answers: Vec::new(),
                calls: 0,
            }
        } else {
            self.inner.ask_all(&Question {
                judges: &rest,
                text: question.text,
                hints: &hints,
                facts: block.as_deref(),
                woke: &rest_woke,
            })
        }
        .answers
        .into_iter();
        let calls = if rest.is_empty() { 0 } else { 1 };
        let mut answers = Vec::with_capacity(question.judges.len());
        for (judge, settled) in question.judges.iter().zip(settled) {
            let answer = match settled {
                Some(answer) => answer,
                None => asked.next().unwrap_or(Answer::Unjudged),
            };
            answers.push(match (judge.name.as_str(), facts) {
                (COMMIT_JUDGE, Some(facts)) => contradicted_verification(facts, answer),
                _ => answer,
            });
        }
        Answers { answers, calls }
    }

    /// The second reading sees the facts the first one saw.
    fn reread(&self, recheck: &Recheck) -> Option<Rereads> {
        let block = self.block(recheck.facts);
        self.inner.reread(&Recheck {
            facts: block.as_deref(),
            ..*recheck
        })
    }

    fn ask(&self, judge: &Judge, text: &str) -> Answer {
        if ![CLAIM_JUDGE, COMMIT_JUDGE].contains(&judge.name.as_str()) {
            return self.inner.ask(judge, text);
        }
        let Some(facts) = self.facts() else {
            return self.inner.ask(judge, text);
        };
        match judge.name.as_str() {
            CLAIM_JUDGE => match settle(facts, text) {
                Some(Settled::Contradicted(evidence)) => answer(false, evidence),
                Some(Settled::Supported(evidence)) => answer(true, evidence),
                _ => self.inner.ask(judge, text),
            },
            COMMIT_JUDGE => contradicted_verification(facts, self.inner.ask(judge, text)),
            _ => self.inner.ask(judge, text),
        }
    }
}

/// The facts block's size in the prompt: the newest steps of the turn, a few hundred tokens.
const FACTS_BLOCK_BYTES: usize = 2048;

/// The commit judge's `answer`, with "verification reported" withdrawn when the session
/// contradicts it.
fn contradicted_verification(facts: &TurnFacts, mut answer: Answer) -> Answer {
    if let Answer::Fields { fields, reason, .. } = &mut answer
        && fields.get("verification_reported") == Some(&Value::Bool(true))
        && let Settled::Contradicted(evidence) = facts.check(ClaimKind::Tests)
    {
        fields.insert("verification_reported".into(), Value::Bool(false));
        *reason = Some(format!(
            "the session contradicts the verification reported: {evidence}{}",
            reason
                .as_deref()
                .map(|r| format!(" (model: {r})"))
                .unwrap_or_default()
        ));
    }
    answer
}

/// The claim judge's fields when the facts settle it.
fn answer(backed: bool, evidence: String) -> Answer {
    let fields: Map<String, Value> = match json!({
        "claims_success": true,
        "backed": backed,
    }) {
        Value::Object(map) => map,
        _ => unreachable!("an object literal"),
    };
    Answer::Fields {
        fields,
        reason: Some(evidence),
        meta: Layer2Call {
            provider: Some(FACTS_PROVIDER.into()),
            ..Layer2Call::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patterns_compile_and_sort_claims() {
        assert_eq!(claim_kind("All tests pass now."), ClaimKind::Tests);
        assert_eq!(claim_kind("The build is green."), ClaimKind::Build);
        assert_eq!(claim_kind("It works now."), ClaimKind::Works);
        assert_eq!(claim_kind("テストが全て通りました"), ClaimKind::Tests);
        assert!(plain_local_claim("Fixed the parser. All tests pass now."));
        assert!(!plain_local_claim("CI is green on the PR."));
        assert!(!plain_local_claim("It works on your machine too, I think."));
        assert!(!plain_local_claim("Two tests still fail; the rest pass."));
        assert!(!plain_local_claim("I could not run the tests here."));
        assert!(plain_local_claim("Tests: 42 passed, 0 failed. No errors."));
    }
}

#[cfg(test)]
mod grounded_tests {
    use super::*;
    use crate::judge::evaluate::{Decision, Panel, Verdict, evaluate};
    use crate::transcript::facts::{Command, Step};

    /// A Layer 2 that reports verification for every judge it is asked about.
    struct Reports;
    impl Layer2 for Reports {
        fn ask(&self, _judge: &Judge, _text: &str) -> Answer {
            let fields = json!({"new_proposal": true, "verification_reported": true,
                "claims_success": true, "backed": true});
            Answer::Fields {
                fields: fields.as_object().unwrap().clone(),
                reason: Some("the message reports passing tests".into()),
                meta: Layer2Call::default(),
            }
        }
    }

    fn failed_run() -> TurnFacts {
        TurnFacts {
            request: None,
            steps: vec![
                Step::Edit {
                    tool: "Edit".into(),
                    files: vec!["src/parser.rs".into()],
                },
                Step::Command(Command {
                    command: "cargo test".into(),
                    exit: Some(101),
                    failed: Some(true),
                    test: true,
                    unproven: None,
                    check: false,
                    ran_no_test: false,
                    commits: false,
                    pushes: false,
                    writes: vec![],
                }),
            ],
            session_written: None,
        }
    }

    /// Without a session file the claim judge is not asked: a claim in the text alone cannot be
    /// checked, and asking would block every "it works now" the model cannot see backed.
    #[test]
    fn without_session_facts_the_claim_judge_is_not_asked() {
        let panel = Panel::builtin();
        let grounded = Grounded::new(&Reports, Box::new(|| None));
        let eval = evaluate("Fixed the parser. All tests pass now.", &panel, &grounded);
        let claim = eval
            .outcomes
            .iter()
            .find(|o| o.judge == CLAIM_JUDGE)
            .unwrap();
        assert!(claim.layer2.is_none(), "{claim:?}");
        assert_eq!(claim.decision, Decision::Allow, "{claim:?}");
    }

    /// A Layer 2 that records the hints of each call.
    #[derive(Default)]
    struct Hints(std::sync::Mutex<Vec<String>>);
    impl Layer2 for Hints {
        fn ask(&self, _judge: &Judge, _text: &str) -> Answer {
            Answer::Unjudged
        }
        fn ask_all(&self, question: &Question) -> Answers {
            self.0
                .lock()
                .unwrap()
                .extend(question.hints.iter().cloned());
            Answers {
                answers: vec![Answer::Unjudged; question.judges.len()],
                calls: 1,
            }
        }
    }

    /// The claim judge's Layer 1 hint goes only into a call the claim judge is in.
    #[test]
    fn a_judge_left_out_of_the_call_leaves_no_hint_in_it() {
        let panel = Panel::builtin();
        let recorder = Hints::default();
        let text = "Fixed the parser. All tests pass now. Shall I push to main?";
        evaluate(text, &panel, &Grounded::new(&recorder, Box::new(|| None)));
        let hints = recorder.0.lock().unwrap().clone();
        assert!(hints.iter().any(|h| h.starts_with("commit: ")), "{hints:?}");
        assert!(
            !hints.iter().any(|h| h.starts_with(CLAIM_JUDGE)),
            "{hints:?}"
        );
    }

    #[test]
    fn reported_verification_counts_only_when_the_session_does_not_contradict_it() {
        let panel = Panel::builtin();
        let text = "Refactored the parser. Shall I commit and push to main now?";
        let facts = failed_run();
        let grounded = Grounded::new(&Reports, Box::new(move || Some(facts.clone())));
        let eval = evaluate(text, &panel, &grounded);
        let commit = eval.outcomes.iter().find(|o| o.judge == "commit").unwrap();
        assert_eq!(commit.verdict, Some(Verdict::Violation), "{commit:?}");
        assert!(
            commit.reason.as_deref().unwrap().contains("exited 101"),
            "{commit:?}"
        );
        // Without facts contradicting it, the model's answer stands.
        let grounded = Grounded::new(&Reports, Box::new(|| None));
        let eval = evaluate(text, &panel, &grounded);
        let commit = eval.outcomes.iter().find(|o| o.judge == "commit").unwrap();
        assert_eq!(commit.verdict, Some(Verdict::Allow), "{commit:?}");
    }

    /// Under the lexicon setting the facts are read only when a judge that uses them wakes;
    /// when every turn is judged they ground every call, and are read once either way.
    #[test]
    fn facts_are_read_only_when_a_judge_that_uses_them_wakes() {
        let mut panel = Panel::builtin();
        panel.judge_turns = crate::judge::evaluate::JudgeTurns::Lexicon;
        let read = std::sync::atomic::AtomicUsize::new(0);
        let grounded = Grounded::new(
            &Reports,
            Box::new(|| {
                read.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                None
            }),
        );
        evaluate("Here is how the module is laid out.", &panel, &grounded);
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 0);
        evaluate("All tests pass now.", &panel, &grounded);
        evaluate("All tests pass now.", &panel, &grounded);
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
