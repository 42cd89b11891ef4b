//! Reads Claude Code transcripts backwards for "what the assistant said since the last real
//! user turn".
//!
//! Transcripts reach gigabytes and single lines reach megabytes, so the file is read from the
//! end in chunks, within a byte budget, and never slurped. Lines longer than the line cap are
//! not held in memory: they are streamed through a parser that keeps only their shape (type,
//! flags, block kinds), which is enough to tell a tool result from a real user turn. A torn or
//! unparseable line is skipped. The rules for what counts as a real user turn follow the
//! protocol reference, §4.1.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};

const CHUNK: usize = 64 * 1024;

/// Limits on how much of a transcript one hook call reads.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Bytes read from the end at most. By default, 32 MiB.
    pub max_scan_bytes: u64,
    /// Lines longer than this are classified by streaming, and their text is not collected.
    /// By default, 1 MiB.
    pub max_line_bytes: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_scan_bytes: 32 << 20,
            max_line_bytes: 1 << 20,
        }
    }
}

/// Why the backward scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Boundary {
    /// At the last real user turn: the normal case.
    UserTurn,
    /// At a compaction boundary: earlier text belongs to the compacted conversation.
    Compaction,
    /// At the start of the file.
    StartOfFile,
    /// The byte budget ran out before a boundary was found.
    Budget,
}

/// The assistant text of the current turn, oldest first, and what the scan met on the way.
#[derive(Debug, Clone)]
pub struct TurnText {
    /// Assistant text, one entry per message (blocks of one message joined with `\n`).
    pub messages: Vec<String>,
    pub boundary: Boundary,
    pub scanned_bytes: u64,
    /// Lines over the line cap (classified by streaming; their text is not collected).
    pub giant_lines: u32,
    /// Lines that did not parse (a torn last line, for instance).
    pub bad_lines: u32,
    /// The text of the real user turn the scan stopped at (its start only, see
    /// [`USER_TEXT_BYTES`]): what the user asked for, which judges read as context.
    pub user_request: Option<String>,
}

/// How much of a user prompt is kept: enough for the request and for the harness-marker test,
/// not a whole pasted log.
pub const USER_TEXT_BYTES: usize = 2048;

/// Reads the assistant's text since the last real user turn from a Claude Code transcript.
pub fn turn_text(path: &Path, options: Options) -> io::Result<TurnText> {
    let mut file = open_regular(path)?;
    let len = file.metadata()?.len();
    let mut lines = ReverseLines::new(len, options);
    let mut out = TurnText {
        messages: Vec::new(),
        boundary: Boundary::StartOfFile,
        scanned_bytes: 0,
        giant_lines: 0,
        bad_lines: 0,
        user_request: None,
    };
    // Newest first while scanning; (message id, uuid, text).
    let mut found: Vec<(Option<String>, Option<String>, String)> = Vec::new();
    // Uuids already taken: a set, so that the check stays linear over long turns.
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    loop {
        let line = match lines.next(&mut file)? {
            Some(line) => line,
            None => {
                out.boundary = if lines.exhausted_budget {
                    Boundary::Budget
                } else {
                    Boundary::StartOfFile
                };
                break;
            }
        };
        let parsed: Option<Entry<TextBlock>> = match &line {
            RawLine::Small(bytes) => serde_json::from_slice(bytes).ok(),
            RawLine::Giant { start, end } => {
                out.giant_lines += 1;
                read_giant(&mut file, *start, *end).map(Entry::without_text)
            }
        };
        let Some(entry) = parsed else {
            out.bad_lines += 1;
            continue;
        };
        match entry.classify() {
            Kind::Skip => {}
            Kind::Compaction => {
                out.boundary = Boundary::Compaction;
                break;
            }
            Kind::UserTurn => {
                out.boundary = Boundary::UserTurn;
                out.user_request = Some(entry.user_text()).filter(|t| !t.is_empty());
                break;
            }
            Kind::Assistant => {
                let text = entry.text();
                if text.is_empty() || entry.uuid.as_ref().is_some_and(|u| !seen.insert(u.clone())) {
                    continue;
                }
                let id = entry.message.and_then(|m| m.id);
                found.push((id, entry.uuid, text));
            }
        }
    }
    out.scanned_bytes = lines.scanned();
    found.reverse();
    let mut last_id: Option<String> = None;
    for (id, _, text) in found {
        match out.messages.last_mut() {
            Some(prev) if id.is_some() && id == last_id => {
                prev.push('\n');
                prev.push_str(&text);
            }
            _ => out.messages.push(text),
        }
        last_id = id;
    }
    Ok(out)
}

/// Joins the turn's text with the agent's `last_assistant_message` (the truth for the final
/// block: the transcript may not have it yet), keeping the last `max_bytes` bytes.
pub fn judged_text(messages: &[String], last_message: Option<&str>, max_bytes: usize) -> String {
    let mut text = messages.join("\n\n");
    if let Some(last) = last_message.map(str::trim).filter(|l| !l.is_empty())
        && !text.trim_end().ends_with(last)
    {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(last);
    }
    tail(&text, max_bytes).to_owned()
}

/// The last `max_bytes` bytes of `text`, cut forward to a character boundary.
pub fn tail(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

enum RawLine {
    Small(Vec<u8>),
    Giant { start: u64, end: u64 },
}

/// Yields a file's lines from last to first, reading it in chunks from the end.
struct ReverseLines {
    options: Options,
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
    file_len: u64,
}

impl ReverseLines {
    fn new(file_len: u64, options: Options) -> ReverseLines {
        ReverseLines {
            options,
            chunk_start: file_len,
            chunk: Vec::new(),
            scan: 0,
            line_end: file_len,
            pieces: Vec::new(),
            piece_bytes: 0,
            giant: false,
            done: false,
            exhausted_budget: false,
            file_len,
        }
    }

    fn scanned(&self) -> u64 {
        self.file_len - self.chunk_start
    }

    fn next(&mut self, file: &mut File) -> io::Result<Option<RawLine>> {
        while !self.done {
            if let Some(i) = memchr::memrchr(b'\n', &self.chunk[..self.scan]) {
                self.add_piece(i + 1, self.scan);
                self.scan = i;
                let start = self.chunk_start + i as u64 + 1;
                let line = self.take_line(start);
                self.line_end = start - 1;
                if let Some(line) = line {
                    return Ok(Some(line));
                }
                continue;
            }
            self.add_piece(0, self.scan);
            self.scan = 0;
            if self.chunk_start == 0 {
                self.done = true;
                return Ok(self.take_line(0));
            }
            if self.file_len - self.chunk_start >= self.options.max_scan_bytes {
                self.done = true;
                self.exhausted_budget = true;
                return Ok(None);
            }
            let new_start = self.chunk_start.saturating_sub(CHUNK as u64);
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

/// Streams one giant line through the parser without holding its strings.
fn read_giant(file: &mut File, start: u64, end: u64) -> Option<Entry<ShapeBlock>> {
    file.seek(SeekFrom::Start(start)).ok()?;
    let reader = BufReader::with_capacity(64 * 1024, (&*file).take(end - start));
    serde_json::from_reader(reader).ok()
}

/// What a transcript line means for the scan.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Skip,
    Assistant,
    UserTurn,
    Compaction,
}

/// The fields of a transcript line that the scan needs; `B` decides whether block text is kept.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry<B> {
    #[serde(rename = "type")]
    kind: Option<String>,
    subtype: Option<String>,
    uuid: Option<String>,
    is_meta: Option<bool>,
    is_sidechain: Option<bool>,
    is_compact_summary: Option<bool>,
    is_visible_in_transcript_only: Option<bool>,
    is_api_error_message: Option<bool>,
    tool_use_result: Option<IgnoredAny>,
    #[serde(rename = "sourceToolAssistantUUID")]
    source_tool_assistant_uuid: Option<IgnoredAny>,
    origin: Option<Origin>,
    message: Option<Message<B>>,
}

#[derive(Debug, Deserialize)]
struct Origin {
    kind: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Message<B> {
    model: Option<String>,
    id: Option<String>,
    content: Option<Content<B>>,
}

#[derive(Debug)]
enum Content<B> {
    /// A plain string (user prompts). Giant lines keep only its first bytes.
    Text(String),
    Blocks(Vec<B>),
}

/// A content block with its text, for ordinary lines.
#[derive(Debug, Deserialize)]
struct TextBlock {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
}

/// A content block's kind only, for giant lines.
#[derive(Debug, Deserialize)]
struct ShapeBlock {
    #[serde(rename = "type")]
    kind: Option<String>,
}

trait Block {
    fn kind(&self) -> Option<&str>;
    fn text(&self) -> Option<&str>;
}

impl Block for TextBlock {
    fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }
    fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }
}

impl Block for ShapeBlock {
    fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }
    fn text(&self) -> Option<&str> {
        None
    }
}

impl<'de, B: Deserialize<'de>> Deserialize<'de> for Content<B> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor<B>(PhantomData<B>);
        impl<'de, B: Deserialize<'de>> Visitor<'de> for ContentVisitor<B> {
            type Value = Content<B>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                // Only the start matters (wrapper markers); a giant prompt is not kept whole.
                Ok(Content::Text(tail_prefix(v, USER_TEXT_BYTES).to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(ContentVisitor(PhantomData))
    }
}

/// The first `max_bytes` bytes of `text`, cut back to a character boundary.
fn tail_prefix(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// User text that an agent or the harness wrote, not the human.
const HARNESS_PREFIXES: [&str; 4] = [
    "Stop hook feedback:",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<local-command-stderr>",
];

impl<B: Block> Entry<B> {
    fn classify(&self) -> Kind {
        let flag = |f: Option<bool>| f == Some(true);
        match self.kind.as_deref() {
            Some("system") if self.subtype.as_deref() == Some("compact_boundary") => {
                Kind::Compaction
            }
            Some("assistant") => {
                let synthetic =
                    self.message.as_ref().and_then(|m| m.model.as_deref()) == Some("<synthetic>");
                if flag(self.is_sidechain) || flag(self.is_api_error_message) || synthetic {
                    Kind::Skip
                } else {
                    Kind::Assistant
                }
            }
            Some("user") => {
                if flag(self.is_sidechain)
                    || flag(self.is_meta)
                    || flag(self.is_compact_summary)
                    || flag(self.is_visible_in_transcript_only)
                    || self.tool_use_result.is_some()
                    || self.source_tool_assistant_uuid.is_some()
                    || self
                        .origin
                        .as_ref()
                        .is_some_and(|o| o.kind.as_deref().is_some_and(|k| k != "human"))
                {
                    return Kind::Skip;
                }
                match self.message.as_ref().and_then(|m| m.content.as_ref()) {
                    Some(Content::Text(text))
                        if HARNESS_PREFIXES
                            .iter()
                            .any(|p| text.trim_start().starts_with(p)) =>
                    {
                        Kind::Skip
                    }
                    Some(Content::Blocks(blocks))
                        if !blocks.is_empty()
                            && blocks.iter().all(|b| b.kind() == Some("tool_result")) =>
                    {
                        Kind::Skip
                    }
                    Some(_) => Kind::UserTurn,
                    None => Kind::Skip,
                }
            }
            // summary, attachment, progress, file-history-snapshot, api-request*, unknown types.
            _ => Kind::Skip,
        }
    }

    fn text(&self) -> String {
        let Some(Content::Blocks(blocks)) = self.message.as_ref().and_then(|m| m.content.as_ref())
        else {
            return String::new();
        };
        let texts: Vec<&str> = blocks
            .iter()
            .filter(|b| b.kind() == Some("text"))
            .filter_map(Block::text)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        texts.join("\n")
    }
}

impl Entry<TextBlock> {
    /// A user turn's own words: a plain string, or its text blocks (pasted images and files
    /// carry none).
    fn user_text(&self) -> String {
        match self.message.as_ref().and_then(|m| m.content.as_ref()) {
            Some(Content::Text(text)) => text.trim().to_owned(),
            Some(Content::Blocks(_)) => tail_prefix(&self.text(), USER_TEXT_BYTES).to_owned(),
            None => String::new(),
        }
    }
}

impl Entry<ShapeBlock> {
    /// Converts a giant line's shape into the ordinary entry type (with no text to collect).
    fn without_text(self) -> Entry<TextBlock> {
        Entry {
            kind: self.kind,
            subtype: self.subtype,
            uuid: self.uuid,
            is_meta: self.is_meta,
            is_sidechain: self.is_sidechain,
            is_compact_summary: self.is_compact_summary,
            is_visible_in_transcript_only: self.is_visible_in_transcript_only,
            is_api_error_message: self.is_api_error_message,
            tool_use_result: self.tool_use_result,
            source_tool_assistant_uuid: self.source_tool_assistant_uuid,
            origin: self.origin,
            message: self.message.map(|m| Message {
                model: m.model,
                id: m.id,
                content: m.content.map(|c| match c {
                    Content::Text(t) => Content::Text(t),
                    Content::Blocks(blocks) => Content::Blocks(
                        blocks
                            .into_iter()
                            .map(|b| TextBlock {
                                kind: b.kind,
                                text: None,
                            })
                            .collect(),
                    ),
                }),
            }),
        }
    }
}

/// Opens a transcript, refusing at once anything but a regular file: opening a FIFO blocks
/// until a writer comes, and a device never ends.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{}` is not a regular file", path.display()),
        ));
    }
    File::open(path)
}

/// Visits the complete, parseable lines of a transcript from the newest, within `options`'
/// budget, until `visit` returns `false`. Lines over the line cap are skipped.
pub fn visit_backwards(
    path: &Path,
    options: Options,
    mut visit: impl FnMut(&serde_json::Value) -> bool,
) -> io::Result<()> {
    let mut file = open_regular(path)?;
    let len = file.metadata()?.len();
    let mut lines = ReverseLines::new(len, options);
    while let Some(line) = lines.next(&mut file)? {
        let RawLine::Small(bytes) = line else {
            continue;
        };
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        if !visit(&value) {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn user(text: &str) -> String {
        serde_json::json!({"type":"user","uuid":format!("u-{text}"),"message":{"role":"user","content":text}}).to_string()
    }
    fn assistant(id: &str, uuid: &str, text: &str) -> String {
        serde_json::json!({"type":"assistant","uuid":uuid,"message":{"id":id,"role":"assistant","model":"m",
            "content":[{"type":"text","text":text}]}})
        .to_string()
    }
    fn tool_result() -> String {
        r#"{"type":"user","uuid":"tr","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},"toolUseResult":{"stdout":"ok"}}"#.to_string()
    }

    fn write(lines: &[String], trailer: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for line in lines {
            writeln!(f, "{line}").unwrap();
        }
        write!(f, "{trailer}").unwrap();
        f
    }

    fn read(f: &tempfile::NamedTempFile, options: Options) -> TurnText {
        turn_text(f.path(), options).unwrap()
    }

    #[test]
    fn stops_at_the_last_real_user_turn() {
        let f = write(
            &[
                user("first prompt"),
                assistant("m0", "a0", "old answer"),
                user("second prompt"),
                assistant("m1", "a1", "Looking."),
                tool_result(),
                r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"Stop hook feedback:\nrun tests"}}"#.into(),
                r#"{"type":"attachment","attachment":{"type":"hook_blocking_error"}}"#.into(),
                r#"{"type":"user","origin":{"kind":"task-notification"},"message":{"role":"user","content":"bg done"}}"#.into(),
                assistant("m2", "a2", "Done, shall I push?"),
            ],
            "",
        );
        let t = read(&f, Options::default());
        assert_eq!(t.messages, ["Looking.", "Done, shall I push?"]);
        assert_eq!(t.boundary, Boundary::UserTurn);
        // The request is the human's prompt, not the harness's feedback after it.
        assert_eq!(t.user_request.as_deref(), Some("second prompt"));
    }

    #[test]
    fn the_request_comes_from_text_blocks_and_keeps_only_its_start() {
        let long = format!("commit only the backend. {}", "log line\n".repeat(1000));
        let blocks =
            serde_json::json!({"type":"user","uuid":"u1","message":{"role":"user","content":[
            {"type":"image","source":{"type":"base64","data":"AAAA"}},
            {"type":"text","text":long}]}})
            .to_string();
        let f = write(&[blocks, assistant("m1", "a1", "Committed.")], "");
        let t = read(&f, Options::default());
        let request = t.user_request.unwrap();
        assert!(request.starts_with("commit only the backend."));
        assert!(request.len() <= USER_TEXT_BYTES);
        let f = write(&[assistant("m1", "a1", "Hello.")], "");
        assert_eq!(
            read(&f, Options::default()).user_request,
            None,
            "no user turn, no request"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("t.fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Opening the FIFO for reading would block until a writer came.
        let err = turn_text(&fifo, Options::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        let err =
            visit_backwards(Path::new("/dev/zero"), Options::default(), |_| true).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn merges_blocks_of_one_message_and_dedupes_uuids() {
        let f = write(
            &[
                user("go"),
                assistant("m1", "a1", "part one"),
                assistant("m1", "a2", "part two"),
                assistant("m1", "a2", "part two"),
            ],
            "",
        );
        assert_eq!(
            read(&f, Options::default()).messages,
            ["part one\npart two"]
        );
    }

    #[test]
    fn compaction_is_a_boundary_and_torn_lines_are_skipped() {
        let f = write(
            &[
                assistant("m0", "a0", "before compaction"),
                r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}"#.into(),
                r#"{"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued"}}"#.into(),
                assistant("m1", "a1", "after"),
            ],
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"tor"#,
        );
        let t = read(&f, Options::default());
        assert_eq!(t.messages, ["after"]);
        assert_eq!(t.boundary, Boundary::Compaction);
        assert_eq!(t.bad_lines, 1);
    }

    #[test]
    fn giant_lines_are_classified_without_their_text() {
        let big = "x".repeat(300);
        let options = Options {
            max_scan_bytes: 1 << 20,
            max_line_bytes: 200,
        };
        // A giant tool result does not end the turn; a giant user prompt does.
        let f = write(
            &[
                user("go"),
                assistant("m1", "a1", "one"),
                tool_result().replace("ok", &big),
                assistant("m2", "a2", "two"),
            ],
            "",
        );
        let t = read(&f, options);
        assert_eq!(
            (t.messages.clone(), t.giant_lines, t.boundary),
            (
                vec!["one".to_string(), "two".to_string()],
                1,
                Boundary::UserTurn
            )
        );
        let f = write(
            &[
                assistant("m0", "a0", "old"),
                user(&big),
                assistant("m1", "a1", "new"),
            ],
            "",
        );
        assert_eq!(read(&f, options).messages, ["new"]);
    }

    #[test]
    fn budget_limits_the_scan() {
        let mut lines = vec![user("go")];
        for i in 0..2000 {
            lines.push(assistant(
                &format!("m{i}"),
                &format!("a{i}"),
                &format!("line {i} {}", "y".repeat(100)),
            ));
        }
        let f = write(&lines, "");
        let t = read(
            &f,
            Options {
                max_scan_bytes: 100 * 1024,
                max_line_bytes: 1 << 20,
            },
        );
        assert_eq!(t.boundary, Boundary::Budget);
        assert!(t.scanned_bytes <= 100 * 1024 + CHUNK as u64);
        assert!(t.messages.last().unwrap().starts_with("line 1999"));
    }

    #[test]
    fn judged_text_appends_the_final_message_and_cuts_on_char_boundaries() {
        let messages = vec!["a".to_string(), "b".to_string()];
        assert_eq!(judged_text(&messages, Some("b"), 100), "a\n\nb");
        assert_eq!(
            judged_text(&messages, Some("final"), 100),
            "a\n\nb\n\nfinal"
        );
        assert_eq!(judged_text(&[], Some("only"), 100), "only");
        let jp = "コミットします";
        let cut = judged_text(&[], Some(jp), 8);
        assert!(
            jp.ends_with(&cut) && cut.len() <= 8 && !cut.is_empty(),
            "{cut:?}"
        );
    }
}
