//! A Layer 1 pattern: its source, the literals a match needs (from the build for a built-in
//! pattern, parsed at load for a user's) and, once a text needs it, its compiled regex.

use std::borrow::Cow;
use std::fmt;

use super::compile::{self, Compiled};
use super::literals::{self, Condition, Prefilter};

/// Why a pattern cannot be used: not a regex, or a regex too big to compile.
pub type PatternError = compile::Error;

/// A Layer 1 pattern: its source, its literal prefilter and, once needed, its compiled regex.
pub struct Pattern {
    /// Borrowed from the build for a built-in pattern, owned for a user's.
    pub source: Cow<'static, str>,
    pub(crate) prefilter: Prefilter,
    /// Checked after the prefilter passes: every literal a match must pass through.
    condition: Condition,
    compiled: Compiled,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

/// The build-time prefilter and condition of a built-in pattern, if `source` is one.
fn builtin_prefilter_of(source: &str) -> Option<(Prefilter, Condition)> {
    let i = super::BUILTIN_PREFILTERS
        .binary_search_by(|(p, ..)| (p.len(), *p).cmp(&(source.len(), source)))
        .ok()?;
    let (_, first, prefixes, suffixes, start, len) = super::BUILTIN_PREFILTERS[i];
    let pooled = |from: usize, n: u16| literals::LiteralSet::Pooled {
        pool: super::BUILTIN_LITERAL_POOL,
        ranges: &super::BUILTIN_LITERAL_RANGES[from..from + usize::from(n)],
    };
    let first = first as usize;
    let prefilter = Prefilter {
        prefixes: pooled(first, prefixes),
        suffixes: pooled(first + usize::from(prefixes), suffixes),
    };
    let condition = Condition {
        pool: Cow::Borrowed(super::BUILTIN_CONDITION_POOL),
        ops: Cow::Borrowed(&super::BUILTIN_CONDITION_OPS[start as usize..(start + len) as usize]),
    };
    Some((prefilter, condition))
}

/// The build-time prefilter of a built-in pattern (all of them have one, `build.rs` makes sure).
pub(crate) fn builtin_prefilter(source: &str) -> Prefilter {
    builtin_prefilter_of(source)
        .expect("built-in patterns have build-time prefilters")
        .0
}

impl Pattern {
    /// Prepares a pattern. Built-in patterns take their prefilter from the build; others are
    /// parsed here, which also reports syntax errors without compiling.
    ///
    /// A pattern whose regex may not fit the size limit is compiled here too (see
    /// [`compile::Compiled::checked`]), so that a config is refused when it loads.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        Pattern::from_source(Cow::Owned(source.to_owned()))
    }

    /// [`Pattern::new`] for a source that may be borrowed: a built-in pattern's source is
    /// kept as the build's own string, so preparing the built-in judges copies none of them.
    pub fn from_source(source: Cow<'static, str>) -> Result<Pattern, PatternError> {
        let (prefilter, condition, compiled) = match builtin_prefilter_of(&source) {
            Some((prefilter, condition)) => (prefilter, condition, Compiled::default()),
            None => {
                let hir = literals::parse(&source)?;
                (
                    literals::prefilter_of(&hir),
                    Condition::owned(&literals::condition_of(&hir)),
                    Compiled::checked(&source, &hir)?,
                )
            }
        };
        Ok(Pattern {
            source,
            prefilter,
            condition,
            compiled,
        })
    }

    /// Whether the pattern matches `text`; `index` is `text` prepared for prefilters.
    /// The regex is compiled on first need only.
    pub fn is_match(&self, text: &str, index: &literals::TextIndex) -> Result<bool, PatternError> {
        if !self.may_match(index) {
            return Ok(false);
        }
        self.matches(text)
    }

    /// Whether the pattern's literals occur in the indexed text (a necessary condition for a
    /// match in that text or in any part of it).
    pub fn may_match(&self, index: &literals::TextIndex) -> bool {
        self.prefilter.may_match(index) && self.condition.holds(index)
    }

    /// Whether the pattern matches `haystack`, compiling it on first need.
    pub fn matches(&self, haystack: &str) -> Result<bool, PatternError> {
        Ok(self.find(haystack)?.is_some())
    }

    /// Where the pattern first matches `haystack` (byte offsets), compiling it on first need.
    /// The regex is narrowed to the characters of the first text it reads (see [`super::compile`]).
    pub fn find(&self, haystack: &str) -> Result<Option<(usize, usize)>, PatternError> {
        self.compiled.find(&self.source, haystack)
    }

    /// Every match of the pattern in `haystack` (byte offsets, in order, not overlapping),
    /// compiling it on first need; narrowed as [`Pattern::find`] is.
    pub fn find_all(&self, haystack: &str) -> Result<Vec<(usize, usize)>, PatternError> {
        self.compiled.find_all(&self.source, haystack)
    }

    /// Whether the pattern's regex was built (for tests of what a text compiles).
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.compiled.is_compiled()
    }

    /// Whether the pattern has a literal prefilter (patterns without one compile on every call).
    pub fn has_prefilter(&self) -> bool {
        self.prefilter.is_useful()
    }
}
