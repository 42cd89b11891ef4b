//! One session file, read once per hook call: lines are read from the end as the consumers ask
//! for them and kept, so a second walk over the same events reads nothing again, and
//! [`Transcript::refresh`] reads only what was appended since (an agent still writing the result
//! of the command that just finished).

use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::gemini::Keys;
use super::reverse::{RawLine, ReverseLines};
use super::{Event, Line, Options, claude, cline, codex, copilot, droid, gemini};

/// Which agent wrote a session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Claude,
    Codex,
    Gemini,
    Droid,
    Copilot,
}

impl Format {
    fn of(keys: &Keys) -> Format {
        if keys.is_rollout() {
            Format::Codex
        } else if keys.is_copilot() {
            Format::Copilot
        } else if keys.is_droid() {
            Format::Droid
        } else if keys.is_record() {
            Format::Gemini
        } else {
            Format::Claude
        }
    }

    fn small(self, bytes: &[u8]) -> Line {
        match self {
            Format::Claude => claude::small(bytes),
            Format::Codex => codex::small(bytes),
            Format::Gemini => gemini::small(bytes),
            Format::Droid => droid::small(bytes),
            Format::Copilot => copilot::small(bytes),
        }
    }

    fn giant(self, reader: impl Read) -> Line {
        match self {
            Format::Claude => claude::giant(reader),
            Format::Codex => codex::giant(reader),
            Format::Gemini => gemini::giant(reader),
            Format::Droid => droid::giant(reader),
            Format::Copilot => copilot::giant(reader),
        }
    }
}

/// Assistant text kept for later walks: the text of older lines is dropped once they were
/// visited, so that a long session's text does not stay in memory for the whole call. Later
/// walks never need it: the Stop text is read in one walk, the gate's account of recent
/// activity reads a few kilobytes of the newest lines, and the test evidence reads no text.
const KEPT_TEXT_BYTES: usize = 4 << 20;

/// What reading a session file cost, and what it met on the way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes read from the file.
    pub scanned_bytes: u64,
    /// Lines over the line cap (streamed: their free text is not collected).
    pub giant_lines: u32,
    /// Lines that did not parse (a torn last line, for instance).
    pub bad_lines: u32,
    /// Lines parsed. Each line is parsed once, however many walks read it.
    pub parsed_lines: u64,
}

/// A session file, read from its end as far as the walks over it need.
pub struct Transcript {
    file: File,
    options: Options,
    /// Decided by the first line that parses (every line of a file has the same format).
    format: Option<Format>,
    /// The unread part of the file, read backwards.
    back: ReverseLines,
    /// Lines read, newest first.
    lines: VecDeque<Line>,
    /// The file's length when it was last read.
    len: u64,
    /// The newest line read had no newline after it yet (it may be half written): its offset.
    torn_front: Option<u64>,
    /// The end of the range `back` reads.
    back_end: u64,
    stats: Stats,
    /// A Cline messages file (a JSON document, read message by message; see [`cline`]).
    document: Option<Document>,
}

/// A JSON document read as lines: where it is, when it was last changed, and its messages
/// from the end. Cline rewrites it whole: a change reads it from its end again.
struct Document {
    path: std::path::PathBuf,
    modified: Option<std::time::SystemTime>,
    back: cline::Backward,
}

impl Transcript {
    /// Opens a session file (a regular file only, see [`super::open_regular`]).
    pub fn open(path: &Path, options: Options) -> io::Result<Transcript> {
        let file = super::open_regular(path)?;
        let len = file.metadata()?.len();
        let mut transcript = Transcript {
            file,
            options,
            format: None,
            back: ReverseLines::new(0, len, options),
            lines: VecDeque::new(),
            len,
            torn_front: None,
            back_end: len,
            stats: Stats::default(),
            document: None,
        };
        if cline::is_messages_file(path) {
            transcript.back = ReverseLines::new(0, 0, options);
            transcript.document = Some(Document {
                path: path.to_path_buf(),
                modified: transcript.file.metadata()?.modified().ok(),
                back: cline::Backward::new(len, options),
            });
        }
        Ok(transcript)
    }

    /// Reads the document again from its end when it changed since it was last read (Cline
    /// rewrites it whole, in place). Whether it did.
    fn reread_document(&mut self) -> io::Result<bool> {
        let Some(document) = &mut self.document else {
            return Ok(false);
        };
        let file = super::open_regular(&document.path)?;
        let meta = file.metadata()?;
        let (len, modified) = (meta.len(), meta.modified().ok());
        if len == self.len && modified.is_some() && modified == document.modified {
            return Ok(false);
        }
        self.stats.scanned_bytes += document.back.scanned();
        document.back = cline::Backward::new(len, self.options);
        document.modified = modified;
        self.lines.clear();
        self.file = file;
        self.len = len;
        Ok(true)
    }

    pub fn stats(&self) -> Stats {
        Stats {
            scanned_bytes: self.stats.scanned_bytes
                + self.back.scanned()
                + self.document.as_ref().map_or(0, |d| d.back.scanned()),
            ..self.stats
        }
    }

    /// Whether the byte budget ended the backward read before the start of the file.
    pub fn exhausted_budget(&self) -> bool {
        self.document
            .as_ref()
            .map_or(self.back.exhausted_budget(), |d| d.back.exhausted_budget())
    }

    /// Visits the events from the newest, until `visit` returns `false` or the history ends
    /// (the start of the file, the byte budget, or a record that replaced all earlier ones).
    /// Lines already read are not read again.
    pub fn visit_backwards(&mut self, mut visit: impl FnMut(&Event) -> bool) -> io::Result<()> {
        let mut history = History::default();
        let mut at = 0;
        // Assistant text of the lines visited so far, newest first.
        let mut newer_text = 0;
        while let Some(line) = self.line(at)? {
            newer_text += line.text_bytes();
            let Some(events) = history.events(line) else {
                break;
            };
            for event in events.into_iter().rev() {
                if !visit(event) {
                    return Ok(());
                }
            }
            if newer_text > KEPT_TEXT_BYTES {
                self.lines[at].drop_text();
            }
            at += 1;
        }
        Ok(())
    }

    /// Reads what was appended to the file since it was last read (and the line that was
    /// being written then, again). Whether anything was.
    pub fn refresh(&mut self) -> io::Result<bool> {
        if self.document.is_some() {
            return self.reread_document();
        }
        // The newest line must be known first: it may be the one being written.
        self.line(0)?;
        let len = self.file.metadata()?.len();
        if len <= self.len {
            return Ok(false);
        }
        let from = match self.torn_front.take() {
            Some(start) => {
                self.lines.pop_front();
                start
            }
            None => self.len,
        };
        let mut appended = ReverseLines::new(from, len, self.options);
        let mut new = Vec::new();
        while let Some((start, end, raw)) = appended.next(&mut self.file)? {
            if end == len {
                self.torn_front = Some(start);
            }
            new.push(self.parse(raw)?);
        }
        self.stats.scanned_bytes += appended.scanned();
        self.len = len;
        if appended.exhausted_budget() {
            // More was appended than one read may take: the file is read again from its end.
            self.stats.scanned_bytes += self.back.scanned();
            self.back = ReverseLines::new(0, len, self.options);
            self.lines.clear();
            self.torn_front = None;
            self.back_end = len;
            return Ok(true);
        }
        for line in new.into_iter().rev() {
            self.lines.push_front(line);
        }
        Ok(true)
    }

    /// The `at`-th line from the newest, read when it was not yet.
    fn line(&mut self, at: usize) -> io::Result<Option<&Line>> {
        while self.lines.len() <= at {
            if let Some(document) = &mut self.document {
                let Some(line) = document.back.next(&mut self.file)? else {
                    return Ok(None);
                };
                self.stats.parsed_lines += 1;
                self.stats.bad_lines += u32::from(matches!(line, Line::Bad));
                self.lines.push_back(line);
                continue;
            }
            let Some((start, end, raw)) = self.back.next(&mut self.file)? else {
                return Ok(None);
            };
            if end == self.back_end && self.lines.is_empty() {
                self.torn_front = Some(start);
            }
            let line = self.parse(raw)?;
            self.lines.push_back(line);
        }
        Ok(self.lines.get(at))
    }

    fn parse(&mut self, raw: RawLine) -> io::Result<Line> {
        self.stats.parsed_lines += 1;
        let line = match raw {
            RawLine::Small(bytes) => {
                let format = match self.format {
                    Some(f) => Some(f),
                    None => serde_json::from_slice::<Keys>(&bytes)
                        .ok()
                        .map(|k| Format::of(&k)),
                };
                self.format = format;
                format.map_or(Line::Bad, |f| f.small(&bytes))
            }
            RawLine::Giant { start, end } => {
                self.stats.giant_lines += 1;
                let format = match self.format {
                    Some(f) => Some(f),
                    None => serde_json::from_reader::<_, Keys>(self.range(start, end)?)
                        .ok()
                        .map(|k| Format::of(&k)),
                };
                self.format = format;
                match format {
                    Some(f) => f.giant(self.range(start, end)?),
                    None => Line::Bad,
                }
            }
        };
        if matches!(line, Line::Bad) {
            self.stats.bad_lines += 1;
        }
        Ok(line)
    }

    /// A buffered reader over `start..end` of the file.
    fn range(&mut self, start: u64, end: u64) -> io::Result<impl Read + '_> {
        self.file.seek(SeekFrom::Start(start))?;
        Ok(BufReader::with_capacity(
            64 * 1024,
            (&self.file).take(end - start),
        ))
    }
}

/// The rules of history, applied while walking backwards: the newest copy of a message is the
/// one that counts, a rewind hides the lines back to the message it names, and a record that
/// replaced every message is the start of the history.
#[derive(Debug, Default)]
struct History {
    /// Keys of the messages met.
    seen: HashSet<Key>,
    /// Messages named by rewinds not reached yet: lines are hidden until then.
    rewinds: Vec<String>,
    /// A record that replaced all earlier messages was read: nothing before it counts.
    ended: bool,
}

impl History {
    /// The events of a line that count, oldest first; `None` once earlier lines no longer do.
    fn events<'l>(&mut self, line: &'l Line) -> Option<Vec<&'l Event>> {
        if self.ended {
            return None;
        }
        match line {
            Line::Message { key, events } => {
                let Some(key) = key else {
                    return Some(if self.rewinds.is_empty() {
                        events.iter().collect()
                    } else {
                        Vec::new()
                    });
                };
                if let Some(at) = self.rewinds.iter().position(|r| r == key) {
                    self.rewinds.remove(at);
                    self.seen.insert(Key::new(key));
                    return Some(Vec::new());
                }
                let first = self.seen.insert(Key::new(key));
                Some(if first && self.rewinds.is_empty() {
                    events.iter().collect()
                } else {
                    Vec::new()
                })
            }
            Line::History(messages) => {
                self.ended = true;
                let mut out = Vec::new();
                // The list is oldest first, so a pending rewind cuts it at its message.
                for (key, events) in messages {
                    if let Some(key) = key {
                        if self.rewinds.iter().any(|r| r == key) {
                            break;
                        }
                        if !self.seen.insert(Key::new(key)) {
                            continue;
                        }
                    }
                    out.extend(events);
                }
                Some(out)
            }
            Line::RewindTo(key) => {
                self.rewinds.push(key.clone());
                Some(Vec::new())
            }
            Line::Bad => Some(Vec::new()),
        }
    }
}

/// A message key in the set of keys met. Its comparisons are counted in tests, which shows the
/// duplicate check stays linear in the number of lines.
#[derive(Debug, Clone)]
struct Key(String);

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl Key {
    fn new(key: &str) -> Key {
        Key(key.to_owned())
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        #[cfg(test)]
        tests::COMPARISONS.with(|c| c.set(c.get() + 1));
        self.0 == other.0
    }
}

impl Eq for Key {}

#[cfg(test)]
pub(super) mod tests;
