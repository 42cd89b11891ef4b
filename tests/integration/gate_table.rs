//! The gate on a table of command lines (`fixtures/gate-commands.jsonl`, made by
//! `scripts/gen-gate-commands.py`): every construct agents wrap commands in, and data that only
//! mentions a gated action. Run outside any repository, so facts cannot settle anything.

use serde_json::{Value, json};

use crate::harness::Home;

fn pre_tool_use(session: &str, cwd: &std::path::Path, command: &str) -> String {
    json!({"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse", "permission_mode": "default",
           "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t"})
    .to_string()
}

fn decision_of(stdout: &str) -> String {
    if stdout.trim().is_empty() {
        return "silent".into();
    }
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("?")
        .to_owned()
}

#[test]
fn every_command_in_the_table_gets_its_classes_and_decision() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let table: Vec<Value> = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/gate-commands.jsonl"
    ))
    .unwrap()
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert!(table.len() >= 400, "{} commands", table.len());
    let cwd = home.work();
    let results: Vec<(usize, String)> = std::thread::scope(|s| {
        let chunks: Vec<Vec<(usize, &Value)>> = (0..4)
            .map(|k| {
                table
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % 4 == k)
                    .collect()
            })
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (home, cwd) = (&home, &cwd);
                s.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|(i, case)| {
                            let out = home
                                .cmd(&["gate"])
                                .stdin(pre_tool_use(
                                    &format!("case-{i}"),
                                    cwd,
                                    case["command"].as_str().unwrap(),
                                ))
                                .output();
                            assert_eq!(out.code, 0, "{}: {}", case["command"], out.stderr);
                            (i, decision_of(&out.stdout))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let log = home.log();
    let mut failures = Vec::new();
    for (i, decision) in results {
        let case = &table[i];
        let command = case["command"].as_str().unwrap();
        if decision != case["decision"].as_str().unwrap() {
            failures.push(format!(
                "{command:?}: decision {decision}, expected {}",
                case["decision"]
            ));
        }
        if let Some(expected) = case["classes"].as_array() {
            let record = log
                .iter()
                .find(|r| r["session"] == format!("case-{i}").as_str());
            let mut classes: Vec<String> = record
                .map(|r| {
                    r["rulings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x["class"].as_str().unwrap().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            classes.sort();
            classes.dedup();
            let expected: Vec<String> = expected
                .iter()
                .map(|c| c.as_str().unwrap().to_owned())
                .collect();
            if classes != expected {
                failures.push(format!(
                    "{command:?}: classes {classes:?}, expected {expected:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
}
