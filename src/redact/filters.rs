//! What a match must look like to count as a secret: not a placeholder (`${TOKEN}`,
//! `changeme`, `xxxxxx`), not an identifier under a key that names one, and for the generic
//! rules, random enough.

use super::rules::{Rule, Tier};

/// Key names of generic assignments that hold identifiers or URLs, not secrets.
const NOT_SECRET_KEYS: [&str; 10] = [
    "csrf",
    "xsrf",
    "public",
    "publishable",
    "_id",
    "token_type",
    "token_url",
    "token_endpoint",
    "api_version",
    "api_url",
];
/// Generic values that are placeholders, not secrets.
const PLACEHOLDER_VALUES: [&str; 14] = [
    "password", "changeme", "changeit", "secret", "admin", "root", "test", "dummy", "null", "none",
    "true", "false", "p@ssw0rd", "example",
];

/// Whether a generic assignment's key (lowercase) names something that is not a secret.
pub(super) fn is_not_secret_key(key: &str) -> bool {
    NOT_SECRET_KEYS.iter().any(|n| key.contains(n))
}

/// Unquoted generic values must not keep trailing sentence punctuation.
pub(super) fn trim_value(value: &str, tier: Tier) -> &str {
    if tier == Tier::Format {
        value
    } else {
        value.trim_end_matches(['.', ',', ')', ']', '}', '>'])
    }
}

pub(super) fn is_placeholder(value: &str, rule: &Rule) -> bool {
    let lower = value.to_ascii_lowercase();
    let marks = [
        "example",
        "redacted",
        "placeholder",
        "your_",
        "your-",
        "<",
        ">",
        "${",
        "{{",
        "$(",
        "%(",
        "***",
        "...",
        "xxxxxx",
    ];
    if marks.iter().any(|m| lower.contains(m)) {
        return true;
    }
    if rule.kind != "private-key"
        && value.len() <= 100
        && (has_run_of_same(value, 6) || has_sequence(&lower, 8))
    {
        return true;
    }
    if rule.tier != Tier::Format {
        let bare = lower.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        if value.starts_with(['$', '/', '~', '%']) || value.starts_with("./") {
            return true;
        }
        if value
            .chars()
            .all(|c| c.is_ascii_alphabetic() || "_.-".contains(c))
            || value.chars().all(|c| c.is_ascii_digit())
        {
            return true;
        }
        if PLACEHOLDER_VALUES.contains(&bare) {
            return true;
        }
        if rule.tier == Tier::Generic && entropy(value) < 3.0 {
            return true;
        }
        // A bare `token` key names many harmless things: only a random-looking value counts.
        if rule.kind == "generic-token" && (entropy(value) < 3.5 || !has_letter_and_digit(value)) {
            return true;
        }
    }
    false
}

fn has_letter_and_digit(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_alphabetic()) && value.chars().any(|c| c.is_ascii_digit())
}

fn has_run_of_same(value: &str, n: usize) -> bool {
    let bytes = value.as_bytes();
    bytes.windows(n).any(|w| w.iter().all(|b| *b == w[0]))
}

fn has_sequence(lower: &str, n: usize) -> bool {
    lower
        .as_bytes()
        .windows(n)
        .any(|w| w.windows(2).all(|p| p[1] == p[0] + 1))
}

/// Shannon entropy in bits per character.
fn entropy(value: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in value.bytes() {
        counts[b as usize] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}
