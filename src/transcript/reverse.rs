//! Reads a range of a file's lines from last to first, in chunks from the end, within a byte
//! budget. A line longer than the line cap is not assembled: only its offsets are returned, for
//! the caller to stream it through a parser.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use super::Options;

pub(super) const CHUNK: usize = 64 * 1024;

/// One line, without its newline.
pub(super) enum RawLine {
    Small(Vec<u8>),
    /// Over the line cap: `start..end` in the file.
    Giant {
        start: u64,
        end: u64,
    },
}

/// Yields the lines of `floor..end` of a file from last to first.
pub(super) struct ReverseLines {
    options: Options,
    /// The range's start: the reader never reads before it.
    floor: u64,
    /// The range's end.
    end: u64,
    /// File offset of `chunk[0]`.
    chunk_start: u64,
    chunk: Vec<u8>,
    /// Bytes of `chunk` not yet scanned: `chunk[..scan]`.
    scan: usize,
    /// The end (exclusive) of the line being assembled.
    line_end: u64,
    /// Pieces of the line being assembled, last piece first; empty once the line is giant.
    pieces: Vec<Vec<u8>>,
    piece_bytes: usize,
    giant: bool,
    done: bool,
    exhausted_budget: bool,
}

impl ReverseLines {
    pub(super) fn new(floor: u64, end: u64, options: Options) -> ReverseLines {
        ReverseLines {
            options,
            floor,
            end,
            chunk_start: end,
            chunk: Vec::new(),
            scan: 0,
            line_end: end,
            pieces: Vec::new(),
            piece_bytes: 0,
            giant: false,
            done: floor >= end,
            exhausted_budget: false,
        }
    }

    /// Bytes read so far.
    pub(super) fn scanned(&self) -> u64 {
        self.end - self.chunk_start
    }

    /// Whether the byte budget ended the read before the range's start.
    pub(super) fn exhausted_budget(&self) -> bool {
        self.exhausted_budget
    }

    /// The previous line, with the offsets it starts and ends at (its end is the range's end
    /// when no newline follows it yet).
    pub(super) fn next(&mut self, file: &mut File) -> io::Result<Option<(u64, u64, RawLine)>> {
        while !self.done {
            if let Some(i) = memchr::memrchr(b'\n', &self.chunk[..self.scan]) {
                self.add_piece(i + 1, self.scan);
                self.scan = i;
                let start = self.chunk_start + i as u64 + 1;
                let end = self.line_end;
                let line = self.take_line(start);
                self.line_end = start - 1;
                if let Some(line) = line {
                    return Ok(Some((start, end, line)));
                }
                continue;
            }
            self.add_piece(0, self.scan);
            self.scan = 0;
            if self.chunk_start == self.floor {
                self.done = true;
                let end = self.line_end;
                return Ok(self.take_line(self.floor).map(|l| (self.floor, end, l)));
            }
            if self.end - self.chunk_start >= self.options.max_scan_bytes {
                self.done = true;
                self.exhausted_budget = true;
                return Ok(None);
            }
            let new_start = self
                .chunk_start
                .saturating_sub(CHUNK as u64)
                .max(self.floor);
            let size = (self.chunk_start - new_start) as usize;
            self.chunk.resize(size, 0);
            file.seek(SeekFrom::Start(new_start))?;
            file.read_exact(&mut self.chunk)?;
            self.chunk_start = new_start;
            self.scan = size;
        }
        Ok(None)
    }

    fn add_piece(&mut self, from: usize, to: usize) {
        if from == to || self.giant {
            return;
        }
        self.piece_bytes += to - from;
        if self.piece_bytes > self.options.max_line_bytes {
            self.giant = true;
            self.pieces.clear();
        } else {
            self.pieces.push(self.chunk[from..to].to_vec());
        }
    }

    fn take_line(&mut self, start: u64) -> Option<RawLine> {
        let line = if self.giant {
            Some(RawLine::Giant {
                start,
                end: self.line_end,
            })
        } else if self.piece_bytes == 0 {
            None
        } else {
            let mut bytes = Vec::with_capacity(self.piece_bytes);
            for piece in self.pieces.iter().rev() {
                bytes.extend_from_slice(piece);
            }
            Some(RawLine::Small(bytes))
        };
        self.pieces.clear();
        self.piece_bytes = 0;
        self.giant = false;
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(content: &str, floor: u64, options: Options) -> Vec<(u64, u64, String)> {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), content).unwrap();
        let mut file = File::open(f.path()).unwrap();
        let mut reader = ReverseLines::new(floor, content.len() as u64, options);
        let mut out = Vec::new();
        while let Some((start, end, line)) = reader.next(&mut file).unwrap() {
            out.push((
                start,
                end,
                match line {
                    RawLine::Small(b) => String::from_utf8(b).unwrap(),
                    RawLine::Giant { start, end } => format!("giant {start}..{end}"),
                },
            ));
        }
        out
    }

    #[test]
    fn lines_come_last_first_with_their_offsets() {
        let got = lines("a\nbb\n\nccc", 0, Options::default());
        let want = [
            (6, 9, "ccc".into()),
            (2, 4, "bb".into()),
            (0, 1, "a".into()),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_range_starts_at_its_floor_and_long_lines_are_giant() {
        let options = Options {
            max_scan_bytes: 1 << 20,
            max_line_bytes: 3,
        };
        let got = lines("old\nnew\nlonger\n", 4, options);
        assert_eq!(got, [(8, 14, "giant 8..14".into()), (4, 7, "new".into())]);
    }

    #[test]
    fn lines_across_chunks_are_whole() {
        let long = "y".repeat(CHUNK + 10);
        let content = format!("first\n{long}\nlast\n");
        let got = lines(&content, 0, Options::default());
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].2, long);
        assert_eq!(got[2], (0, 5, "first".into()));
    }
}
