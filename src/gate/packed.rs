//! The gate's tables of strings, packed at compile time into bytes that hold no pointers.
//!
//! Every `&'static str` inside a static table is a pointer, and a position-independent binary
//! relocates each one when the process starts: on every hook call, whether the table is read or
//! not, at one relocation per string and one page fault per 4 KiB page of table (measured in
//! `BENCHMARKS.md`). The tables stay written as ordinary `const` Rust data; a `const fn` walks
//! them at build time into one byte string, so that only the bytes reach the binary:
//!
//! - [`Words`]: a list of words, read in place (membership, binary search) without decoding;
//! - [`Writer`] and [`Reader`]: nested tables (tools and their verbs, wrappers), written by a
//!   table's own `const fn` and decoded on first use, once per process, into the table's usual
//!   types (the strings point into the packed bytes).

/// A list of words packed into one text, with the end of each word: no pointers.
///
/// Built with [`Words::pack`] from a `const` list, so that the list itself never reaches the
/// binary: `static X: Words<{ bytes(&L) }, { L.len() }> = Words::pack(&L);`.
pub struct Words<const B: usize, const N: usize> {
    text: [u8; B],
    ends: [u16; N],
}

/// The number of bytes of `words`, for [`Words`]'s first parameter.
pub const fn bytes(words: &[&str]) -> usize {
    let mut total = 0;
    let mut i = 0;
    while i < words.len() {
        total += words[i].len();
        i += 1;
    }
    total
}

impl<const B: usize, const N: usize> Words<B, N> {
    /// Packs `words` (`B` their bytes, `N` their number).
    pub const fn pack(words: &[&str]) -> Words<B, N> {
        assert!(words.len() == N && bytes(words) == B);
        assert!(
            B <= u16::MAX as usize,
            "a packed word list holds at most 64 KiB"
        );
        let mut text = [0u8; B];
        let mut ends = [0u16; N];
        let mut at = 0;
        let mut i = 0;
        while i < N {
            let word = words[i].as_bytes();
            let mut j = 0;
            while j < word.len() {
                text[at] = word[j];
                at += 1;
                j += 1;
            }
            ends[i] = at as u16;
            i += 1;
        }
        Words { text, ends }
    }

    /// The `i`th word.
    #[cfg(test)]
    pub fn get(&self, i: usize) -> &str {
        // Each span is one whole `&str` copied in by `pack`.
        std::str::from_utf8(self.bytes_of(i)).expect("a packed word is the bytes of one string")
    }

    /// The bytes of the `i`th word: lookups compare bytes (the order of `str` is theirs).
    fn bytes_of(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..N).map(|i| self.get(i))
    }

    pub fn contains(&self, word: &str) -> bool {
        self.position(word).is_some()
    }

    /// Where `word` first is in the list.
    pub fn position(&self, word: &str) -> Option<usize> {
        (0..N).find(|&i| self.bytes_of(i) == word.as_bytes())
    }

    /// Whether `word` is in the list, which must be sorted (a test of the table checks it).
    pub fn contains_sorted(&self, word: &str) -> bool {
        let (mut low, mut high) = (0, N);
        while low < high {
            let mid = (low + high) / 2;
            match self.bytes_of(mid).cmp(word.as_bytes()) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<&str> {
        self.iter().collect()
    }
}

/// Writes a nested table into bytes at compile time: `N = 0` only counts them (the size of the
/// real pass), `N` = that count writes them. Strings and lists are prefixed with their length
/// (one byte: table entries are short, and `const` evaluation fails on a longer one).
pub struct Writer<const N: usize> {
    pub bytes: [u8; N],
    pub len: usize,
}

impl<const N: usize> Writer<N> {
    pub const fn new() -> Writer<N> {
        Writer {
            bytes: [0; N],
            len: 0,
        }
    }

    pub const fn byte(&mut self, b: u8) {
        if self.len < N {
            self.bytes[self.len] = b;
        }
        self.len += 1;
    }

    pub const fn flag(&mut self, b: bool) {
        self.byte(b as u8);
    }

    pub const fn count(&mut self, n: usize) {
        assert!(
            n <= u8::MAX as usize,
            "a packed table entry is at most 255 long"
        );
        self.byte(n as u8);
    }

    pub const fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        self.count(b.len());
        let mut i = 0;
        while i < b.len() {
            self.byte(b[i]);
            i += 1;
        }
    }

    pub const fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.flag(true);
                self.str(s);
            }
            None => self.flag(false),
        }
    }

    pub const fn strs(&mut self, list: &[&str]) {
        self.count(list.len());
        let mut i = 0;
        while i < list.len() {
            self.str(list[i]);
            i += 1;
        }
    }

    /// The bytes, checked to be exactly what was written.
    pub const fn finish(self) -> [u8; N] {
        assert!(
            self.len == N,
            "the counting pass and the writing pass differ"
        );
        self.bytes
    }
}

impl<const N: usize> Default for Writer<N> {
    fn default() -> Self {
        Writer::new()
    }
}

/// Reads what a [`Writer`] wrote, in the same order; strings point into the packed bytes.
pub struct Reader {
    bytes: &'static [u8],
    at: usize,
}

impl Reader {
    pub fn new(bytes: &'static [u8]) -> Reader {
        Reader { bytes, at: 0 }
    }

    pub fn done(&self) -> bool {
        self.at == self.bytes.len()
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.bytes[self.at];
        self.at += 1;
        b
    }

    pub fn flag(&mut self) -> bool {
        self.byte() != 0
    }

    pub fn count(&mut self) -> usize {
        self.byte() as usize
    }

    pub fn str(&mut self) -> &'static str {
        let n = self.count();
        let bytes = &self.bytes[self.at..self.at + n];
        self.at += n;
        std::str::from_utf8(bytes).expect("a packed string is the bytes of one string")
    }

    pub fn opt_str(&mut self) -> Option<&'static str> {
        self.flag().then(|| self.str())
    }

    /// A list of strings, allocated once for the life of the process (the tables it builds
    /// are kept in a `OnceLock`).
    pub fn strs(&mut self) -> &'static [&'static str] {
        let n = self.count();
        if n == 0 {
            return &[];
        }
        let list: Vec<&'static str> = (0..n).map(|_| self.str()).collect();
        Vec::leak(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: [&str; 4] = ["apply", "deploy", "push", "über"];
    static PACKED: Words<{ bytes(&LIST) }, { LIST.len() }> = Words::pack(&LIST);

    #[test]
    fn words_read_back_as_written() {
        assert_eq!(PACKED.to_vec(), LIST);
        for w in LIST {
            assert!(PACKED.contains(w) && PACKED.contains_sorted(w), "{w}");
        }
        for w in ["", "app", "pushy", "zzz", "a"] {
            assert!(!PACKED.contains(w) && !PACKED.contains_sorted(w), "{w}");
        }
    }

    const fn write<const N: usize>() -> Writer<N> {
        let mut w = Writer::new();
        w.str("git");
        w.opt_str(None);
        w.opt_str(Some("run"));
        w.strs(&["-C", "--work-tree"]);
        w.strs(&[]);
        w.flag(true);
        w.count(7);
        w
    }
    static NESTED: [u8; write::<0>().len] = write::<{ write::<0>().len }>().finish();

    #[test]
    fn nested_tables_read_back_in_order() {
        let mut r = Reader::new(&NESTED);
        assert_eq!(r.str(), "git");
        assert_eq!(r.opt_str(), None);
        assert_eq!(r.opt_str(), Some("run"));
        assert_eq!(r.strs(), ["-C", "--work-tree"]);
        assert!(r.strs().is_empty());
        assert!(r.flag());
        assert_eq!(r.count(), 7);
        assert!(r.done());
    }
}
