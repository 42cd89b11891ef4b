//! `log` and `stats` read by a person: a generated month of decisions in the shapes the hooks
//! write, laid out for an 80-column terminal, in local time or UTC, with fail-open causes and
//! one word per outcome; and the log's retention as the hooks apply it.

use serde_json::{Value, json};

use crate::harness::{Home, claude_stop};

/// A small deterministic generator, so that the month is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

const TEXTS: [&str; 6] = [
    "Done. I'll push to main now.",
    "Here is the summary of the module: the parser, the planner and the executor are now split into three crates, each with its own tests.",
    "I fixed it, works now.",
    "修正しました。テストは全部通っています。コミットしてもいいですか？",
    "Shall I commit and push these changes to the release branch?",
    "The API docs are updated.\n\nNext I would look at the cache invalidation path.",
];

const JUDGES: [&str; 6] = [
    "commit",
    "scope-check",
    "scope-change",
    "shallow-bugfix",
    "bugfix-without-reproduction",
    "team-specific-judge-with-a-very-long-name",
];

/// One Stop record as `hookjudge stop` writes it.
fn stop_record(rng: &mut Lcg, ts: &str, session: u64) -> Value {
    let text = TEXTS[rng.next(TEXTS.len() as u64) as usize];
    let mut action = "allow";
    let mut released = Vec::new();
    let mut judges: Vec<Value> = JUDGES
        .iter()
        .map(|&judge| {
            let roll = rng.next(100);
            let (layer1, verdict, decision, layer2) = match roll {
                0..=79 => ("quiet", Value::Null, "allow", None),
                80..=84 => ("bypass", json!("allow"), "allow", None),
                85..=91 => ("trigger", json!("allow"), "allow", Some(json!({"provider": "openai", "latency_ms": 400 + rng.next(2000)}))),
                92..=95 => ("trigger", json!("violation"), "block", Some(json!({"provider": "openai", "latency_ms": 700 + rng.next(3000)}))),
                96..=97 => ("trigger", json!("fail"), "allow", Some(json!({"provider": "openai", "latency_ms": 10000, "failure": "timeout"}))),
                _ => ("trigger", json!("fail"), "allow", Some(json!({"provider": "openai", "latency_ms": 80, "failure": "http"}))),
            };
            let reason = match (verdict.as_str(), layer2.as_ref().and_then(|l| l["failure"].as_str())) {
                (Some("fail"), Some("timeout")) => json!("the LLM did not answer before the deadline"),
                (Some("fail"), _) => json!("the LLM server answered HTTP 503: upstream overloaded"),
                _ => Value::Null,
            };
            let mut j = json!({"judge": judge, "layer1": layer1, "pattern": if layer1 == "quiet" { Value::Null } else { json!("\\bpush\\b") },
                "verdict": verdict, "decision": decision, "fields": Value::Null, "reason": reason});
            if let Some(l2) = layer2 {
                j["layer2"] = l2;
            }
            j
        })
        .collect();
    let blocking: Vec<String> = judges
        .iter()
        .filter(|j| j["decision"] == "block")
        .filter_map(|j| j["judge"].as_str().map(str::to_owned))
        .collect();
    if !blocking.is_empty() {
        if rng.next(5) == 0 {
            action = "release";
            released = blocking.clone();
            // The loop breaker's release turns the judges' decisions back into allow.
            for j in &mut judges {
                j["decision"] = json!("allow");
            }
        } else {
            action = "block";
        }
    } else if judges.iter().any(|j| j["verdict"] == "fail") {
        action = "fail-open";
    }
    let agent = ["claude", "codex", "gemini"][rng.next(3) as usize];
    json!({"ts": ts, "kind": "stop", "version": "0.1.0", "agent": agent,
        "event": "Stop", "session": format!("session-{session}"), "prompt": "p1", "cwd": "/home/dev/project",
        "stop_hook_active": false, "decision": if action == "block" { "block" } else { "allow" }, "action": action,
        "judges": judges, "released": released, "text_bytes": text.len(), "text": text,
        "timings_us": {"total": 1200, "transcript": 100, "layer1": 300, "layer2": 0}, "errors": []})
}

/// One gate record as `hookjudge gate` writes it.
fn gate_record(rng: &mut Lcg, ts: &str) -> Value {
    let (command, class, decision, by) = match rng.next(4) {
        0 => ("git push origin main", "push", "deny", "facts"),
        1 => (
            "git commit -m 'wip: refactor the planner and the executor into separate crates'",
            "commit",
            "silent",
            "evidence",
        ),
        2 => (
            "kubectl apply -f deploy/production.yaml",
            "deploy",
            "ask",
            "policy",
        ),
        _ => (
            "git push --force-with-lease origin feature/very-long-branch-name-for-the-table",
            "push",
            "silent",
            "facts",
        ),
    };
    json!({"ts": ts, "kind": "gate", "version": "0.1.0", "agent": "claude", "session": "s", "cwd": "/home/dev/project",
        "command": command, "action": decision,
        "rulings": [{"class": class, "decision": decision, "decided_by": by, "reason": "hookjudge: example"}]})
}

/// Writes November 2026 (30 days, about 25 decisions a day) into the home's log dir, as day
/// files named by UTC day like the hooks write them. Returns the number of records.
fn generate_month(home: &Home) -> usize {
    let dir = home.log_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Lcg(7);
    let mut total = 0;
    for day in 1..=30 {
        let mut lines = String::new();
        let n = 15 + rng.next(20);
        let mut minutes: Vec<u64> = (0..n).map(|_| rng.next(24 * 60)).collect();
        minutes.sort_unstable();
        for (i, m) in minutes.into_iter().enumerate() {
            let ts = format!(
                "2026-11-{day:02}T{:02}:{:02}:{:02}.000Z",
                m / 60,
                m % 60,
                i % 60
            );
            let record = if rng.next(5) == 0 {
                gate_record(&mut rng, &ts)
            } else {
                stop_record(&mut rng, &ts, day)
            };
            lines.push_str(&record.to_string());
            lines.push('\n');
            total += 1;
        }
        std::fs::write(dir.join(format!("decisions-2026-11-{day:02}.jsonl")), lines).unwrap();
    }
    total
}

#[track_caller]
fn assert_fits(output: &str, width: usize) {
    for line in output.lines() {
        assert!(
            hookjudge::support::term::display_width(line) <= width,
            "line is {} columns wide, more than {width}:\n{line}\n\nwhole output:\n{output}",
            hookjudge::support::term::display_width(line)
        );
    }
}

#[test]
fn log_and_stats_on_a_month_fit_80_columns() {
    let home = Home::new();
    let total = generate_month(&home);
    assert!(total > 500, "{total}");
    let log = home
        .cmd(&["log", "-n", "100000", "--utc"])
        .env("COLUMNS", "80")
        .output();
    assert_eq!(log.code, 0, "{}", log.stderr);
    assert_fits(&log.stdout, 80);
    eprintln!(
        "DEMO\n{}",
        log.stdout.lines().take(25).collect::<Vec<_>>().join("\n")
    );
    let rows = log
        .stdout
        .lines()
        .filter(|l| l.starts_with("2026-11-"))
        .count();
    assert_eq!(rows, total, "one row per decision");
    assert!(log.stdout.contains('…'), "long cells end in an ellipsis");
    // The outcome column uses the one vocabulary: the gate's logged `silent` reads `allow`.
    assert!(!log.stdout.contains("silent"), "{}", log.stdout);
    // Every column starts at the same place on every row: the text after the judges column
    // never shifts (that is what a long "judges woken" cell used to do).
    let header = log.stdout.lines().next().unwrap();
    let text_column = header.find("text").unwrap();
    for row in log.stdout.lines().filter(|l| l.starts_with("2026-11-")) {
        let before: String = row.chars().take(text_column).collect();
        assert_eq!(
            hookjudge::support::term::display_width(&before),
            text_column,
            "{row}"
        );
        assert!(
            row.chars().nth(text_column - 1) == Some(' '),
            "a cell runs into the text column:\n{row}"
        );
    }

    let stats = home.cmd(&["stats", "--utc"]).env("COLUMNS", "80").output();
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    assert_fits(&stats.stdout, 80);
    eprintln!(
        "DEMO\n{}",
        stats.stdout.lines().take(40).collect::<Vec<_>>().join("\n")
    );
    assert!(!stats.stdout.contains("silent") && !stats.stdout.contains("passed"));
    // The trend has one row per day of the month.
    let days = stats
        .stdout
        .lines()
        .filter(|l| l.starts_with("2026-11-"))
        .count();
    assert_eq!(days, 30, "{}", stats.stdout);
    // Long judge names are still readable in full when they fit.
    assert!(stats.stdout.contains("bugfix-without-reproduction "));

    // A wider terminal gives the text more room; a narrow one still does not overflow.
    let wide = home
        .cmd(&["log", "-n", "50", "--utc"])
        .env("COLUMNS", "160")
        .output();
    assert_fits(&wide.stdout, 160);
    assert!(
        wide.stdout
            .lines()
            .any(|l| hookjudge::support::term::display_width(l) > 100)
    );
    let narrow = home
        .cmd(&["log", "-n", "50", "--utc"])
        .env("COLUMNS", "60")
        .output();
    assert_fits(&narrow.stdout, 60);
}

#[test]
fn stats_counts_say_what_they_count() {
    let home = Home::new();
    generate_month(&home);
    let v = home.cmd(&["stats", "--json", "--utc"]).output().json();
    let records: Vec<Value> = home.log();
    let stops: Vec<&Value> = records.iter().filter(|r| r["kind"] == "stop").collect();
    let fail_opens = stops.iter().filter(|r| r["action"] == "fail-open").count();
    assert!(fail_opens > 5, "the month has fail-opens: {fail_opens}");
    assert_eq!(v["fail_opens"], fail_opens);
    // Causes add up to the fail-opens, one per response.
    let causes = v["fail_open_causes"].as_object().unwrap();
    assert_eq!(
        causes.values().map(|n| n.as_u64().unwrap()).sum::<u64>(),
        fail_opens as u64
    );
    assert!(causes.contains_key("deadline") && causes.contains_key("provider error"));
    // The per-day trend adds up to the totals.
    let days = v["days"].as_array().unwrap();
    assert_eq!(days.len(), 30);
    let sum = |key: &str| days.iter().map(|d| d[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("responses"), stops.len() as u64);
    assert_eq!(sum("blocks"), v["blocks"].as_u64().unwrap());
    assert_eq!(sum("fail_opens"), fail_opens as u64);
    assert_eq!(sum("gated"), v["gate"]["commands"].as_u64().unwrap());
    assert_eq!(
        sum("gate_allow") + sum("gate_deny") + sum("gate_ask"),
        v["gate"]["commands"].as_u64().unwrap()
    );
    let woken_responses = stops
        .iter()
        .filter(|r| {
            r["judges"]
                .as_array()
                .unwrap()
                .iter()
                .any(|j| j["layer1"] == "trigger")
        })
        .count();
    assert_eq!(sum("woken"), woken_responses as u64);

    // The text names the causes beside the fail-open count.
    let text = home
        .cmd(&["stats", "--utc"])
        .env("COLUMNS", "80")
        .output()
        .stdout;
    let at = text.find("  fail-open").expect("a fail-open line");
    let entry: String = text[at..]
        .lines()
        .take_while(|l| !l.is_empty())
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        entry.contains(&format!(" {fail_opens} ")) && entry.contains("deadline"),
        "{text}"
    );
    assert!(text.contains("per judge run") && text.contains("per response"));
}

#[test]
fn times_are_local_unless_utc_and_since_means_local_midnight() {
    let home = Home::new();
    let dir = home.log_dir();
    std::fs::create_dir_all(&dir).unwrap();
    // 04:30 UTC on 1 December is still 30 November in New York (UTC-5).
    let records = [
        ("2026-11-30T12:00:00.000Z", "noon in UTC on the 30th"),
        ("2026-12-01T04:30:00.000Z", "late evening in New York"),
        ("2026-12-01T06:00:00.000Z", "one in the morning in New York"),
    ];
    for (ts, text) in records {
        let day = &ts[..10];
        let r = json!({"ts": ts, "kind": "stop", "agent": "claude", "action": "allow", "judges": [], "text": text});
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("decisions-{day}.jsonl")))
            .unwrap()
            .write_all(format!("{r}\n").as_bytes())
            .unwrap();
    }
    let log = |args: &[&str]| {
        let out = home
            .cmd(args)
            .env("TZ", "America/New_York")
            .env("COLUMNS", "100")
            .output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let local = log(&["log"]);
    assert!(local.contains("2026-11-30 23:30"), "{local}");
    assert!(local.contains("2026-12-01 01:00"), "{local}");
    assert!(local.lines().next().unwrap().contains("time (E"), "{local}");
    let utc = log(&["log", "--utc"]);
    assert!(utc.contains("2026-12-01 04:30"), "{utc}");
    assert!(utc.lines().next().unwrap().contains("time (UTC)"), "{utc}");

    // `--since 2026-12-01`: midnight in New York (05:00 UTC) keeps only the last record.
    let since_local = log(&["log", "--since", "2026-12-01"]);
    assert!(
        since_local.contains("one in the morning") && !since_local.contains("late evening"),
        "{since_local}"
    );
    // With `--utc` it is midnight UTC, which keeps both December records.
    let since_utc = log(&["log", "--since", "2026-12-01", "--utc"]);
    assert!(
        since_utc.contains("late evening") && since_utc.contains("one in the morning"),
        "{since_utc}"
    );
    assert!(!since_utc.contains("noon in UTC"), "{since_utc}");

    // The trend counts days as the reader lives them.
    let days = |args: &[&str]| -> Vec<(String, u64)> {
        let out = home.cmd(args).env("TZ", "America/New_York").output();
        out.json()["days"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["day"].as_str().unwrap().to_owned(),
                    d["responses"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        days(&["stats", "--json"]),
        [("2026-11-30".into(), 2), ("2026-12-01".into(), 1)]
    );
    assert_eq!(
        days(&["stats", "--json", "--utc"]),
        [("2026-11-30".into(), 1), ("2026-12-01".into(), 2)]
    );
}

#[test]
fn a_fail_open_row_shows_its_cause() {
    let home = Home::new();
    // A real Stop hook whose LLM answers garbage: it fails open and logs why.
    home.user_config(
        &json!({"llm": {"provider": "command", "command": ["sh", "-c", "cat >/dev/null; echo not json"]}})
            .to_string(),
    );
    home.cmd(&["stop"])
        .stdin(claude_stop(
            "s1",
            std::path::Path::new(""),
            "Done. I'll push to main now.",
            false,
        ))
        .output();
    assert_eq!(home.last_log()["action"], "fail-open");
    assert_eq!(home.last_log()["cause"], "llm");
    let out = home.cmd(&["log"]).env("COLUMNS", "80").output();
    assert_fits(&out.stdout, 80);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[1].contains("fail-open"), "{}", out.stdout);
    assert!(
        lines[2]
            .trim_start()
            .starts_with("because (unusable answer) commit:"),
        "{}",
        out.stdout
    );
}

#[test]
fn retention_prunes_old_day_files_when_a_hook_starts_a_new_day() {
    let home = Home::new();
    home.user_config(r#"{"log": {"retention_days": 10}, "llm": {"provider": "none"}}"#);
    let dir = home.log_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let today = hookjudge::support::time::Timestamp::now();
    let day = |back: i64| {
        hookjudge::support::time::Timestamp {
            millis: today.millis - back * 86_400_000,
        }
        .day()
    };
    for back in [40, 11, 10, 3] {
        std::fs::write(dir.join(format!("decisions-{}.jsonl", day(back))), "{}\n").unwrap();
    }
    std::fs::write(dir.join("my-notes.txt"), "mine").unwrap();
    home.cmd(&["stop"])
        .stdin(claude_stop(
            "s",
            std::path::Path::new(""),
            "Summary.",
            false,
        ))
        .output();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut expected = vec![
        format!("decisions-{}.jsonl", day(10)),
        format!("decisions-{}.jsonl", day(3)),
        format!("decisions-{}.jsonl", day(0)),
        "my-notes.txt".to_string(),
    ];
    expected.sort();
    assert_eq!(names, expected);
    let shown = home.cmd(&["config", "show", "--json"]).output().json();
    assert_eq!(
        shown.pointer("/effective/log/retention_days"),
        Some(&json!(10)),
        "{shown}"
    );
}

#[test]
fn stats_tell_the_llms_time_from_the_whole_layer_2_step_and_no_llm_from_a_failed_judge() {
    let home = Home::new();
    let dir = home.log_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let stop = |ts: &str, latency: Option<u64>, layer2_us: u64| {
        let mut judge = json!({"judge": "commit", "layer1": "trigger", "pattern": "push",
            "verdict": "allow", "decision": "allow", "fields": {"new_proposal": false}, "reason": null});
        if let Some(ms) = latency {
            judge["layer2"] = json!({"provider": "command", "cache": "miss", "latency_ms": ms});
        }
        json!({"ts": ts, "kind": "stop", "version": "0.1.0", "agent": "claude", "event": "Stop",
            "session": "s", "prompt": "p", "cwd": "/p", "stop_hook_active": false, "decision": "allow",
            "action": "allow", "judges": [judge], "released": [], "llm_calls": u32::from(latency.is_some()),
            "text_bytes": 4, "text": "Done",
            "timings_us": {"total": layer2_us + 500, "transcript": 100, "layer1": 300, "layer2": layer2_us},
            "errors": []})
    };
    let gate = |ts: &str, by: &str| {
        json!({"ts": ts, "kind": "gate", "version": "0.1.0", "agent": "claude", "session": "s", "cwd": "/p",
            "command": "git push", "action": "ask",
            "rulings": [{"class": "push", "decision": "ask", "decided_by": by, "reason": "hookjudge: r"}]})
    };
    // One call of 40 ms in a Layer 2 step of a second (the rest waited for the session file),
    // one response with no call; a push asked for want of an LLM, and one from an older line
    // whose judge failed.
    let lines = [
        stop("2026-11-03T09:00:00.000Z", Some(40), 1_000_000),
        stop("2026-11-03T09:01:00.000Z", None, 0),
        gate("2026-11-03T09:02:00.000Z", "no-llm"),
        gate("2026-11-03T09:03:00.000Z", "judge-failed"),
    ];
    std::fs::write(
        dir.join("decisions-2026-11-03.jsonl"),
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let v = home.cmd(&["stats", "--json", "--utc"]).output().json();
    let l2 = &v["layer2"];
    assert_eq!(l2["latency_ms_p50"], 40, "{l2}");
    assert_eq!(l2["mean_llm_ms_per_response"], 20.0, "{l2}");
    assert_eq!(l2["mean_added_ms_per_response"], 500.0, "{l2}");
    assert_eq!(
        v["gate"]["decided_by"],
        json!({"no-llm": 1, "judge-failed": 1})
    );

    let text = home
        .cmd(&["stats", "--utc"])
        .env("COLUMNS", "100")
        .output()
        .stdout;
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "latency per call (the provider's answer): p50 40 ms",
        "20.0 ms in LLM calls",
        "500.0 ms for Layer 2 in all (the calls, the wait for the session file's last lines",
        "1 no-llm",
        "1 judge-failed",
        "no-llm: no LLM provider is configured",
        "judge-failed: the gate's judge could not answer",
    ] {
        assert!(flat.contains(said), "`{said}` missing:\n{text}");
    }
}
