//! The agents' hook contracts: reading their stdin JSON and writing decisions in their shapes.
//!
//! Claude Code and Codex CLI send `Stop`/`SubagentStop` (Codex adds `turn_id`); Gemini CLI sends
//! `AfterAgent` with the whole turn's text in `prompt_response`. Every decision is exit 0 with
//! at most one JSON object on stdout, which all three read the same way; a hook never relies on
//! exit 2 (see the protocol reference, §10).

use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::hook::{GateOutcome, StopOutcome};

/// A coding agent whose hooks hookjudge serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

impl Agent {
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The product's name, for people.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
        }
    }

    /// The agent's config folder, in a project and in the home folder (Codex's home may be
    /// moved by `CODEX_HOME`; see [`crate::install::settings::codex_home`]).
    pub fn config_dir(self) -> &'static str {
        match self {
            Agent::Claude => ".claude",
            Agent::Codex => ".codex",
            Agent::Gemini => ".gemini",
        }
    }
}

/// `--agent NAME` on the hook entries: the names of [`Agent::name`], the only table of them.
impl clap::ValueEnum for Agent {
    fn value_variants<'a>() -> &'a [Self] {
        &Agent::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The hook input fields hookjudge reads; agents send more, which are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub hook_event_name: Option<String>,
    pub prompt_id: Option<String>,
    pub turn_id: Option<String>,
    pub stop_hook_active: Option<bool>,
    pub last_assistant_message: Option<String>,
    pub agent_id: Option<String>,
    pub agent_transcript_path: Option<String>,
    /// Gemini `AfterAgent`: the user's request.
    pub prompt: Option<String>,
    /// Gemini `AfterAgent`: the text of every model turn since the request.
    pub prompt_response: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    /// The id of the tool call a PreToolUse hook is asked about.
    pub tool_use_id: Option<String>,
    /// Claude Code and Codex: the session's permission mode (`default`, `bypassPermissions`, …).
    pub permission_mode: Option<String>,
}

impl HookInput {
    /// Parses hook stdin, saying what is wrong in terms a user can check.
    pub fn parse(stdin: &[u8]) -> Result<HookInput, crate::hook::InputError> {
        if stdin.iter().all(u8::is_ascii_whitespace) {
            return Err(crate::hook::InputError::Empty);
        }
        serde_json::from_slice(stdin).map_err(crate::hook::InputError::NotJson)
    }

    /// Which agent sent this, from the event name and the fields only one agent sends.
    pub fn detect_agent(&self) -> Option<Agent> {
        match self.hook_event_name.as_deref()? {
            "AfterAgent" | "BeforeTool" => Some(Agent::Gemini),
            "Stop" | "SubagentStop" | "PreToolUse" if self.turn_id.is_some() => Some(Agent::Codex),
            "Stop" | "SubagentStop" | "PreToolUse" => Some(Agent::Claude),
            _ => None,
        }
    }

    /// Whether this is a stop-like event (the end of an agent's response).
    pub fn is_stop_event(&self) -> bool {
        matches!(
            self.hook_event_name.as_deref(),
            Some("Stop" | "SubagentStop" | "AfterAgent")
        )
    }

    /// The transcript to read for a Stop: the subagent's own for `SubagentStop`.
    pub fn stop_transcript(&self) -> Option<PathBuf> {
        let path = if self.hook_event_name.as_deref() == Some("SubagentStop") {
            self.agent_transcript_path.as_deref()
        } else {
            self.transcript_path.as_deref()
        }?;
        (!path.is_empty()).then(|| expand_home(path))
    }

    /// What identifies "one user prompt" for the loop breaker: the agent's prompt or turn id,
    /// or for Gemini a digest of the prompt text. `None` when the agent sends nothing usable.
    pub fn prompt_key(&self) -> Option<String> {
        if let Some(id) = self.prompt_id.as_ref().or(self.turn_id.as_ref()) {
            return Some(id.clone());
        }
        self.prompt
            .as_ref()
            .map(|p| format!("prompt-{:016x}", fnv1a(p.as_bytes())))
    }
}

/// A small stable hash (FNV-1a), for keys that must not depend on the Rust version.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

pub(crate) fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// The JSON that blocks a Stop in `agent`'s shape.
pub fn stop_block(agent: Agent, reason: &str) -> Value {
    let decision = match agent {
        Agent::Gemini => "deny",
        Agent::Claude | Agent::Codex => "block",
    };
    json!({ "decision": decision, "reason": reason })
}

/// The JSON that lets a Stop through while telling the human something.
pub fn stop_notice(message: &str) -> Value {
    json!({ "systemMessage": message })
}

/// Whether a pre-tool event concerns the shell tool (`Bash`, or Gemini's `run_shell_command`).
pub fn is_shell_tool(input: &HookInput) -> bool {
    matches!(
        input.tool_name.as_deref(),
        Some("Bash" | "run_shell_command" | "shell" | "local_shell" | "exec_command")
    )
}

/// The command of a shell tool call.
pub fn shell_command(input: &HookInput) -> Option<String> {
    let tool_input = input.tool_input.as_ref()?;
    match &tool_input["command"] {
        Value::String(s) => Some(s.clone()),
        // Some clients send argv arrays.
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .map(shell_quote)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl Agent {
    /// The Stop answer in this agent's shape; `None` is no output (the turn ends).
    pub fn stop_answer(self, outcome: &StopOutcome) -> Option<Value> {
        match outcome {
            StopOutcome::Allow => None,
            StopOutcome::Notice(message) => Some(stop_notice(message)),
            StopOutcome::Block { reason, notice } => {
                let mut answer = stop_block(self, reason);
                if let Some(notice) = notice {
                    // `systemMessage` is for the human in every agent.
                    answer["systemMessage"] = Value::String(notice.clone());
                }
                Some(answer)
            }
        }
    }

    /// The gate's answer in this agent's shape; `None` is no output (see [`gate_output`]).
    pub fn gate_answer(self, outcome: &GateOutcome) -> Option<Value> {
        match outcome {
            GateOutcome::Silent => None,
            GateOutcome::Deny(reason) => Some(gate_output(self, true, reason)),
            GateOutcome::Ask(reason) => Some(gate_output(self, false, reason)),
            GateOutcome::Confined { input, ask } => {
                Some(confined_output(self, input, ask.as_deref()))
            }
        }
    }
}

/// The gate's answer in `agent`'s shape. `ask` becomes, for Codex (which cannot ask) and Gemini
/// CLI (whose `"decision":"ask"` waits forever in headless runs for a confirmation nothing
/// sends), a deny that tells the agent to stop and ask the user, and a `systemMessage` that
/// tells the person how to approve (`hookjudge approve` on their own terminal): both agents
/// show it in their UI and do not give it to the model, so the agent is never told how.
pub fn gate_output(agent: Agent, deny: bool, reason: &str) -> Value {
    match agent {
        Agent::Gemini => {
            let reason = if deny {
                reason.to_owned()
            } else {
                format!("{reason} {}", crate::approval::ASK_THE_USER)
            };
            let mut answer = json!({"decision": "deny", "reason": reason});
            if !deny {
                answer["systemMessage"] = json!(crate::approval::TELL_THE_PERSON);
            }
            answer
        }
        Agent::Claude => {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": if deny { "deny" } else { "ask" }, "permissionDecisionReason": reason}})
        }
        Agent::Codex => {
            let reason = if deny {
                reason.to_owned()
            } else {
                format!("{reason} {}", crate::approval::ASK_THE_USER)
            };
            let mut answer = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}});
            if !deny {
                answer["systemMessage"] = json!(crate::approval::TELL_THE_PERSON);
            }
            answer
        }
    }
}

/// The gate's rewrite to run a command inside the boundary, in `agent`'s shape. Only Claude
/// Code can show a rewrite and still ask; where Codex or Gemini CLI would have to ask, the
/// command is held back as any ask is (see [`gate_output`]) and runs confined once approved.
pub fn confined_output(agent: Agent, input: &Value, ask: Option<&str>) -> Value {
    match (agent, ask) {
        (Agent::Claude, ask) => {
            let decision = if ask.is_some() { "ask" } else { "allow" };
            let reason = ask.unwrap_or("hookjudge runs this command inside its boundary");
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                "permissionDecisionReason": reason, "updatedInput": input}})
        }
        (_, Some(reason)) => gate_output(agent, false, reason),
        (Agent::Codex, None) => {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": input}})
        }
        // No decision: Gemini CLI merges the input and its own confirmation rules still apply.
        (Agent::Gemini, None) => {
            json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": input}})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn detect(json: &str) -> Option<Agent> {
        HookInput::parse(json.as_bytes()).unwrap().detect_agent()
    }

    #[test]
    fn detects_each_agent_from_its_stop_event() {
        assert_eq!(
            detect(r#"{"hook_event_name":"Stop","session_id":"s"}"#),
            Some(Agent::Claude)
        );
        assert_eq!(
            detect(r#"{"hook_event_name":"SubagentStop"}"#),
            Some(Agent::Claude)
        );
        assert_eq!(
            detect(r#"{"hook_event_name":"Stop","turn_id":"t"}"#),
            Some(Agent::Codex)
        );
        assert_eq!(
            detect(r#"{"hook_event_name":"AfterAgent","prompt_response":"x"}"#),
            Some(Agent::Gemini)
        );
        assert_eq!(detect(r#"{"hook_event_name":"SessionStart"}"#), None);
        assert_eq!(detect(r#"{}"#), None);
    }

    #[test]
    fn bad_stdin_is_explained() {
        use crate::hook::InputError;
        let err = |bytes: &[u8]| HookInput::parse(bytes).unwrap_err();
        assert!(matches!(err(b""), InputError::Empty));
        assert!(matches!(err(b"  \n"), InputError::Empty));
        assert!(err(b"").to_string().contains("no hook input"));
        assert!(matches!(err(b"not json"), InputError::NotJson(_)));
        assert!(err(b"not json").to_string().contains("not the JSON object"));
        assert!(matches!(err(b"[1]"), InputError::NotJson(_)));
    }

    #[test]
    fn subagent_stop_reads_its_own_transcript() {
        let input = HookInput::parse(
            br#"{"hook_event_name":"SubagentStop","transcript_path":"/p.jsonl","agent_transcript_path":"/a.jsonl"}"#,
        )
        .unwrap();
        assert_eq!(input.stop_transcript(), Some(PathBuf::from("/a.jsonl")));
        let input =
            HookInput::parse(br#"{"hook_event_name":"Stop","transcript_path":""}"#).unwrap();
        assert_eq!(input.stop_transcript(), None);
    }

    #[test]
    fn prompt_key_prefers_ids_then_gemini_prompt() {
        let key = |j: &str| HookInput::parse(j.as_bytes()).unwrap().prompt_key();
        assert_eq!(
            key(r#"{"prompt_id":"p","turn_id":"t"}"#).as_deref(),
            Some("p")
        );
        assert_eq!(key(r#"{"turn_id":"t"}"#).as_deref(), Some("t"));
        assert_eq!(key(r#"{"prompt":"fix it"}"#), key(r#"{"prompt":"fix it"}"#));
        assert_ne!(
            key(r#"{"prompt":"fix it"}"#),
            key(r#"{"prompt":"fix that"}"#)
        );
        assert_eq!(key(r#"{}"#), None);
    }

    #[test]
    fn gemini_never_gets_ask_nor_allow_from_the_gate() {
        let asked = gate_output(Agent::Gemini, false, "hookjudge: no proof.");
        assert_eq!(
            asked["decision"], "deny",
            "`ask` hangs headless Gemini runs"
        );
        let reason = asked["reason"].as_str().unwrap();
        assert!(reason.starts_with("hookjudge: no proof. "), "{reason}");
        assert!(
            reason.contains("ask the user whether to run it"),
            "{reason}"
        );
        assert!(!reason.contains("hookjudge approve"), "{reason}");
        assert!(!reason.contains("HOOKJUDGE_APPROVED"), "{reason}");
        let denied = gate_output(Agent::Gemini, true, "hookjudge gate [push]: run the tests.");
        assert_eq!(
            denied,
            json!({"decision": "deny", "reason": "hookjudge gate [push]: run the tests."})
        );
    }

    #[test]
    fn outcomes_render_per_agent() {
        let block = StopOutcome::Block {
            reason: "r".into(),
            notice: Some("n".into()),
        };
        assert_eq!(
            Agent::Gemini.stop_answer(&block),
            Some(json!({"decision":"deny","reason":"r","systemMessage":"n"}))
        );
        assert_eq!(Agent::Codex.stop_answer(&StopOutcome::Allow), None);
        assert_eq!(
            Agent::Claude.stop_answer(&StopOutcome::Notice("n".into())),
            Some(json!({"systemMessage":"n"}))
        );
        assert_eq!(Agent::Claude.gate_answer(&GateOutcome::Silent), None);
        let ask = GateOutcome::Ask("why".into());
        assert_eq!(
            Agent::Claude.gate_answer(&ask).unwrap()["hookSpecificOutput"]["permissionDecision"],
            "ask"
        );
        for agent in [Agent::Codex, Agent::Gemini] {
            let answer = agent.gate_answer(&ask).unwrap();
            let text = answer.to_string();
            assert!(
                text.contains("\"deny\"") && !text.contains("\"ask\""),
                "{text}"
            );
            assert_eq!(answer["systemMessage"], crate::approval::TELL_THE_PERSON);
            let deny = agent.gate_answer(&GateOutcome::Deny("no".into())).unwrap();
            assert_eq!(deny.get("systemMessage"), None);
        }
    }

    #[test]
    fn block_shapes_per_agent() {
        assert_eq!(
            stop_block(Agent::Claude, "r"),
            json!({"decision":"block","reason":"r"})
        );
        assert_eq!(
            stop_block(Agent::Codex, "r"),
            json!({"decision":"block","reason":"r"})
        );
        assert_eq!(
            stop_block(Agent::Gemini, "r"),
            json!({"decision":"deny","reason":"r"})
        );
    }
}
