//! Secret redaction: nothing that looks like a credential leaves the process or reaches the
//! log. Each secret becomes `[REDACTED:<kind>]`, and the counts per kind are logged.
//!
//! The rules are high-confidence formats (after gitleaks' rule set and the token formats the
//! vendors document) plus a few context rules (URL credentials, `Authorization` headers,
//! `password=` assignments) behind filters. A rule's regex is compiled only when one of its
//! keywords occurs in the text, so ordinary text costs a few substring searches. Classes are
//! ASCII (`(?-u:\b)`) so that a token glued to CJK text is still found. Self-marking
//! placeholders (`AKIAIOSFODNN7EXAMPLE`, `${TOKEN}`, `ghp_xxxx…`) are left alone, and every
//! other copy of a detected value is redacted too.

mod filters;
mod rules;

use std::collections::BTreeMap;

use filters::{is_not_secret_key, is_placeholder, trim_value};
use rules::{RULES, Tier, compiled};

/// A redacted text and what was removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    /// Secrets removed, per kind.
    pub counts: BTreeMap<String, usize>,
}

impl Redacted {
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }
}

#[derive(Debug, Clone)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
    tier: Tier,
}

impl Redacted {
    /// Secrets found by a rule that needs no name beside them (a token's own format, or a
    /// context such as an `Authorization` header), not by a generic `password=`-style rule.
    pub fn specific(&self) -> usize {
        self.counts
            .iter()
            .filter(|(kind, _)| !is_generic(kind))
            .map(|(_, n)| n)
            .sum()
    }
}

/// Whether `kind` is found only by generic rules (a name like `password` or `token` next to a
/// value), which a value of some other setting can match by accident.
fn is_generic(kind: &str) -> bool {
    RULES
        .iter()
        .filter(|r| r.kind == kind)
        .all(|r| r.tier == Tier::Generic)
}

/// Redacts every secret found in `text`.
pub fn redact(text: &str) -> Redacted {
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<Span> = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if !rule
            .keywords
            .iter()
            .any(|k| memchr::memmem::find(lower.as_bytes(), k.as_bytes()).is_some())
        {
            continue;
        }
        for caps in compiled(i).captures_iter(text) {
            let Some(secret) = caps.name("s") else {
                continue;
            };
            if rule.tier == Tier::Generic {
                let key = caps
                    .name("k")
                    .map(|k| k.as_str().to_ascii_lowercase())
                    .unwrap_or_default();
                if is_not_secret_key(&key) {
                    continue;
                }
            }
            let value = trim_value(secret.as_str(), rule.tier);
            if value.is_empty() || is_placeholder(value, rule) {
                continue;
            }
            found.push(Span {
                start: secret.start(),
                end: secret.start() + value.len(),
                kind: rule.kind,
                tier: rule.tier,
            });
        }
    }
    if found.is_empty() {
        return Redacted {
            text: text.to_owned(),
            counts: BTreeMap::new(),
        };
    }
    // Overlaps: the most specific tier wins, then the longest span.
    found.sort_by(|a, b| {
        a.tier
            .cmp(&b.tier)
            .then((b.end - b.start).cmp(&(a.end - a.start)))
    });
    let mut kept: Vec<Span> = Vec::new();
    for span in found {
        if !kept
            .iter()
            .any(|k| span.start < k.end && k.start < span.end)
        {
            kept.push(span);
        }
    }
    // Every other exact copy of a detected value goes too.
    let values: Vec<(String, &'static str, Tier)> = kept
        .iter()
        .filter(|s| s.end - s.start >= 8)
        .map(|s| (text[s.start..s.end].to_owned(), s.kind, s.tier))
        .collect();
    for (value, kind, tier) in values {
        for start in memchr::memmem::find_iter(text.as_bytes(), value.as_bytes()) {
            let end = start + value.len();
            if !kept.iter().any(|k| start < k.end && k.start < end) {
                kept.push(Span {
                    start,
                    end,
                    kind,
                    tier,
                });
            }
        }
    }
    kept.sort_by_key(|s| s.start);
    let mut out = String::with_capacity(text.len());
    let mut counts = BTreeMap::new();
    let mut at = 0;
    for span in kept {
        out.push_str(&text[at..span.start]);
        out.push_str("[REDACTED:");
        out.push_str(span.kind);
        out.push(']');
        *counts.entry(span.kind.to_owned()).or_insert(0) += 1;
        at = span.end;
    }
    out.push_str(&text[at..]);
    Redacted { text: out, counts }
}

/// Redacts every string inside `value` in place (keys stay); returns the counts per kind.
pub fn redact_json(value: &mut serde_json::Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => {
                let r = redact(s);
                if r.total() > 0 {
                    for (kind, n) in r.counts {
                        *counts.entry(kind).or_insert(0) += n;
                    }
                    *s = r.text;
                }
            }
            serde_json::Value::Array(items) => stack.extend(items.iter_mut()),
            serde_json::Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
    counts
}

#[cfg(test)]
mod tests;
