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

use std::fmt;
use std::sync::{Mutex, OnceLock};

use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_syntax::hir::{Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look};

use super::literals::SyntaxError;

/// Regexes are compiled with this size limit: a user pattern that explodes is an error, not a
/// hook that eats memory.
pub const REGEX_SIZE_LIMIT: usize = 2 << 20;

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
    /// Where `source` (compiled case-insensitively) first matches `haystack`.
    pub fn find(&self, source: &str, haystack: &str) -> Result<Option<(usize, usize)>, Error> {
        let found = |regex: &meta::Regex| regex.find(haystack).map(|m| (m.start(), m.end()));
        if let Some(full) = self.full.get() {
            return full.as_ref().map(found).map_err(Clone::clone);
        }
        let chars = CharSet::of(haystack);
        let mut narrowed = self.narrowed.lock().unwrap_or_else(|e| e.into_inner());
        match &*narrowed {
            Some((covered, regex)) if covered.covers(&chars) => return Ok(found(regex)),
            Some(_) => {}
            None => {
                let hir = parse(source)?;
                let regex = build(&narrow(&hir, &chars, &chars.class()))?;
                let result = found(&regex);
                *narrowed = Some((chars, regex));
                return Ok(result);
            }
        }
        drop(narrowed);
        let full = self.full.get_or_init(|| build(&parse(source)?));
        full.as_ref().map(found).map_err(Clone::clone)
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
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(REGEX_SIZE_LIMIT))
                // Layer 1 asks where a match is, never for its groups.
                .which_captures(WhichCaptures::Implicit)
                // A literal prefilter of a large alternation costs more to build than it saves
                // on the few kilobytes of one response.
                .auto_prefilter(false),
        )
        .build_from_hir(hir)
        .map_err(Error::from)
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
