//! Claims checked against the session: a final message that says tests, a build or a check
//! pass, or that something works now, is compared with what the session file shows (see
//! [`crate::gate::evidence::facts`]).
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
use super::evaluate::{Answer, Layer2, Layer2Call};
use crate::gate::evidence::facts::{ClaimKind, Settled, TurnFacts};

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

    /// The facts as a block for the LLM prompt (see [`TurnFacts::render`]), at most
    /// `max_bytes`.
    pub fn facts_block(&self, max_bytes: usize) -> Option<String> {
        self.facts()?.render(max_bytes)
    }
}

impl Layer2 for Grounded<'_> {
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
            COMMIT_JUDGE => {
                let mut answer = self.inner.ask(judge, text);
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
            _ => self.inner.ask(judge, text),
        }
    }
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
    use crate::gate::evidence::facts::{Command, Step};
    use crate::judge::evaluate::{Panel, Verdict, evaluate};

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

    #[test]
    fn facts_are_read_only_when_a_judge_that_uses_them_wakes() {
        let panel = Panel::builtin();
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
