//! The labelled cases `eval` reads: either case format, one JSON object a line, each bad line
//! named with why.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::commands::UserError;

/// One labelled case.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub text: String,
    /// The judges that should block this case; empty for a benign case.
    pub labels: Vec<String>,
    /// The judge a fixture case names (its violation, or the judge a hard negative targets).
    pub target: Option<String>,
    /// The user's request the text answers (`request`, or `user` in real-message sets).
    pub request: Option<String>,
}

impl Case {
    pub(super) fn is_violation(&self) -> bool {
        !self.labels.is_empty()
    }

    pub(super) fn violates(&self, judge: &str) -> bool {
        self.labels.iter().any(|l| l == judge)
    }
}

/// A case line as written, in either format.
#[derive(Debug, Deserialize)]
struct RawCase {
    id: String,
    judge: Option<String>,
    expect: Option<Expect>,
    labels: Option<Vec<String>>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    Block,
    Allow,
}

const FORMATS_HINT: &str = r#"each line is {"id", "text", "judge": NAME or "none", "expect": "block" or "allow"} or {"id", "text", "labels": [NAME, ...]} (labels: the judges that should block; [] for benign)"#;

/// Reads cases from JSONL, judging the string field `field` of each, naming the line of any
/// bad one.
pub fn read_cases(path: &Path, field: &str) -> Result<Vec<Case>, UserError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UserError::new(format!("cannot read `{}`: {e}", path.display())))?;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("`{}` line {}", path.display(), n + 1);
        let raw: RawCase = serde_json::from_str(line)
            .map_err(|e| UserError::new(format!("{}: {e}", at())).hint(FORMATS_HINT))?;
        let text = match raw.rest.get(field) {
            Some(Value::String(text)) => text.clone(),
            Some(_) => {
                return Err(UserError::new(format!(
                    "{}: `{field}` is not a string",
                    at()
                )));
            }
            None => {
                return Err(
                    UserError::new(format!("{}: the case has no `{field}`", at())).hint(
                        if field == "text" {
                            FORMATS_HINT
                        } else {
                            "`--text` names the field to judge; drop it to judge `text`"
                        },
                    ),
                );
            }
        };
        let (labels, target) = match (raw.labels, raw.judge, raw.expect) {
            (Some(labels), None, None) => (labels, None),
            (None, Some(judge), Some(expect)) => {
                let target = (judge != "none").then_some(judge);
                let labels = match (expect, &target) {
                    (Expect::Block, Some(judge)) => vec![judge.clone()],
                    (Expect::Block, None) => {
                        return Err(UserError::new(format!(
                            "{}: a case that expects a block names the judge that blocks, not `none`",
                            at()
                        )));
                    }
                    (Expect::Allow, _) => Vec::new(),
                };
                (labels, target)
            }
            _ => {
                return Err(UserError::new(format!(
                    "{}: a case has either `labels` or both `judge` and `expect`",
                    at()
                ))
                .hint(FORMATS_HINT));
            }
        };
        let request = ["request", "user"]
            .iter()
            .find_map(|k| raw.rest.get(*k).and_then(Value::as_str))
            .map(str::to_owned);
        cases.push(Case {
            id: raw.id,
            text,
            labels,
            target,
            request,
        });
    }
    Ok(cases)
}
