//! Issue 23: hookjudge cannot be switched off from inside the agent. Records a person makes
//! (trust, approvals) are sealed, so files copied into the state dir forge nothing.

use serde_json::json;

use crate::harness::Home;
use crate::self_protection::{
    Agent, approve_on_a_terminal, run_gate, setup, shell_input, state_dir,
};
use crate::trust::{clone_with, gate, trust_on_a_terminal};

/// `cp -r stage/. ~/.local/state/` with `stage/hookjudge/trust.json` naming the malicious
/// file's path and `git hash-object` id: the record has no seal made with the user's key.
#[test]
fn a_trust_record_copied_into_the_state_dir_trusts_nothing() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = clone_with(&home, "victim", r#"{"gate": {"push": "allow"}}"#);
    let file = repo.work.join(".hookjudge.json").canonicalize().unwrap();
    let hash = format!(
        "sha1:{}",
        crate::gate_repo::git(&repo.work, &["hash-object", ".hookjudge.json"]).trim()
    );
    let forged = |seal: &str| {
        let stage = home.path().join("stage/hookjudge");
        std::fs::create_dir_all(&stage).unwrap();
        let record = json!({"files": [{"path": file, "hash": hash,
            "trusted_at": "2026-01-01T00:00:00Z", "seal": seal}]});
        std::fs::write(stage.join("trust.json"), record.to_string()).unwrap();
        let copied = std::process::Command::new("cp")
            .args(["-r", "stage/.", "state/"])
            .current_dir(home.path())
            .status()
            .unwrap();
        assert!(copied.success());
    };
    forged("");
    assert_eq!(gate(&home, &repo.work, "git push"), "ask", "no seal");
    forged(&"ab".repeat(32));
    assert_eq!(gate(&home, &repo.work, "git push"), "ask", "a made-up seal");

    // A person trusts another repository's file: its good seal, copied onto this record,
    // still trusts nothing here (the seal covers the path and the content).
    let other = clone_with(&home, "other", r#"{"gate": {"push": "allow"}}"#);
    std::fs::remove_file(state_dir(&home).join("trust.json")).unwrap();
    assert_eq!(trust_on_a_terminal(&home, &other.work).code, 0);
    let store: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(state_dir(&home).join("trust.json")).unwrap(),
    )
    .unwrap();
    let good = store["files"][0]["seal"].as_str().unwrap().to_owned();
    assert_eq!(good.len(), 64, "{store}");
    assert_eq!(gate(&home, &other.work, "git push"), "silent");
    forged(&good);
    assert_eq!(
        gate(&home, &repo.work, "git push"),
        "ask",
        "a borrowed seal"
    );

    // What a person does at their terminal still works.
    assert_eq!(trust_on_a_terminal(&home, &repo.work).code, 0);
    assert_eq!(gate(&home, &repo.work, "git push"), "silent");
}

/// A Codex approval forged the way trust was: `approvals.json` with `approved_ms` set, copied
/// into the state dir by a process the gate never saw.
#[test]
fn an_approval_written_into_the_state_dir_approves_nothing() {
    let (home, repo) = setup();
    let push = "git push origin main";
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny"
    );
    let path = state_dir(&home).join("approvals.json");
    let mut store: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    store["requests"][0]["approved_ms"] = json!(now);
    std::fs::write(&path, store.to_string()).unwrap();
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny",
        "an approval without a seal"
    );

    // A person's approval is sealed and lets exactly that command through once.
    std::fs::remove_file(&path).unwrap();
    run_gate(&home, shell_input(Agent::Codex, &repo.work, push));
    let approved = approve_on_a_terminal(&home, "y");
    assert!(approved.stdout.contains("approved"), "{}", approved.stdout);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"seal\""), "{text}");
    // Moved to another time, the seal no longer fits.
    let mut store: serde_json::Value = serde_json::from_str(&text).unwrap();
    let at = store["requests"][0]["approved_ms"].as_i64().unwrap();
    store["requests"][0]["approved_ms"] = json!(at + 1);
    std::fs::write(&path, store.to_string()).unwrap();
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny"
    );
    store["requests"][0]["approved_ms"] = json!(at);
    std::fs::write(&path, store.to_string()).unwrap();
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "silent"
    );
}
