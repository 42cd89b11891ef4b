//! Literal prefilters for Layer 1 patterns.
//!
//! Compiling a regex costs tens to hundreds of microseconds, and a hook process compiles from
//! scratch on every call. Most responses mention none of the words a pattern needs, so each
//! pattern carries the literals that any match must start with (prefixes) and end with
//! (suffixes). A pattern is compiled only when the lowercased text contains one literal of each
//! set. Built-in patterns get their sets at build time (see `build.rs`); user patterns at load.
//!
//! This file is also compiled into `build.rs`, so it depends on `regex-syntax` alone.

use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Literals shorter than this are too common to be worth a prefilter.
const MIN_LITERAL_BYTES: usize = 2;

/// The literal sets a pattern's matches must contain. An empty set means "no constraint".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefilter {
    /// Every match starts with one of these (lowercased).
    pub prefixes: Vec<String>,
    /// Every match ends with one of these (lowercased).
    pub suffixes: Vec<String>,
}

impl Prefilter {
    /// Whether a pattern with this prefilter can match a text whose lowercase form is given.
    pub fn may_match(&self, lowercase_text: &str) -> bool {
        let any = |set: &[String]| {
            set.is_empty()
                || set.iter().any(|lit| {
                    memchr::memmem::find(lowercase_text.as_bytes(), lit.as_bytes()).is_some()
                })
        };
        any(&self.prefixes) && any(&self.suffixes)
    }

    /// Whether this prefilter rules anything out at all.
    pub fn is_useful(&self) -> bool {
        !self.prefixes.is_empty() || !self.suffixes.is_empty()
    }
}

/// Parses `pattern` the way Layer 1 compiles it (case-insensitive) and extracts its prefilter.
///
/// Errors carry the parser's message, which points at the offending part of the pattern.
pub fn extract(pattern: &str) -> Result<Prefilter, String> {
    // Parse case-sensitively: case-insensitive literals expand into every case variant and blow
    // the extractor's limits. The text is lowercased before the prefilter runs, so lowercased
    // literals are still necessary conditions for a case-insensitive match.
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|err| err.to_string())?;
    Ok(Prefilter {
        prefixes: literal_set(&hir, ExtractKind::Prefix),
        suffixes: literal_set(&hir, ExtractKind::Suffix),
    })
}

fn literal_set(hir: &regex_syntax::hir::Hir, kind: ExtractKind) -> Vec<String> {
    let is_prefix = matches!(kind, ExtractKind::Prefix);
    let seq = Extractor::new().kind(kind).extract(hir);
    let Some(literals) = seq.literals() else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::with_capacity(literals.len());
    for lit in literals {
        let text = valid_utf8_part(lit.as_bytes(), is_prefix).to_lowercase();
        if text.len() < MIN_LITERAL_BYTES {
            // One short or empty literal lets almost anything through: no constraint.
            return Vec::new();
        }
        if !out.contains(&text) {
            out.push(text);
        }
    }
    // A literal that contains another one is implied by it: keep the shorter.
    let mut kept: Vec<String> = Vec::with_capacity(out.len());
    for lit in &out {
        if !out
            .iter()
            .any(|other| other != lit && lit.contains(other.as_str()))
        {
            kept.push(lit.clone());
        }
    }
    kept
}

/// The longest valid UTF-8 part at the start (prefixes) or end (suffixes) of `bytes`: the
/// extractor may cut a literal inside a multi-byte character.
fn valid_utf8_part(bytes: &[u8], is_prefix: bool) -> String {
    if is_prefix {
        match std::str::from_utf8(bytes) {
            Ok(s) => s.to_owned(),
            Err(e) => String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned(),
        }
    } else {
        let mut start = 0;
        while start < bytes.len() {
            if let Ok(s) = std::str::from_utf8(&bytes[start..]) {
                return s.to_owned();
            }
            start += 1;
        }
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(pattern: &str, prefixes: &[&str], suffixes: &[&str]) {
        let p = extract(pattern).unwrap();
        assert_eq!(p.prefixes, prefixes, "prefixes of {pattern}");
        assert_eq!(p.suffixes, suffixes, "suffixes of {pattern}");
    }

    #[test]
    fn extracts_alternations_and_lowercases() {
        case(
            r"\b(Shall|should) I commit",
            &["shall i commit", "should i commit"],
            &["shall i commit", "should i commit"],
        );
        case(
            r"\b(shall|should) I\b.{0,20}\b(commit|push)",
            &["shall i", "should i"],
            &["commit", "push"],
        );
        case(
            r"コミット(します|しましょう)",
            &["コミットします", "コミットしましょう"],
            &["コミットします", "コミットしましょう"],
        );
    }

    #[test]
    fn open_ended_patterns_have_no_constraint() {
        case(r"^\s*Q\d+:", &[], &[":"][..0]);
        let p = extract(r".*commit").unwrap();
        assert!(p.prefixes.is_empty());
        assert_eq!(p.suffixes, vec!["commit"]);
    }

    #[test]
    fn prefilter_rules_out_texts_without_literals() {
        let p = extract(r"\b(shall|should) I\b.{0,20}\b(commit|push)").unwrap();
        assert!(p.may_match("so, shall i go ahead and push?"));
        assert!(!p.may_match("i pushed it yesterday"));
        assert!(!p.may_match("shall i make tea?"));
    }

    #[test]
    fn bad_pattern_is_an_error() {
        assert!(extract("(unclosed").is_err());
    }
}
