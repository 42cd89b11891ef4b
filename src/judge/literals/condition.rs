//! The condition of a pattern: an and/or tree over every literal a match must pass through,
//! whole words with their word boundaries, where the prefilter only sees a match's ends.

use std::borrow::Cow;

use regex_syntax::hir::{Class, Hir, HirKind, Look};

use super::text_index::TextIndex;
use super::{MIN_LITERAL_BYTES, SyntaxError};

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

/// Parses `pattern` as [`super::extract`] does and extracts its [`Cond`].
pub fn extract_condition(pattern: &str) -> Result<Cond, SyntaxError> {
    Ok(condition_of(&super::parse(pattern)?))
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

/// The condition of a pattern parsed by [`super::parse`].
pub fn condition_of(hir: &Hir) -> Cond {
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
