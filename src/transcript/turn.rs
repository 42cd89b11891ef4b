//! The Stop hook's text: what the assistant said since the last real user turn.

use std::io;
use std::path::Path;

use super::{Event, Options, Transcript};

/// Why the backward scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Boundary {
    /// At the last real user turn: the normal case.
    UserTurn,
    /// At a compaction boundary: earlier text belongs to the compacted conversation.
    Compaction,
    /// At the start of the file (or of the history, for a record that replaced it).
    StartOfFile,
    /// The byte budget ran out before a boundary was found.
    Budget,
}

/// The assistant text of the current turn, oldest first, and what the scan met on the way.
#[derive(Debug, Clone)]
pub struct TurnText {
    /// Assistant text, one entry per message (pieces of one message joined with `\n`).
    pub messages: Vec<String>,
    pub boundary: Boundary,
    pub scanned_bytes: u64,
    /// Lines over the line cap (streamed; their text is not collected).
    pub giant_lines: u32,
    /// Lines that did not parse (a torn last line, for instance).
    pub bad_lines: u32,
    /// The text of the real user turn the scan stopped at: what the user asked for, which the
    /// judges read as context (the LLM prompt keeps only its start).
    pub user_request: Option<String>,
}

/// Reads the assistant's text since the last real user turn from a session file.
pub fn turn_text(path: &Path, options: Options) -> io::Result<TurnText> {
    let mut transcript = Transcript::open(path, options)?;
    turn_text_of(&mut transcript)
}

/// [`turn_text`] of a transcript already open.
pub fn turn_text_of(transcript: &mut Transcript) -> io::Result<TurnText> {
    // Newest first while scanning: (message id, text).
    let mut found: Vec<(Option<String>, String)> = Vec::new();
    let mut boundary = None;
    let mut user_request = None;
    transcript.visit_backwards(|event| match event {
        Event::UserTurn { text } => {
            boundary = Some(Boundary::UserTurn);
            user_request = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
            false
        }
        Event::Compaction => {
            boundary = Some(Boundary::Compaction);
            false
        }
        Event::AssistantText { text, message } => {
            found.push((message.clone(), text.clone()));
            true
        }
        Event::ToolCall { .. } | Event::ToolResult { .. } => true,
    })?;
    let boundary = boundary.unwrap_or(if transcript.exhausted_budget() {
        Boundary::Budget
    } else {
        Boundary::StartOfFile
    });
    let mut messages: Vec<String> = Vec::new();
    let mut last_id: Option<String> = None;
    for (id, text) in found.into_iter().rev() {
        match messages.last_mut() {
            Some(prev) if id.is_some() && id == last_id => {
                prev.push('\n');
                prev.push_str(&text);
            }
            _ => messages.push(text),
        }
        last_id = id;
    }
    let stats = transcript.stats();
    Ok(TurnText {
        messages,
        boundary,
        scanned_bytes: stats.scanned_bytes,
        giant_lines: stats.giant_lines,
        bad_lines: stats.bad_lines,
        user_request,
    })
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
    super::tail(&text, max_bytes).to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::reverse::CHUNK;
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
                r#"{"type":"user","message":{"role":"user","content":"Stop hook feedback:\nrun tests"}}"#.into(),
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
    fn the_request_comes_from_text_blocks_and_is_absent_without_a_user_turn() {
        let blocks =
            serde_json::json!({"type":"user","uuid":"u1","message":{"role":"user","content":[
            {"type":"image","source":{"type":"base64","data":"AAAA"}},
            {"type":"text","text":"commit only the backend."}]}})
            .to_string();
        let f = write(&[blocks, assistant("m1", "a1", "Committed.")], "");
        let t = read(&f, Options::default());
        assert_eq!(t.user_request.as_deref(), Some("commit only the backend."));
        let f = write(&[assistant("m1", "a1", "Hello.")], "");
        assert_eq!(read(&f, Options::default()).user_request, None);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = super::super::fifo_in(dir.path());
        let err = turn_text(&fifo, Options::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        let err = Transcript::open(Path::new("/dev/zero"), Options::default())
            .err()
            .unwrap();
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
                assistant("m2", "a2", &big),
            ],
            "",
        );
        let t = read(&f, options);
        assert_eq!(t.messages, ["new"]);
        assert_eq!(t.giant_lines, 2);
        // A giant line of harness text is not a user turn either.
        let feedback = format!("Stop hook feedback:\n{big}");
        let f = write(
            &[
                user("go"),
                assistant("m0", "a0", "one"),
                user(&feedback),
                assistant("m1", "a1", "two"),
            ],
            "",
        );
        assert_eq!(read(&f, options).messages, ["one", "two"]);
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
