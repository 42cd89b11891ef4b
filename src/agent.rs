//! The agents' hook contracts: reading their stdin JSON and writing decisions in their shapes.
//!
//! Claude Code and Codex CLI send `Stop`/`SubagentStop` (Codex adds `turn_id`); Gemini CLI sends
//! `AfterAgent` with the whole turn's text in `prompt_response`; Qwen Code and Factory Droid send
//! Claude-style events. Copilot CLI (`toolName`/`toolArgs`), Cursor (`beforeShellExecution`),
//! Cline (`hookName` with a `preToolUse` object) and Crush (`event`) name things their own way;
//! [`HookInput::parse`] reads them into the one shape the hooks use. Every decision is exit 0
//! with at most one JSON object on stdout; a hook never relies on exit 2 (see the protocol
//! reference, §10). The per-agent facts (what can block, how an ask is expressed) are
//! [`Agent::contract`]'s table.

use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::hook::{GateOutcome, StopOutcome};
use crate::support::hash::fnv1a;

/// A coding agent whose hooks hookjudge serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Qwen,
    Droid,
    Copilot,
    Cursor,
    Crush,
    Cline,
    OpenCode,
}

/// What one agent's hooks can do, as its documentation and schemas say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contract {
    pub name: &'static str,
    /// The product's name, for people.
    pub display_name: &'static str,
    /// The agent's config folder, in a project and in the home folder.
    pub config_dir: &'static str,
    /// Whether a pre-tool hook can hand the decision to a person (`ask`) in every run;
    /// otherwise an ask is a deny telling the agent to stop and ask the user.
    pub can_ask: bool,
    /// What hookjudge does at the end of a turn for this agent.
    pub turn_end: TurnEnd,
}

/// What hookjudge does when the agent's turn ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    /// The Stop judges run and can send the agent back to work.
    Judged,
    /// The agent's turn-end event carries no text hookjudge can read, or cannot continue the
    /// turn: no Stop judge runs (the gate still guards its shell commands).
    NotJudged,
}

/// One row per agent: [`Agent::contract`].
const CONTRACTS: [Contract; 10] = [
    Contract {
        name: "claude",
        display_name: "Claude Code",
        config_dir: ".claude",
        can_ask: true,
        turn_end: TurnEnd::Judged,
    },
    Contract {
        name: "codex",
        display_name: "Codex CLI",
        config_dir: ".codex",
        can_ask: false,
        turn_end: TurnEnd::Judged,
    },
    // `"decision":"ask"` waits forever in headless runs for a confirmation nothing sends.
    Contract {
        name: "gemini",
        display_name: "Gemini CLI",
        config_dir: ".gemini",
        can_ask: false,
        turn_end: TurnEnd::Judged,
    },
    // An ask is a deny in headless (`--prompt`) runs and background subagents. Qwen Code 0.15
    // sends `stop_hook_active: true` on every Stop and no prompt id, so the loop breaker counts
    // a whole session as one prompt (exact for headless runs).
    Contract {
        name: "qwen",
        display_name: "Qwen Code",
        config_dir: ".qwen",
        can_ask: false,
        turn_end: TurnEnd::Judged,
    },
    Contract {
        name: "droid",
        display_name: "Factory Droid",
        config_dir: ".factory",
        can_ask: true,
        turn_end: TurnEnd::Judged,
    },
    // `agentStop` names a transcript whose format is not documented, and no message text.
    Contract {
        name: "copilot",
        display_name: "Copilot CLI",
        config_dir: ".github",
        can_ask: true,
        turn_end: TurnEnd::NotJudged,
    },
    // `stop` carries no text: `afterAgentResponse`'s is kept for it (see `hook::cursor`).
    Contract {
        name: "cursor",
        display_name: "Cursor",
        config_dir: ".cursor",
        can_ask: true,
        turn_end: TurnEnd::Judged,
    },
    // No turn-end event; the JSON answer has no ask.
    Contract {
        name: "crush",
        display_name: "Crush",
        config_dir: ".crush",
        can_ask: false,
        turn_end: TurnEnd::NotJudged,
    },
    // `TaskComplete` has no text and cannot continue the task.
    Contract {
        name: "cline",
        display_name: "Cline",
        config_dir: ".clinerules",
        can_ask: false,
        turn_end: TurnEnd::NotJudged,
    },
    // The plugin blocks by throwing; `session.idle` cannot continue the session.
    Contract {
        name: "opencode",
        display_name: "OpenCode",
        config_dir: ".opencode",
        can_ask: false,
        turn_end: TurnEnd::NotJudged,
    },
];

impl Agent {
    pub const ALL: [Agent; 10] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Droid,
        Agent::Copilot,
        Agent::Cursor,
        Agent::Crush,
        Agent::Cline,
        Agent::OpenCode,
    ];

    /// The agents whose hooks `init` writes into a settings file of Claude Code's shape
    /// (`{"hooks": {EVENT: [{matcher, hooks: [...]}]}}`).
    pub const INSTALLABLE: [Agent; 5] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Droid,
    ];

    /// The agents `init` installs for: [`Agent::INSTALLABLE`], and OpenCode, whose hooks are
    /// a plugin file `init` writes whole (see `install::settings::owned_path`).
    pub const INIT: [Agent; 6] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Droid,
        Agent::OpenCode,
    ];

    /// This agent's row of the table.
    pub fn contract(self) -> &'static Contract {
        &CONTRACTS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.contract().name
    }

    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The product's name, for people.
    pub fn display_name(self) -> &'static str {
        self.contract().display_name
    }

    /// The agent's config folder, in a project and in the home folder (Codex's home may be
    /// moved by `CODEX_HOME`; see [`crate::install::settings::codex_home`]).
    pub fn config_dir(self) -> &'static str {
        self.contract().config_dir
    }

    /// Whether the agent's settings give hook timeouts in milliseconds (else seconds).
    pub fn timeouts_in_ms(self) -> bool {
        matches!(self, Agent::Gemini | Agent::Qwen)
    }

    /// Whether the gate's `ask` reaches a person in every run of this agent.
    pub fn can_ask(self) -> bool {
        self.contract().can_ask
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
    /// Cursor: `afterAgentResponse`'s message, and at `stop` how it ended and how many times
    /// a hook's `followup_message` has continued it.
    pub text: Option<String>,
    pub status: Option<String>,
    pub loop_count: Option<u64>,
    /// Qwen Code `Stop`: how full the context is (only Qwen sends it).
    pub context_limit: Option<Value>,
    // The fields other agents name their own way, read into the ones above by
    // [`HookInput::parse`]. Copilot CLI: `sessionId`, `transcriptPath`, `toolName`, `toolArgs`
    // (a JSON string in the CLI's hooks, an object in the SDK's).
    #[serde(rename = "sessionId")]
    pub copilot_session_id: Option<String>,
    #[serde(rename = "transcriptPath")]
    pub copilot_transcript_path: Option<String>,
    #[serde(rename = "toolName")]
    pub copilot_tool_name: Option<String>,
    #[serde(rename = "toolArgs")]
    pub copilot_tool_args: Option<Value>,
    /// Cursor: `beforeShellExecution`'s command, the conversation and its workspace roots.
    #[serde(rename = "command")]
    pub cursor_command: Option<String>,
    #[serde(rename = "conversation_id")]
    pub cursor_conversation_id: Option<String>,
    #[serde(rename = "workspace_roots")]
    pub cursor_workspace_roots: Option<Vec<String>>,
    pub cursor_version: Option<String>,
    /// Cline: the event's name, the task, its workspace roots and
    /// `preToolUse: {toolName, parameters}`.
    #[serde(rename = "hookName")]
    pub cline_hook_name: Option<String>,
    #[serde(rename = "taskId")]
    pub cline_task_id: Option<String>,
    #[serde(rename = "workspaceRoots")]
    pub cline_workspace_roots: Option<Vec<String>>,
    #[serde(rename = "preToolUse")]
    pub cline_pre_tool_use: Option<ClinePreToolUse>,
    /// Factory Droid, as some of its integrations describe it: camelCase common fields
    /// (`hookEventName`, `sessionId`, `transcriptPath`) beside snake_case tool fields.
    #[serde(rename = "hookEventName")]
    pub droid_hook_event_name: Option<String>,
    /// Crush: the event's name.
    #[serde(rename = "event")]
    pub crush_event: Option<String>,
}

/// Cline's `preToolUse` object.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ClinePreToolUse {
    #[serde(rename = "toolName")]
    pub tool_name: Option<String>,
    pub parameters: Option<Value>,
}

/// The tool name hookjudge gives Cursor's `beforeShellExecution`, which names no tool.
pub const CURSOR_SHELL: &str = "Shell";

impl HookInput {
    /// Parses hook stdin, saying what is wrong in terms a user can check.
    pub fn parse(stdin: &[u8]) -> Result<HookInput, crate::hook::InputError> {
        if stdin.iter().all(u8::is_ascii_whitespace) {
            return Err(crate::hook::InputError::Empty);
        }
        let mut input: HookInput =
            serde_json::from_slice(stdin).map_err(crate::hook::InputError::NotJson)?;
        input.read_foreign_fields();
        Ok(input)
    }

    /// Fills the fields hookjudge reads from the names other agents give them (never over a
    /// field the input already has).
    fn read_foreign_fields(&mut self) {
        let first = |roots: &Option<Vec<String>>| roots.as_ref().and_then(|r| r.first().cloned());
        fill(&mut self.session_id, self.copilot_session_id.clone());
        fill(&mut self.session_id, self.cursor_conversation_id.clone());
        fill(&mut self.session_id, self.cline_task_id.clone());
        fill(
            &mut self.transcript_path,
            self.copilot_transcript_path.clone(),
        );
        fill(&mut self.hook_event_name, self.cline_hook_name.clone());
        fill(
            &mut self.hook_event_name,
            self.droid_hook_event_name.clone(),
        );
        fill(&mut self.hook_event_name, self.crush_event.clone());
        fill(&mut self.cwd, first(&self.cursor_workspace_roots));
        fill(&mut self.cwd, first(&self.cline_workspace_roots));
        if self.tool_name.is_some() {
            return;
        }
        if let Some(name) = self.copilot_tool_name.clone() {
            // Copilot CLI sends the arguments as a JSON string.
            self.tool_input = match self.copilot_tool_args.take() {
                Some(Value::String(s)) => serde_json::from_str(&s).ok().or(Some(Value::String(s))),
                args => args,
            };
            self.tool_name = Some(name);
        } else if let Some(call) = self.cline_pre_tool_use.take() {
            self.tool_name = call.tool_name;
            self.tool_input = call.parameters;
            // Kept to tell the agent apart.
            self.cline_pre_tool_use = Some(ClinePreToolUse::default());
        } else if let Some(command) = self.cursor_command.clone() {
            self.tool_name = Some(CURSOR_SHELL.to_owned());
            self.tool_input = Some(json!({ "command": command }));
        }
    }

    /// Which agent sent this, from the event name and the fields only one agent sends. Qwen
    /// Code and Factory Droid are told apart from Claude Code by their shell tool's name (or
    /// Qwen's `context_limit` at `Stop`); an entry passes `--agent` in any case.
    pub fn detect_agent(&self) -> Option<Agent> {
        if self.cline_hook_name.is_some() || self.cline_pre_tool_use.is_some() {
            return Some(Agent::Cline);
        }
        if self.cursor_version.is_some() || self.cursor_conversation_id.is_some() {
            return Some(Agent::Cursor);
        }
        if self.droid_hook_event_name.is_some() {
            return Some(Agent::Droid);
        }
        if self.copilot_tool_name.is_some() || self.copilot_session_id.is_some() {
            return Some(Agent::Copilot);
        }
        if self.crush_event.is_some() {
            return Some(Agent::Crush);
        }
        match self.hook_event_name.as_deref()? {
            "AfterAgent" | "BeforeTool" => Some(Agent::Gemini),
            "beforeShellExecution" => Some(Agent::Cursor),
            "Stop" | "SubagentStop" | "PreToolUse" if self.turn_id.is_some() => Some(Agent::Codex),
            "PreToolUse" if self.tool_name.as_deref() == Some("run_shell_command") => {
                Some(Agent::Qwen)
            }
            "PreToolUse" if self.tool_name.as_deref() == Some("Execute") => Some(Agent::Droid),
            "Stop" if self.context_limit.is_some() => Some(Agent::Qwen),
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
        (!path.is_empty()).then(|| {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            crate::support::paths::expand_home(path, home.as_deref()).unwrap_or_else(|| PathBuf::from(path))
        })
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

fn fill(field: &mut Option<String>, value: Option<String>) {
    if field.is_none() {
        *field = value;
    }
}

/// The JSON that blocks a Stop in `agent`'s shape.
pub fn stop_block(agent: Agent, reason: &str) -> Value {
    match agent {
        Agent::Gemini => json!({ "decision": "deny", "reason": reason }),
        // Cursor's `stop` continues the agent with a follow-up message.
        Agent::Cursor => json!({ "followup_message": reason }),
        _ => json!({ "decision": "block", "reason": reason }),
    }
}

/// The JSON that lets a Stop through while telling the human something.
pub fn stop_notice(message: &str) -> Value {
    json!({ "systemMessage": message })
}

/// The shell tool's name in each agent (Claude Code and Codex `Bash`, Gemini CLI and Qwen
/// Code `run_shell_command`, Copilot CLI and Crush `bash`, Factory Droid `Execute`, Cline
/// `execute_command`, Cursor [`CURSOR_SHELL`], and Codex's older names).
pub const SHELL_TOOLS: [&str; 9] = [
    "Bash",
    "run_shell_command",
    "shell",
    "local_shell",
    "exec_command",
    "bash",
    "Execute",
    "execute_command",
    CURSOR_SHELL,
];

/// Whether a pre-tool event concerns the shell tool ([`SHELL_TOOLS`]).
pub fn is_shell_tool(input: &HookInput) -> bool {
    input
        .tool_name
        .as_deref()
        .is_some_and(|name| SHELL_TOOLS.contains(&name))
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
            // Cursor's `stop` answer has no field for the person.
            StopOutcome::Notice(_) if self == Agent::Cursor => None,
            StopOutcome::Notice(message) => Some(stop_notice(message)),
            StopOutcome::Block { reason, notice } => {
                let mut answer = stop_block(self, reason);
                if let Some(notice) = notice.as_ref().filter(|_| self != Agent::Cursor) {
                    // `systemMessage` is for the human in every agent.
                    answer["systemMessage"] = Value::String(notice.clone());
                }
                Some(answer)
            }
        }
    }

    /// The gate's answer in this agent's shape; `None` is no output (see [`gate_output`]).
    /// Cline reads no output as a failure, which blocks: it is told `{"cancel":false}`.
    pub fn gate_answer(self, outcome: &GateOutcome) -> Option<Value> {
        match outcome {
            GateOutcome::Silent if self == Agent::Cline => Some(json!({"cancel": false})),
            GateOutcome::Silent => None,
            GateOutcome::Deny(reason) => Some(gate_output(self, true, reason)),
            GateOutcome::Ask(reason) => Some(gate_output(self, false, reason)),
            GateOutcome::Confined { input, ask } => {
                match confined_output(self, input, ask.as_deref()) {
                    Some(answer) => Some(answer),
                    None => self.gate_answer(&GateOutcome::Silent),
                }
            }
        }
    }
}

/// The gate's answer in `agent`'s shape. `ask` becomes, for an agent that cannot ask in every
/// run ([`Agent::can_ask`]), a deny that tells the agent to stop and ask the user (who approves
/// with `hookjudge approve` on their own terminal; the agent is never told how). Codex and
/// Gemini CLI also get a `systemMessage` telling the person how to approve: both show it in
/// their UI and do not give it to the model.
pub fn gate_output(agent: Agent, deny: bool, reason: &str) -> Value {
    let asks = !deny && agent.can_ask();
    let reason = if deny || asks {
        reason.to_owned()
    } else {
        format!("{reason} {}", crate::approval::ASK_THE_USER)
    };
    let decision = if asks { "ask" } else { "deny" };
    let mut answer = match agent {
        Agent::Claude | Agent::Codex | Agent::Qwen | Agent::Droid => {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}})
        }
        // The OpenCode plugin throws with the reason: the tool call fails and the model reads it.
        Agent::Gemini | Agent::Crush | Agent::OpenCode => {
            json!({"decision": decision, "reason": reason})
        }
        Agent::Copilot => {
            json!({"permissionDecision": decision, "permissionDecisionReason": reason})
        }
        // `user_message` is shown to the person, `agent_message` sent to the model.
        Agent::Cursor => {
            json!({"permission": decision, "user_message": reason, "agent_message": reason})
        }
        Agent::Cline => json!({"cancel": true, "errorMessage": reason}),
    };
    if !deny && !asks && matches!(agent, Agent::Codex | Agent::Gemini) {
        answer["systemMessage"] = json!(crate::approval::TELL_THE_PERSON);
    }
    answer
}

/// The gate's rewrite to run a command inside the boundary, in `agent`'s shape. Only Claude
/// Code can show a rewrite and still ask; where another agent would have to ask, the command
/// is held back as any ask is (see [`gate_output`]) and runs confined once approved.
pub fn confined_output(agent: Agent, input: &Value, ask: Option<&str>) -> Option<Value> {
    Some(match (agent, ask) {
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
        // The other agents' rewrites are not known to be honoured: the command is not
        // rewritten, and the gate's own reading of it (silent) stands.
        (_, None) => return None,
    })
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
    fn other_agents_fields_are_read_into_the_common_ones() {
        let parse = |j: &str| HookInput::parse(j.as_bytes()).unwrap();
        // Copilot CLI's `toolArgs` is a JSON string; the SDK's is an object.
        for args in [
            r#""{\"command\":\"git push\"}""#,
            r#"{"command":"git push"}"#,
        ] {
            let input = parse(&format!(
                r#"{{"sessionId":"c","toolName":"bash","toolArgs":{args}}}"#
            ));
            assert_eq!(shell_command(&input).as_deref(), Some("git push"), "{args}");
            assert_eq!(input.session_id.as_deref(), Some("c"));
            assert_eq!(input.detect_agent(), Some(Agent::Copilot));
        }
        let cline = parse(
            r#"{"hookName":"PreToolUse","taskId":"t","workspaceRoots":["/w"],"preToolUse":{"toolName":"execute_command","parameters":{"command":"ls"}}}"#,
        );
        assert_eq!(
            (
                cline.cwd.as_deref(),
                cline.session_id.as_deref(),
                cline.hook_event_name.as_deref()
            ),
            (Some("/w"), Some("t"), Some("PreToolUse"))
        );
        assert!(is_shell_tool(&cline));
        assert_eq!(cline.detect_agent(), Some(Agent::Cline));
        let cursor = parse(
            r#"{"hook_event_name":"beforeShellExecution","conversation_id":"cv","command":"make","cwd":"/c","workspace_roots":["/w"]}"#,
        );
        assert_eq!(cursor.cwd.as_deref(), Some("/c"), "its own `cwd` wins");
        assert_eq!(shell_command(&cursor).as_deref(), Some("make"));
        assert_eq!(cursor.detect_agent(), Some(Agent::Cursor));
        let crush =
            parse(r#"{"event":"PreToolUse","tool_name":"bash","tool_input":{"command":"ls"}}"#);
        assert_eq!(crush.detect_agent(), Some(Agent::Crush));
        assert_eq!(
            parse(r#"{"hook_event_name":"PreToolUse","tool_name":"run_shell_command"}"#)
                .detect_agent(),
            Some(Agent::Qwen)
        );
        assert_eq!(
            parse(r#"{"hook_event_name":"PreToolUse","tool_name":"Execute"}"#).detect_agent(),
            Some(Agent::Droid)
        );
        // Factory Droid with camelCase common fields.
        let droid = parse(
            r#"{"hookEventName":"PreToolUse","sessionId":"d","transcriptPath":"/t.jsonl","tool_name":"Execute","tool_input":{"command":"ls"}}"#,
        );
        assert_eq!(droid.detect_agent(), Some(Agent::Droid));
        assert_eq!(
            (
                droid.hook_event_name.as_deref(),
                droid.session_id.as_deref()
            ),
            (Some("PreToolUse"), Some("d"))
        );
        // A Claude Code input is read as before.
        let claude = parse(
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
        );
        assert_eq!(claude.detect_agent(), Some(Agent::Claude));
    }

    #[test]
    fn the_table_has_one_row_per_agent_in_order() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_name(agent.name()), Some(agent));
        }
        for agent in Agent::INSTALLABLE {
            assert_eq!(agent.contract().turn_end, TurnEnd::Judged, "{agent}");
        }
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
