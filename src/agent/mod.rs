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

mod answer;
mod cline;
pub mod human;
mod input;

pub use answer::{
    ASK_THE_USER, GateOutcome, StopOutcome, TELL_THE_PERSON, confined_output, gate_output,
    refusal_command, stop_block, stop_notice, told_reason,
};
pub use cline::{CLINE_SHELL, cline_commands_run, replaced_commands};
pub use input::{
    CURSOR_SHELL, ClinePreToolUse, FILE_TOOLS, HookInput, ParseError, SHELL_TOOLS, is_file_tool,
    is_shell_tool, rewritten_input, shell_command,
};

use std::fmt;

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
    /// Whether the agent runs the command a pre-tool hook hands back in place of its own, as
    /// checked with the real client (`boundary.mode` `landlock` needs it): otherwise its
    /// commands run outside hookjudge's boundary, and `doctor` says so.
    pub takes_rewrite: bool,
    /// Whether the gate refuses a shell command by handing back, in its place, one that prints
    /// the reason and fails: the agent's own refusal ends the whole run, and neither the model
    /// nor the person learns why. Only for a call whose input can be rewritten
    /// ([`replaced_commands`]); any other is refused in the agent's own way.
    pub refuses_in_place: bool,
    /// What hookjudge does at the end of a turn for this agent.
    pub turn_end: TurnEnd,
    /// Where `init` writes this agent's hooks.
    pub hook_files: HookFiles,
}

/// The files that hold an agent's hooks, as `init` writes them: relative to the repository
/// root (`project`, `local`) and to the home folder (`user`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookFiles {
    /// The repository's committed file (team mode).
    pub project: &'static str,
    /// This user in this checkout.
    pub local: LocalFile,
    /// Every project of this user.
    pub user: &'static str,
    /// The environment variable that moves the folder `user` starts with (`CODEX_HOME` for
    /// `~/.codex`), when the agent has one.
    pub home_var: Option<&'static str>,
}

/// Where a local install goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalFile {
    /// A file of the agent's own for one checkout, kept out of git.
    Own(&'static str),
    /// The agent reads no per-checkout file: the project file, kept out of git by the clone's
    /// exclude file.
    Project,
    /// No per-checkout place at all: the user's file.
    User,
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
        takes_rewrite: true,
        refuses_in_place: false,
        turn_end: TurnEnd::Judged,
        hook_files: HookFiles {
            project: ".claude/settings.json",
            local: LocalFile::Own(".claude/settings.local.json"),
            user: ".claude/settings.json",
            home_var: None,
        },
    },
    Contract {
        name: "codex",
        display_name: "Codex CLI",
        config_dir: ".codex",
        can_ask: false,
        takes_rewrite: true,
        refuses_in_place: false,
        turn_end: TurnEnd::Judged,
        hook_files: HookFiles {
            project: ".codex/hooks.json",
            local: LocalFile::Project,
            user: ".codex/hooks.json",
            home_var: Some("CODEX_HOME"),
        },
    },
    // `"decision":"ask"` waits forever in headless runs for a confirmation nothing sends.
    Contract {
        name: "gemini",
        display_name: "Gemini CLI",
        config_dir: ".gemini",
        can_ask: false,
        takes_rewrite: true,
        refuses_in_place: false,
        turn_end: TurnEnd::Judged,
        hook_files: HookFiles {
            project: ".gemini/settings.json",
            local: LocalFile::Project,
            user: ".gemini/settings.json",
            home_var: None,
        },
    },
    // An ask is a deny in headless (`--prompt`) runs and background subagents. Qwen Code 0.15
    // sends `stop_hook_active: true` on every Stop and no prompt id, so the loop breaker counts
    // a whole session as one prompt (exact for headless runs).
    Contract {
        name: "qwen",
        display_name: "Qwen Code",
        config_dir: ".qwen",
        can_ask: false,
        takes_rewrite: false,
        refuses_in_place: false,
        turn_end: TurnEnd::Judged,
        hook_files: HookFiles {
            project: ".qwen/settings.json",
            local: LocalFile::Project,
            user: ".qwen/settings.json",
            home_var: None,
        },
    },
    // `droid exec` (headless) runs a command its PreToolUse hook answers `ask` for, as if
    // allowed (seen with the real Droid 0.215, tests/e2e): an ask is a deny telling the agent
    // to ask the user. Its `Stop` names the final message in the session file
    // (`transcript::droid`).
    Contract {
        name: "droid",
        display_name: "Factory Droid",
        config_dir: ".factory",
        can_ask: false,
        takes_rewrite: true,
        refuses_in_place: false,
        turn_end: TurnEnd::Judged,
        hook_files: HookFiles {
            project: ".factory/settings.json",
            local: LocalFile::Project,
            user: ".factory/settings.json",
            home_var: None,
        },
    },
    // `agentStop` sends no message text: it names the session's `events.jsonl` in
    // `transcriptPath`, where the final text and the turn's facts are read
    // (`transcript::copilot`), and Copilot CLI 1.0.102 sends a `{"decision":"block"}` answer's
    // reason on as the next message (tests/e2e). Hooks: `.github/hooks/*.json` in the repository and `*.json` in `~/.copilot/hooks/`
    // (`$COPILOT_HOME/hooks/`), `{"version": 1, "hooks": {EVENT: [handler]}}` with no matcher
    // groups; github/docs content/copilot/reference/hooks-reference.md (2026). Its folder at
    // home is `.copilot`: every GitHub repository has a `.github`, which says nothing of it.
    // An ask is a deny in `-p` runs: Copilot CLI 1.0.102 tells the model "Denied by preToolUse
    // hook (unable to ask user for confirmation): REASON" (tests/e2e), so the agent is told to
    // ask the user.
    Contract {
        name: "copilot",
        display_name: "Copilot CLI",
        config_dir: ".copilot",
        can_ask: false,
        takes_rewrite: true,
        refuses_in_place: false,
        turn_end: TurnEnd::Judged,
        hook_files: HookFiles {
            project: ".github/hooks/hookjudge.json",
            local: LocalFile::Project,
            user: ".copilot/hooks/hookjudge.json",
            home_var: Some("COPILOT_HOME"),
        },
    },
    // `stop` carries no text: `afterAgentResponse`'s is kept for it (see `hook::cursor`).
    // Hooks: `.cursor/hooks.json` and `~/.cursor/hooks.json`, `{"version": 1, "hooks":
    // {EVENT: [{command, timeout}]}}` (cursor.com/docs/agent/hooks).
    Contract {
        name: "cursor",
        display_name: "Cursor",
        config_dir: ".cursor",
        can_ask: true,
        takes_rewrite: false,
        refuses_in_place: false,
        turn_end: TurnEnd::Judged,
        hook_files: HookFiles {
            project: ".cursor/hooks.json",
            local: LocalFile::Project,
            user: ".cursor/hooks.json",
            home_var: None,
        },
    },
    // No turn-end event; the JSON answer has no ask. Hooks: `crush.json` (`.crush.json` is
    // read too, after it) in the project and the user's `crush/crush.json`, `{"hooks":
    // {"PreToolUse": [{matcher, command, timeout}]}}`, JSON with comments, timeouts in seconds
    // (charmbracelet/crush docs/hooks/README.md, internal/config/load.go).
    Contract {
        name: "crush",
        display_name: "Crush",
        config_dir: ".crush",
        can_ask: false,
        takes_rewrite: false,
        refuses_in_place: false,
        turn_end: TurnEnd::NotJudged,
        hook_files: HookFiles {
            project: "crush.json",
            local: LocalFile::Project,
            user: ".config/crush/crush.json",
            // internal/config/load.go `globalConfig`: `$XDG_CONFIG_HOME/crush/crush.json`.
            home_var: Some("XDG_CONFIG_HOME"),
        },
    },
    // `TaskComplete` has no text and cannot continue the task. Hooks: an executable file named
    // for its event in `.clinerules/hooks/` or `~/Documents/Cline/Hooks/` (docs.cline.bot
    // customization/hooks), which `init` writes whole. Cline CLI 3 (`@cline/core`) turns a
    // `cancel` into a stop of the whole run and replaces a call's input with `overrideInput`
    // (tests/e2e): its `run_commands` are rewritten, to run confined or to be refused in place.
    // The VS Code extension's `execute_command` reads no `overrideInput`: it is refused with
    // `cancel` and never rewritten.
    Contract {
        name: "cline",
        display_name: "Cline",
        config_dir: ".clinerules",
        can_ask: false,
        takes_rewrite: true,
        refuses_in_place: true,
        turn_end: TurnEnd::NotJudged,
        hook_files: HookFiles {
            project: ".clinerules/hooks/PreToolUse",
            local: LocalFile::Project,
            user: "Documents/Cline/Hooks/PreToolUse",
            home_var: None,
        },
    },
    // The plugin blocks by throwing; `session.idle` cannot continue the session. OpenCode
    // 1.18 loads `plugin/*.js` from `.opencode/` in the project and from its folder in
    // `$XDG_CONFIG_HOME` (checked with the real client, tests/e2e).
    Contract {
        name: "opencode",
        display_name: "OpenCode",
        config_dir: ".opencode",
        can_ask: false,
        takes_rewrite: true,
        refuses_in_place: false,
        turn_end: TurnEnd::NotJudged,
        hook_files: HookFiles {
            project: ".opencode/plugin/hookjudge.js",
            local: LocalFile::User,
            user: ".config/opencode/plugin/hookjudge.js",
            home_var: Some("XDG_CONFIG_HOME"),
        },
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

    /// The agents whose hooks `init` writes into a settings file: Claude Code's shape
    /// (`{"hooks": {EVENT: [{matcher, hooks: [...]}]}}`), or a flat list of handlers per event;
    /// each agent's template says which.
    pub const INSTALLABLE: [Agent; 8] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Droid,
        Agent::Copilot,
        Agent::Cursor,
        Agent::Crush,
    ];

    /// The agents `init` installs for: [`Agent::INSTALLABLE`], and those whose hooks are files
    /// `init` writes whole (see `install::settings::owned_path`).
    pub const INIT: [Agent; 10] = [
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
    /// moved by `CODEX_HOME`, Copilot CLI's by `COPILOT_HOME`; see [`HookFiles::home_var`]).
    pub fn config_dir(self) -> &'static str {
        self.contract().config_dir
    }

    /// Where `init` writes this agent's hooks.
    pub fn hook_files(self) -> &'static HookFiles {
        &self.contract().hook_files
    }

    /// Whether the agent's settings give hook timeouts in milliseconds (else seconds: Copilot
    /// CLI's `timeoutSec`, Cursor's and Crush's `timeout`).
    pub fn timeouts_in_ms(self) -> bool {
        matches!(self, Agent::Gemini | Agent::Qwen)
    }

    /// Whether this agent runs a command its pre-tool hook rewrote (see [`Contract`]).
    pub fn takes_rewrite(self) -> bool {
        self.contract().takes_rewrite
    }

    /// Whether the gate refuses this agent's shell commands in place (see [`Contract`]).
    pub fn refuses_in_place(self) -> bool {
        self.contract().refuses_in_place
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

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
        // Copilot CLI's `toolArgs`: a JSON string in its hooks reference, an object from the
        // real CLI (1.0.102) and the SDK.
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
        // Cline CLI 3.0.65, as the real CLI sends it: `run_commands` takes a list, typed in
        // `tool_call.input`, a JSON string in `preToolUse.parameters` (read when alone).
        for call in [
            r#""tool_call":{"id":"call_1","name":"run_commands","input":{"commands":["make test","git push"]}},"#,
            "",
        ] {
            let cli = parse(&format!(
                r#"{{"hookName":"tool_call","taskId":"conv_1","workspaceRoots":["/w"],{call}"preToolUse":{{"toolName":"run_commands","parameters":{{"commands":"[\"make test\",\"git push\"]"}}}}}}"#
            ));
            assert!(is_shell_tool(&cli), "{call}");
            assert_eq!(
                shell_command(&cli).as_deref(),
                Some("make test\ngit push"),
                "{call}"
            );
            assert_eq!(cli.detect_agent(), Some(Agent::Cline));
            assert_eq!(
                (cli.cwd.as_deref(), cli.session_id.as_deref()),
                (Some("/w"), Some("conv_1"))
            );
            let id = (!call.is_empty()).then_some("call_1");
            assert_eq!(cli.tool_use_id.as_deref(), id);
        }
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
            assert!(Agent::INIT.contains(&agent), "{agent}");
        }
        // Each agent's hooks have a file of their own in each scope.
        let mut projects: Vec<&str> = Agent::ALL.iter().map(|a| a.hook_files().project).collect();
        projects.sort_unstable();
        projects.dedup();
        assert_eq!(projects.len(), Agent::ALL.len());
    }

    #[test]
    fn bad_stdin_is_explained() {
        let err = |bytes: &[u8]| HookInput::parse(bytes).unwrap_err();
        assert!(matches!(err(b""), ParseError::Empty));
        assert!(matches!(err(b"  \n"), ParseError::Empty));
        assert!(matches!(err(b"not json"), ParseError::NotJson(_)));
        assert!(matches!(err(b"[1]"), ParseError::NotJson(_)));
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
            assert_eq!(answer["systemMessage"], crate::agent::TELL_THE_PERSON);
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
