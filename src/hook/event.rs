//! One typed event per agent hook input, parsed once by the hook runner.
//!
//! The three agents send different shapes for the same moments: the end of a response (Claude
//! Code and Codex `Stop`/`SubagentStop`, Gemini CLI `AfterAgent`) and a tool call about to run
//! (`PreToolUse`, Gemini `BeforeTool`). [`Event`] says which moment it is, which agent sent it
//! and where the response text or the command is, so no hook reads the raw JSON again.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::{self, Agent, HookInput};
use crate::hook::InputError;
pub use crate::stop::response::{Response, Stop};

/// What every event says about where it comes from, as logged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// `hook_event_name` as sent.
    pub name: Option<String>,
    pub session: Option<String>,
    pub cwd: Option<String>,
}

impl Origin {
    fn of(input: &HookInput) -> Origin {
        Origin {
            name: input.hook_event_name.clone(),
            session: input.session_id.clone(),
            cwd: input.cwd.clone(),
        }
    }

    /// The project directory: the event's `cwd`, else this process's.
    pub fn project_dir(&self) -> PathBuf {
        self.cwd
            .as_deref()
            .map(PathBuf::from)
            .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
    }
}

/// One hook input.
#[derive(Debug, Clone)]
pub struct Event {
    /// From `--agent`, else detected from the input.
    pub agent: Agent,
    pub origin: Origin,
    pub kind: Kind,
}

/// Which moment an event is.
#[derive(Debug, Clone)]
pub enum Kind {
    /// A response ended: `Stop`, `SubagentStop`, `AfterAgent`.
    Stop(Stop),
    /// A tool is about to run: `PreToolUse`, `BeforeTool` (whatever the gate is sent).
    Tool(Box<Tool>),
    /// An event no hookjudge entry handles (an entry wired to the wrong event).
    Other,
    /// An event whose text was kept for the turn's end (Cursor's `afterAgentResponse`; see
    /// [`crate::hook::cursor`]): nothing to answer or log.
    Recorded,
}

/// A tool call about to run.
#[derive(Debug, Clone)]
pub struct Tool {
    /// The session transcript, when the agent names one.
    pub transcript: Option<PathBuf>,
    pub call: Call,
    /// The input as sent, for the checks that read a file tool's own arguments.
    pub input: HookInput,
}

/// What the tool call is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// A tool that writes files (`Edit`, `Write`, `apply_patch`, …).
    File,
    /// The shell tool, with its command when the input has one, and Gemini's `dir_path`.
    Shell {
        command: Option<String>,
        dir_path: Option<String>,
    },
    /// Any other tool: nothing hookjudge gates.
    Other,
}

impl Call {
    /// The directory a shell command runs in: Gemini's `run_shell_command` takes a `dir_path`,
    /// resolved against the project directory, as `cd dir_path && command` would be.
    pub fn shell_dir(&self, project: &Path) -> PathBuf {
        match self {
            Call::Shell {
                dir_path: Some(dir),
                ..
            } if !dir.is_empty() => project.join(
                crate::support::paths::expand_home(
                    dir,
                    std::env::var_os("HOME")
                        .map(std::path::PathBuf::from)
                        .as_deref(),
                )
                .unwrap_or_else(|| std::path::PathBuf::from(dir)),
            ),
            _ => project.to_path_buf(),
        }
    }
}

impl Event {
    /// Parses hook stdin. `hint` is `--agent`; without it the agent is detected, and an event
    /// that names no known agent is an error. `stop` hooks read the input as the end of a
    /// response whenever `--agent` is given (the entry says what it is wired to).
    pub fn parse(stdin: &[u8], hint: Option<Agent>, stop: bool) -> Result<Event, InputError> {
        let input = HookInput::parse(stdin)?;
        let origin = Origin::of(&input);
        let agent = match hint.or_else(|| input.detect_agent()) {
            Some(agent) => agent,
            // The gate asks a human whoever sent it; the Claude Code shape is the default.
            None if !stop => Agent::Claude,
            None => return Err(InputError::UnknownAgent(Box::new(origin))),
        };
        let kind = if stop && agent == Agent::Cursor {
            cursor_turn_end(&input)
        } else if input.is_stop_event() || (stop && hint.is_some()) {
            Kind::Stop(Stop::of(agent, &input))
        } else if !stop {
            // The gate reads any event naming a tool: the matcher in the agent's settings chose it.
            Kind::Tool(Box::new(Tool::of(agent, input)))
        } else {
            Kind::Other
        };
        Ok(Event {
            agent,
            origin,
            kind,
        })
    }
}

/// Cursor's Stop entry: `afterAgentResponse` keeps the message, `stop` judges the one kept
/// (when the turn completed; an aborted or failed one is not sent back to work).
fn cursor_turn_end(input: &HookInput) -> Kind {
    let state_dir = crate::support::dirs::state_dir();
    let conversation = input.session_id.as_deref().unwrap_or("");
    match input.hook_event_name.as_deref() {
        Some("afterAgentResponse") => {
            if let Some(text) = &input.text {
                // Unkept, the turn's end judges nothing: the turn ends as it would without us.
                let _ = crate::hook::cursor::record(&state_dir, conversation, text);
            }
            Kind::Recorded
        }
        Some("stop") => {
            let text = crate::hook::cursor::take(&state_dir, conversation);
            Kind::Stop(Stop {
                prompt: None,
                stop_hook_active: input.loop_count.unwrap_or(0) > 0,
                // Cursor's transcript format is not documented: no session facts.
                session_file: None,
                response: Response::LastMessage {
                    text: text.filter(|_| input.status.as_deref() == Some("completed")),
                    rollout: None,
                },
            })
        }
        _ => Kind::Other,
    }
}

/// Copilot CLI's session file, from the input and the environment.
fn copilot_session(input: &HookInput) -> Option<PathBuf> {
    let copilot_home = std::env::var_os("COPILOT_HOME").map(PathBuf::from);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    input.copilot_session(copilot_home.as_deref(), home.as_deref())
}

impl Stop {
    fn of(agent: Agent, input: &HookInput) -> Stop {
        let last = input.last_assistant_message.clone();
        if agent == Agent::Copilot {
            return Stop::of_copilot(input, copilot_session(input));
        }
        Stop {
            prompt: input.prompt_key(),
            stop_hook_active: input.stop_hook_active.unwrap_or(false),
            session_file: input.stop_transcript(),
            response: match agent {
                Agent::Claude => Response::Transcript {
                    path: input.stop_transcript(),
                    last_message: last,
                },
                Agent::Codex => Response::LastMessage {
                    text: last,
                    rollout: input
                        .transcript_path
                        .as_deref()
                        .filter(|p| !p.is_empty())
                        .map(PathBuf::from),
                },
                Agent::Gemini => Response::Turn {
                    text: input.prompt_response.clone().or(last),
                    request: input.prompt.clone(),
                },
                // Droid 0.215 sends no text: the message `message_id` names is read from its
                // session file (an input that has the text is read as it is).
                Agent::Droid => Response::LastMessage {
                    text: last.or_else(|| {
                        let path = input.stop_transcript()?;
                        crate::transcript::droid::final_text(&path, input.message_id.as_deref())
                    }),
                    rollout: None,
                },
                // Their transcripts' formats are not documented: only the last message is
                // judged (Qwen Code sends it; the others send no text). Copilot CLI's is read
                // by `of_copilot`.
                Agent::Qwen
                | Agent::Copilot
                | Agent::Cursor
                | Agent::Crush
                | Agent::Cline
                | Agent::OpenCode => Response::LastMessage {
                    text: last,
                    rollout: None,
                },
            },
        }
    }
}

impl Stop {
    /// Copilot CLI's `agentStop` sends no text and no prompt id, and `stop_hook_active` false
    /// after a block: the final text, and the prompt the loop breaker counts by, are read from
    /// its session file (`session`). A turn that did not end of itself (`stopReason` other than
    /// `end_turn`) is not sent back to work.
    fn of_copilot(input: &HookInput, session: Option<PathBuf>) -> Stop {
        let ended = input
            .copilot_stop_reason
            .as_deref()
            .is_none_or(|r| r == "end_turn");
        if let Some(path) = session.as_deref().filter(|_| ended) {
            let since = input.copilot_timestamp.as_ref().and_then(Value::as_i64);
            crate::transcript::copilot::wait_for_hook(path, "agentStop", since);
        }
        let text = input
            .last_assistant_message
            .clone()
            .or_else(|| crate::transcript::copilot::final_text(session.as_deref()?));
        Stop {
            prompt: input
                .prompt_key()
                .or_else(|| crate::transcript::copilot::prompt_key(session.as_deref()?)),
            stop_hook_active: input.stop_hook_active.unwrap_or(false),
            session_file: session,
            response: Response::LastMessage {
                text: text.filter(|_| ended),
                rollout: None,
            },
        }
    }
}

impl Tool {
    fn of(agent: Agent, input: HookInput) -> Tool {
        let call = if input
            .tool_name
            .as_deref()
            .is_some_and(crate::agent::is_file_tool)
        {
            Call::File
        } else if agent::is_shell_tool(&input) {
            Call::Shell {
                command: agent::shell_command(&input),
                dir_path: input
                    .tool_input
                    .as_ref()
                    .and_then(|t| t["dir_path"].as_str())
                    .map(str::to_owned),
            }
        } else {
            Call::Other
        };
        // The session files whose format the evidence reader knows; another agent's is not
        // read (its commands are judged on repository facts alone).
        let readable = matches!(
            agent,
            Agent::Claude | Agent::Codex | Agent::Gemini | Agent::Droid
        );
        let transcript = if agent == Agent::Copilot {
            // Copilot CLI's `preToolUse` names no file: it is found from the session id.
            copilot_session(&input)
        } else if agent == Agent::Cline {
            // Nor does Cline's: it is found from the root session's id.
            let home = std::env::var_os("HOME").map(PathBuf::from);
            input.cline_session(|var| std::env::var_os(var), home.as_deref())
        } else {
            input
                .transcript_path
                .as_deref()
                .filter(|p| readable && !p.is_empty())
                .map(PathBuf::from)
        };
        Tool {
            transcript,
            call,
            input,
        }
    }

    /// The shell command, when this is a shell call that has one.
    pub fn command(&self) -> Option<&str> {
        match &self.call {
            Call::Shell {
                command: Some(c), ..
            } => Some(c),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop(json: &str, hint: Option<Agent>) -> Result<Event, InputError> {
        Event::parse(json.as_bytes(), hint, true)
    }

    #[test]
    fn each_agent_stop_input_says_where_its_text_is() {
        let claude = stop(
            r#"{"hook_event_name":"SubagentStop","session_id":"s","transcript_path":"/p.jsonl","agent_transcript_path":"/a.jsonl","last_assistant_message":"done","prompt_id":"p"}"#,
            None,
        )
        .unwrap();
        assert_eq!(claude.agent, Agent::Claude);
        assert_eq!(claude.origin.session.as_deref(), Some("s"));
        let Kind::Stop(s) = &claude.kind else {
            panic!("{claude:?}")
        };
        assert_eq!(s.prompt.as_deref(), Some("p"));
        assert_eq!(
            s.response,
            Response::Transcript {
                path: Some(PathBuf::from("/a.jsonl")),
                last_message: Some("done".into())
            }
        );
        let codex = stop(
            r#"{"hook_event_name":"Stop","turn_id":"t","transcript_path":"/r.jsonl","last_assistant_message":"ok","stop_hook_active":true}"#,
            None,
        )
        .unwrap();
        let Kind::Stop(s) = &codex.kind else {
            panic!("{codex:?}")
        };
        assert_eq!(
            (codex.agent, s.stop_hook_active, &s.response),
            (
                Agent::Codex,
                true,
                &Response::LastMessage {
                    text: Some("ok".into()),
                    rollout: Some(PathBuf::from("/r.jsonl"))
                }
            )
        );
        let gemini = stop(
            r#"{"hook_event_name":"AfterAgent","prompt":"fix","prompt_response":"all of it"}"#,
            None,
        )
        .unwrap();
        let Kind::Stop(s) = &gemini.kind else {
            panic!("{gemini:?}")
        };
        assert_eq!(
            s.response,
            Response::Turn {
                text: Some("all of it".into()),
                request: Some("fix".into())
            }
        );
        assert!(s.prompt.as_deref().unwrap().starts_with("prompt-"));
    }

    /// A Copilot CLI session in the shape Copilot CLI 1.0.102 writes it: the human's prompt,
    /// a block's reason sent on as a message, and the assistant's last text.
    const COPILOT_SESSION: &str = r#"{"type":"session.start","data":{"sessionId":"s1","copilotVersion":"1.0.102"},"id":"e1","parentId":null}
{"type":"user.message","data":{"content":"continue","transformedContent":"<current_datetime>t</current_datetime>\n\ncontinue","messageId":"u1","interactionId":"i1"},"id":"e2"}
{"type":"assistant.message","data":{"messageId":"m1","content":"All done. I'll commit and push now.","toolRequests":[],"turnId":"0"},"id":"e3"}
{"type":"user.message","data":{"content":"hookjudge [commit]: you said you would push","messageId":"u2"},"id":"e4"}
{"type":"assistant.message","data":{"messageId":"m2","content":"Tests: 42 passed.","toolRequests":[],"turnId":"1"},"id":"e5"}
{"type":"assistant.turn_end","data":{"turnId":"1"},"id":"e6"}
{"type":"hook.start","data":{"hookType":"agentStop","input":{"sessionId":"s1"}},"id":"e7"}
"#;

    #[test]
    fn copilot_agent_stop_reads_its_text_and_prompt_from_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(&path, COPILOT_SESSION).unwrap();
        let input = |reason: &str| {
            format!(
                r#"{{"sessionId":"s1","timestamp":1796303578013,"cwd":"/p","transcriptPath":{},"stopReason":"{reason}","stop_hook_active":false}}"#,
                serde_json::to_string(&path).unwrap()
            )
        };
        let event = stop(&input("end_turn"), None).unwrap();
        assert_eq!(event.agent, Agent::Copilot);
        assert_eq!(event.origin.name.as_deref(), Some("agentStop"));
        let Kind::Stop(s) = &event.kind else {
            panic!("{event:?}")
        };
        assert_eq!(
            s.response,
            Response::LastMessage {
                text: Some("Tests: 42 passed.".into()),
                rollout: None
            }
        );
        assert_eq!(
            s.prompt.as_deref(),
            Some("copilot-u1"),
            "not the block's reason"
        );
        assert_eq!(s.session_file.as_deref(), Some(path.as_path()));
        // A turn that did not end of itself is not judged.
        let event = stop(&input("aborted"), Some(Agent::Copilot)).unwrap();
        let Kind::Stop(s) = &event.kind else {
            panic!("{event:?}")
        };
        assert_eq!(
            s.response,
            Response::LastMessage {
                text: None,
                rollout: None
            }
        );
    }

    #[test]
    fn copilot_pre_tool_use_finds_its_session_from_the_id() {
        let input = HookInput::parse(
            br#"{"sessionId":"fc05dfb1-044a","timestamp":1,"cwd":"/p","toolName":"bash","toolArgs":{"command":"git push"}}"#,
        )
        .unwrap();
        assert_eq!(
            input.copilot_session(None, Some(Path::new("/home/u"))),
            Some(PathBuf::from(
                "/home/u/.copilot/session-state/fc05dfb1-044a/events.jsonl"
            ))
        );
        assert_eq!(
            input.copilot_session(Some(Path::new("/c")), Some(Path::new("/home/u"))),
            Some(PathBuf::from("/c/session-state/fc05dfb1-044a/events.jsonl"))
        );
        let Kind::Tool(tool) = Event::parse(
            br#"{"sessionId":"s1","toolName":"bash","toolArgs":{"command":"git push"}}"#,
            Some(Agent::Copilot),
            false,
        )
        .unwrap()
        .kind
        else {
            panic!()
        };
        assert!(
            tool.transcript
                .as_deref()
                .is_some_and(|p| p.ends_with("session-state/s1/events.jsonl")),
            "{:?}",
            tool.transcript
        );
    }

    #[test]
    fn cline_pre_tool_use_finds_its_session_from_the_root_session_id() {
        // As Cline CLI 3.0.65 sends it (cut): `taskId` names a conversation, not the session.
        let input = br#"{"clineVersion":"","timestamp":"2026-12-03T14:41:01.096Z","taskId":"conv_1796308860818_sqjuazb","sessionContext":{"rootSessionId":"1796308860687_0s48g"},"workspaceRoots":["/p"],"agent_id":"agent_1","parent_agent_id":null,"hookName":"tool_call","iteration":2,"tool_call":{"id":"call_2c99f206a362","name":"run_commands","input":{"commands":["git push origin main"]}},"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"git push origin main\"]"}}}"#;
        let parsed = HookInput::parse(input).unwrap();
        assert_eq!(
            parsed.cline_session(|_| None, Some(Path::new("/home/u"))),
            Some(PathBuf::from(
                "/home/u/.cline/data/sessions/1796308860687_0s48g/1796308860687_0s48g.messages.json"
            ))
        );
        let Kind::Tool(tool) = Event::parse(input, Some(Agent::Cline), false).unwrap().kind else {
            panic!()
        };
        assert!(
            tool.transcript.as_deref().is_some_and(
                |p| p.ends_with("1796308860687_0s48g/1796308860687_0s48g.messages.json")
            ),
            "{:?}",
            tool.transcript
        );
        assert_eq!(tool.input.tool_use_id.as_deref(), Some("call_2c99f206a362"));
        // A subagent's call (`spawn_agent`): its own file is written only when it ends, and
        // the root session's does not show what it did.
        let sub = String::from_utf8_lossy(input).replace(
            r#""parent_agent_id":null"#,
            r#""parent_agent_id":"agent_1""#,
        );
        assert_eq!(
            HookInput::parse(sub.as_bytes())
                .unwrap()
                .cline_session(|_| None, Some(Path::new("/h"))),
            None
        );
        let without = br#"{"hookName":"tool_call","taskId":"t","tool_call":{"id":"c","name":"run_commands","input":{"commands":["ls"]}},"preToolUse":{"toolName":"run_commands"}}"#;
        let Kind::Tool(tool) = Event::parse(without, Some(Agent::Cline), false)
            .unwrap()
            .kind
        else {
            panic!()
        };
        assert_eq!(tool.transcript, None);
    }

    #[test]
    fn a_stop_entry_needs_an_agent_and_reads_other_events_as_other() {
        let err = stop(r#"{"hook_event_name":"SessionStart","cwd":"/w"}"#, None).unwrap_err();
        let InputError::UnknownAgent(origin) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(origin.cwd.as_deref(), Some("/w"));
        assert!(err.to_string().contains("`SessionStart`; pass `--agent`"));
        let tool = stop(
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#,
            None,
        )
        .unwrap();
        assert!(matches!(tool.kind, Kind::Other));
        // `--agent` says the entry is a Stop entry, whatever the input's event.
        let forced = stop(r#"{"last_assistant_message":"x"}"#, Some(Agent::Gemini)).unwrap();
        assert!(matches!(
            forced.kind,
            Kind::Stop(Stop {
                response: Response::Turn { text: Some(_), .. },
                ..
            })
        ));
    }

    #[test]
    fn tool_calls_are_shell_file_or_other() {
        let tool = |json: &str| match Event::parse(json.as_bytes(), None, false).unwrap().kind {
            Kind::Tool(tool) => *tool,
            other => panic!("{other:?}"),
        };
        let shell = tool(
            r#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git push","dir_path":"sub"},"transcript_path":""}"#,
        );
        assert_eq!(shell.command(), Some("git push"));
        assert_eq!(shell.transcript, None);
        assert_eq!(shell.call.shell_dir(Path::new("/p")), Path::new("/p/sub"));
        let argv =
            tool(r#"{"tool_name":"Bash","tool_input":{"command":["git","commit","-m","a b"]}}"#);
        assert_eq!(argv.command(), Some("git commit -m 'a b'"));
        assert_eq!(argv.call.shell_dir(Path::new("/p")), Path::new("/p"));
        let dir = |d: &str| Call::Shell {
            command: None,
            dir_path: Some(d.into()),
        };
        assert_eq!(dir("/q").shell_dir(Path::new("/p")), Path::new("/q"));
        assert_eq!(dir("").shell_dir(Path::new("/p")), Path::new("/p"));
        assert_eq!(
            tool(r#"{"tool_name":"Write","tool_input":{"file_path":"/x"}}"#).call,
            Call::File
        );
        assert_eq!(tool(r#"{"tool_name":"Read"}"#).call, Call::Other);
        // The gate answers in the Claude Code shape when nothing names the agent.
        assert_eq!(
            Event::parse(b"{}", None, false).unwrap().agent,
            Agent::Claude
        );
    }
}
