//! `hookjudge eval` on the shipped labelled cases: Layer 1 must keep 100 % recall on block
//! cases, and its wake rate on benign cases must not regress past the recorded figures.

use crate::harness::Home;

/// Benign-case wake rates measured on `fixtures/judge-cases.jsonl`, in percent, with a little
/// headroom. Lower them when patterns improve; raising them needs a reason in the commit (the
/// last raise: broader triggers after held-out sets showed Layer 1 missing unseen phrasing).
const MAX_WAKE_PERCENT: [(&str, f64); 6] = [
    ("commit", 2.0),
    ("scope-check", 2.5),
    ("scope-change", 5.0),
    ("shallow-bugfix", 3.0),
    ("bugfix-without-reproduction", 1.5),
    ("all", 11.0),
];

#[test]
fn shipped_cases_keep_full_layer1_recall_and_low_wake_rates() {
    let home = Home::new();
    let cases = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/judge-cases.jsonl");
    let out = home.cmd(&["eval", cases, "--json"]).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = out.json();
    assert!(report["cases"].as_u64().unwrap() >= 300);
    let mut rows: Vec<&serde_json::Value> = report["judges"].as_array().unwrap().iter().collect();
    rows.push(&report["all"]);
    for row in rows {
        let judge = row["judge"].as_str().unwrap();
        assert!(
            row["block_cases"].as_u64().unwrap() >= 20,
            "{judge}: too few block cases"
        );
        assert_eq!(
            row["layer1_recall"].as_f64(),
            Some(1.0),
            "{judge}: Layer 1 missed block cases: {}",
            report["misses"]
        );
        let wake = row["layer1_wake_rate"].as_f64().unwrap() * 100.0;
        let max = MAX_WAKE_PERCENT
            .iter()
            .find(|(j, _)| *j == judge)
            .unwrap()
            .1;
        assert!(
            wake <= max,
            "{judge}: benign wake rate {wake:.1}% is above {max}%"
        );
    }
}

#[test]
fn eval_prints_a_table_and_rejects_bad_cases() {
    let home = Home::new();
    let cases = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/judge-cases.jsonl");
    let out = home.cmd(&["eval", cases]).output();
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("L1 recall") && out.stdout.contains("bugfix-without-reproduction"),
        "{}",
        out.stdout
    );

    let bad = home.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\":\"a\",\"text\":\"t\",\"judge\":\"none\",\"expect\":\"allow\"}\n{\"id\":\"b\",\"text\":\"t\"}\n").unwrap();
    let out = home.cmd(&["eval", bad.to_str().unwrap()]).output();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("line 2") && out.stderr.contains("hint:"),
        "{}",
        out.stderr
    );
}
