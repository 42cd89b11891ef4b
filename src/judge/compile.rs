//! Compiles Layer 1 patterns for the characters of the text they read.
//!
//! A hook call is a fresh process, so every pattern it needs is compiled from scratch, and
//! what costs is the size of the automaton: Unicode classes (`\w`, `[^.?!\n]`, the case
//! variants of every letter) become hundreds of UTF-8 states, and a bounded repetition such as
//! `[^\n]{0,120}` copies them a hundred and twenty times. A text uses a few dozen distinct
//! characters, and a match can only consume characters the text has. So the first text a
//! pattern reads gets a *narrowed* regex: every class cut down to the characters that occur in
//! that text, every literal the text cannot contain made impossible, and, for a text that is
//! all ASCII, Unicode word boundaries read as ASCII ones (the same thing on ASCII). On that
//! text, and on any text whose characters it covers, the narrowed regex matches exactly where
//! the full one does. A text with other characters gets the full regex, compiled once and kept
//! (long-running commands such as `eval` read many texts).
//!
//! A pattern whose full regex would exceed [`REGEX_SIZE_LIMIT`] is refused when it is loaded,
//! not when a text first wakes it: [`Compiled::checked`] estimates the size from the parsed
//! pattern (a walk over it, no compiling) and compiles at load only a pattern that may be near
//! the limit, keeping the regex for its first use.

use std::fmt;
use std::sync::{Mutex, OnceLock};

use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_syntax::hir::{Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look};

use super::literals::SyntaxError;

/// Regexes are compiled with this size limit: a user pattern that explodes is an error, not a
/// hook that eats memory.
pub const REGEX_SIZE_LIMIT: usize = 2 << 20;

/// A pattern whose estimated size ([`estimated_size`]) reaches this is compiled at load to
/// check it against [`REGEX_SIZE_LIMIT`]; below it, the estimate alone says it fits. On every
/// shape measured, a regex takes at most twice its estimate (see the tests), so checking from a
/// quarter of the limit leaves another factor of two for shapes not measured.
const CHECK_AT_LOAD_FROM: usize = REGEX_SIZE_LIMIT / 4;

/// Why a pattern cannot be compiled.
#[derive(Debug, Clone)]
pub enum Error {
    /// It is not a regex.
    Syntax(SyntaxError),
    /// Its regex would exceed `limit` bytes.
    TooBig { limit: usize },
    /// The regex engine refused it for another reason.
    Build(Box<meta::BuildError>),
}

impl From<SyntaxError> for Error {
    fn from(error: SyntaxError) -> Error {
        Error::Syntax(error)
    }
}

impl From<meta::BuildError> for Error {
    fn from(error: meta::BuildError) -> Error {
        match error.size_limit() {
            Some(limit) => Error::TooBig { limit },
            None => Error::Build(Box::new(error)),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Syntax(error) => write!(f, "is not a valid regex:\n{error}"),
            Error::TooBig { limit } => write!(
                f,
                "is too big: its compiled regex would exceed the {} MiB limit; shorten its bounded repetitions (`{{n,m}}`) or narrow its classes (`\\w`, `.`)",
                limit >> 20
            ),
            Error::Build(error) => write!(f, "does not compile: {error}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Syntax(error) => Some(error),
            Error::TooBig { .. } => None,
            Error::Build(error) => Some(error.as_ref()),
        }
    }
}

/// The distinct characters of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharSet {
    ascii: u128,
    /// Sorted, without duplicates.
    other: Vec<char>,
}

impl CharSet {
    pub fn of(text: &str) -> CharSet {
        let mut ascii = 0u128;
        let mut other = Vec::new();
        for &b in text.as_bytes() {
            if b.is_ascii() {
                ascii |= 1 << b;
            }
        }
        if !text.is_ascii() {
            other = text.chars().filter(|c| !c.is_ascii()).collect();
            other.sort_unstable();
            other.dedup();
        }
        CharSet { ascii, other }
    }

    fn covers(&self, other: &CharSet) -> bool {
        self.ascii & other.ascii == other.ascii
            && other
                .other
                .iter()
                .all(|c| self.other.binary_search(c).is_ok())
    }

    fn contains(&self, c: char) -> bool {
        if c.is_ascii() {
            self.ascii & (1 << c as u32) != 0
        } else {
            self.other.binary_search(&c).is_ok()
        }
    }

    fn class(&self) -> ClassUnicode {
        let ascii = (0u8..128)
            .filter(|&b| self.ascii & (1 << b) != 0)
            .map(char::from);
        ClassUnicode::new(
            ascii
                .chain(self.other.iter().copied())
                .map(|c| ClassUnicodeRange::new(c, c)),
        )
    }
}

/// A pattern's compiled forms: the narrowed one of the first text, and the full one.
#[derive(Default)]
pub struct Compiled {
    full: OnceLock<Result<meta::Regex, Error>>,
    narrowed: Mutex<Option<(CharSet, meta::Regex)>>,
}

impl Compiled {
    /// The compiled forms of `source`, parsed for literals as `hir` (see
    /// [`super::literals::parse`]), once it is known to fit [`REGEX_SIZE_LIMIT`]: a pattern that
    /// may not fit is compiled here, and its regex kept for its first text.
    pub fn checked(source: &str, hir: &Hir) -> Result<Compiled, Error> {
        let compiled = Compiled::default();
        if estimated_size(hir) >= CHECK_AT_LOAD_FROM {
            let regex = build(&parse(source)?)?;
            compiled.full.get_or_init(|| Ok(regex));
        }
        Ok(compiled)
    }

    /// Where `source` (compiled case-insensitively) first matches `haystack`.
    pub fn find(&self, source: &str, haystack: &str) -> Result<Option<(usize, usize)>, Error> {
        self.search(source, haystack, |regex| {
            regex.find(haystack).map(|m| (m.start(), m.end()))
        })
    }

    /// Every match of `source` (compiled case-insensitively) in `haystack`, in order and not
    /// overlapping, as `regex::Regex::find_iter` gives them.
    pub fn find_all(&self, source: &str, haystack: &str) -> Result<Vec<(usize, usize)>, Error> {
        self.search(source, haystack, |regex| {
            regex
                .find_iter(haystack)
                .map(|m| (m.start(), m.end()))
                .collect()
        })
    }

    /// Whether any regex of the pattern was built (for tests of what a text compiles).
    #[cfg(test)]
    pub fn is_compiled(&self) -> bool {
        self.full.get().is_some()
            || self
                .narrowed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some()
    }

    /// Runs `search` with a regex of `source` that reads `haystack` as the full one does: the
    /// narrowed one when it covers the haystack's characters, else the full one.
    fn search<T>(
        &self,
        source: &str,
        haystack: &str,
        search: impl FnOnce(&meta::Regex) -> T,
    ) -> Result<T, Error> {
        if let Some(full) = self.full.get() {
            return full.as_ref().map(search).map_err(Clone::clone);
        }
        let chars = CharSet::of(haystack);
        let mut narrowed = self.narrowed.lock().unwrap_or_else(|e| e.into_inner());
        match &*narrowed {
            Some((covered, regex)) if covered.covers(&chars) => return Ok(search(regex)),
            Some(_) => {}
            None => {
                let hir = parse(source)?;
                // A text of many scattered characters (a Chinese reply holds a hundred and
                // more) narrows a class such as `[^\n]` to as many single-character ranges,
                // which a bounded repetition copies: then the narrowed regex is larger than the
                // full one, and may not fit where the full one does. The full one serves it.
                match build(&narrow(&hir, &chars, &chars.class())) {
                    Ok(regex) => {
                        let result = search(&regex);
                        *narrowed = Some((chars, regex));
                        return Ok(result);
                    }
                    Err(Error::TooBig { .. }) => {}
                    Err(other) => return Err(other),
                }
            }
        }
        drop(narrowed);
        let full = self.full.get_or_init(|| build(&parse(source)?));
        full.as_ref().map(search).map_err(Clone::clone)
    }
}

fn parse(source: &str) -> Result<Hir, SyntaxError> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(true)
        .build()
        .parse(source)
        .map_err(SyntaxError::from)
}

fn build(hir: &Hir) -> Result<meta::Regex, Error> {
    build_within(hir, REGEX_SIZE_LIMIT)
}

fn build_within(hir: &Hir, size_limit: usize) -> Result<meta::Regex, Error> {
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(size_limit))
                // Layer 1 asks where a match is, never for its groups.
                .which_captures(WhichCaptures::Implicit)
                // A literal prefilter of a large alternation costs more to build than it saves
                // on the few kilobytes of one response.
                .auto_prefilter(false),
        )
        .build_from_hir(hir)
        .map_err(Error::from)
}

/// An estimate of the bytes the regex of a pattern takes, from the pattern parsed for literals
/// (case-sensitively): each piece costs what its automaton states cost, a bounded repetition
/// copies its piece, and a letter costs its case variants. A class costs per range: a range of
/// multi-byte characters that is wide splits into several UTF-8 sequences, a narrow one is one.
pub fn estimated_size(hir: &Hir) -> usize {
    const STATE: usize = 64;
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => STATE,
        HirKind::Literal(lit) => 4 * STATE * lit.0.len(),
        HirKind::Class(Class::Bytes(class)) => STATE * class.ranges().len(),
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|range| {
                let (start, end) = (range.start(), range.end());
                if end.is_ascii() {
                    6 * STATE
                } else if start.len_utf8() == end.len_utf8()
                    && u32::from(end) - u32::from(start) < 64
                {
                    STATE / 2 * end.len_utf8()
                } else {
                    32 * STATE
                }
            })
            .sum(),
        HirKind::Capture(capture) => STATE + estimated_size(&capture.sub),
        HirKind::Repetition(rep) => {
            let copies = rep.max.unwrap_or(rep.min.saturating_add(1)).max(1);
            STATE.saturating_add(
                usize::try_from(copies)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(estimated_size(&rep.sub)),
            )
        }
        HirKind::Concat(parts) | HirKind::Alternation(parts) => parts
            .iter()
            .map(estimated_size)
            .fold(STATE * parts.len(), usize::saturating_add),
    }
}

/// `hir` as it reads a text whose characters are `chars` (`class` is the same set).
fn narrow(hir: &Hir, chars: &CharSet, class: &ClassUnicode) -> Hir {
    let again = |h: &Hir| narrow(h, chars, class);
    match hir.kind() {
        HirKind::Empty | HirKind::Class(Class::Bytes(_)) => hir.clone(),
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
            Ok(text) if !text.chars().all(|c| chars.contains(c)) => Hir::fail(),
            _ => hir.clone(),
        },
        HirKind::Class(Class::Unicode(c)) => {
            let mut c = c.clone();
            c.intersect(class);
            Hir::class(Class::Unicode(c))
        }
        HirKind::Look(look) if chars.other.is_empty() => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            other => *other,
        }),
        HirKind::Look(_) => hir.clone(),
        HirKind::Repetition(rep) => {
            let mut rep = rep.clone();
            rep.sub = Box::new(again(&rep.sub));
            Hir::repetition(rep)
        }
        HirKind::Capture(cap) => Hir::capture(Capture {
            index: cap.index,
            name: cap.name.clone(),
            sub: Box::new(again(&cap.sub)),
        }),
        HirKind::Concat(parts) => Hir::concat(parts.iter().map(again).collect()),
        HirKind::Alternation(parts) => Hir::alternation(parts.iter().map(again).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(source: &str, haystack: &str) -> Option<(usize, usize)> {
        regex::RegexBuilder::new(source)
            .case_insensitive(true)
            .build()
            .unwrap()
            .find(haystack)
            .map(|m| (m.start(), m.end()))
    }

    #[test]
    fn narrowed_regexes_match_where_the_full_ones_do() {
        let patterns = [
            r"\b(fixed|resolved)\b",
            r"\b(bug|issue)\b[^\n]{0,40}\b(i|we)\s+(\w+ly\s+)?(changed|added)\b",
            r"\bcorrigé\b",
            r"(?s:\b(probably|maybe)\b.*\bso i (changed|added)\b)",
            r"\b(de|del) (error|fallo)\b[^.?!。？！\n]{0,20}\bresuelto",
            r"(?m)^\s*([-*]|\d+[.)])?\s*git\s+push\b",
            r"ｋ|\bKelvin\b",
            r"\bstraße\b|\bSTRASSE\b",
        ];
        let texts = [
            "The bug is gone: I quickly changed the guard.",
            "the Bug was odd. so I changed it",
            "J'ai corrigé le test.",
            "Lo corrigé: el error del parser está resuelto.",
            "Maybe the cache.\nSo I added a retry.",
            "- git push origin main",
            "KELVIN and ｋ",
            "die Straße, STRASSE",
            "fixed-width",
            "é fixed é",
            "xfixed",
            "",
        ];
        for source in patterns {
            for text in texts {
                let compiled = Compiled::default();
                assert_eq!(
                    compiled.find(source, text).unwrap(),
                    full(source, text),
                    "{source} on {text:?}"
                );
                // A second text with other characters gets the full regex.
                for other in texts {
                    assert_eq!(
                        compiled.find(source, other).unwrap(),
                        full(source, other),
                        "{source} on {other:?} after {text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_size_estimate_is_at_least_half_the_compiled_size() {
        // Shapes that cost the most per estimated byte: case variants, wide and narrow
        // Unicode classes, repetitions of them, alternations; then every built-in pattern.
        let shapes = [
            r"kkkkkkkkkkkkkkkkkkkkkkkkkkkk",
            r"[a-z]{0,300}",
            r"[a-zA-Z]{0,200}",
            r"(a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z){0,50}",
            r"(?:ſ|K|ǅ|ß|ΐ){0,80}",
            r"[\u{100}-\u{17F}]{0,80}",
            r"[\u{800}-\u{FFFF}]{9}",
            r"[\u{80}-\u{10FFFF}]{0,50}",
            r"(?s:.){0,100}",
            r"[^\n]{0,120}",
            r"\w{0,20}",
            r"\w{0,40}",
            r"(\w+\s+){0,10}",
            r"\W{0,20}",
            r"\pL{5}",
            r"\S{0,200}",
            r"\d{0,100}",
            r"\p{Han}{0,10}",
            r"[\p{Greek}\p{Cyrillic}]{0,30}",
            r"\bfoo\b|\bbar\b",
            r"(((a)))",
        ];
        let builtins = super::super::BUILTIN_PREFILTERS.iter().map(|(p, ..)| *p);
        for source in shapes.into_iter().chain(builtins) {
            let estimate = estimated_size(&super::super::literals::parse(source).unwrap());
            assert!(
                build_within(&parse(source).unwrap(), 2 * estimate).is_ok(),
                "`{source}` compiles to more than twice its estimate of {estimate} bytes"
            );
        }
    }

    #[test]
    fn a_pattern_too_big_for_the_limit_is_refused_before_its_first_text() {
        let checked = |source: &str| {
            Compiled::checked(source, &super::super::literals::parse(source).unwrap())
        };
        let Err(Error::TooBig { limit }) = checked("(?:a{1000}){1000}") else {
            panic!("a million `a`s fit");
        };
        assert_eq!(limit, REGEX_SIZE_LIMIT);
        // Near the limit: compiled at load, and that regex serves the first text.
        let near = checked(r"\w{0,10}").unwrap();
        assert!(near.full.get().is_some());
        assert_eq!(near.find(r"\w{0,10}", "ab").unwrap(), Some((0, 2)));
        // Far below it, nothing is compiled before a text needs it.
        assert!(checked(r"\b(fix|fixed)\b").unwrap().full.get().is_none());
    }

    #[test]
    fn a_text_of_many_characters_falls_back_to_the_full_regex() {
        // Two hundred scattered CJK characters (no two adjacent), with a match at the end.
        let text: String = (0..200u32)
            .filter_map(|i| char::from_u32(0x4E00 + 7 * i))
            .map(|c| c.to_string())
            .chain(["修改了，现在好了".to_owned()])
            .collect();
        let source = r"\b(cambié)\b[^\n]{0,150}\b(ahora)\b|(调整|修改了|改了)[^\n]{0,80}(现在|不再|已经)|\b(geändert)\b[^\n]{0,150}\b(jetzt)\b|\b(modifié)\b[^\n]{0,150}\b(maintenant)\b";
        let compiled = Compiled::default();
        let found = compiled.find(source, &text).unwrap();
        assert!(found.is_some());
        assert!(compiled.full.get().is_some(), "the full regex served it");
    }

    #[test]
    fn a_text_the_first_one_covers_reuses_its_regex() {
        let compiled = Compiled::default();
        let source = r"\b(fix|fixed)\b";
        assert_eq!(compiled.find(source, "fixed it").unwrap(), Some((0, 5)));
        assert_eq!(compiled.find(source, "if fix").unwrap(), Some((3, 6)));
        assert!(compiled.full.get().is_none(), "covered: no full compile");
        assert_eq!(compiled.find(source, "a fix!").unwrap(), Some((2, 5)));
        assert!(compiled.full.get().is_some(), "`!` and `a` are new");
    }
}
