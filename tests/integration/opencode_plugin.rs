//! The OpenCode plugin (`hooks-templates/opencode.js`), run by Node as OpenCode runs a plugin:
//! its `tool.execute.before` on `bash` asks the real `hookjudge gate` about a `git push` one
//! commit ahead of a bare origin with no test evidence and throws with the reason, so the call
//! fails and the model reads why; a plain command and other tools pass; a missing binary makes
//! a person decide.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::gate_repo::GitFixture;
use crate::harness::{BIN, Home};

const ASK_THE_USER: &str = "A person must decide on this command, and this hook cannot ask them. Stop here and ask the user whether to run it; do not retry it or work around it. Once the user says they approved it, run exactly the same command again.";

/// The plugin with its placeholders filled, written beside a driver that loads it and calls
/// the hook once per line of `calls` (`[tool, command]`), printing what each did.
fn run_plugin(home: &Home, binary: &str, cwd: &Path, calls: &[(&str, &str)]) -> Vec<Value> {
    let template = std::fs::read_to_string(format!(
        "{}/hooks-templates/opencode.js",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let required = !binary.contains("optional");
    let plugin = template
        .replace("@HOOKJUDGE_JS@", &json!(binary).to_string())
        .replace("@GATE_TIMEOUT_MS@", "13000")
        .replace("@REQUIRED_JS@", &required.to_string());
    run_plugin_text(home, &plugin, cwd, calls)
}

/// Runs the plugin `plugin` (its placeholders filled) as [`run_plugin`] does.
pub fn run_plugin_text(
    home: &Home,
    plugin: &str,
    cwd: &Path,
    calls: &[(&str, &str)],
) -> Vec<Value> {
    let dir = home.path().join("opencode-plugin");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hookjudge.mjs"), plugin).unwrap();
    let driver = format!(
        r#"import {{ HookjudgePlugin }} from "./hookjudge.mjs";
const hooks = await HookjudgePlugin({{ directory: {cwd} }});
for (const [tool, command] of {calls}) {{
  try {{
    const output = {{ args: {{ command }} }};
    await hooks["tool.execute.before"]({{ tool, sessionID: "o1", callID: "c1" }}, output);
    console.log(JSON.stringify({{ threw: false, command: output.args.command }}));
  }} catch (e) {{
    console.log(JSON.stringify({{ threw: true, message: e.message }}));
  }}
}}
"#,
        cwd = json!(cwd),
        calls = json!(calls.iter().map(|(t, c)| [t, c]).collect::<Vec<_>>()),
    );
    std::fs::write(dir.join("driver.mjs"), driver).unwrap();
    let out = Command::new("node")
        .arg(dir.join("driver.mjs"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .output()
        .expect("node runs the plugin");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_plugin_stops_an_unverified_push_with_the_gates_reason() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "change a");
    let binary = std::fs::canonicalize(BIN).unwrap();
    let ran = run_plugin(
        &home,
        binary.to_str().unwrap(),
        &repo.work,
        &[
            ("bash", "git push origin main"),
            ("bash", "ls -la"),
            ("read", "git push origin main"),
        ],
    );
    assert_eq!(ran[0]["threw"], true, "{ran:?}");
    let message = ran[0]["message"].as_str().unwrap();
    assert!(
        message.contains("would publish 1 commit to `origin/main`"),
        "{message}"
    );
    assert!(message.ends_with(ASK_THE_USER), "{message}");
    assert_eq!(ran[1], json!({"threw": false, "command": "ls -la"}));
    assert_eq!(
        ran[2],
        json!({"threw": false, "command": "git push origin main"})
    );
    let log = home.last_log();
    assert_eq!(
        (log["agent"].as_str(), log["command"].as_str()),
        (Some("opencode"), Some("git push origin main"))
    );
}

/// With `boundary.mode` `landlock` the command the gate hands back runs in place of the
/// original.
#[test]
fn the_plugin_runs_the_command_the_gate_hands_back() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}, "boundary": {"mode": "landlock"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    let binary = std::fs::canonicalize(BIN).unwrap();
    let ran = run_plugin(
        &home,
        binary.to_str().unwrap(),
        &repo.work,
        &[("bash", "ls -la")],
    );
    assert_eq!(ran[0]["threw"], false, "{ran:?}");
    let command = ran[0]["command"].as_str().unwrap();
    assert!(
        command.contains("run-confined -- bash -c 'ls -la'"),
        "{command}"
    );
}

#[test]
fn without_the_binary_a_person_decides_only_when_required() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let missing = home.path().join("no-such/hookjudge");
    let ran = run_plugin(
        &home,
        missing.to_str().unwrap(),
        &repo.work,
        &[("bash", "ls")],
    );
    assert_eq!(ran[0]["threw"], true);
    let message = ran[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("hookjudge could not check this command (spawnSync "),
        "{message}"
    );
    assert!(message.contains("ENOENT"), "{message}");
    // Not required (the default): the command runs, with a warning on the plugin's stderr.
    let optional = home.path().join("optional/hookjudge");
    let ran = run_plugin(
        &home,
        optional.to_str().unwrap(),
        &repo.work,
        &[("bash", "ls")],
    );
    assert_eq!(ran[0], json!({"threw": false, "command": "ls"}));
}
