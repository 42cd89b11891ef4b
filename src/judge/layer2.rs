//! Layer 2 as the judges see it: the question the judges of one turn ask together, the
//! answers, what is known of each provider call, and the trait a provider implements. The
//! providers themselves are the `llm` module's; the run that asks is [`super::evaluate`]'s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Judge;

/// What is known of one judge's LLM call: who answered, how, and how long it took. It is
/// logged with the judge's outcome; every fact is left out when it is not known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layer2Call {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheUse>,
    /// Request parameters the server refused, left out of this call and later ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param_refused: Option<Vec<String>>,
    /// The response format the server rejected, before the one used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_rejected: Option<String>,
    /// The response format used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// The failure kind (`timeout`, `http`, …) when the call gave no usable answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// The prompt's tokens: the server's count where it gives usage, else bytes / 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// `true` when `prompt_tokens` is the bytes / 4 estimate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_estimated: Option<bool>,
    /// How many judges shared this call (a combined call carries every judge of the turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by: Option<u32>,
    /// Why what was learned about the server (a refused parameter, the format that works)
    /// could not be kept for the next call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_error: Option<String>,
}

/// Why a call gave no usable answer, as `layer2.failure` logs it: what `stats` counts failed
/// calls and fail-opens by, and what tells the human an LLM server cannot be reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    /// No answer before the deadline.
    Timeout,
    /// The server answered with an HTTP error.
    Http,
    /// The server could not be reached.
    Connect,
    /// The answer was not the fields asked for.
    Unparseable,
    /// The LLM program is not installed.
    Missing,
    /// The LLM program failed.
    Process,
    /// The LLM's config is wrong (a missing key, an empty command).
    Config,
    /// A kind this version does not know (a newer version's line), kept as logged.
    Other(String),
}

/// Each kind and its logged name: the one spelling writers write and readers read.
const FAILURE_KINDS: [(FailureKind, &str); 7] = [
    (FailureKind::Timeout, "timeout"),
    (FailureKind::Http, "http"),
    (FailureKind::Connect, "connect"),
    (FailureKind::Unparseable, "unparseable"),
    (FailureKind::Missing, "missing"),
    (FailureKind::Process, "process"),
    (FailureKind::Config, "config"),
];

impl FailureKind {
    /// The logged name.
    pub fn name(&self) -> &str {
        match self {
            FailureKind::Other(name) => name,
            known => FAILURE_KINDS
                .iter()
                .find(|(kind, _)| kind == known)
                .map_or("", |(_, name)| name),
        }
    }

    /// The kind a logged name stands for.
    pub fn named(name: &str) -> FailureKind {
        FAILURE_KINDS.iter().find(|(_, n)| *n == name).map_or_else(
            || FailureKind::Other(name.to_owned()),
            |(kind, _)| kind.clone(),
        )
    }
}

impl Serialize for FailureKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for FailureKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|name| FailureKind::named(&name))
    }
}

/// Whether a cached verdict answered instead of the LLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheUse {
    Hit,
    Miss,
}

/// Layer 2's answer for one judge.
#[derive(Debug, Clone)]
pub enum Answer {
    /// No LLM is configured: the trigger stays unjudged.
    Unjudged,
    /// The model returned these fields (already normalised to booleans where possible).
    Fields {
        fields: Map<String, Value>,
        reason: Option<String>,
        meta: Layer2Call,
    },
    /// The call failed; `cause` says why, `meta` what is known (provider, latency, …).
    Failed { cause: String, meta: Layer2Call },
}

/// What the judges of one turn ask Layer 2 together.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    pub judges: &'a [&'a Judge],
    pub text: &'a str,
    /// Layer 1's signals for the prompt, one line each.
    pub hints: &'a [String],
    /// A block of facts about the session, already rendered and framed, if any.
    pub facts: Option<&'a str>,
    /// For each judge, whether Layer 1 triggered on it: a judge asked only because every turn
    /// is judged has no sign of its subject in the text, and nothing may be settled for it
    /// without reading the text.
    pub woke: &'a [bool],
}

/// Layer 2's answers to a [`Question`], one per judge in order, and the provider calls they
/// cost (0 when a cache answered or no LLM is configured).
#[derive(Debug, Clone)]
pub struct Answers {
    pub answers: Vec<Answer>,
    pub calls: u32,
}

/// A block the first reading found, to be read again (`stop.second_reading`).
#[derive(Debug, Clone, Copy)]
pub struct Finding<'a> {
    pub judge: &'a Judge,
    /// The first reading's fields, which made the judge's rule block.
    pub fields: &'a Map<String, Value>,
    pub reason: Option<&'a str>,
}

/// What a second reading is asked: the findings of one turn, and the turn as it was judged.
#[derive(Debug, Clone, Copy)]
pub struct Recheck<'a> {
    pub findings: &'a [Finding<'a>],
    pub text: &'a str,
    /// The facts block the first reading had, if any.
    pub facts: Option<&'a str>,
}

/// The second reading of one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Reread {
    /// The block stands: `quote` is the agent's own words that show the violation, found in
    /// its text.
    Upheld { quote: String, reason: String },
    /// The block is withdrawn: the reading did not uphold it, or its quote is not the agent's.
    Withdrawn { reason: String },
    /// The reading failed: the first reading stands.
    Failed { cause: String },
}

/// The second readings of a [`Recheck`], one per finding in order, and the provider calls
/// they cost.
#[derive(Debug, Clone)]
pub struct Rereads {
    pub rereads: Vec<Reread>,
    pub calls: u32,
}

/// The LLM stage, as seen by the judges.
pub trait Layer2: Sync {
    /// Asks the LLM to fill `judge`'s fields for `text`.
    fn ask(&self, judge: &Judge, text: &str) -> Answer;

    /// Whether an LLM may answer at all: without one, the question (its hints, its threads) is
    /// not even built.
    fn available(&self) -> bool {
        true
    }

    /// Whether the session shows work done in this turn (edits, commands): a short reply that
    /// follows work is judged, as it may report or claim that work. Unknown without a session.
    fn session_did_work(&self) -> bool {
        false
    }

    /// Reads the findings of `recheck` a second time, all in one call. `None` where no second
    /// reading can be made (no LLM): the first reading stands.
    fn reread(&self, _recheck: &Recheck) -> Option<Rereads> {
        None
    }

    /// Asks for every judge of `question` at once. By default, each judge on its own,
    /// concurrently; an LLM provider answers them all in one call.
    fn ask_all(&self, question: &Question) -> Answers {
        let answers: Vec<Answer> = match question.judges {
            [] => Vec::new(),
            [only] => vec![self.ask(only, question.text)],
            many => std::thread::scope(|scope| {
                let handles: Vec<_> = many
                    .iter()
                    .map(|&judge| scope.spawn(move || self.ask(judge, question.text)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| Answer::Failed {
                            cause: "the judge panicked".into(),
                            meta: Layer2Call::default(),
                        })
                    })
                    .collect()
            }),
        };
        let calls = answers.iter().filter(|a| a.called()).count() as u32;
        Answers { answers, calls }
    }
}

impl Answer {
    /// Whether answering cost a provider call (not a cache hit, not unjudged).
    fn called(&self) -> bool {
        match self {
            Answer::Unjudged => false,
            Answer::Fields { meta, .. } | Answer::Failed { meta, .. } => {
                meta.cache != Some(CacheUse::Hit)
            }
        }
    }
}

/// Layer 2 when no LLM is configured: every trigger stays unjudged.
pub struct NoLayer2;

impl Layer2 for NoLayer2 {
    fn ask(&self, _judge: &Judge, _text: &str) -> Answer {
        Answer::Unjudged
    }

    fn available(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_kinds_are_logged_as_they_always_were() {
        // The strings 0.1 and every later version wrote in `layer2.failure`.
        let old = [
            "timeout",
            "http",
            "connect",
            "unparseable",
            "missing",
            "process",
            "config",
        ];
        for name in old {
            let kind = FailureKind::named(name);
            assert!(!matches!(kind, FailureKind::Other(_)), "{name}");
            assert_eq!(
                serde_json::to_string(&kind).unwrap(),
                serde_json::to_string(name).unwrap()
            );
            let read: FailureKind = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(read, kind);
        }
        // A newer version's kind reads, and is written back as it was.
        let newer: FailureKind = serde_json::from_str("\"quota\"").unwrap();
        assert_eq!(newer, FailureKind::Other("quota".into()));
        assert_eq!(serde_json::to_string(&newer).unwrap(), "\"quota\"");
    }
}
