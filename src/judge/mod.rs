//! Judges as data: what a judge is, the built-in five, and how config layers change them.
//!
//! A judge is a name, a description, Layer 1 trigger and bypass patterns, a prompt, the fields
//! the LLM must return, a block rule over those fields and the reason the agent is given when it
//! blocks. Every part is data (`builtins.json` and, for Layer 1, `layer1.json` for the built-ins;
//! the `judges` key of the config for the user's), so a user can disable, extend or replace a
//! judge, or add one, without Rust.

pub mod evaluate;
pub mod layer1;
pub mod literals;
pub mod rule;
pub mod speech;

use std::fmt;
use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use literals::Prefilter;
pub use rule::Rule;

include!(concat!(env!("OUT_DIR"), "/builtin_prefilters.rs"));

/// The built-in judges, in the order they run and report.
const BUILTINS_JSON: &str = include_str!("builtins.json");
/// The built-in judges' Layer 1: triggers, broad triggers and bypasses per judge, the speech
/// view's rules and the judge-directed content that disables bypasses.
const LAYER1_JSON: &str = include_str!("layer1.json");

/// How widely a judge's Layer 1 wakes it: `high` adds the judge's `broad_triggers` to its
/// `triggers` (more LLM calls, fewer violations lost before the LLM reads them). `normal`, the
/// default, is the knee of the recall/wake curve measured on real and held-out text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sensitivity {
    #[default]
    Normal,
    High,
}

/// The built-in Layer 1 data (`layer1.json`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer1Data {
    pub speech: speech::SpeechRules,
    /// Content aimed at a judge (boundary-marker look-alikes, verdict-shaped JSON, instructions
    /// to a reviewer): when a text carries any, no bypass fires and the framed LLM decides.
    pub judge_directed: Vec<String>,
    /// Negation cues: a bypass whose match follows one in the same sentence ("I have not
    /// reproduced it") is no allow signal and does not fire.
    pub negations: String,
    pub judges: indexmap::IndexMap<String, Layer1Spec>,
}

/// One built-in judge's Layer 1 patterns.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer1Spec {
    pub triggers: Vec<String>,
    pub broad_triggers: Vec<String>,
    pub bypasses: Vec<String>,
}

/// The parsed `layer1.json`.
pub fn builtin_layer1() -> &'static Layer1Data {
    static DATA: OnceLock<Layer1Data> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(LAYER1_JSON).expect("layer1.json is valid (tested)"))
}

/// Regexes are compiled with this size limit: a user pattern that explodes is an error, not a
/// hook that eats memory.
const REGEX_SIZE_LIMIT: usize = 2 << 20;

/// One judge as written in data. Every key is optional so that a config layer can change only
/// what it names; a judge must be complete once every layer is applied.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeSpec {
    /// `false` turns the judge off. By default, judges are enabled.
    pub enabled: Option<bool>,
    /// One line saying what the judge catches.
    pub description: Option<String>,
    /// Layer 1 patterns that wake the judge (replaces the list below this layer).
    pub triggers: Option<Vec<String>>,
    /// Layer 1 patterns that wake the judge only at `sensitivity: "high"` (replaces the list).
    pub broad_triggers: Option<Vec<String>>,
    /// `normal` (the default) wakes on `triggers`; `high` also on `broad_triggers`.
    pub sensitivity: Option<Sensitivity>,
    /// Layer 1 patterns that allow without asking the LLM (replaces the list below this layer).
    pub bypasses: Option<Vec<String>>,
    /// Trigger patterns appended to the list from the layers below.
    pub add_triggers: Option<Vec<String>>,
    /// Bypass patterns appended to the list from the layers below.
    pub add_bypasses: Option<Vec<String>>,
    /// What the LLM is asked to decide.
    pub prompt: Option<String>,
    /// The fields the LLM returns: name to meaning.
    pub fields: Option<Map<String, Value>>,
    /// The block rule over the fields.
    pub block_when: Option<Value>,
    /// What the agent is told when the judge blocks: the next step, in one or two sentences.
    pub reason: Option<String>,
}

impl JudgeSpec {
    /// Applies a higher layer on top of this one: named keys replace, `add_*` lists append.
    pub fn overlay(&mut self, upper: &JudgeSpec) {
        macro_rules! replace {
            ($($key:ident),*) => { $( if upper.$key.is_some() { self.$key = upper.$key.clone(); } )* };
        }
        replace!(
            enabled,
            description,
            triggers,
            broad_triggers,
            sensitivity,
            bypasses,
            prompt,
            fields,
            block_when,
            reason
        );
        for (mine, theirs) in [
            (&mut self.add_triggers, &upper.add_triggers),
            (&mut self.add_bypasses, &upper.add_bypasses),
        ] {
            if let Some(extra) = theirs {
                mine.get_or_insert_with(Vec::new)
                    .extend(extra.iter().cloned());
            }
        }
    }
}

/// The built-in judge specs, by name, in their fixed order.
pub fn builtin_specs() -> Vec<(String, JudgeSpec)> {
    let map: indexmap::IndexMap<String, JudgeSpec> =
        serde_json::from_str(BUILTINS_JSON).expect("builtins.json follows JudgeSpec (tested)");
    let layer1 = builtin_layer1();
    map.into_iter()
        .map(|(name, mut spec)| {
            if let Some(l1) = layer1.judges.get(&name) {
                spec.triggers = Some(l1.triggers.clone());
                spec.broad_triggers = Some(l1.broad_triggers.clone());
                spec.bypasses = Some(l1.bypasses.clone());
            }
            (name, spec)
        })
        .collect()
}

/// A field the LLM must return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub meaning: String,
}

/// A ready-to-run judge.
#[derive(Debug)]
pub struct Judge {
    pub name: String,
    pub description: String,
    /// The patterns that wake the judge: `triggers`, and `broad_triggers` at high sensitivity.
    pub triggers: Vec<Pattern>,
    pub bypasses: Vec<Pattern>,
    pub sensitivity: Sensitivity,
    pub prompt: String,
    pub fields: Vec<Field>,
    pub block_when: Rule,
    pub reason: String,
}

impl Judge {
    /// Builds a judge from its merged spec, checking everything a user could get wrong.
    /// Returns `Ok(None)` for a disabled judge.
    pub fn from_spec(name: &str, spec: &JudgeSpec) -> Result<Option<Judge>, Error> {
        if spec.enabled == Some(false) {
            return Ok(None);
        }
        let err = |kind| Error {
            judge: name.to_owned(),
            kind,
        };
        let require = |value: &Option<String>, key: &'static str| {
            value.clone().ok_or_else(|| err(ErrorKind::Missing(key)))
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(err(ErrorKind::BadName));
        }
        let patterns =
            |base: &Option<Vec<String>>, extra: &Option<Vec<String>>, what: &'static str| {
                base.iter()
                    .chain(extra.iter())
                    .flatten()
                    .map(|source| {
                        Pattern::new(source).map_err(|message| {
                            err(ErrorKind::BadPattern {
                                what,
                                pattern: source.clone(),
                                message,
                            })
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            };
        let sensitivity = spec.sensitivity.unwrap_or_default();
        let mut triggers = patterns(&spec.triggers, &spec.add_triggers, "trigger")?;
        if sensitivity == Sensitivity::High {
            triggers.extend(patterns(&spec.broad_triggers, &None, "broad trigger")?);
        }
        if triggers.is_empty() {
            return Err(err(ErrorKind::Missing("triggers")));
        }
        let bypasses = patterns(&spec.bypasses, &spec.add_bypasses, "bypass")?;
        let fields = spec
            .fields
            .as_ref()
            .ok_or_else(|| err(ErrorKind::Missing("fields")))?
            .iter()
            .map(|(field, meaning)| match meaning {
                Value::String(meaning) => Ok(Field {
                    name: field.clone(),
                    meaning: meaning.clone(),
                }),
                _ => Err(err(ErrorKind::BadField(field.clone()))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if fields.is_empty() {
            return Err(err(ErrorKind::Missing("fields")));
        }
        let rule_json = spec
            .block_when
            .as_ref()
            .ok_or_else(|| err(ErrorKind::Missing("block_when")))?;
        let block_when = Rule::from_json(rule_json).map_err(|m| err(ErrorKind::BadRule(m)))?;
        if let Some(unknown) = block_when
            .field_names()
            .into_iter()
            .find(|n| !fields.iter().any(|f| f.name == *n))
        {
            return Err(err(ErrorKind::BadRule(format!(
                "`{unknown}` is not one of the judge's `fields`"
            ))));
        }
        Ok(Some(Judge {
            name: name.to_owned(),
            description: require(&spec.description, "description")?,
            triggers,
            bypasses,
            sensitivity,
            prompt: require(&spec.prompt, "prompt")?,
            fields,
            block_when,
            reason: require(&spec.reason, "reason")?,
        }))
    }
}

/// A Layer 1 pattern: its source, its literal prefilter and, once needed, its compiled regex.
pub struct Pattern {
    pub source: String,
    prefilter: Prefilter,
    compiled: OnceLock<Result<Regex, String>>,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

impl Pattern {
    /// Prepares a pattern. Built-in patterns take their prefilter from the build; others are
    /// parsed here, which also reports syntax errors without compiling.
    pub fn new(source: &str) -> Result<Pattern, String> {
        let prefilter = match BUILTIN_PREFILTERS.binary_search_by(|(p, _, _)| (*p).cmp(source)) {
            Ok(i) => {
                let (_, prefixes, suffixes) = BUILTIN_PREFILTERS[i];
                Prefilter {
                    prefixes: prefixes
                        .iter()
                        .map(|s| std::borrow::Cow::Borrowed(*s))
                        .collect(),
                    suffixes: suffixes
                        .iter()
                        .map(|s| std::borrow::Cow::Borrowed(*s))
                        .collect(),
                }
            }
            Err(_) => literals::extract(source)?,
        };
        Ok(Pattern {
            source: source.to_owned(),
            prefilter,
            compiled: OnceLock::new(),
        })
    }

    /// Whether the pattern matches `text`; `index` is `text` prepared for prefilters.
    /// The regex is compiled on first need only.
    pub fn is_match(&self, text: &str, index: &literals::TextIndex) -> Result<bool, String> {
        if !self.may_match(index) {
            return Ok(false);
        }
        self.matches(text)
    }

    /// Whether the pattern's literals occur in the indexed text (a necessary condition for a
    /// match in that text or in any part of it).
    pub fn may_match(&self, index: &literals::TextIndex) -> bool {
        self.prefilter.may_match(index)
    }

    /// Whether the pattern matches `haystack`, compiling it on first need.
    pub fn matches(&self, haystack: &str) -> Result<bool, String> {
        Ok(self.find(haystack)?.is_some())
    }

    /// Where the pattern first matches `haystack` (byte offsets), compiling it on first need.
    pub fn find(&self, haystack: &str) -> Result<Option<(usize, usize)>, String> {
        let compiled = self.compiled.get_or_init(|| {
            regex::RegexBuilder::new(&self.source)
                .case_insensitive(true)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| e.to_string())
        });
        match compiled {
            Ok(regex) => Ok(regex.find(haystack).map(|m| (m.start(), m.end()))),
            Err(message) => Err(format!(
                "pattern `{}` does not compile: {message}",
                self.source
            )),
        }
    }

    /// Whether the pattern has a literal prefilter (patterns without one compile on every call).
    pub fn has_prefilter(&self) -> bool {
        self.prefilter.is_useful()
    }
}

/// A judge definition that cannot be used, with the judge's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub judge: String,
    pub kind: ErrorKind,
}

/// What is wrong with a judge definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    Missing(&'static str),
    BadName,
    BadPattern {
        what: &'static str,
        pattern: String,
        message: String,
    },
    BadField(String),
    BadRule(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let judge = &self.judge;
        match &self.kind {
            ErrorKind::Missing(key) => write!(
                f,
                "judge `{judge}` has no `{key}` (a new judge needs `description`, `triggers`, `prompt`, `fields`, `block_when` and `reason`)"
            ),
            ErrorKind::BadName => write!(
                f,
                "judge name `{judge}` may only use ASCII letters, digits, `-` and `_`"
            ),
            ErrorKind::BadPattern {
                what,
                pattern,
                message,
            } => {
                write!(
                    f,
                    "judge `{judge}`: {what} pattern `{pattern}` is not a valid regex:\n{message}"
                )
            }
            ErrorKind::BadField(field) => write!(
                f,
                "judge `{judge}`: field `{field}` must map to a string saying what it means"
            ),
            ErrorKind::BadRule(message) => {
                write!(f, "judge `{judge}`: bad `block_when`: {message}")
            }
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin(name: &str) -> Judge {
        let specs = builtin_specs();
        let (_, spec) = specs.iter().find(|(n, _)| n == name).unwrap();
        Judge::from_spec(name, spec).unwrap().unwrap()
    }

    #[test]
    fn the_five_builtins_load_in_order() {
        let names: Vec<String> = builtin_specs().into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "commit",
                "scope-check",
                "scope-change",
                "shallow-bugfix",
                "bugfix-without-reproduction"
            ]
        );
        for name in &names {
            let judge = builtin(name);
            assert!(!judge.triggers.is_empty());
            assert!(
                !judge.prompt.contains(&judge.reason),
                "the reason must not repeat the prompt"
            );
        }
        let commit = builtin("commit");
        let fields: Vec<&str> = commit.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            fields,
            [
                "new_proposal",
                "verification_reported",
                "direction_query",
                "future_step_description"
            ]
        );
        for sister in [
            "scope-check",
            "scope-change",
            "shallow-bugfix",
            "bugfix-without-reproduction",
        ] {
            let fields: Vec<String> = builtin(sister)
                .fields
                .iter()
                .map(|f| f.name.clone())
                .collect();
            assert_eq!(fields, ["new_proposal", "retraction_or_quote"], "{sister}");
        }
    }

    #[test]
    fn every_builtin_pattern_has_a_prefilter_and_compiles() {
        // The quiet path must never compile a regex: every built-in pattern needs literals.
        for (name, spec) in builtin_specs() {
            let judge = Judge::from_spec(&name, &spec).unwrap().unwrap();
            for p in judge.triggers.iter().chain(&judge.bypasses) {
                assert!(
                    p.has_prefilter(),
                    "{name}: `{}` has no literal prefilter",
                    p.source
                );
                assert!(p.is_match("", &literals::TextIndex::new("")).is_ok());
                // Force compilation even though the prefilter would skip it.
                regex::RegexBuilder::new(&p.source)
                    .case_insensitive(true)
                    .build()
                    .unwrap();
            }
        }
    }

    #[test]
    fn every_builtin_layer1_rule_compiles() {
        let data = builtin_layer1();
        let speech = &data.speech;
        let rules = [&speech.commands, &speech.shown_headings, &data.negations]
            .into_iter()
            .chain(&speech.masks)
            .chain(&data.judge_directed);
        for rule in rules {
            regex::RegexBuilder::new(rule)
                .case_insensitive(true)
                .build()
                .unwrap_or_else(|e| panic!("`{rule}`: {e}"));
        }
        for pattern in speech.masks.iter().chain(&data.judge_directed) {
            assert!(
                literals::extract(pattern).unwrap().is_useful(),
                "`{pattern}` has no literal prefilter"
            );
        }
        // Layer 1 data lives in `layer1.json` only, so that the two files never disagree.
        let raw: indexmap::IndexMap<String, JudgeSpec> =
            serde_json::from_str(BUILTINS_JSON).unwrap();
        for (name, spec) in &raw {
            assert!(
                spec.triggers.is_none() && spec.bypasses.is_none() && spec.broad_triggers.is_none(),
                "builtins.json: `{name}` has Layer 1 patterns; they belong in layer1.json"
            );
        }
        // Every built-in judge has its Layer 1 here, and only built-in judges do.
        let names: Vec<String> = builtin_specs().into_iter().map(|(n, _)| n).collect();
        assert_eq!(data.judges.keys().cloned().collect::<Vec<_>>(), names);
    }

    #[test]
    fn builtin_prefilters_match_runtime_extraction() {
        for (pattern, prefixes, suffixes) in BUILTIN_PREFILTERS {
            let p = literals::extract(pattern).unwrap();
            assert_eq!(
                p.prefixes,
                prefixes
                    .iter()
                    .map(|s| std::borrow::Cow::Borrowed(*s))
                    .collect::<Vec<_>>()
            );
            assert_eq!(
                p.suffixes,
                suffixes
                    .iter()
                    .map(|s| std::borrow::Cow::Borrowed(*s))
                    .collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn overlay_replaces_and_appends() {
        let mut base = JudgeSpec {
            triggers: Some(vec!["a1".into()]),
            add_triggers: Some(vec!["x".into()]),
            ..Default::default()
        };
        base.overlay(&JudgeSpec {
            add_triggers: Some(vec!["y".into()]),
            prompt: Some("p".into()),
            ..Default::default()
        });
        assert_eq!(base.triggers.as_deref(), Some(&["a1".to_string()][..]));
        assert_eq!(
            base.add_triggers.as_deref(),
            Some(&["x".to_string(), "y".to_string()][..])
        );
        assert_eq!(base.prompt.as_deref(), Some("p"));
        base.overlay(&JudgeSpec {
            enabled: Some(false),
            ..Default::default()
        });
        assert!(Judge::from_spec("j", &base).unwrap().is_none());
    }

    #[test]
    fn bad_definitions_name_the_judge_and_the_pattern() {
        let (_, mut spec) = builtin_specs().remove(0);
        spec.overlay(&JudgeSpec {
            add_triggers: Some(vec!["(unclosed".into()]),
            ..Default::default()
        });
        let err = Judge::from_spec("commit", &spec).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("judge `commit`") && text.contains("`(unclosed`"),
            "{text}"
        );

        let new = JudgeSpec {
            triggers: Some(vec!["foo".into()]),
            ..Default::default()
        };
        assert_eq!(
            Judge::from_spec("mine", &new).unwrap_err().kind,
            ErrorKind::Missing("fields")
        );

        let mut rule_typo: JudgeSpec = serde_json::from_value(serde_json::json!({
            "description": "d", "triggers": ["foo"], "prompt": "p", "reason": "r",
            "fields": {"a": "meaning"}, "block_when": {"all": ["a", {"not": "b"}]}
        }))
        .unwrap();
        assert!(
            Judge::from_spec("mine", &rule_typo)
                .unwrap_err()
                .to_string()
                .contains("`b` is not one of")
        );
        rule_typo.block_when = Some(serde_json::json!("a"));
        assert!(Judge::from_spec("mine", &rule_typo).unwrap().is_some());
        assert_eq!(
            Judge::from_spec("bad name", &rule_typo).unwrap_err().kind,
            ErrorKind::BadName
        );
    }
}
