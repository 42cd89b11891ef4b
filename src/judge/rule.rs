//! Block rules: a small boolean language over a judge's fields.
//!
//! A rule is a field name, `{"all": [...]}`, `{"any": [...]}` or `{"not": rule}`. A field that is
//! missing or not a boolean counts as false, so a model that forgets a field cannot allow by
//! omission where the rule requires a `not` (the article's normalisation: a missing
//! `verification_reported` still blocks, a missing `direction_query` does not allow).

use serde_json::{Map, Value};

/// A block rule over a judge's fields. The judge blocks when the rule holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// The named field is `true`.
    Field(String),
    /// Every sub-rule holds (an empty list holds).
    All(Vec<Rule>),
    /// At least one sub-rule holds (an empty list does not hold).
    Any(Vec<Rule>),
    /// The sub-rule does not hold.
    Not(Box<Rule>),
}

/// Why a JSON value is not a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleError {
    /// `all` or `any` with something other than an array.
    NotAList { op: String, found: &'static str },
    /// An object whose one key is no operator.
    UnknownOperator(String),
    /// Neither a field name nor an object with one operator.
    NotARule { found: &'static str },
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuleError::NotAList { op, found } => {
                write!(f, "`{op}` takes an array of rules, found {found}")
            }
            RuleError::UnknownOperator(op) => {
                write!(
                    f,
                    "unknown operator `{op}` (expected `all`, `any` or `not`)"
                )
            }
            RuleError::NotARule { found } => write!(
                f,
                "a rule is a field name, {{\"all\": [...]}}, {{\"any\": [...]}} or {{\"not\": rule}}, found {found}"
            ),
        }
    }
}

impl std::error::Error for RuleError {}

impl Rule {
    /// Reads a rule from its JSON form, explaining what is wrong with a malformed one.
    pub fn from_json(value: &Value) -> Result<Rule, RuleError> {
        match value {
            Value::String(name) => Ok(Rule::Field(name.clone())),
            Value::Object(map) if map.len() == 1 => {
                let (op, arg) = map.iter().next().expect("map has one entry");
                match (op.as_str(), arg) {
                    ("all", Value::Array(items)) => Ok(Rule::All(
                        items
                            .iter()
                            .map(Rule::from_json)
                            .collect::<Result<_, _>>()?,
                    )),
                    ("any", Value::Array(items)) => Ok(Rule::Any(
                        items
                            .iter()
                            .map(Rule::from_json)
                            .collect::<Result<_, _>>()?,
                    )),
                    ("not", inner) => Ok(Rule::Not(Box::new(Rule::from_json(inner)?))),
                    ("all" | "any", other) => Err(RuleError::NotAList {
                        op: op.clone(),
                        found: kind(other),
                    }),
                    _ => Err(RuleError::UnknownOperator(op.clone())),
                }
            }
            other => Err(RuleError::NotARule { found: kind(other) }),
        }
    }

    /// The JSON form of the rule, as users write it.
    pub fn to_json(&self) -> Value {
        match self {
            Rule::Field(name) => Value::String(name.clone()),
            Rule::All(items) => {
                serde_json::json!({ "all": items.iter().map(Rule::to_json).collect::<Vec<_>>() })
            }
            Rule::Any(items) => {
                serde_json::json!({ "any": items.iter().map(Rule::to_json).collect::<Vec<_>>() })
            }
            Rule::Not(inner) => serde_json::json!({ "not": inner.to_json() }),
        }
    }

    /// Whether the rule holds for these fields (missing or non-boolean fields are false).
    pub fn holds(&self, fields: &Map<String, Value>) -> bool {
        match self {
            Rule::Field(name) => fields.get(name) == Some(&Value::Bool(true)),
            Rule::All(items) => items.iter().all(|r| r.holds(fields)),
            Rule::Any(items) => items.iter().any(|r| r.holds(fields)),
            Rule::Not(inner) => !inner.holds(fields),
        }
    }

    /// The rule with every mention of the field `name` replaced by `meaning`.
    pub fn replace_field(&self, name: &str, meaning: &Rule) -> Rule {
        match self {
            Rule::Field(n) if n == name => meaning.clone(),
            Rule::Field(_) => self.clone(),
            Rule::All(items) => Rule::All(
                items
                    .iter()
                    .map(|r| r.replace_field(name, meaning))
                    .collect(),
            ),
            Rule::Any(items) => Rule::Any(
                items
                    .iter()
                    .map(|r| r.replace_field(name, meaning))
                    .collect(),
            ),
            Rule::Not(inner) => Rule::Not(Box::new(inner.replace_field(name, meaning))),
        }
    }

    /// Every field name the rule mentions, for checking them against the judge's fields.
    pub fn field_names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    fn collect_names<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Rule::Field(name) => out.push(name),
            Rule::All(items) | Rule::Any(items) => items.iter().for_each(|r| r.collect_names(out)),
            Rule::Not(inner) => inner.collect_names(out),
        }
    }
}

/// How a JSON value's type is said in messages (`a string`, `an object`, …).
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn commit_rule() -> Rule {
        Rule::from_json(
            &json!({"all": ["new_proposal", {"not": "verification_reported"},
            {"not": "direction_query"}, {"not": "future_step_description"}]}),
        )
        .unwrap()
    }

    #[track_caller]
    fn case(rule: &Rule, fields: Value, expected: bool) {
        let Value::Object(map) = fields else {
            panic!("fields must be an object")
        };
        assert_eq!(rule.holds(&map), expected, "{map:?}");
    }

    #[test]
    fn commit_rule_follows_the_reference_normalisation() {
        let rule = commit_rule();
        case(
            &rule,
            json!({"new_proposal": true, "verification_reported": false, "direction_query": false, "future_step_description": false}),
            true,
        );
        // A missing `verification_reported` still blocks.
        case(&rule, json!({"new_proposal": true}), true);
        // A missing or non-boolean `new_proposal` never blocks.
        case(&rule, json!({}), false);
        case(&rule, json!({"new_proposal": "yes"}), false);
        case(
            &rule,
            json!({"new_proposal": true, "verification_reported": true}),
            false,
        );
        case(
            &rule,
            json!({"new_proposal": true, "direction_query": true}),
            false,
        );
        case(
            &rule,
            json!({"new_proposal": true, "future_step_description": true}),
            false,
        );
        // A non-boolean `direction_query` does not allow.
        case(
            &rule,
            json!({"new_proposal": true, "direction_query": "true"}),
            true,
        );
    }

    #[test]
    fn any_and_empty_lists() {
        let any = Rule::from_json(&json!({"any": ["a", "b"]})).unwrap();
        case(&any, json!({"b": true}), true);
        case(&any, json!({"a": false}), false);
        case(&Rule::All(vec![]), json!({}), true);
        case(&Rule::Any(vec![]), json!({}), false);
    }

    #[test]
    fn malformed_rules_are_explained() {
        let err = |v: Value| Rule::from_json(&v).unwrap_err().to_string();
        assert!(err(json!({"every": ["a"]})).contains("unknown operator `every`"));
        assert_eq!(
            err(json!({"all": "a"})),
            "`all` takes an array of rules, found a string"
        );
        assert!(err(json!(3)).ends_with("or {\"not\": rule}, found a number"));
        assert_eq!(
            Rule::from_json(&json!({"all": ["a"], "any": ["b"]})).unwrap_err(),
            RuleError::NotARule { found: "an object" }
        );
    }

    #[test]
    fn round_trips_and_lists_names() {
        let rule = commit_rule();
        assert_eq!(Rule::from_json(&rule.to_json()).unwrap(), rule);
        assert_eq!(
            rule.field_names(),
            [
                "new_proposal",
                "verification_reported",
                "direction_query",
                "future_step_description"
            ]
        );
    }
}
