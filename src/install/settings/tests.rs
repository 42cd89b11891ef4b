use super::*;
use serde_json::{Value, json};

fn fill() -> Fill {
    Fill {
        binary: PathBuf::from("/opt/bin/hookjudge"),
        stop_timeout_ms: 10_000,
        gate_timeout_ms: 8000,
        portable: false,
        required: false,
    }
}

fn events_of(hooks: &Value) -> Vec<String> {
    hooks.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn templates_fill_per_agent() {
    let claude = entries(Agent::Claude, &fill());
    let stop = &claude["Stop"][0]["hooks"][0];
    assert_eq!(stop["command"], "/opt/bin/hookjudge");
    assert_eq!(
        stop["args"],
        json!(["stop", "--agent", "claude", "--hook-timeout", "15"])
    );
    assert_eq!(stop["timeout"], 15);
    assert_eq!(
        claude["PreToolUse"][0]["matcher"],
        "Bash|Write|Edit|MultiEdit"
    );
    let gemini = entries(Agent::Gemini, &fill());
    assert_eq!(
        gemini["AfterAgent"][0]["hooks"][0]["timeout"], 15000,
        "Gemini counts milliseconds"
    );
    let codex = entries(
        Agent::Codex,
        &Fill {
            binary: PathBuf::from("/a b/hookjudge"),
            ..fill()
        },
    );
    assert_eq!(
        codex["Stop"][0]["hooks"][0]["command"],
        "'/a b/hookjudge' stop --agent codex --hook-timeout 15"
    );
    assert!(is_ours(&codex["Stop"][0]["hooks"][0]));
}

#[test]
fn portable_entries_name_hookjudge_by_name() {
    for agent in Agent::INSTALLABLE {
        let hooks = entries(
            agent,
            &Fill {
                portable: true,
                ..fill()
            },
        );
        let text = hooks.to_string();
        assert!(!text.contains("/opt/bin"), "{text}");
        for event in events_of(&hooks) {
            let handler = template::first_handler(&hooks[&event][0]);
            assert!(is_ours(handler), "{handler}");
            assert!(handler.get("args").is_none());
            let command = template::COMMAND_KEYS
                .into_iter()
                .find_map(|k| handler[k].as_str())
                .unwrap();
            assert!(
                command.starts_with("command -v hookjudge >/dev/null 2>&1 && exec hookjudge "),
                "{command}"
            );
        }
    }
}

#[test]
fn only_our_binary_with_our_subcommand_is_ours() {
    for (handler, ours) in [
        (json!({"command": "/x/hookjudge", "args": ["stop"]}), true),
        (json!({"command": "hookjudge gate --agent codex"}), true),
        (json!({"command": "~/bin/hookjudge-notify stop"}), false),
        (
            json!({"command": "/x/hookjudge-notify", "args": ["stop"]}),
            false,
        ),
        (json!({"command": "/x/hookjudge", "args": ["log"]}), false),
        (
            json!({"command": "/usr/bin/other-tool", "args": ["stop"]}),
            false,
        ),
        (json!({"command": "notify-send hookjudge stop"}), false),
    ] {
        assert_eq!(is_ours(&handler), ours, "{handler}");
    }
}

#[test]
fn merge_is_idempotent_and_remove_restores() {
    let original = "{\n    \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n    \"hooks\": {\n        \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"my-notify\" } ] } ]\n    }\n}\n";
    let hooks = entries(Agent::Claude, &fill());
    let once = merge(original, &hooks).unwrap();
    assert_eq!(
        merge(&once.text, &hooks).unwrap().text,
        once.text,
        "a second merge changes nothing"
    );
    let v: Value = serde_json::from_str(&once.text).unwrap();
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"], "my-notify",
        "the user's hook stays first"
    );
    assert!(is_ours(&v["hooks"]["Stop"][1]["hooks"][0]));
    let upgraded = merge(
        &once.text,
        &entries(
            Agent::Claude,
            &Fill {
                binary: PathBuf::from("/new/hookjudge"),
                ..fill()
            },
        ),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&upgraded.text).unwrap();
    assert_eq!(
        v["hooks"]["Stop"].as_array().unwrap().len(),
        2,
        "replaced in place"
    );
    assert_eq!(
        v["hooks"]["Stop"][1]["hooks"][0]["command"],
        "/new/hookjudge"
    );
    assert_eq!(
        remove(&upgraded.text, &events_of(&hooks), &once.created_members),
        original
    );
}

#[test]
fn user_changes_to_our_entry_are_kept() {
    let hooks = entries(Agent::Claude, &fill());
    let once = merge("{\n  \"a\": 1\n}\n", &hooks).unwrap().text;
    let edited = once
        .replace(
            "\"matcher\": \"Bash|Write|Edit|MultiEdit\"",
            "\"matcher\": \"Bash|Shell\"",
        )
        .replacen("\"timeout\": 15", "\"timeout\": 90", 1);
    assert_ne!(edited, once);
    let again = merge(&edited, &hooks).unwrap();
    let v: Value = serde_json::from_str(&again.text).unwrap();
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "Bash|Shell");
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 90);
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["args"],
        json!(["stop", "--agent", "claude", "--hook-timeout", "90"]),
        "the hook's deadline follows the larger timeout"
    );
    assert_eq!(merge(&again.text, &hooks).unwrap().text, again.text);
    let lowered = once.replacen("\"timeout\": 15", "\"timeout\": 2", 1);
    let again = merge(&lowered, &hooks).unwrap();
    assert_eq!(again.text, once, "a timeout below the deadline is raised");
    assert!(again.notes[0].contains("from 2 to 15"), "{:?}", again.notes);
}

#[test]
fn pre_existing_empty_containers_stay() {
    let original = "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n";
    let hooks = entries(Agent::Claude, &fill());
    let merged = merge(original, &hooks).unwrap();
    assert_eq!(
        merged.created_members,
        ["hooks.SubagentStop", "hooks.PreToolUse"]
    );
    assert_eq!(
        remove(&merged.text, &events_of(&hooks), &merged.created_members),
        original
    );
    let empty = "{\"hooks\": {}}";
    let merged = merge(empty, &hooks).unwrap();
    assert_eq!(
        remove(&merged.text, &events_of(&hooks), &merged.created_members),
        empty
    );
}

#[test]
fn a_matcher_earlier_versions_wrote_is_upgraded_and_the_users_is_kept() {
    let mut hooks = entries(Agent::Claude, &fill());
    let old = merge("{\n  \"a\": 1\n}\n", &hooks).unwrap().text;
    hooks["PreToolUse"][0]["matcher"] = json!("Bash|Write|Edit|MultiEdit");
    let upgraded = merge(&old, &hooks).unwrap().text;
    let v: Value = serde_json::from_str(&upgraded).unwrap();
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["matcher"],
        "Bash|Write|Edit|MultiEdit"
    );
    let users = old.replace(
        "\"matcher\": \"Bash|Write|Edit|MultiEdit\"",
        "\"matcher\": \"Bash|Shell\"",
    );
    assert_eq!(merge(&users, &hooks).unwrap().text, users);
}

#[test]
fn a_second_row_for_an_event_is_one_more_entry() {
    // Two gate entries in one event (shell, and file-writing tools): paired in order.
    let mut hooks = entries(Agent::Claude, &fill());
    let mut second = hooks["PreToolUse"][0].clone();
    second["matcher"] = json!("Write|Edit|MultiEdit");
    hooks["PreToolUse"].as_array_mut().unwrap().push(second);
    let original = "{\n  \"a\": 1\n}\n";
    let merged = merge(original, &hooks).unwrap();
    let once = merged.text;
    let v: Value = serde_json::from_str(&once).unwrap();
    assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
    let edited = once.replace("Write|Edit|MultiEdit", "Write|Edit");
    let again = merge(&edited, &hooks).unwrap().text;
    assert_eq!(
        again, edited,
        "the user's matcher on the second entry stays"
    );
    let events = events_of(&hooks);
    assert_eq!(remove(&again, &events, &merged.created_members), original);
}

#[test]
fn wrong_shapes_and_duplicates_are_refused() {
    let hooks = entries(Agent::Claude, &fill());
    let err = |text: &str| merge(text, &hooks).unwrap_err().to_string();
    assert!(err(r#"{"hooks": "none"}"#).contains("`hooks` is a string"));
    assert!(err(r#"{"hooks": {"Stop": {}}}"#).contains("`hooks.Stop` is an object"));
    assert!(err("[]").contains("top level is an array"), "{}", err("[]"));
    let dup = "{\n  \"hooks\": {},\n  \"x\": 1,\n  \"hooks\": {}\n}";
    assert!(
        err(dup).contains("`hooks` appears 2 times (lines 2 and 4)"),
        "{}",
        err(dup)
    );
    let dup_event = "{\"hooks\": {\"Stop\": [], \"Stop\": []}}";
    assert!(err(dup_event).contains("`hooks.Stop` appears 2 times"));
}

#[test]
fn settings_paths_per_agent_and_scope() {
    let (root, home) = (Path::new("/r"), Path::new("/h"));
    let path = |agent, scope| settings_path(agent, scope, root, home);
    assert_eq!(
        path(Agent::Claude, Scope::Project),
        Path::new("/r/.claude/settings.json")
    );
    assert_eq!(
        path(Agent::Claude, Scope::Local),
        Path::new("/r/.claude/settings.local.json")
    );
    assert_eq!(
        path(Agent::Claude, Scope::User),
        Path::new("/h/.claude/settings.json")
    );
    assert_eq!(
        path(Agent::Codex, Scope::Project),
        Path::new("/r/.codex/hooks.json")
    );
    assert_eq!(
        path(Agent::Gemini, Scope::Project),
        Path::new("/r/.gemini/settings.json")
    );
    // A local install stays in the checkout for every agent.
    assert_eq!(
        path(Agent::Gemini, Scope::Local),
        Path::new("/r/.gemini/settings.json")
    );
    assert_eq!(
        path(Agent::Codex, Scope::Local),
        Path::new("/r/.codex/hooks.json")
    );
    assert_eq!(
        path(Agent::Gemini, Scope::User),
        Path::new("/h/.gemini/settings.json")
    );
}

#[test]
fn an_empty_codex_home_is_the_default_one() {
    // Joined as it was, an empty `CODEX_HOME` named `hooks.json` in the working directory.
    let home = Path::new("/h");
    assert_eq!(
        codex_home_from(Some("".into()), home),
        Path::new("/h/.codex")
    );
    assert_eq!(codex_home_from(None, home), Path::new("/h/.codex"));
    assert_eq!(codex_home_from(Some("/c".into()), home), Path::new("/c"));
}

#[test]
fn flat_lists_of_handlers_merge_keep_the_users_changes_and_remove_exactly() {
    // Crush lists handlers directly, each with its own matcher.
    let original = "{\n  \"hooks\": {\n    \"PreToolUse\": [ { \"matcher\": \"^bash$\", \"command\": \"./mine.sh\" } ]\n  }\n}\n";
    let hooks = entries(Agent::Crush, &fill());
    let ours = &hooks["PreToolUse"][0];
    assert_eq!(ours["matcher"], "^bash$");
    assert_eq!(ours["timeout"], 13);
    assert!(is_ours(ours));
    let once = merge(original, &hooks).unwrap();
    assert_eq!(merge(&once.text, &hooks).unwrap().text, once.text);
    let v: Value = serde_json::from_str(&once.text).unwrap();
    assert_eq!(v["hooks"]["PreToolUse"][0]["command"], "./mine.sh");
    assert!(is_ours(&v["hooks"]["PreToolUse"][1]));
    // The user widens our matcher and raises our timeout: both are kept by the next init.
    let mut changed = once.text.clone();
    let at = changed.rfind("\"^bash$\"").unwrap();
    changed.replace_range(at..at + "\"^bash$\"".len(), "\"^(bash|edit)$\"");
    let t = changed.rfind("\"timeout\"").unwrap();
    let n = t + changed[t..].find("13").unwrap();
    changed.replace_range(n..n + 2, "40");
    let v: Value = serde_json::from_str(&changed).unwrap();
    assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "^(bash|edit)$");
    let again = merge(&changed, &hooks).unwrap().text;
    let v: Value = serde_json::from_str(&again).unwrap();
    let handler = &v["hooks"]["PreToolUse"][1];
    assert_eq!(
        handler["matcher"], "^(bash|edit)$",
        "the user's matcher stays"
    );
    assert_eq!(handler["timeout"], 40);
    assert!(
        handler["command"]
            .as_str()
            .unwrap()
            .ends_with("--hook-timeout 40"),
        "{handler}"
    );
    let installed = installed(Agent::Crush, &again);
    assert_eq!(installed.len(), 1);
    assert_eq!(installed[0].timeout_s, Some(40.0));
    assert_eq!(
        remove(&once.text, &events_of(&hooks), &once.created_members),
        original
    );
}

#[test]
fn copilot_handlers_name_their_command_bash_and_timeout_seconds() {
    let hooks = entries(
        Agent::Copilot,
        &Fill {
            binary: PathBuf::from("/a b/hookjudge"),
            ..fill()
        },
    );
    let ours = &hooks["preToolUse"][0];
    assert_eq!(
        ours["bash"],
        "'/a b/hookjudge' gate --agent copilot --hook-timeout 13"
    );
    assert_eq!(ours["timeoutSec"], 13);
    assert_eq!(ours.get("command"), None);
    assert!(is_ours(ours));
    // `agentStop` is judged: the Stop hook, with the Stop's timeout.
    let stop = &hooks["agentStop"][0];
    assert!(
        stop["bash"]
            .as_str()
            .unwrap()
            .starts_with("'/a b/hookjudge' stop --agent copilot --hook-timeout "),
        "{stop}"
    );
    assert!(stop["timeoutSec"].is_u64() && is_ours(stop), "{stop}");
    // A larger timeout of the user's is kept, and `--hook-timeout` follows it.
    let text = format!(
        "{{\"version\": 1, \"hooks\": {{\"preToolUse\": [{}]}}}}",
        ours.to_string()
            .replace("\"timeoutSec\":13", "\"timeoutSec\":60")
    );
    let merged = merge(&text, &hooks).unwrap();
    let v: Value = serde_json::from_str(&merged.text).unwrap();
    assert_eq!(v["hooks"]["preToolUse"][0]["timeoutSec"], 60);
    assert_eq!(
        v["hooks"]["preToolUse"][0]["bash"],
        "'/a b/hookjudge' gate --agent copilot --hook-timeout 60"
    );
    assert_eq!(fresh_file(Agent::Copilot, &hooks)["version"], 1);
    assert_eq!(fresh_file(Agent::Claude, &hooks).get("version"), None);
}
