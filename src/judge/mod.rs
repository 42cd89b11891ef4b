//! Judges as data: what a judge is, the built-in five, and how config layers change them.
//!
//! A judge is a name, a description, Layer 1 trigger and bypass patterns, a prompt, the fields
//! the LLM must return, a block rule over those fields and the reason the agent is given when it
//! blocks. Every part is data (`builtins.json` for the built-ins, the `judges` key of the config
//! for the user's), so a user can disable, extend or replace a judge, or add one, without Rust.
//!
//! A judge has a kind: `response` judges read the agent's final message (the Stop hook, `judge`,
//! `eval`, `replay`); the `gate` judge reads the session's recent activity when the gate meets a
//! commit, push or deploy, and needs no Layer 1 patterns.

pub mod evaluate;
pub mod layer1;
pub mod literals;
pub mod rule;

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

/// Regexes are compiled with this size limit: a user pattern that explodes is an error, not a
/// hook that eats memory.
const REGEX_SIZE_LIMIT: usize = 2 << 20;

/// The name of the judge the gate asks about session activity.
pub const GATE_JUDGE: &str = "gate-verification";

/// What a judge reads, and so who runs it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The agent's final message, judged at Stop (and by `judge`, `eval`, `replay`).
    #[default]
    Response,
    /// The session's recent activity, judged by the gate before a shared-state command.
    Gate,
}

/// One judge as written in data. Every key is optional so that a config layer can change only
/// what it names; a judge must be complete once every layer is applied.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeSpec {
    /// `false` turns the judge off. By default, judges are enabled.
    pub enabled: Option<bool>,
    /// What the judge reads (`response` by default, or `gate`).
    pub kind: Option<Kind>,
    /// One line saying what the judge catches.
    pub description: Option<String>,
    /// Layer 1 patterns that wake the judge (replaces the list below this layer).
    pub triggers: Option<Vec<String>>,
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
    /// Field names a judge used to have, each as a rule over its current fields, so that a
    /// `block_when` written for the old fields keeps its meaning (and is reported for renaming).
    pub legacy_fields: Option<Map<String, Value>>,
}

impl JudgeSpec {
    /// Applies a higher layer on top of this one: named keys replace, `add_*` lists append.
    pub fn overlay(&mut self, upper: &JudgeSpec) {
        macro_rules! replace {
            ($($key:ident),*) => { $( if upper.$key.is_some() { self.$key = upper.$key.clone(); } )* };
        }
        replace!(
            enabled,
            kind,
            description,
            triggers,
            bypasses,
            prompt,
            fields,
            block_when,
            reason,
            legacy_fields
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
    map.into_iter().collect()
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
    pub kind: Kind,
    pub description: String,
    pub triggers: Vec<Pattern>,
    pub bypasses: Vec<Pattern>,
    pub prompt: String,
    pub fields: Vec<Field>,
    pub block_when: Rule,
    pub reason: String,
    /// What the user should change in their config although it still works (old field names).
    pub notes: Vec<String>,
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
        let kind = spec.kind.unwrap_or_default();
        let triggers = patterns(&spec.triggers, &spec.add_triggers, "trigger")?;
        if triggers.is_empty() && kind == Kind::Response {
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
        let mut block_when = Rule::from_json(rule_json).map_err(|m| err(ErrorKind::BadRule(m)))?;
        let is_field = |n: &str| fields.iter().any(|f| f.name == n);
        let field_list = || {
            fields
                .iter()
                .map(|f| format!("`{}`", f.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut notes = Vec::new();
        let mut old_names: Vec<String> = block_when
            .field_names()
            .into_iter()
            .filter(|n| !is_field(n))
            .map(str::to_owned)
            .collect();
        old_names.sort();
        old_names.dedup();
        for old in old_names {
            let Some(meaning) = spec.legacy_fields.as_ref().and_then(|l| l.get(&old)) else {
                continue;
            };
            let meaning = Rule::from_json(meaning)
                .map_err(|m| err(ErrorKind::BadRule(format!("`legacy_fields.{old}`: {m}"))))?;
            notes.push(format!(
                "judge `{name}`: `block_when` names `{old}`, a field this judge no longer has; it is read as {}. Rename it in your config to the judge's fields: {}",
                meaning.to_json(),
                field_list()
            ));
            block_when = block_when.replace_field(&old, &meaning);
        }
        if let Some(unknown) = block_when.field_names().into_iter().find(|n| !is_field(n)) {
            return Err(err(ErrorKind::BadRule(format!(
                "`{unknown}` is not one of the judge's `fields` ({})",
                field_list()
            ))));
        }
        Ok(Some(Judge {
            name: name.to_owned(),
            kind,
            description: require(&spec.description, "description")?,
            triggers,
            bypasses,
            prompt: require(&spec.prompt, "prompt")?,
            fields,
            block_when,
            reason: require(&spec.reason, "reason")?,
            notes,
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
        if !self.prefilter.may_match(index) {
            return Ok(false);
        }
        let compiled = self.compiled.get_or_init(|| {
            regex::RegexBuilder::new(&self.source)
                .case_insensitive(true)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| e.to_string())
        });
        match compiled {
            Ok(regex) => Ok(regex.is_match(text)),
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
    /// The judge must be of this kind where it is used.
    WrongKind(Kind),
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
            ErrorKind::WrongKind(kind) => write!(
                f,
                "judge `{judge}`: `kind` must be `{}` where it is used",
                match kind {
                    Kind::Response => "response",
                    Kind::Gate => "gate",
                }
            ),
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

    fn field_names(judge: &Judge) -> Vec<&str> {
        judge.fields.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn the_builtins_load_in_order() {
        let names: Vec<String> = builtin_specs().into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                "commit",
                "scope-check",
                "scope-change",
                "shallow-bugfix",
                "bugfix-without-reproduction",
                GATE_JUDGE
            ]
        );
        for name in &names {
            let judge = builtin(name);
            assert_eq!(
                judge.triggers.is_empty(),
                judge.kind == Kind::Gate,
                "{name}: response judges need triggers, the gate judge has none"
            );
            assert!(judge.notes.is_empty(), "{name}: {:?}", judge.notes);
            assert!(
                !judge.prompt.contains(&judge.reason),
                "the reason must not repeat the prompt"
            );
            // Every field is named in the prompt's list exactly once and used by the rule.
            for f in &judge.fields {
                assert!(
                    judge.block_when.field_names().contains(&f.name.as_str()),
                    "{name}: `{}` is not used by `block_when`",
                    f.name
                );
            }
        }
        assert_eq!(
            field_names(&builtin("commit")),
            [
                "new_proposal",
                "verification_reported",
                "direction_query",
                "future_step_description"
            ]
        );
        assert_eq!(
            field_names(&builtin("scope-check")),
            ["new_proposal", "retraction_or_quote"]
        );
        assert_eq!(
            field_names(&builtin("shallow-bugfix")),
            [
                "fix_reported",
                "cause_named",
                "recap_of_earlier_work",
                "setup_or_non_defect",
                "quoted_or_hypothetical"
            ]
        );
        assert_eq!(
            field_names(&builtin("bugfix-without-reproduction")),
            [
                "code_fix",
                "failure_observed",
                "diagnosed",
                "recap_of_earlier_work",
                "setup_or_non_defect",
                "quoted_or_hypothetical"
            ]
        );
        assert_eq!(
            field_names(&builtin("scope-change")),
            [
                "scope_cut",
                "handed_back",
                "failures_left",
                "optional_or_quoted",
                "user_decided",
                "only_user_can"
            ]
        );
    }

    /// Answers as a map, for the block rules.
    fn answer(pairs: &[(&str, bool)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::Bool(*v)))
            .collect()
    }

    #[test]
    fn the_split_fields_block_only_an_unexplained_new_fix() {
        let shallow = builtin("shallow-bugfix");
        let holds = |pairs: &[(&str, bool)]| shallow.block_when.holds(&answer(pairs));
        assert!(holds(&[("fix_reported", true)]));
        for exemption in [
            "cause_named",
            "recap_of_earlier_work",
            "setup_or_non_defect",
            "quoted_or_hypothetical",
        ] {
            assert!(
                !holds(&[("fix_reported", true), (exemption, true)]),
                "{exemption}"
            );
        }
        assert!(!holds(&[("cause_named", false)]));

        let repro = builtin("bugfix-without-reproduction");
        let holds = |pairs: &[(&str, bool)]| repro.block_when.holds(&answer(pairs));
        assert!(holds(&[("code_fix", true), ("cause_named", true)]));
        for exemption in ["failure_observed", "diagnosed", "recap_of_earlier_work"] {
            assert!(
                !holds(&[("code_fix", true), (exemption, true)]),
                "{exemption}"
            );
        }

        let scope = builtin("scope-change");
        let holds = |pairs: &[(&str, bool)]| scope.block_when.holds(&answer(pairs));
        for cut in ["scope_cut", "handed_back", "failures_left"] {
            assert!(holds(&[(cut, true)]), "{cut}");
            for exemption in ["optional_or_quoted", "user_decided", "only_user_can"] {
                assert!(
                    !holds(&[(cut, true), (exemption, true)]),
                    "{cut} {exemption}"
                );
            }
        }
        assert!(!holds(&[]));

        let gate = builtin(GATE_JUDGE);
        let holds = |pairs: &[(&str, bool)]| gate.block_when.holds(&answer(pairs));
        assert!(holds(&[]), "no answer about verification denies");
        assert!(!holds(&[("verified_after_last_change", true)]));
        assert!(holds(&[
            ("verified_after_last_change", true),
            ("last_check_failed", true)
        ]));
        assert!(!holds(&[("no_code_changed", true)]));
    }

    #[test]
    fn a_block_rule_over_the_old_fields_keeps_its_meaning_and_says_what_to_rename() {
        for (name, new_fields) in [
            ("shallow-bugfix", "`fix_reported`, `cause_named`"),
            (
                "bugfix-without-reproduction",
                "`code_fix`, `failure_observed`",
            ),
            ("scope-change", "`scope_cut`, `handed_back`"),
        ] {
            let (_, mut spec) = builtin_specs()
                .into_iter()
                .find(|(n, _)| n == name)
                .unwrap();
            // A user's rule from before the split, stricter than the old built-in one.
            spec.overlay(&JudgeSpec {
                block_when: Some(serde_json::json!({"all": ["new_proposal", {"not": "retraction_or_quote"}, {"not": "new_proposal_x"}]})),
                ..Default::default()
            });
            let err = Judge::from_spec(name, &spec).unwrap_err().to_string();
            assert!(
                err.contains("`new_proposal_x` is not one of the judge's `fields`")
                    && err.contains(new_fields),
                "{err}"
            );
            spec.overlay(&JudgeSpec {
                block_when: Some(
                    serde_json::json!({"all": ["new_proposal", {"not": "retraction_or_quote"}]}),
                ),
                ..Default::default()
            });
            let judge = Judge::from_spec(name, &spec).unwrap().unwrap();
            assert_eq!(judge.notes.len(), 2, "{:?}", judge.notes);
            assert!(
                judge.notes[0].contains("names `new_proposal`")
                    && judge.notes[0].contains("Rename it")
                    && judge.notes[0].contains(new_fields),
                "{}",
                judge.notes[0]
            );
            // The old rule now means what the built-in rule means.
            let builtin = builtin(name);
            let first = builtin.fields[0].name.as_str();
            for pairs in [
                vec![(first, true)],
                vec![(first, true), ("setup_or_non_defect", true)],
                vec![(first, true), ("quoted_or_hypothetical", true)],
                vec![(first, true), ("optional_or_quoted", true)],
                vec![(first, true), ("recap_of_earlier_work", true)],
                vec![(first, true), ("cause_named", true)],
                vec![(first, true), ("diagnosed", true)],
                vec![(first, false)],
            ] {
                let fields = answer(&pairs);
                assert_eq!(
                    judge.block_when.holds(&fields),
                    builtin.block_when.holds(&fields)
                        || (name == "scope-change" && fields.contains_key("only_user_can")),
                    "{name} {pairs:?}"
                );
            }
        }
    }

    #[test]
    fn the_gate_judge_needs_no_triggers_but_response_judges_do() {
        let (_, gate) = builtin_specs()
            .into_iter()
            .find(|(n, _)| n == GATE_JUDGE)
            .unwrap();
        assert_eq!(gate.kind, Some(Kind::Gate));
        let mut as_response = gate.clone();
        as_response.kind = Some(Kind::Response);
        assert_eq!(
            Judge::from_spec(GATE_JUDGE, &as_response).unwrap_err().kind,
            ErrorKind::Missing("triggers")
        );
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
                assert_eq!(p.is_match("", &literals::TextIndex::new("")), Ok(false));
                // Force compilation even though the prefilter would skip it.
                regex::RegexBuilder::new(&p.source)
                    .case_insensitive(true)
                    .build()
                    .unwrap();
            }
        }
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
