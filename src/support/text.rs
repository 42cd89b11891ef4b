//! Text cut for a line of a message: whitespace runs folded to one space and at most `limit`
//! characters, the last one `…` when something was cut.

/// `text` on one line, at most `limit` characters (counted as `char`s, never splitting one).
pub fn short(text: &str, limit: usize) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > limit {
        format!(
            "{}…",
            one.chars()
                .take(limit.saturating_sub(1))
                .collect::<String>()
        )
    } else {
        one
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn folds_whitespace_and_cuts_at_the_limit_in_characters() {
        assert_eq!(short("git  push\n  origin", 60), "git push origin");
        assert_eq!(short("abcdef", 6), "abcdef");
        assert_eq!(short("abcdefg", 6), "abcde…");
        assert_eq!(short("ééééééé", 6).chars().count(), 6);
        assert_eq!(short("", 6), "");
    }
}
