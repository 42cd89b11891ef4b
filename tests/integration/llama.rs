//! hookjudge against a real local LLM: llama-cpp-python's OpenAI-compatible server running
//! SmolLM2-135M-Instruct. Such a small model is no judge (its verdicts are near-constant), so
//! this checks mechanics with a real model, never verdict quality: answers parse into exactly
//! each judge's fields; the server's response-format behaviour is handled and remembered; a
//! deadline shorter than the answer fails open in time; every judge of a turn gets a real
//! verdict from one combined call (the schema requires every judge's part, and the server's
//! grammar holds the model to it); the log records provider, model and latency.
//!
//! The tests are ignored by a plain `cargo test`, so its count is honest: they need
//! `HOOKJUDGE_LLAMA_PYTHON` and `HOOKJUDGE_LLAMA_MODEL` (`tests/llama/setup.sh` prints them) and
//! run with `cargo test --test integration llama -- --ignored`, as `.ci/run` does after the
//! setup succeeds. Run so without them, they fail and say what to set.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Home, claude_stop};

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server() -> Server {
    let (Some(python), Some(model)) = (
        std::env::var_os("HOOKJUDGE_LLAMA_PYTHON"),
        std::env::var_os("HOOKJUDGE_LLAMA_MODEL"),
    ) else {
        panic!(
            "set HOOKJUDGE_LLAMA_PYTHON and HOOKJUDGE_LLAMA_MODEL (tests/llama/setup.sh prints them)"
        );
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(python)
        .args(["-m", "llama_cpp.server", "--model"])
        .arg(model)
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            // A combined prompt carries every judge's task: about 4 000 tokens.
            "--n_ctx",
            "8192",
            "--n_threads",
            "2",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the llama server starts");
    let server = Server {
        child,
        url: format!("http://127.0.0.1:{port}/v1"),
    };
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return server;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the llama server did not listen within 60 s");
}

fn config(home: &Home, url: &str, timeout_ms: u64) {
    home.user_config(&json!({"llm": {"provider": "openai", "base_url": url, "model": "smollm2", "timeout_ms": timeout_ms, "cache_seconds": 0}}).to_string());
}

const TRIGGERS: [(&str, &str); 5] = [
    (
        "commit",
        "The refactor is done. I'll commit and push to main now.",
    ),
    (
        "scope-check",
        "I'll continue with the remaining endpoints in a new session.",
    ),
    (
        "scope-change",
        "I'll defer the export part to a follow-up PR.",
    ),
    ("shallow-bugfix", "Fixed! The crash no longer happens."),
    (
        "bugfix-without-reproduction",
        "The crash is probably caused by the cache, so I added a lock.",
    ),
];

#[test]
#[ignore = "needs llama.cpp's server and a model: run tests/llama/setup.sh, then with --ignored"]
fn llama_answers_parse_into_each_judges_fields_and_the_format_is_remembered() {
    let server = server();
    let home = Home::new();
    config(&home, &server.url, 60_000);
    for (judge, text) in TRIGGERS {
        let out = home
            .cmd(&["judge", "--json", "--judge", judge])
            .stdin(text)
            .output();
        assert!(out.code == 0 || out.code == 1, "{judge}: {}", out.stderr);
        let v = out.json();
        let outcome = &v["judges"][0];
        assert_eq!(
            outcome["layer1"], "trigger",
            "{judge}: the text must reach Layer 2"
        );
        assert_ne!(outcome["verdict"], "fail", "{judge}: {outcome}");
        let mut got: Vec<&str> = outcome["fields"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        got.sort();
        let mut expected: Vec<&str> = match judge {
            "commit" => vec![
                "new_proposal",
                "acted_unasked",
                "verification_reported",
                "direction_query",
                "future_step_description",
                "user_requested",
            ],
            "scope-check" => vec!["new_proposal", "retraction_or_quote"],
            "scope-change" => vec![
                "scope_cut",
                "handed_back",
                "failures_left",
                "owns_remaining_failures",
                "optional_or_quoted",
                "user_decided",
                "only_user_can",
                "arguable",
            ],
            "shallow-bugfix" => vec![
                "fix_reported",
                "cause_named",
                "recap_of_earlier_work",
                "setup_or_non_defect",
                "quoted_or_hypothetical",
                "arguable",
            ],
            _ => vec![
                "code_fix",
                "failure_observed",
                "diagnosed",
                "recap_of_earlier_work",
                "setup_or_non_defect",
                "quoted_or_hypothetical",
                "arguable",
            ],
        };
        expected.sort();
        assert_eq!(got, expected, "{judge}: exactly the judge's fields");
    }
    // The schema form the server rejects was tried once; the working one is remembered.
    let memory: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join("state/hookjudge/response-formats.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        memory.as_object().unwrap().values().next().unwrap(),
        "json_object",
        "{memory}"
    );
}

#[test]
#[ignore = "needs llama.cpp's server and a model: run tests/llama/setup.sh, then with --ignored"]
fn a_short_deadline_fails_open_in_time_and_does_not_hold_up_the_next_call() {
    let server = server();
    let home = Home::new();
    config(&home, &server.url, 60_000);
    // Warm up (and learn the response format) first.
    home.cmd(&["judge", "--json", "--judge", "commit"])
        .stdin(TRIGGERS[0].1)
        .output();
    config(&home, &server.url, 150);
    let started = Instant::now();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "short",
            std::path::Path::new(""),
            TRIGGERS[0].1,
            false,
        ))
        .output();
    let elapsed = started.elapsed();
    assert_eq!(out.code, 0);
    assert!(out.json().get("decision").is_none(), "fails open");
    let log = home.last_log();
    assert_eq!(log["judges"][0]["layer2"]["failure"], "timeout", "{log}");
    assert!(
        elapsed < Duration::from_secs(5),
        "the hook returned after {elapsed:?} with a 150 ms deadline"
    );
    // The abandoned generation still occupies the one-request server; the next call waits for
    // it but must finish (or fail) within its own deadline.
    // A combined answer (every judge's part) takes the small model a while on two threads.
    config(&home, &server.url, 90_000);
    let started = Instant::now();
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop(
            "next",
            std::path::Path::new(""),
            "Done. Shall I push it to main?",
            false,
        ))
        .output();
    assert_eq!(out.code, 0);
    assert!(
        started.elapsed() < Duration::from_secs(95),
        "the next call took {:?}",
        started.elapsed()
    );
    assert_ne!(
        home.last_log()["judges"][0]["verdict"],
        "fail",
        "{}",
        home.last_log()
    );
}

#[test]
#[ignore = "needs llama.cpp's server and a model: run tests/llama/setup.sh, then with --ignored"]
fn every_judge_gets_a_real_verdict_from_one_combined_call() {
    let server = server();
    let home = Home::new();
    config(&home, &server.url, 120_000);
    // Two turns, each judged by every judge in one call: no judge's part may be missing.
    for (session, text) in [
        (
            "two",
            "The first endpoint is done. I'll push to main now, and I'll continue with the rest in a new session.",
        ),
        (
            "fix",
            "Fixed the crash in the parser: it works now. The remaining tests I'll leave for later.",
        ),
    ] {
        let out = home
            .cmd(&["stop"])
            .stdin(claude_stop(session, std::path::Path::new(""), text, false))
            .output();
        assert_eq!(out.code, 0);
        let log = home.last_log();
        assert_eq!(log["llm_calls"], 1, "{log}");
        // Every judge but the claim judge, which is asked only with a session file to check
        // a claim against (none here).
        let judges: Vec<&serde_json::Value> = log["judges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["judge"] != "unverified-claim")
            .collect();
        assert_eq!(judges.len(), 5, "{log}");
        for j in judges {
            assert!(
                j["verdict"] == "violation" || j["verdict"] == "allow",
                "{session}: a real verdict for every judge: {j}"
            );
            assert_eq!(j["layer2"]["provider"], "openai");
            assert_eq!(j["layer2"]["model"], "smollm2");
            assert_eq!(j["layer2"]["shared_by"], 5);
            assert!(j["layer2"]["latency_ms"].as_u64().unwrap() > 0);
        }
    }
    // `doctor` wraps its lines for a person: read them joined.
    let doctor = home.cmd(&["doctor", "--online"]).output();
    let text = doctor.unwrapped();
    assert!(
        text.contains("llm call") && text.contains("response format `json_object` works"),
        "{}",
        doctor.stdout
    );
}
