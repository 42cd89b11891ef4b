//! Literal prefilters for Layer 1 patterns.
//!
//! Compiling a regex costs tens to hundreds of microseconds, and a hook process compiles from
//! scratch on every call. Most responses mention none of the words a pattern needs, so each
//! pattern carries the literals that any match must start with (prefixes) and end with
//! (suffixes). A pattern is compiled only when the lowercased text contains one literal of each
//! set. Built-in patterns get their sets at build time (see `build.rs`); user patterns at load.
//!
//! Prefix and suffix sets only see a match's ends, as substrings: "hang" occurs in "changed".
//! So a pattern whose sets pass also has its [`Condition`] checked: an and/or tree over every
//! literal a match must pass through, whole words with their word boundaries. Both are
//! necessary conditions, so neither changes what a pattern matches, only what gets compiled.
//!
//! The parts: [`prefilter`] (the prefix and suffix sets), [`condition`] (the and/or tree) and
//! [`text_index`] (the text both are checked against). This module is also compiled into
//! `build.rs`, so it depends on `regex-syntax` and `memchr` alone.

use std::fmt;

use regex_syntax::hir::Hir;

pub mod condition;
pub mod prefilter;
pub mod text_index;

pub use condition::{BOUNDARY, Cond, Condition, Op, condition_of, extract_condition};
pub use prefilter::{LiteralSet, Prefilter, extract, prefilter_of};
pub use text_index::TextIndex;

/// Literals shorter than this are too common to be worth a prefilter.
const MIN_LITERAL_BYTES: usize = 2;

/// A pattern that does not parse as a regex. Its message quotes the pattern and points at the
/// offending part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError(Box<regex_syntax::Error>);

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<regex_syntax::Error> for SyntaxError {
    fn from(error: regex_syntax::Error) -> SyntaxError {
        SyntaxError(Box::new(error))
    }
}

impl std::error::Error for SyntaxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}

/// Parses `pattern` for literal extraction: case-sensitively, because case-insensitive
/// literals expand into every case variant and blow the extractor's limits. The text is
/// lowercased before prefilters and conditions run, so lowercased literals are still
/// necessary conditions for the case-insensitive match Layer 1 compiles.
pub fn parse(pattern: &str) -> Result<Hir, SyntaxError> {
    regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(SyntaxError::from)
}

#[cfg(test)]
mod tests;
