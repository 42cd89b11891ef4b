//! The loop breaker: one user prompt gets at most N blocks per judge and M in total; past that
//! the turn may end and the human is told which judge still objects. Concurrent hook processes
//! share the ledger without losing or double-counting blocks.

use std::process::Stdio;

use serde_json::json;

use crate::harness::{Home, answer_for_every_judge, claude_stop, command_llm_config};

const BOTH: &str = "I'll push to main now. The remaining endpoints I'll continue in a new session.";

#[test]
fn a_second_stop_on_the_same_prompt_is_released_and_the_human_told() {
    let home = Home::new();
    home.user_config(&command_llm_config(r#"{"new_proposal": true}"#));
    let stop = |prompt: &str, active: bool| {
        let input = claude_stop(
            "s1",
            std::path::Path::new(""),
            "I'll push to main now.",
            active,
        )
        .replace("\"p1\"", &format!("\"{prompt}\""));
        home.cmd(&["stop"]).stdin(input).output()
    };
    assert_eq!(stop("p1", false).json()["decision"], "block");
    let second = stop("p1", true);
    assert_eq!(second.code, 0);
    let message = second.json()["systemMessage"].as_str().unwrap().to_owned();
    assert!(
        message.contains("`commit` still objects") && message.contains("loop breaker"),
        "{message}"
    );
    let log = home.last_log();
    assert_eq!(
        (log["action"].as_str(), log["released"][0].as_str()),
        (Some("release"), Some("commit"))
    );
    assert_eq!(
        stop("p2", false).json()["decision"],
        "block",
        "a new prompt may be blocked again"
    );
}

#[test]
fn the_prompt_cap_counts_every_judge() {
    let home = Home::new();
    home.user_config(&json!({"stop": {"max_blocks_per_judge": 5, "max_blocks_per_prompt": 3},
        "llm": {"provider": "command", "command": ["sh", "-c", format!("cat >/dev/null; echo '{}'", answer_for_every_judge(r#"{"commit": {"new_proposal": true}, "scope-check": {"new_proposal": true}}"#))]}}).to_string());
    let mut blocks = 0;
    for _ in 0..4 {
        let out = home
            .cmd(&["stop"])
            .stdin(claude_stop("s", std::path::Path::new(""), BOTH, true))
            .output();
        if out.json().get("decision").is_some() {
            blocks += 1;
        }
    }
    let admitted: usize = home
        .log()
        .iter()
        .map(|r| {
            r["judges"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|j| j["decision"] == "block")
                .count()
        })
        .sum();
    assert_eq!(
        admitted, 3,
        "two judges block per stop, and the prompt allows three blocks in all"
    );
    assert_eq!(blocks, 2);
}

#[test]
fn concurrent_processes_never_exceed_the_caps() {
    let home = Home::new();
    home.user_config(&command_llm_config(
        r#"{"commit": {"new_proposal": true}, "scope-check": {"new_proposal": true}}"#,
    ));
    let input = claude_stop("shared", std::path::Path::new(""), BOTH, false);
    let children: Vec<_> = (0..12)
        .map(|_| {
            let mut run = home.cmd(&["stop"]);
            run.command
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null());
            let mut child: std::process::Child = run.command.spawn().unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            child
        })
        .collect();
    let outputs: Vec<String> = children
        .into_iter()
        .map(|c| String::from_utf8(c.wait_with_output().unwrap().stdout).unwrap())
        .collect();
    let blocking_outputs = outputs
        .iter()
        .filter(|o| o.contains("\"decision\""))
        .count();
    let records = home.log();
    assert_eq!(records.len(), 12, "every process logged one whole line");
    let admitted: usize = records
        .iter()
        .map(|r| {
            r["judges"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|j| j["decision"] == "block")
                .count()
        })
        .sum();
    assert_eq!(
        admitted, 2,
        "per judge 1, per prompt 2: exactly two blocks in all"
    );
    assert!((1..=2).contains(&blocking_outputs));
}
