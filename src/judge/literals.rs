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
//! This file is also compiled into `build.rs`, so it depends on `regex-syntax` alone.

use std::borrow::Cow;
use std::cell::OnceCell;

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// Literals shorter than this are too common to be worth a prefilter.
const MIN_LITERAL_BYTES: usize = 2;
/// Literals are cut to this many bytes (prefixes keep their start, suffixes their end): a cut
/// literal is still a necessary condition, and alternations then collapse into a few literals
/// instead of their cross product (which is what makes a prefilter cheap).
const MAX_LITERAL_BYTES: usize = 6;

/// The literal sets a pattern's matches must contain. An empty set means "no constraint".
/// Built-in patterns borrow their sets from the build (no allocation at start-up: a hook
/// process prepares hundreds of them on every call); patterns from config own theirs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefilter {
    /// Every match starts with one of these (lowercased).
    pub prefixes: Cow<'static, [Cow<'static, str>]>,
    /// Every match ends with one of these (lowercased).
    pub suffixes: Cow<'static, [Cow<'static, str>]>,
}

/// A text prepared for prefilters: lowercased, with a bitmap of its byte trigrams, so that most
/// absent literals are ruled out by a few bit tests instead of a scan of the text.
pub struct TextIndex<'t> {
    lowercase: &'t str,
    trigrams: Box<[u64; 64]>,
    /// Whether a word character next to a literal stays one in the text a pattern reads (no
    /// speech-view mask may blank it); see [`TextIndex::set_word_neighbours_kept`].
    word_neighbours_kept: bool,
    /// The text with its inline code spans kept without backticks, and blanked, as the speech
    /// view may read them (only built for a text with backticks, on first need).
    inline_code_views: OnceCell<Option<[View; 2]>>,
}

/// A variant of the text, with its trigram bitmap.
type View = (String, Box<[u64; 64]>);

fn trigram_map(text: &str) -> Box<[u64; 64]> {
    let mut trigrams = Box::new([0u64; 64]);
    for w in text.as_bytes().windows(3) {
        let bit = trigram_bit(w);
        trigrams[bit >> 6] |= 1 << (bit & 63);
    }
    trigrams
}

fn may_contain(trigrams: &[u64; 64], bytes: &[u8]) -> bool {
    bytes.windows(3).all(|w| {
        let bit = trigram_bit(w);
        trigrams[bit >> 6] & (1 << (bit & 63)) != 0
    })
}

/// How a character next to a boundary mark reads: a word character, not one, or either.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WordClass {
    Word,
    NonWord,
    Either,
}

fn word_class(c: Option<char>) -> WordClass {
    match c {
        None => WordClass::NonWord,
        Some(c) if !c.is_ascii() => WordClass::Either,
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => WordClass::Word,
        Some(_) => WordClass::NonWord,
    }
}

/// The lines of `text` with inline code spans replaced the way the speech view does it: by
/// their content (`keep`) or by a space.
fn inline_code_view(text: &str, keep: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut rest = line;
        while let Some(open) = rest.find('`') {
            let Some(len) = rest[open + 1..].find('`') else {
                break;
            };
            out.push_str(&rest[..open]);
            if keep {
                out.push_str(&rest[open + 1..open + 1 + len]);
            } else {
                out.push(' ');
            }
            rest = &rest[open + 2 + len..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

fn trigram_bit(w: &[u8]) -> usize {
    (usize::from(w[0]).wrapping_mul(961) + usize::from(w[1]).wrapping_mul(31) + usize::from(w[2]))
        & 4095
}

impl<'t> TextIndex<'t> {
    pub fn new(lowercase: &'t str) -> TextIndex<'t> {
        TextIndex {
            lowercase,
            trigrams: trigram_map(lowercase),
            word_neighbours_kept: false,
            inline_code_views: OnceCell::new(),
        }
    }

    /// Declares that no word character of the text is blanked before patterns read it (no
    /// speech-view mask applies), so a word character next to a literal rules out a word
    /// boundary there. Without it, [`Condition`]s assume any word character may turn blank.
    pub fn set_word_neighbours_kept(&mut self, kept: bool) {
        self.word_neighbours_kept = kept;
    }

    /// Whether `literal` occurs in the text.
    pub fn contains(&self, literal: &str) -> bool {
        let bytes = literal.as_bytes();
        may_contain(&self.trigrams, bytes)
            && memchr::memmem::find(self.lowercase.as_bytes(), bytes).is_some()
    }

    /// Whether a condition literal (with [`BOUNDARY`] marks) can occur in the text a pattern
    /// reads: the text itself, or its speech view, which keeps or blanks inline code spans and
    /// may blank masked words. It errs towards "yes" wherever the view could differ.
    fn occurs(&self, literal: &str) -> bool {
        let marks = literal.contains(BOUNDARY);
        let plain: Cow<str> = if marks {
            Cow::Owned(literal.replace(BOUNDARY, ""))
        } else {
            Cow::Borrowed(literal)
        };
        if !self.word_neighbours_kept && plain.contains(' ') {
            // A mask turns a span into one space: the pieces around it may come from apart.
            return plain
                .split(' ')
                .filter(|piece| piece.len() >= MIN_LITERAL_BYTES)
                .all(|piece| self.in_any_view(piece, &[]));
        }
        let mut offsets = Vec::new();
        if marks {
            let mut real = 0;
            for c in literal.chars() {
                if c == BOUNDARY {
                    offsets.push(real);
                } else {
                    real += c.len_utf8();
                }
            }
        }
        self.in_any_view(&plain, &offsets)
    }

    fn in_any_view(&self, plain: &str, boundaries: &[usize]) -> bool {
        if self.occurs_in(self.lowercase, &self.trigrams, plain, boundaries) {
            return true;
        }
        let views = self.inline_code_views.get_or_init(|| {
            self.lowercase.contains('`').then(|| {
                [true, false].map(|keep| {
                    let view = inline_code_view(self.lowercase, keep);
                    let trigrams = trigram_map(&view);
                    (view, trigrams)
                })
            })
        });
        views
            .iter()
            .flatten()
            .any(|(view, trigrams)| self.occurs_in(view, trigrams, plain, boundaries))
    }

    fn occurs_in(
        &self,
        text: &str,
        trigrams: &[u64; 64],
        plain: &str,
        boundaries: &[usize],
    ) -> bool {
        if !may_contain(trigrams, plain.as_bytes()) {
            return false;
        }
        memchr::memmem::find_iter(text.as_bytes(), plain.as_bytes()).any(|start| {
            boundaries.iter().all(|&offset| {
                let at = start + offset;
                let inside = |c: Option<char>, within: bool| {
                    let class = word_class(c);
                    if within {
                        return class;
                    }
                    // A neighbour may read otherwise in the speech view: a backtick becomes
                    // code or a space, a masked word character a space.
                    match c {
                        Some('`') => WordClass::Either,
                        _ if class == WordClass::Word && !self.word_neighbours_kept => {
                            WordClass::Either
                        }
                        _ => class,
                    }
                };
                let before = inside(text[..at].chars().next_back(), offset > 0);
                let after = inside(text[at..].chars().next(), offset < plain.len());
                before == WordClass::Either || after == WordClass::Either || before != after
            })
        })
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
            (&self.prefixes[..], &self.suffixes[..])
        } else {
            (&self.suffixes[..], &self.prefixes[..])
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
        prefixes: Cow::Owned(literal_set(&hir, ExtractKind::Prefix)),
        suffixes: Cow::Owned(literal_set(&hir, ExtractKind::Suffix)),
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

/// Marks a word boundary inside a condition literal: `\bfix` is the literal `"\u{1}fix"`, which
/// occurs in "a fix" but not in "prefix".
pub const BOUNDARY: char = '\u{1}';
/// A finite piece of a pattern is expanded into at most this many literals.
const LANGUAGE_LIMIT: usize = 64;
/// A class is expanded into its characters when it has at most this many (after lowercasing).
const CLASS_LIMIT: usize = 4;

/// One step of a condition in prefix order: a literal (a range of the condition's pool, with
/// [`BOUNDARY`] marks), or "all of" / "any of" the next `n` sub-conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Lit(u32, u32),
    All(u32),
    Any(u32),
}

/// A necessary condition for a match, over the literals a match must contain: where the prefix
/// and suffix sets only see a match's ends, this sees every part a match must pass through, and
/// keeps whole words with their word boundaries (so "changed" holds no `\bhang\b`, and
/// "introduction" no `\bproduction\b`). No ops means "no constraint".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Condition {
    pub pool: Cow<'static, str>,
    pub ops: Cow<'static, [Op]>,
}

/// A condition while it is extracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    True,
    Lit(String),
    All(Vec<Cond>),
    Any(Vec<Cond>),
}

/// Parses `pattern` as [`extract`] does and extracts its [`Cond`].
pub fn extract_condition(pattern: &str) -> Result<Cond, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|err| err.to_string())?;
    Ok(condition_of(&hir))
}

impl Cond {
    /// Appends this condition to `ops`, its literals to `pool` (`intern` reuses equal ones).
    pub fn flatten(&self, ops: &mut Vec<Op>, intern: &mut dyn FnMut(&str) -> (u32, u32)) {
        match self {
            Cond::True => {}
            Cond::Lit(lit) => {
                let (start, len) = intern(lit);
                ops.push(Op::Lit(start, len));
            }
            Cond::All(parts) | Cond::Any(parts) => {
                let n = u32::try_from(parts.len()).expect("few parts");
                ops.push(if matches!(self, Cond::All(_)) {
                    Op::All(n)
                } else {
                    Op::Any(n)
                });
                for part in parts {
                    part.flatten(ops, intern);
                }
            }
        }
    }
}

impl Condition {
    /// The condition of `cond`, with its own pool.
    pub fn owned(cond: &Cond) -> Condition {
        let mut pool = String::new();
        let mut ops = Vec::new();
        cond.flatten(&mut ops, &mut |lit| {
            let start = pool.find(lit).unwrap_or_else(|| {
                pool.push_str(lit);
                pool.len() - lit.len()
            });
            (start as u32, lit.len() as u32)
        });
        Condition {
            pool: Cow::Owned(pool),
            ops: Cow::Owned(ops),
        }
    }

    /// Whether the condition holds in the indexed text (always, without ops).
    pub fn holds(&self, text: &TextIndex) -> bool {
        self.ops.is_empty() || self.eval(&mut 0, text)
    }

    fn eval(&self, i: &mut usize, text: &TextIndex) -> bool {
        let op = self.ops[*i];
        *i += 1;
        match op {
            Op::Lit(start, len) => text.occurs(&self.pool[start as usize..(start + len) as usize]),
            Op::All(n) | Op::Any(n) => {
                let all = matches!(op, Op::All(_));
                let mut decided = None;
                for _ in 0..n {
                    if decided.is_some() {
                        self.skip(i);
                    } else if self.eval(i, text) != all {
                        decided = Some(!all);
                    }
                }
                decided.unwrap_or(all)
            }
        }
    }

    fn skip(&self, i: &mut usize) {
        let op = self.ops[*i];
        *i += 1;
        if let Op::All(n) | Op::Any(n) = op {
            for _ in 0..n {
                self.skip(i);
            }
        }
    }
}

fn is_word_boundary(look: Look) -> bool {
    // The half boundaries (`\b{start-half}`) hold between two non-word characters too.
    matches!(
        look,
        Look::WordAscii
            | Look::WordUnicode
            | Look::WordStartAscii
            | Look::WordEndAscii
            | Look::WordStartUnicode
            | Look::WordEndUnicode
    )
}

/// The strings `hir` matches (lowercased, with boundary marks) when they are few, else `None`.
fn language(hir: &Hir) -> Option<Vec<String>> {
    match hir.kind() {
        HirKind::Empty => Some(vec![String::new()]),
        HirKind::Literal(lit) => Some(vec![std::str::from_utf8(&lit.0).ok()?.to_lowercase()]),
        HirKind::Class(Class::Unicode(class)) => {
            let mut out: Vec<String> = Vec::new();
            for range in class.ranges() {
                if u32::from(range.end()) - u32::from(range.start()) >= CLASS_LIMIT as u32 {
                    return None;
                }
                for c in range.start()..=range.end() {
                    let lower: String = c.to_lowercase().collect();
                    if !out.contains(&lower) {
                        out.push(lower);
                    }
                }
                if out.len() > CLASS_LIMIT {
                    return None;
                }
            }
            Some(out)
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut out: Vec<String> = Vec::new();
            for range in class.ranges() {
                if range.end() >= 0x80 || range.end() - range.start() >= CLASS_LIMIT as u8 {
                    return None;
                }
                for b in range.start()..=range.end() {
                    let lower = char::from(b).to_ascii_lowercase().to_string();
                    if !out.contains(&lower) {
                        out.push(lower);
                    }
                }
                if out.len() > CLASS_LIMIT {
                    return None;
                }
            }
            Some(out)
        }
        HirKind::Look(look) if is_word_boundary(*look) => Some(vec![BOUNDARY.to_string()]),
        HirKind::Look(_) => Some(vec![String::new()]),
        HirKind::Capture(capture) => language(&capture.sub),
        HirKind::Repetition(rep) => {
            let max = rep.max?;
            if max > 2 {
                return None;
            }
            let sub = language(&rep.sub)?;
            let mut out = Vec::new();
            let mut power = vec![String::new()];
            for k in 0..=max {
                if k >= rep.min {
                    union_into(&mut out, &power)?;
                }
                if k < max {
                    power = product(&power, &sub)?;
                }
            }
            Some(out)
        }
        HirKind::Concat(parts) => {
            let mut out = vec![String::new()];
            for part in parts {
                out = product(&out, &language(part)?)?;
            }
            Some(out)
        }
        HirKind::Alternation(branches) => {
            let mut out = Vec::new();
            for branch in branches {
                union_into(&mut out, &language(branch)?)?;
            }
            Some(out)
        }
    }
}

fn union_into(out: &mut Vec<String>, more: &[String]) -> Option<()> {
    for s in more {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    (out.len() <= LANGUAGE_LIMIT).then_some(())
}

fn product(left: &[String], right: &[String]) -> Option<Vec<String>> {
    if left.len() * right.len() > LANGUAGE_LIMIT {
        return None;
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in left {
        for r in right {
            let mut s = l.clone();
            // Two boundary marks in a row are one.
            if s.ends_with(BOUNDARY) && r.starts_with(BOUNDARY) {
                s.pop();
            }
            s.push_str(r);
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    Some(out)
}

/// "Any of these literals", or no constraint when one of them is too short to rule anything
/// out or spans lines (the speech view may join lines it removes).
fn any_of(literals: Vec<String>) -> Cond {
    let weak = |lit: &String| {
        lit.chars().filter(|&c| c != BOUNDARY).count() < MIN_LITERAL_BYTES
            || lit.contains(['\n', '\r'])
    };
    if literals.is_empty() || literals.iter().any(weak) {
        return Cond::True;
    }
    // A literal that contains another one is implied by it: keep the shorter.
    let mut kept: Vec<Cond> = Vec::new();
    for lit in &literals {
        if !literals
            .iter()
            .any(|other| other != lit && lit.contains(other.as_str()))
        {
            kept.push(Cond::Lit(lit.clone()));
        }
    }
    if kept.len() == 1 {
        kept.pop().unwrap()
    } else {
        Cond::Any(kept)
    }
}

fn all_of(parts: Vec<Cond>) -> Cond {
    let mut parts: Vec<Cond> = parts.into_iter().filter(|c| *c != Cond::True).collect();
    match parts.len() {
        0 => Cond::True,
        1 => parts.pop().unwrap(),
        _ => Cond::All(parts),
    }
}

fn condition_of(hir: &Hir) -> Cond {
    if let Some(literals) = language(hir) {
        return any_of(literals);
    }
    match hir.kind() {
        HirKind::Capture(capture) => condition_of(&capture.sub),
        HirKind::Repetition(rep) if rep.min > 0 => condition_of(&rep.sub),
        HirKind::Alternation(branches) => {
            let mut parts = Vec::new();
            for branch in branches {
                match condition_of(branch) {
                    Cond::True => return Cond::True,
                    part => parts.push(part),
                }
            }
            Cond::Any(parts)
        }
        HirKind::Concat(children) => {
            // Runs of finite pieces are joined into literals; every other piece is a
            // condition of its own.
            let mut parts = Vec::new();
            let mut run: Option<Vec<String>> = None;
            for child in children {
                match language(child) {
                    Some(lang) => {
                        run = Some(match run.take() {
                            None => lang,
                            Some(prev) => match product(&prev, &lang) {
                                Some(joined) => joined,
                                None => {
                                    parts.push(any_of(prev));
                                    lang
                                }
                            },
                        });
                    }
                    None => {
                        if let Some(prev) = run.take() {
                            parts.push(any_of(prev));
                        }
                        parts.push(condition_of(child));
                    }
                }
            }
            if let Some(prev) = run {
                parts.push(any_of(prev));
            }
            all_of(parts)
        }
        _ => Cond::True,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(pattern: &str, prefixes: &[&str], suffixes: &[&str]) {
        let p = extract(pattern).unwrap();
        assert_eq!(*p.prefixes, *prefixes, "prefixes of {pattern}");
        assert_eq!(*p.suffixes, *suffixes, "suffixes of {pattern}");
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
        assert_eq!(*p.suffixes, ["commit"]);
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

    fn holds(pattern: &str, text: &str, neighbours_kept: bool) -> bool {
        let condition = Condition::owned(&extract_condition(pattern).unwrap());
        let lower = text.to_lowercase();
        let mut index = TextIndex::new(&lower);
        index.set_word_neighbours_kept(neighbours_kept);
        condition.holds(&index)
    }

    #[test]
    fn conditions_need_every_part_of_a_match_as_whole_words() {
        let bug_then_change = r"\b(crash|hang)\b[^\n]{0,120}\b(i|we)\s+(changed|added)\b";
        assert!(holds(
            bug_then_change,
            "The crash: I changed the guard.",
            true
        ));
        for quiet in [
            "changed",
            "The hangar crashed, then we changed it.",
            "a crash",
        ] {
            assert!(!holds(bug_then_change, quiet, true), "{quiet:?}");
        }
        let shipped = r"\b(merge|deploy)\b[^\n]{0,60}\b(production|staging)\b";
        assert!(!holds(shipped, "merge the introduction", true));
        assert!(holds(shipped, "Deploy it to production.", true));
        // Inner parts count too, and optional parts do not.
        let inner = r"^\s*(\$\s*)?(sudo\s+)?git\s+push\b";
        assert!(!holds(inner, "git pushed", true));
        assert!(holds(inner, "$ git push -u", true));
        assert!(holds(r"my (best )?guess", "my best guess", true));
        assert!(holds(r"my (best )?guess", "my guess", true));
        assert!(!holds(r"my (best )?guess", "my bestguess", true));
    }

    #[test]
    fn conditions_read_the_text_as_the_speech_view_may() {
        // A masked word may become a space, so a word character next to a literal proves
        // nothing unless no mask applies.
        assert!(!holds(r"\bhang\b", "changed", true));
        assert!(holds(r"\bhang\b", "changed", false));
        // Inline code is kept without its backticks (a command) or blanked.
        assert!(holds(r"\brun git push\b", "run `git push` now", true));
        assert!(holds(r"\bthe\s+fix\b", "the `x`fix", true));
        assert!(holds(r"\(git\b", "(`git push`)", true));
        // Non-ASCII neighbours are word characters or not: either way, no constraint.
        assert!(holds(r"\bbug\b", "débug", true));
    }

    #[test]
    fn bad_pattern_is_an_error() {
        assert!(extract("(unclosed").is_err());
    }
}
