//! The prefix and suffix sets of a pattern: the literals every match starts and ends with,
//! checked with a few substring searches before anything else.

use regex_syntax::hir::Hir;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

use super::text_index::TextIndex;
use super::{MIN_LITERAL_BYTES, SyntaxError};

/// Literals are cut to this many bytes (prefixes keep their start, suffixes their end): a cut
/// literal is still a necessary condition, and alternations then collapse into a few literals
/// instead of their cross product (which is what makes a prefilter cheap).
const MAX_LITERAL_BYTES: usize = 6;

/// A set of literals: a user pattern's own, or ranges of the build's literal pool. The pool
/// form holds no pointer per literal, so the built-in sets cost no start-up relocations (every
/// hook call is a fresh process, and the loader fixes up each pointer in static data).
#[derive(Debug, Clone)]
pub enum LiteralSet {
    Owned(Vec<String>),
    Pooled {
        pool: &'static str,
        ranges: &'static [(u32, u32)],
    },
}

impl Default for LiteralSet {
    fn default() -> LiteralSet {
        LiteralSet::Owned(Vec::new())
    }
}

impl LiteralSet {
    /// The literals, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let (owned, pool, ranges): (&[String], &str, &[(u32, u32)]) = match self {
            LiteralSet::Owned(v) => (v, "", &[]),
            LiteralSet::Pooled { pool, ranges } => (&[], pool, ranges),
        };
        let pooled = ranges
            .iter()
            .map(move |&(start, len)| &pool[start as usize..(start + len) as usize]);
        owned.iter().map(String::as_str).chain(pooled)
    }

    pub fn len(&self) -> usize {
        match self {
            LiteralSet::Owned(v) => v.len(),
            LiteralSet::Pooled { ranges, .. } => ranges.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The literals as a list (for tests and the build script).
    pub fn to_vec(&self) -> Vec<&str> {
        self.iter().collect()
    }
}

impl PartialEq for LiteralSet {
    fn eq(&self, other: &LiteralSet) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for LiteralSet {}

/// The literal sets a pattern's matches must contain. An empty set means "no constraint".
/// Built-in patterns take their sets from the build (no allocation at start-up: a hook
/// process prepares hundreds of them on every call); patterns from config own theirs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefilter {
    /// Every match starts with one of these (lowercased).
    pub prefixes: LiteralSet,
    /// Every match ends with one of these (lowercased).
    pub suffixes: LiteralSet,
}

impl Prefilter {
    /// Whether a pattern with this prefilter can match the indexed text.
    pub fn may_match(&self, text: &TextIndex) -> bool {
        let any = |set: &LiteralSet| set.is_empty() || set.iter().any(|lit| text.contains(lit));
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
pub fn extract(pattern: &str) -> Result<Prefilter, SyntaxError> {
    Ok(prefilter_of(&super::parse(pattern)?))
}

/// The prefilter of a pattern parsed by [`super::parse`].
pub fn prefilter_of(hir: &Hir) -> Prefilter {
    Prefilter {
        prefixes: LiteralSet::Owned(literal_set(hir, ExtractKind::Prefix)),
        suffixes: LiteralSet::Owned(literal_set(hir, ExtractKind::Suffix)),
    }
}

fn literal_set(hir: &Hir, kind: ExtractKind) -> Vec<String> {
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
