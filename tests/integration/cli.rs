//! The tuning commands as a user runs them: `judge`, `log`, `stats`, `replay`.

use serde_json::json;

use crate::harness::{Home, claude_stop, command_llm_config, lexicon};

#[test]
fn judge_exit_codes_and_json_shape() {
    let home = Home::new();
    // Only the judges Layer 1 wakes are asked, so that a quiet text stays allowed.
    home.user_config(&lexicon(&command_llm_config(
        r#"{"new_proposal": true, "reason": "proposes a push"}"#,
    )));
    let out = home
        .cmd(&["judge", "--json"])
        .stdin("The API docs are updated.")
        .output();
    assert_eq!(out.code, 0);
    let v = out.json();
    assert_eq!(v["decision"], "allow");
    assert_eq!(v["llm_calls"], 0, "no judge woke: no call");
    assert_eq!(v["judges"].as_array().unwrap().len(), 6);
    let keys: Vec<&String> = v["judges"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "judge", "layer1", "pattern", "verdict", "decision", "fields", "reason"
        ]
    );

    let out = home
        .cmd(&["judge", "--json", "--judge", "commit"])
        .stdin("Shall I push to main?")
        .output();
    assert_eq!(out.code, 1, "a block exits 1");
    let v = out.json();
    assert_eq!(v["llm_calls"], 1);
    assert_eq!(v["judges"][0]["verdict"], "violation");
    assert_eq!(v["judges"][0]["fields"]["new_proposal"], true);
    assert_eq!(v["judges"][0]["reason"], "proposes a push");

    let out = home
        .cmd(&["judge", "--no-llm"])
        .stdin("Shall I push to main?")
        .output();
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("trigger") && out.stdout.contains("unjudged"),
        "{}",
        out.stdout
    );

    let out = home
        .cmd(&["judge", "--judge", "nonesuch"])
        .stdin("x")
        .output();
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no judge `nonesuch`"), "{}", out.stderr);
}

fn fill_log(home: &Home) {
    // Blocks for every judge that triggers: the commit judge and the fix judges (the judges
    // Layer 1 wakes, one call per response that wakes any).
    home.user_config(&lexicon(&command_llm_config(
        r#"{"new_proposal": true, "fix_reported": true, "code_fix": true}"#,
    )));
    for (session, text) in [
        ("s1", "Here is the summary of the module."),
        ("s2", "Done. I'll push to main now."),
        ("s3", "I fixed it, works now."),
    ] {
        home.cmd(&["stop"])
            .stdin(claude_stop(session, std::path::Path::new(""), text, false))
            .output();
    }
}

#[test]
fn log_filters_and_formats() {
    let home = Home::new();
    fill_log(&home);
    let out = home.cmd(&["log"]).output();
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout.lines().count(),
        4,
        "header and three rows:\n{}",
        out.stdout
    );
    let blocks = home.cmd(&["log", "--blocks", "--json"]).output();
    let lines: Vec<serde_json::Value> = blocks
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l["action"] == "block"));
    let commit = home.cmd(&["log", "--judge", "commit", "--json"]).output();
    assert_eq!(commit.stdout.lines().count(), 1);
    let future = home.cmd(&["log", "--since", "2999-01-01"]).output();
    assert!(
        future.stdout.contains("no decisions logged"),
        "{}",
        future.stdout
    );
    let bad = home.cmd(&["log", "--since", "yesterday"]).output();
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("hint:"));
}

#[test]
fn stats_summarises_layer1_and_layer2() {
    let home = Home::new();
    fill_log(&home);
    let out = home.cmd(&["stats", "--json"]).output();
    let v = out.json();
    assert_eq!(
        (v["responses"].as_u64(), v["blocks"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(v["judges"]["commit"]["woken"], 1);
    assert_eq!(v["judges"]["commit"]["blocks"], 1);
    // Two responses woke judges (s3 woke both fix judges): one call each.
    assert_eq!(v["layer2"]["calls"], 2);
    let per_100 = v["layer2"]["calls_per_100_responses"].as_f64().unwrap();
    assert!((per_100 - 200.0 / 3.0).abs() < 0.1, "{}", v["layer2"]);
    // A command reports no usage: the prompt's bytes / 4.
    assert!(v["layer2"]["prompt_tokens_per_call"].as_f64().unwrap() > 100.0);
    assert_eq!(v["layer2"]["prompt_tokens_estimated"], true);
    assert!(v["layer2"]["latency_ms_p50"].is_u64());
    let text = home.cmd(&["stats"]).output();
    assert!(
        text.stdout
            .contains("Layer 2 (LLM): 2 calls (66.7 per 100 responses)")
            && text.stdout.contains("prompt tokens per call")
            && text.stdout.contains("wake%"),
        "{}",
        text.stdout
    );
}

#[test]
fn replay_shows_what_a_pattern_edit_changes() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    home.cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            std::path::Path::new(""),
            "Ready. Ship it!",
            false,
        ))
        .output();
    assert_eq!(home.last_log()["judges"][0]["layer1"], "quiet");
    home.user_config(&json!({"llm": {"provider": "none"}, "judges": {"commit": {"add_triggers": ["\\bship it\\b"]}}}).to_string());
    let out = home.cmd(&["replay", "--no-llm", "--json"]).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let change: serde_json::Value =
        serde_json::from_str(out.stdout.lines().next().expect("one change")).unwrap();
    assert_eq!(
        (change["judge"].as_str(), change["before"].as_str()),
        (Some("commit"), Some("quiet"))
    );
    assert_eq!(change["pattern"], "\\bship it\\b");
}

#[test]
fn a_user_rule_over_the_old_fields_still_blocks_and_doctor_says_what_to_rename() {
    let home = Home::new();
    let config = |answer: &str| {
        json!({
            "llm": {"provider": "command", "command": ["sh", "-c", format!("cat >/dev/null; printf '%s' '{answer}'")]},
            "judges": {"shallow-bugfix": {
                "add_triggers": ["\\bfixed\\b"],
                "block_when": {"all": ["new_proposal", {"not": "retraction_or_quote"}]}
            }}
        })
        .to_string()
    };
    let judge = |home: &Home| {
        home.cmd(&["judge", "--json", "--judge", "shallow-bugfix"])
            .stdin("Fixed it, works now.")
            .output()
    };
    home.user_config(&config(r#"{"fix_reported": true, "cause_named": false}"#));
    let out = judge(&home);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.json()["judges"][0]["verdict"], "violation");
    home.user_config(&config(r#"{"fix_reported": true, "cause_named": true}"#));
    assert_eq!(
        judge(&home).code,
        0,
        "a named cause allows, as the old field meant"
    );
    home.user_config(&config(
        r#"{"fix_reported": true, "setup_or_non_defect": true}"#,
    ));
    assert_eq!(
        judge(&home).code,
        0,
        "`retraction_or_quote` still exempts non-defects"
    );

    let doctor = home.cmd(&["doctor"]).output();
    let said = doctor.unwrapped();
    assert!(
        said.contains("names `new_proposal`")
            && said.contains("`fix_reported`")
            && said.contains("Rename it"),
        "{}",
        doctor.stdout
    );
}
