//! Literal prefilters for Layer 1 patterns.
//!
//! Compiling a regex costs tens to hundreds of microseconds, and a hook process compiles from
//! scratch on every call. Most responses mention none of the words a pattern needs, so each
//! pattern carries the literals that any match must start with (prefixes) and end with
//! (suffixes). A pattern is compiled only when the lowercased text contains one literal of each
//! set. Built-in patterns get their sets at build time (see `build.rs`); user patterns at load.
//!
//! This file is also compiled into `build.rs`, so it depends on `regex-syntax` alone.

use std::borrow::Cow;

use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Literals shorter than this are too common to be worth a prefilter.
const MIN_LITERAL_BYTES: usize = 2;
/// Literals are cut to this many bytes (prefixes keep their start, suffixes their end): a cut
/// literal is still a necessary condition, and alternations then collapse into a few literals
/// instead of their cross product (which is what makes a prefilter cheap).
const MAX_LITERAL_BYTES: usize = 6;

/// The literal sets a pattern's matches must contain. An empty set means "no constraint".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefilter {
    /// Every match starts with one of these (lowercased).
    pub prefixes: Vec<Cow<'static, str>>,
    /// Every match ends with one of these (lowercased).
    pub suffixes: Vec<Cow<'static, str>>,
}

/// A text prepared for prefilters: lowercased, with a bitmap of its byte trigrams, so that most
/// absent literals are ruled out by a few bit tests instead of a scan of the text.
pub struct TextIndex<'t> {
    lowercase: &'t str,
    trigrams: Box<[u64; 64]>,
}

fn trigram_bit(w: &[u8]) -> usize {
    (usize::from(w[0]).wrapping_mul(961) + usize::from(w[1]).wrapping_mul(31) + usize::from(w[2]))
        & 4095
}

impl<'t> TextIndex<'t> {
    pub fn new(lowercase: &'t str) -> TextIndex<'t> {
        let mut trigrams = Box::new([0u64; 64]);
        for w in lowercase.as_bytes().windows(3) {
            let bit = trigram_bit(w);
            trigrams[bit >> 6] |= 1 << (bit & 63);
        }
        TextIndex {
            lowercase,
            trigrams,
        }
    }

    /// Whether `literal` occurs in the text.
    pub fn contains(&self, literal: &str) -> bool {
        let bytes = literal.as_bytes();
        let maybe = bytes.windows(3).all(|w| {
            let bit = trigram_bit(w);
            self.trigrams[bit >> 6] & (1 << (bit & 63)) != 0
        });
        maybe && memchr::memmem::find(self.lowercase.as_bytes(), bytes).is_some()
    }
}

impl Prefilter {
    /// Whether a pattern with this prefilter can match the indexed text.
    pub fn may_match(&self, text: &TextIndex) -> bool {
        let any =
            |set: &[Cow<'static, str>]| set.is_empty() || set.iter().any(|lit| text.contains(lit));
        // The smaller set first: it usually decides alone.
        let (first, second) = if self.suffixes.is_empty()
            || (!self.prefixes.is_empty() && self.prefixes.len() <= self.suffixes.len())
        {
            (&self.prefixes, &self.suffixes)
        } else {
            (&self.suffixes, &self.prefixes)
        };
        any(first) && any(second)
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

fn literal_set(hir: &regex_syntax::hir::Hir, kind: ExtractKind) -> Vec<Cow<'static, str>> {
    let is_prefix = matches!(kind, ExtractKind::Prefix);
    let seq = Extractor::new().kind(kind).extract(hir);
    let Some(literals) = seq.literals() else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::with_capacity(literals.len());
    for lit in literals {
        let text = cut(
            &valid_utf8_part(lit.as_bytes(), is_prefix).to_lowercase(),
            is_prefix,
        );
        if text.len() < MIN_LITERAL_BYTES {
            // One short or empty literal lets almost anything through: no constraint.
            return Vec::new();
        }
        if !out.contains(&text) {
            out.push(text);
        }
    }
    // A literal that contains another one is implied by it: keep the shorter.
    let mut kept: Vec<Cow<'static, str>> = Vec::with_capacity(out.len());
    for lit in &out {
        if !out
            .iter()
            .any(|other| other != lit && lit.contains(other.as_str()))
        {
            kept.push(Cow::Owned(lit.clone()));
        }
    }
    kept
}

/// The first (prefixes) or last (suffixes) `MAX_LITERAL_BYTES` bytes, on character boundaries.
fn cut(text: &str, is_prefix: bool) -> String {
    if text.len() <= MAX_LITERAL_BYTES {
        return text.to_owned();
    }
    if is_prefix {
        let mut end = MAX_LITERAL_BYTES;
        while !text.is_char_boundary(end) {
            end += 1;
        }
        text[..end].to_owned()
    } else {
        let mut start = text.len() - MAX_LITERAL_BYTES;
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        text[start..].to_owned()
    }
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
    fn extracts_alternations_lowercases_and_cuts() {
        case(
            r"\b(Shall|should) I commit",
            &["shall ", "should"],
            &["commit"],
        );
        case(
            r"\b(shall|should) I\b.{0,20}\b(commit|push)",
            &["shall ", "should"],
            &["commit", "push"],
        );
        // Cuts respect character boundaries (Japanese is three bytes a character).
        case(r"コミット(します|しましょう)", &["コミ"], &["ます", "ょう"]);
    }

    #[test]
    fn open_ended_patterns_have_no_constraint() {
        case(r"^\s*Q\d+:", &[], &[]);
        let p = extract(r".*commit").unwrap();
        assert!(p.prefixes.is_empty());
        assert_eq!(p.suffixes, vec!["commit"]);
    }

    #[test]
    fn prefilter_rules_out_texts_without_literals() {
        let p = extract(r"\b(shall|should) I\b.{0,20}\b(commit|push)").unwrap();
        assert!(p.may_match(&TextIndex::new("so, shall i go ahead and push?")));
        assert!(!p.may_match(&TextIndex::new("i pushed it yesterday")));
        assert!(!p.may_match(&TextIndex::new("shall i make tea?")));
    }

    #[test]
    fn text_index_finds_exactly_the_substrings() {
        let text = "the quick brown fox — コミットします";
        let index = TextIndex::new(text);
        for lit in ["quick", "ck b", "fox", "コミ", "ます", "he"] {
            assert!(index.contains(lit), "{lit}");
        }
        for lit in ["quack", "foxes", "コミュ", "zz"] {
            assert!(!index.contains(lit), "{lit}");
        }
    }

    #[test]
    fn bad_pattern_is_an_error() {
        assert!(extract("(unclosed").is_err());
    }
}
