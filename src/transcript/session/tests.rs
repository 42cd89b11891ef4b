use std::cell::Cell;
use std::io::Write;

use serde_json::{Value, json};

use super::*;

thread_local! {
    /// Comparisons of message keys made on this thread (see [`Key`]).
    pub(crate) static COMPARISONS: Cell<u64> = const { Cell::new(0) };
}

fn file(lines: &[Value], trailer: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    for line in lines {
        writeln!(f, "{line}").unwrap();
    }
    write!(f, "{trailer}").unwrap();
    f.flush().unwrap();
    f
}

fn append(f: &tempfile::NamedTempFile, text: &str) {
    let mut w = std::fs::OpenOptions::new()
        .append(true)
        .open(f.path())
        .unwrap();
    w.write_all(text.as_bytes()).unwrap();
}

/// The events, newest first, as short strings.
fn walk(t: &mut Transcript) -> Vec<String> {
    let mut out = Vec::new();
    t.visit_backwards(|e| {
        out.push(match e {
            Event::AssistantText { text, .. } => format!("said {text}"),
            Event::ToolCall { tool, command, .. } => {
                format!("call {tool} {}", command.as_deref().unwrap_or(""))
            }
            Event::ToolResult { id, failed, .. } => format!("result {id} failed={failed}"),
            Event::UserTurn { text } => format!("user {text}"),
            Event::Compaction => "compaction".into(),
        });
        true
    })
    .unwrap();
    out
}

fn bash(id: &str, command: &str) -> Value {
    json!({"type": "assistant", "uuid": format!("a-{id}"), "message": {"content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}})
}

fn result(id: &str) -> Value {
    json!({"type": "user", "uuid": format!("r-{id}"), "message": {"content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}, "toolUseResult": {}})
}

#[test]
fn a_second_walk_reads_nothing_again() {
    let f = file(
        &[
            json!({"type": "user", "message": {"content": "go"}}),
            bash("1", "cargo test"),
            result("1"),
        ],
        "",
    );
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    let first = walk(&mut t);
    let stats = t.stats();
    assert_eq!(
        first,
        ["result 1 failed=false", "call Bash cargo test", "user go"]
    );
    assert_eq!(walk(&mut t), first);
    assert_eq!(t.stats(), stats);
    assert_eq!(stats.parsed_lines, 3);
}

#[test]
fn a_refresh_reads_only_what_was_appended() {
    let mut lines = vec![json!({"type": "user", "message": {"content": "go"}})];
    for i in 0..500 {
        lines.push(bash(&i.to_string(), "cat src/lib.rs"));
        lines.push(result(&i.to_string()));
    }
    lines.push(bash("t", "cargo test"));
    let f = file(&lines, "");
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    let mut pending = false;
    t.visit_backwards(|e| {
        pending = matches!(e, Event::ToolCall { id, .. } if id == "t");
        !pending
    })
    .unwrap();
    assert!(pending);
    assert!(!t.refresh().unwrap(), "nothing was appended yet");
    let before = t.stats();
    let appended = format!("{}\n", result("t"));
    append(&f, &appended);
    assert!(t.refresh().unwrap());
    let after = t.stats();
    assert_eq!(
        after.scanned_bytes - before.scanned_bytes,
        appended.len() as u64
    );
    assert_eq!(after.parsed_lines - before.parsed_lines, 1);
    assert_eq!(
        walk(&mut t)[..2],
        ["result t failed=false", "call Bash cargo test"]
    );
}

#[test]
fn a_line_half_written_is_read_again_once_complete() {
    let line = result("t").to_string();
    let (head, rest) = line.split_at(20);
    let f = file(&[bash("t", "cargo test")], head);
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    assert_eq!(walk(&mut t), ["call Bash cargo test"]);
    assert_eq!(t.stats().bad_lines, 1);
    append(&f, rest);
    assert!(t.refresh().unwrap());
    assert_eq!(
        walk(&mut t),
        ["result t failed=false", "call Bash cargo test"]
    );
    // Its newline comes later: the line is not read twice.
    append(&f, "\n");
    assert!(t.refresh().unwrap());
    assert_eq!(
        walk(&mut t),
        ["result t failed=false", "call Bash cargo test"]
    );
}

#[test]
fn more_appended_than_the_budget_starts_again_from_the_end() {
    let options = Options {
        max_scan_bytes: 4096,
        max_line_bytes: 1 << 20,
    };
    let f = file(&[bash("t", "cargo test")], "");
    let mut t = Transcript::open(f.path(), options).unwrap();
    walk(&mut t);
    let mut text = String::new();
    for i in 0..100 {
        text.push_str(&format!("{}\n", bash(&i.to_string(), "ls")));
    }
    text.push_str(&format!("{}\n", result("t")));
    append(&f, &text);
    assert!(t.refresh().unwrap());
    assert_eq!(walk(&mut t)[0], "result t failed=false");
}

fn gemini_model(id: &str, text: &str) -> Value {
    json!({"id": id, "type": "gemini", "content": text})
}

fn gemini_user(id: &str, text: &str) -> Value {
    json!({"id": id, "type": "user", "content": [{"text": text}]})
}

#[test]
fn the_newest_copy_of_a_message_counts() {
    let f = file(
        &[
            json!({"sessionId": "s", "projectHash": "h"}),
            gemini_user("1", "Fix it"),
            gemini_model("2", "first draft"),
            gemini_model("2", "final text"),
        ],
        "",
    );
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    assert_eq!(walk(&mut t), ["said final text", "user Fix it"]);
}

#[test]
fn a_rewind_hides_the_messages_back_to_the_one_it_names() {
    let f = file(
        &[
            gemini_model("1", "kept"),
            gemini_user("2", "rewound prompt"),
            gemini_model("3", "rewound away"),
            json!({"$rewindTo": "2"}),
        ],
        "",
    );
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    assert_eq!(walk(&mut t), ["said kept"]);
    let f = file(
        &[
            json!({"$set": {"messages": [gemini_model("1", "kept"), gemini_user("2", "gone"), gemini_model("3", "gone")]}}),
            json!({"$rewindTo": "2"}),
        ],
        "",
    );
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    assert_eq!(walk(&mut t), ["said kept"]);
}

#[test]
fn a_set_of_messages_is_the_start_of_the_history() {
    let f = file(
        &[
            gemini_user("0", "before the set"),
            json!({"$set": {"messages": [gemini_user("1", "old prompt"), gemini_model("2", "old answer")]}}),
            gemini_model("3", "new answer"),
        ],
        "",
    );
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    assert_eq!(
        walk(&mut t),
        ["said new answer", "said old answer", "user old prompt"]
    );
}

#[test]
fn a_giant_first_line_still_tells_the_format() {
    let options = Options {
        max_scan_bytes: 1 << 20,
        max_line_bytes: 100,
    };
    let big = "x".repeat(500);
    let f = file(
        &[
            gemini_user("1", "Fix it"),
            json!({"id": "2", "type": "gemini", "content": big, "toolCalls": [{"id": "t", "name": "run_shell_command", "args": {"command": "make test"}, "status": "executing"}]}),
        ],
        "",
    );
    let mut t = Transcript::open(f.path(), options).unwrap();
    assert_eq!(walk(&mut t), ["call Bash make test", "user Fix it"]);
    assert_eq!(t.stats().giant_lines, 1);
}

/// 80 000 assistant messages in one turn (a long autonomous run), each line twice: the
/// duplicate check makes about one comparison per line, not one per pair of lines.
#[test]
fn the_duplicate_check_is_linear_in_the_lines() {
    const MESSAGES: usize = 80_000;
    let mut text = format!(
        "{}\n",
        json!({"type": "user", "message": {"content": "go"}})
    );
    for i in 0..MESSAGES {
        let line = format!(
            r#"{{"type":"assistant","uuid":"a{i}","message":{{"id":"m{i}","content":[{{"type":"text","text":"step {i}"}}]}}}}"#
        );
        text.push_str(&format!("{line}\n{line}\n"));
    }
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), &text).unwrap();
    COMPARISONS.with(|c| c.set(0));
    let turn = super::super::turn_text(f.path(), Options::default()).unwrap();
    let comparisons = COMPARISONS.with(Cell::get);
    assert_eq!(turn.messages.len(), MESSAGES);
    assert_eq!(
        turn.messages[MESSAGES - 1],
        format!("step {}", MESSAGES - 1)
    );
    assert!(
        comparisons <= 2 * MESSAGES as u64,
        "{comparisons} key comparisons for {} lines",
        2 * MESSAGES
    );
}

#[test]
fn old_text_is_not_kept_after_a_walk_and_the_rest_is() {
    let chunk = "t".repeat(100 << 10);
    let mut lines = vec![json!({"type": "user", "message": {"content": "go"}})];
    for i in 0..60 {
        lines.push(json!({"type": "assistant", "uuid": format!("a{i}"), "message": {"content": [{"type": "text", "text": chunk}]}}));
        lines.push(bash(&i.to_string(), "ls"));
    }
    let f = file(&lines, "");
    let mut t = Transcript::open(f.path(), Options::default()).unwrap();
    let count =
        |events: &[String], prefix: &str| events.iter().filter(|e| e.starts_with(prefix)).count();
    let first = walk(&mut t);
    assert_eq!((count(&first, "said"), count(&first, "call")), (60, 60));
    let second = walk(&mut t);
    // The newest 4 MiB of text are kept, the calls all are.
    assert_eq!(count(&second, "call"), 60);
    assert_eq!(count(&second, "said"), KEPT_TEXT_BYTES / chunk.len());
    assert_eq!(second[..4], first[..4]);
}
