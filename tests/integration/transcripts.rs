//! Real transcript files: huge ones, torn ones, giant lines, compaction and tool results. The
//! Stop hook reads only the current turn, from the end, within its budget.

use std::io::{BufWriter, Write};

use crate::harness::{Home, assistant_line, claude_stop, tool_result_line, user_line};

#[test]
fn a_200_mb_transcript_reads_only_the_last_turn() {
    let home = Home::new();
    let path = home.path().join("big.jsonl");
    let mut f = BufWriter::new(std::fs::File::create(&path).unwrap());
    let filler = assistant_line("old", &"earlier turn text ".repeat(50));
    let mut written = 0usize;
    let mut i = 0;
    while written < 200 << 20 {
        let line = if i % 10 == 0 {
            user_line(&format!("prompt {i}"))
        } else {
            filler.clone()
        };
        writeln!(f, "{line}").unwrap();
        written += line.len() + 1;
        i += 1;
    }
    for line in [
        user_line("final prompt"),
        assistant_line("n1", "Checked the config."),
        tool_result_line("ok"),
        assistant_line("n2", "Updated two files."),
    ] {
        writeln!(f, "{line}").unwrap();
    }
    f.flush().unwrap();
    drop(f);
    assert!(std::fs::metadata(&path).unwrap().len() >= 200 << 20);

    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop("s", &path, "Updated two files.", false))
        .output();
    out.assert_allow_without_llm();
    let log = home.last_log();
    assert_eq!(log["text"], "Checked the config.\n\nUpdated two files.");
    assert_eq!(log["transcript"]["boundary"], "user_turn");
    assert!(
        log["transcript"]["scanned_bytes"].as_u64().unwrap() <= 128 * 1024,
        "{}",
        log["transcript"]
    );
}

#[test]
fn a_torn_last_line_is_skipped() {
    let home = Home::new();
    let path = home.path().join("torn.jsonl");
    let content = format!(
        "{}\n{}\n{}",
        user_line("go"),
        assistant_line("a1", "Done with step one."),
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"half wri"#
    );
    std::fs::write(&path, content).unwrap();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop("s", &path, "All finished.", false))
        .output();
    out.assert_allow_without_llm();
    let log = home.last_log();
    assert_eq!(log["text"], "Done with step one.\n\nAll finished.");
    assert_eq!(log["transcript"]["bad_lines"], 1);
}

#[test]
fn a_5_mb_line_is_streamed_not_collected() {
    let home = Home::new();
    let path = home.path().join("giant.jsonl");
    let giant = tool_result_line(&"x".repeat(5 << 20));
    let lines = [
        user_line("go"),
        assistant_line("a1", "Reading the dump."),
        giant,
        assistant_line("a2", "The dump has 3 sections."),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop("s", &path, "The dump has 3 sections.", false))
        .output();
    out.assert_allow_without_llm();
    let log = home.last_log();
    assert_eq!(log["text"], "Reading the dump.\n\nThe dump has 3 sections.");
    assert_eq!(log["transcript"]["giant_lines"], 1);
}

#[test]
fn compaction_and_tool_results_and_meta_lines() {
    let home = Home::new();
    let path = home.path().join("compact.jsonl");
    let lines = [
        user_line("old prompt"),
        assistant_line("o1", "Old turn: I'll push now."),
        r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","parentUuid":null}"#.to_string(),
        r#"{"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued from a previous conversation"}}"#.to_string(),
        assistant_line("n1", "Continuing the refactor."),
        tool_result_line("3 files changed"),
        r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"Stop hook feedback:\nrun the tests"}}"#.to_string(),
        r#"{"type":"progress","data":{"n":1}}"#.to_string(),
        r#"{"type":"assistant","isApiErrorMessage":true,"message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error"}]}}"#.to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop("s", &path, "Refactor finished.", false))
        .output();
    out.assert_allow_without_llm();
    let log = home.last_log();
    assert_eq!(
        log["text"],
        "Continuing the refactor.\n\nRefactor finished."
    );
    assert_eq!(log["transcript"]["boundary"], "compaction");
}

#[test]
fn text_is_cut_to_text_bytes_on_a_char_boundary() {
    let home = Home::new();
    home.user_config(r#"{"text_bytes": 10}"#);
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            std::path::Path::new(""),
            "日本語のテキストです",
            false,
        ))
        .output();
    out.assert_allow_without_llm();
    let text = home.last_log()["text"].as_str().unwrap().to_owned();
    assert!(
        text.len() <= 10 && "日本語のテキストです".ends_with(&text),
        "{text:?}"
    );
}

#[test]
fn garbage_transcripts_never_panic_and_the_last_message_still_counts() {
    // Random bytes, torn JSON, wrong types where strings belong, huge numbers, deep nesting.
    let pieces: [&[u8]; 12] = [
        b"{\"type\":\"user\",\"message\":{\"content\":5}}\n",
        b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":7}]}}\n",
        b"{\"type\":\"assistant\",\"message\":\"oops\"}\n",
        b"{\"type\":\"user\",\"message\":{\"content\":[1,2,{\"type\":null}]}}\n",
        b"\xff\xfe\x00garbage\n",
        b"[[[[[[[[[[[[[[[[[[[[\n",
        b"{\"type\":\"system\",\"subtype\":\"compact_boundary\"\n",
        b"\n\n\n",
        b"{\"type\":\"assistant\",\"uuid\":1e999,\"message\":{}}\n",
        b"null\n",
        b"{\"type\":\"user\",\"toolUseResult\":{},\"message\":{\"content\":\"x\"}}\n",
        b"{\"type\":\"assistant\",\"isSidechain\":\"yes\",\"message\":{\"content\":[]}}\n",
    ];
    let home = Home::new();
    let mut seed = 0x1234_5678_9abc_def0_u64;
    for round in 0..40 {
        let mut bytes = Vec::new();
        for _ in 0..200 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            bytes.extend_from_slice(pieces[(seed % pieces.len() as u64) as usize]);
        }
        let path = home.path().join(format!("garbage-{round}.jsonl"));
        std::fs::write(&path, &bytes).unwrap();
        let out = home
            .cmd(&["stop"])
            .stdin(claude_stop("g", &path, "The summary is above.", false))
            .output();
        out.assert_allow_without_llm();
        let text = home.last_log()["text"].as_str().unwrap().to_owned();
        assert!(text.ends_with("The summary is above."), "{text:?}");
    }
}

#[test]
fn log_text_false_keeps_the_text_out_of_the_log() {
    let home = Home::new();
    home.user_config(r#"{"log": {"text": false}}"#);
    home.cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            std::path::Path::new(""),
            "A private summary of the design.",
            false,
        ))
        .output()
        .assert_allow_without_llm();
    let log = home.last_log();
    assert!(log.get("text").is_none(), "{log}");
    assert_eq!(log["text_bytes"], 32);
}
