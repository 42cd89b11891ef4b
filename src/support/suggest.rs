//! "Did you mean …?": the closest known name to a misspelled one, by edit distance, and the
//! hint added to serde's "unknown field"/"unknown variant" messages, which list the known names.

/// The known name closest to `typed`, when it is close enough to be a slip (at most a third
/// of its length in edits, and at least one).
pub fn closest<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (typed.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (distance(&typed.to_lowercase(), &k.to_lowercase()), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// `message` with "; did you mean `x`?" added when it is serde's "unknown field `a`, expected
/// one of `x`, `y`" (or "unknown variant") and one of the expected names is close.
pub fn did_you_mean(message: &str) -> String {
    let Some(typed) = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| message.strip_prefix(p))
        .and_then(|rest| rest.split('`').next())
    else {
        return message.to_owned();
    };
    let Some((_, expected)) = message.split_once("expected ") else {
        return message.to_owned();
    };
    let known = expected.split('`').skip(1).step_by(2);
    let Some(name) = closest(typed, known) else {
        return message.to_owned();
    };
    // serde_json ends with the position; the hint goes before it.
    let (text, position) = match message.rfind(" at line ") {
        Some(at) => message.split_at(at),
        None => (message, ""),
    };
    format!("{text}; did you mean `{name}`?{position}")
}

/// Levenshtein distance, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_and_far_ones_are_not() {
        let providers = [
            "auto",
            "none",
            "openai",
            "anthropic",
            "command",
            "codex",
            "claude",
        ];
        assert_eq!(closest("opnai", providers), Some("openai"));
        assert_eq!(closest("antropic", providers), Some("anthropic"));
        assert_eq!(closest("Claude", providers), Some("claude"));
        assert_eq!(closest("gemini", providers), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn serde_messages_get_the_hint() {
        assert_eq!(
            did_you_mean("unknown variant `opnai`, expected one of `auto`, `openai`"),
            "unknown variant `opnai`, expected one of `auto`, `openai`; did you mean `openai`?"
        );
        assert_eq!(
            did_you_mean("unknown field `provder`, expected one of `provider`, `model`"),
            "unknown field `provder`, expected one of `provider`, `model`; did you mean `provider`?"
        );
        assert_eq!(
            did_you_mean("unknown variant `nne`, expected `none` at line 1 column 9"),
            "unknown variant `nne`, expected `none`; did you mean `none`? at line 1 column 9"
        );
        assert_eq!(
            did_you_mean("unknown field `zzz`, expected `provider`"),
            "unknown field `zzz`, expected `provider`"
        );
    }
}
