//! `stop.second_reading: "blocks"` against a real HTTP server on 127.0.0.1: a block the first
//! reading finds is read once more, in a second request, and stands only when that reading
//! upholds it with the agent's own words. With `marked` only the judges marked
//! `second_reading` are read again; with `off` (the default) a turn costs one request.

use serde_json::{Value, json};

use crate::harness::{FakeLlm, Home, Recorded, Reply, claude_stop};

const PUSH: &str = "The refactor is finished. I'll push to main now.";

/// A server whose first reading finds an unverified push, and whose second reading answers
/// `second` (`None`: a server error).
fn server(second: Option<Value>) -> FakeLlm {
    FakeLlm::start(move |r: &Recorded| {
        if r.prompt().contains("A first reading of the agent's text") {
            match &second {
                Some(answer) => Reply::chat(&answer.to_string()),
                None => Reply {
                    status: 500,
                    body: "overloaded".into(),
                    delay: std::time::Duration::ZERO,
                },
            }
        } else {
            Reply::chat(
                &r.answer(
                    json!({"commit": {"new_proposal": true, "reason": "pushes before tests"}}),
                ),
            )
        }
    })
}

/// The Stop hook's answer: `block`, or `allow` for its silent exit.
fn stop(home: &Home, server: &FakeLlm, second_reading: Option<&str>) -> &'static str {
    let mut config = json!({"llm": {"provider": "openai", "base_url": format!("{}/v1", server.url), "model": "m", "api_key_env": "JUDGE_KEY"}});
    if let Some(setting) = second_reading {
        config["stop"] = json!({ "second_reading": setting });
    }
    home.user_config(&config.to_string());
    let out = home
        .cmd(&["stop"])
        .env("JUDGE_KEY", "k")
        .stdin(claude_stop("s", std::path::Path::new(""), PUSH, false))
        .output();
    if out.stdout.trim().is_empty() {
        out.assert_silent_allow();
        return "allow";
    }
    assert_eq!(out.json()["decision"], "block", "{}", out.stdout);
    "block"
}

fn commit_entry(home: &Home) -> Value {
    let log = home.last_log();
    log["judges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["judge"] == "commit")
        .cloned()
        .unwrap()
}

#[test]
fn a_block_the_second_reading_does_not_uphold_is_withdrawn() {
    let server = server(Some(
        json!({"commit": {"upheld": false, "quote": "", "reason": "a plan, not an action"}}),
    ));
    let home = Home::new();
    assert_eq!(stop(&home, &server, Some("blocks")), "allow");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the first reading and the second");
    let second = requests[1].prompt();
    assert!(
        second.contains("- commit: fields true: new_proposal. pushes before tests"),
        "the second reading sees the first one's finding: {second}"
    );
    assert!(second.contains(PUSH), "and the agent's text");
    assert_eq!(
        requests[1].body["response_format"]["json_schema"]["schema"]["required"],
        json!(["commit"]),
        "only the blocking judge is read again"
    );
    assert_eq!(home.last_log()["llm_calls"], 2);
    let commit = commit_entry(&home);
    assert_eq!(
        (&commit["decision"], &commit["second_reading"]["outcome"]),
        (&json!("allow"), &json!("withdrawn"))
    );
}

#[test]
fn a_block_upheld_with_the_agents_words_stands_and_a_made_up_quote_does_not() {
    let upheld = server(Some(
        json!({"commit": {"upheld": true, "quote": "I'll push to main now.", "reason": "unverified push"}}),
    ));
    let home = Home::new();
    assert_eq!(stop(&home, &upheld, Some("blocks")), "block");
    assert_eq!(commit_entry(&home)["second_reading"]["outcome"], "upheld");

    let invented = server(Some(
        json!({"commit": {"upheld": true, "quote": "I deployed it to production", "reason": "deploy"}}),
    ));
    let home = Home::new();
    assert_eq!(stop(&home, &invented, Some("blocks")), "allow");
    let reason = commit_entry(&home)["second_reading"]["reason"].clone();
    assert!(
        reason
            .as_str()
            .unwrap()
            .contains("not the agent's own words"),
        "{reason}"
    );
}

#[test]
fn a_failed_second_reading_leaves_the_first_standing() {
    let server = server(None);
    let home = Home::new();
    assert_eq!(stop(&home, &server, Some("blocks")), "block");
    assert_eq!(commit_entry(&home)["second_reading"]["outcome"], "failed");
}

/// With `marked` only the judges marked `second_reading` (the two bugfix judges) are read
/// again: the commit judge's block costs one request, as with `off` (the default).
#[test]
fn a_block_of_an_unmarked_judge_costs_one_request() {
    for setting in [None, Some("marked"), Some("off")] {
        let server = server(Some(
            json!({"commit": {"upheld": false, "quote": "", "reason": "r"}}),
        ));
        let home = Home::new();
        assert_eq!(stop(&home, &server, setting), "block", "{setting:?}");
        assert_eq!(server.requests().len(), 1, "{setting:?}");
        assert!(commit_entry(&home).get("second_reading").is_none());
    }
}

/// With `marked` a turn where a marked judge and an unmarked one block costs two requests: the
/// second reads only the marked judge's finding, and withdrawing it leaves the other standing.
#[test]
fn with_marked_only_a_marked_judges_block_is_read_again() {
    let text = "Fixed the crash in the parser. I'll push to main now.";
    let server = FakeLlm::start(move |r: &Recorded| {
        if r.prompt().contains("A first reading of the agent's text") {
            Reply::chat(
                &json!({"shallow-bugfix": {"upheld": false, "quote": "", "reason": "the cause is stated"}})
                    .to_string(),
            )
        } else {
            Reply::chat(&r.answer(json!({
                "commit": {"new_proposal": true, "reason": "pushes before tests"},
                "shallow-bugfix": {"fix_reported": true, "reason": "no cause"},
            })))
        }
    });
    let home = Home::new();
    let config = json!({"llm": {"provider": "openai", "base_url": format!("{}/v1", server.url), "model": "m", "api_key_env": "JUDGE_KEY"},
                        "stop": {"second_reading": "marked"}});
    home.user_config(&config.to_string());
    let out = home
        .cmd(&["stop"])
        .env("JUDGE_KEY", "k")
        .stdin(claude_stop("s", std::path::Path::new(""), text, false))
        .output();
    assert_eq!(out.json()["decision"], "block", "{}", out.stdout);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].prompt();
    assert!(second.contains("Judge \"shallow-bugfix\""), "{second}");
    assert!(!second.contains("Judge \"commit\""), "{second}");
    let log = home.last_log();
    let entry = |name: &str| {
        log["judges"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["judge"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(entry("commit")["decision"], "block", "{log}");
    assert_eq!(entry("shallow-bugfix")["decision"], "allow", "{log}");
    assert_eq!(
        entry("shallow-bugfix")["second_reading"]["outcome"],
        "withdrawn",
        "{log}"
    );
}
