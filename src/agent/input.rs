//! Reading an agent's hook stdin into the one shape the hooks use, and the tool names that
//! mark a shell or a file-writing call in each agent.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use super::Agent;
use super::cline::{CLINE_SHELL, cline_commands, cline_commands_run};
use crate::support::hash::fnv1a;

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
    /// Factory Droid `Stop`: the id of the assistant message that ended the turn, in the
    /// session file (Droid sends no message text).
    pub message_id: Option<String>,
    // The fields other agents name their own way, read into the ones above by
    // [`HookInput::parse`]. Copilot CLI: `sessionId`, `transcriptPath`, `toolName`, `toolArgs`
    // (an object from Copilot CLI 1.0.102 and the SDK; a JSON string in its hooks reference).
    #[serde(rename = "sessionId")]
    pub copilot_session_id: Option<String>,
    #[serde(rename = "transcriptPath")]
    pub copilot_transcript_path: Option<String>,
    #[serde(rename = "toolName")]
    pub copilot_tool_name: Option<String>,
    #[serde(rename = "toolArgs")]
    pub copilot_tool_args: Option<Value>,
    /// Copilot CLI: when the hook was called, in milliseconds since the epoch (other agents
    /// send other shapes, which are not read).
    #[serde(rename = "timestamp")]
    pub copilot_timestamp: Option<Value>,
    /// Copilot CLI `agentStop`: why the turn ended (`end_turn` when the model finished).
    #[serde(rename = "stopReason")]
    pub copilot_stop_reason: Option<String>,
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
    /// Cline CLI 3: the call as the model made it, `{id, name, input}` (its `preToolUse`
    /// holds the same parameters with every value turned into a string).
    #[serde(rename = "tool_call")]
    pub cline_tool_call: Option<ClineToolCall>,
    /// Cline CLI 3: `{rootSessionId}`, the session whose messages file holds the task's
    /// calls and results (its `taskId` names a conversation, not a session).
    #[serde(rename = "sessionContext")]
    pub cline_session_context: Option<Value>,
    /// Cline CLI 3: the agent that spawned this one (`null` for the lead).
    #[serde(rename = "parent_agent_id")]
    pub cline_parent_agent_id: Option<Value>,
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

/// Cline CLI 3's `tool_call` object.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ClineToolCall {
    pub id: Option<String>,
    pub name: Option<String>,
    pub input: Option<Value>,
}

/// The tool name hookjudge gives Cursor's `beforeShellExecution`, which names no tool.
pub const CURSOR_SHELL: &str = "Shell";

impl HookInput {
    /// Parses hook stdin, saying what is wrong in terms a user can check.
    pub fn parse(stdin: &[u8]) -> Result<HookInput, ParseError> {
        if stdin.iter().all(u8::is_ascii_whitespace) {
            return Err(ParseError::Empty);
        }
        let mut input: HookInput = serde_json::from_slice(stdin).map_err(ParseError::NotJson)?;
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
        if self.copilot_stop_reason.is_some() && self.copilot_session_id.is_some() {
            // Copilot CLI's `agentStop` names no event: only it sends `stopReason`.
            fill(&mut self.hook_event_name, Some("agentStop".to_owned()));
        }
        fill(&mut self.cwd, first(&self.cursor_workspace_roots));
        fill(&mut self.cwd, first(&self.cline_workspace_roots));
        if self.tool_name.is_some() {
            return;
        }
        if let Some(name) = self.copilot_tool_name.clone() {
            // Copilot CLI sends the arguments as an object or a JSON string.
            let args = match self.copilot_tool_args.take() {
                Some(Value::String(s)) => serde_json::from_str(&s).ok().or(Some(Value::String(s))),
                args => args,
            };
            let (name, args) = copilot_file_tool(name, args);
            self.tool_input = args;
            self.tool_name = Some(name);
        } else if let Some(call) = self.cline_pre_tool_use.take() {
            // Cline CLI 3 sends the call's own input beside `preToolUse`, whose values are
            // strings (`commands` a JSON array in one): the call's input is read when there.
            let typed = self.cline_tool_call.take().unwrap_or_default();
            fill(&mut self.tool_use_id, typed.id);
            self.tool_name = typed.name.or(call.tool_name);
            // `preToolUse.parameters` holds a list of commands as a JSON string; the call's own
            // input holds a string as the one command it is.
            let from_parameters = typed.input.is_none();
            self.tool_input = typed.input.or(call.parameters);
            if self.tool_name.as_deref() == Some(CLINE_SHELL) {
                self.tool_input = self
                    .tool_input
                    .take()
                    .map(|input| cline_commands(input, from_parameters));
            }
            // Kept to tell the agent apart.
            self.cline_pre_tool_use = Some(ClinePreToolUse::default());
        } else if let Some(command) = self.cursor_command.clone() {
            self.tool_name = Some(CURSOR_SHELL.to_owned());
            self.tool_input = Some(json!({ "command": command }));
        }
    }

    /// Which agent sent this, from the event name and the fields only one agent sends. Qwen
    /// Code and Factory Droid are told apart from Claude Code by their shell tool's name (or
    /// Qwen's `context_limit` and Droid's `message_id` at `Stop`); an entry passes `--agent` in
    /// any case.
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
            // Droid's `Stop` names its final message in the session file.
            "Stop" | "SubagentStop" if self.message_id.is_some() => Some(Agent::Droid),
            "Stop" | "SubagentStop" | "PreToolUse" => Some(Agent::Claude),
            _ => None,
        }
    }

    /// Whether this is a stop-like event (the end of an agent's response).
    pub fn is_stop_event(&self) -> bool {
        matches!(
            self.hook_event_name.as_deref(),
            Some("Stop" | "SubagentStop" | "AfterAgent" | "agentStop")
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
            crate::support::paths::expand_home(path, home.as_deref())
                .unwrap_or_else(|| PathBuf::from(path))
        })
    }

    /// Copilot CLI's session file: `transcriptPath` when sent (`agentStop`), else the file of
    /// the session `sessionId` names under `copilot_home` (`$COPILOT_HOME`) or `home`'s
    /// `.copilot` (its `preToolUse` names no file).
    pub fn copilot_session(
        &self,
        copilot_home: Option<&std::path::Path>,
        home: Option<&std::path::Path>,
    ) -> Option<PathBuf> {
        self.stop_transcript().or_else(|| {
            crate::transcript::copilot::session_file(
                self.session_id.as_deref()?,
                copilot_home,
                home,
            )
        })
    }

    /// Cline CLI 3's messages file: that of the session `sessionContext.rootSessionId` names,
    /// in the sessions folder that `env` (the environment) and `home` give. None for a
    /// subagent's call (`parent_agent_id` set): its own file is written only when it ends.
    pub fn cline_session(
        &self,
        env: impl Fn(&str) -> Option<std::ffi::OsString>,
        home: Option<&std::path::Path>,
    ) -> Option<PathBuf> {
        if self
            .cline_parent_agent_id
            .as_ref()
            .is_some_and(|p| !p.is_null() && p != "")
        {
            return None;
        }
        let context = self.cline_session_context.as_ref()?;
        crate::transcript::cline::session_file(context["rootSessionId"].as_str()?, env, home)
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

/// The shell tool's name in each agent (Claude Code and Codex `Bash`, Gemini CLI and Qwen
/// Code `run_shell_command`, Copilot CLI and Crush `bash`, Factory Droid `Execute`, Cline
/// `execute_command` (Cline CLI 3 `run_commands`), Cursor [`CURSOR_SHELL`], and Codex's older
/// names).
pub const SHELL_TOOLS: [&str; 10] = [
    "Bash",
    "run_shell_command",
    "shell",
    "local_shell",
    "exec_command",
    "bash",
    "Execute",
    "execute_command",
    CLINE_SHELL,
    CURSOR_SHELL,
];

/// Whether a pre-tool event concerns the shell tool ([`SHELL_TOOLS`]).
pub fn is_shell_tool(input: &HookInput) -> bool {
    input
        .tool_name
        .as_deref()
        .is_some_and(|name| SHELL_TOOLS.contains(&name))
}

/// The command of a shell tool call. Cline CLI 3's `run_commands` runs several
/// ([`cline_commands_run`]): the gate reads each on its own, and this is them one per line
/// (what the log shows).
pub fn shell_command(input: &HookInput) -> Option<String> {
    let tool_input = input.tool_input.as_ref()?;
    if input.tool_name.as_deref() == Some(CLINE_SHELL) {
        return cline_commands_run(input).map(|run| run.join("\n"));
    }
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

/// A shell call's tool input with its command replaced by `line(command)`, where `command` is
/// what the gate read of it, in the shape the agent runs it: `command`, or for Cline CLI 3 each
/// command it runs ([`cline_commands_run`]) by `line` of it. `None` for an input the agent
/// would not take back rewritten (Cline's `execute_command`: the VS Code extension reads no
/// `overrideInput`).
pub fn rewritten_input(
    agent: Agent,
    input: &HookInput,
    command: &str,
    line: impl Fn(&str) -> String,
) -> Option<Value> {
    let tool_input = input.tool_input.as_ref();
    if agent == Agent::Cline {
        let run = cline_commands_run(input)?;
        let mut rewritten = tool_input?.clone();
        rewritten["commands"] = run.iter().map(|c| Value::String(line(c))).collect();
        return Some(rewritten);
    }
    let mut input = tool_input
        .filter(|i| i.is_object())
        .cloned()
        .unwrap_or_else(|| json!({}));
    input["command"] = Value::String(line(command));
    Some(input)
}

pub(super) fn shell_quote(word: &str) -> String {
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

/// Why hook stdin is not an agent's hook input.
#[derive(Debug)]
pub enum ParseError {
    /// Nothing but whitespace arrived.
    Empty,
    /// What arrived is not the JSON object an agent sends.
    NotJson(serde_json::Error),
}

/// Copilot CLI's file tools, read as the shared ones the gate knows (its `preToolUse` comes for
/// every tool): `create` (`path`, `file_text`) as `Create` (`content`), `edit` and
/// `str_replace` (`path`, `old_str`, `new_str`) as `Edit`, `str_replace_editor` by its `command`
/// (`create`, `str_replace`, `insert`; `view` stays a read), and `apply_patch`, whose arguments
/// are the patch itself (a string, as Copilot CLI 1.0.102 sends it; tests/e2e), with the patch as
/// `input`. Any other tool as it came.
fn copilot_file_tool(name: String, args: Option<Value>) -> (String, Option<Value>) {
    let does = match name.as_str() {
        "str_replace_editor" => args
            .as_ref()
            .and_then(|a| a["command"].as_str())
            .unwrap_or("")
            .to_owned(),
        "create" | "edit" | "str_replace" | "apply_patch" => name.clone(),
        _ => return (name, args),
    };
    match (does.as_str(), args) {
        ("apply_patch", Some(Value::String(patch))) => {
            ("apply_patch".to_owned(), Some(json!({ "input": patch })))
        }
        ("apply_patch", args) => (name, args),
        ("create", Some(mut args)) => {
            if let Some(fields) = args.as_object_mut()
                && let Some(text) = fields.get("file_text").cloned()
            {
                fields.insert("content".to_owned(), text);
            }
            ("Create".to_owned(), Some(args))
        }
        ("edit" | "str_replace" | "insert", args) => ("Edit".to_owned(), args),
        (_, args) => (name, args),
    }
}

/// The agents' file-writing tools (Factory Droid's are `Create`, an `Edit` with `old_str` and
/// `new_str`, and `ApplyPatch` with Codex's patch format in `input`; Cline CLI 3's `editor`
/// takes `path`, `old_text`, `new_text` and `insert_line`).
pub const FILE_TOOLS: [&str; 9] = [
    "Write",
    "editor",
    "Create",
    "ApplyPatch",
    "Edit",
    "MultiEdit",
    "apply_patch",
    "write_file",
    "replace",
];

/// Whether `tool` is one of the agents' file-writing tools.
pub fn is_file_tool(tool: &str) -> bool {
    FILE_TOOLS.contains(&tool)
}
