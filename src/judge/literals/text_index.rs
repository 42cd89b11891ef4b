//! A text prepared for prefilters and conditions: lowercased, with a bitmap of its byte
//! trigrams, and the variants of it the speech view may read.

use std::borrow::Cow;
use std::cell::OnceCell;

use super::MIN_LITERAL_BYTES;
use super::condition::BOUNDARY;

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
    pub(super) fn occurs(&self, literal: &str) -> bool {
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
