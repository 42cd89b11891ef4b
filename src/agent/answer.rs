//! Writing a hook's outcome in each agent's shape: what a Stop or the gate decided, as values,
//! and the JSON each agent reads.

use serde_json::{Value, json};

use super::Agent;

/// What the agent is told when a person must decide and the agent cannot ask them from a hook.
/// It never says how to approve: that is for the user, on their own terminal.
pub const ASK_THE_USER: &str = "A person must decide on this command, and this hook cannot ask them. Stop here and ask the user whether to run it; do not retry it or work around it. Once the user says they approved it, run exactly the same command again.";

/// What the person sees (never the agent) when a command waits for them in Codex or Gemini
/// CLI: the agent's `systemMessage`, which both show in their UI as a warning and do not give
/// the model. How to approve is for the person alone.
pub const TELL_THE_PERSON: &str = "hookjudge held back a command for you to decide. To let it run once, run `hookjudge approve` in your own terminal (it shows the command and asks), then tell the agent to run it again.";

/// How a Stop ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopOutcome {
    /// The turn ends; nothing to say.
    Allow,
    /// The turn ends; the human is told this.
    Notice(String),
    /// The agent goes on, told `reason`; `notice` is for the human beside it.
    Block {
        reason: String,
        notice: Option<String>,
    },
}

impl StopOutcome {
    /// The same outcome with `line` added for the human (after what it already says).
    pub fn with_notice(self, line: String) -> StopOutcome {
        let join = |other: Option<String>| match other {
            Some(other) => format!("{other}\n{line}"),
            None => line.clone(),
        };
        match self {
            StopOutcome::Allow => StopOutcome::Notice(line),
            StopOutcome::Notice(other) => StopOutcome::Notice(join(Some(other))),
            StopOutcome::Block { reason, notice } => StopOutcome::Block {
                reason,
                notice: Some(join(notice)),
            },
        }
    }
}

/// What the gate answers about a tool call. It never answers an explicit allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateOutcome {
    /// No answer: the agent's own permission rules apply.
    Silent,
    /// Refused; the agent is told why.
    Deny(String),
    /// A human decides (see [`crate::agent::Agent::gate_answer`] for agents that cannot ask).
    Ask(String),
    /// The command runs inside the boundary (`boundary.mode` `landlock`): `input` is the tool
    /// input with the command rewritten. `ask` is `Some(reason)` when a human must still
    /// decide (the gate asks, or the agent would have asked); `None` only where the agent would
    /// have run the command without asking anyway.
    Confined {
        input: serde_json::Value,
        ask: Option<String>,
    },
    /// Refused, for an agent whose own refusal ends the whole run ([`Agent::refuses_in_place`]):
    /// `input` is the tool input with the command replaced by [`refusal_command`], so the model
    /// reads `reason` as the command's output.
    RefusedInPlace {
        input: serde_json::Value,
        reason: String,
    },
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
            GateOutcome::RefusedInPlace { input, .. } if self.refuses_in_place() => {
                Some(json!({"cancel": false, "overrideInput": input}))
            }
            GateOutcome::RefusedInPlace { reason, .. } => Some(gate_output(self, true, reason)),
        }
    }
}

/// What the agent is told of a refusal (`deny`) or of a command a person must decide on: for
/// an agent that cannot ask in every run ([`Agent::can_ask`]), the reason and [`ASK_THE_USER`].
pub fn told_reason(agent: Agent, deny: bool, reason: &str) -> String {
    if deny || agent.can_ask() {
        reason.to_owned()
    } else {
        format!("{reason} {ASK_THE_USER}")
    }
}

/// The command run in place of a refused one ([`GateOutcome::RefusedInPlace`]): it prints why
/// on standard error and fails, and touches nothing.
pub fn refusal_command(reason: &str) -> String {
    let message = format!("hookjudge did not run this command. {reason}");
    format!(
        "printf '%s\\n' {} >&2; exit 1",
        shell_words::quote(&message)
    )
}

/// The gate's answer in `agent`'s shape. `ask` becomes, for an agent that cannot ask in every
/// run ([`Agent::can_ask`]), a deny that tells the agent to stop and ask the user (who approves
/// with `hookjudge approve` on their own terminal; the agent is never told how). Codex and
/// Gemini CLI also get a `systemMessage` telling the person how to approve: both show it in
/// their UI and do not give it to the model.
pub fn gate_output(agent: Agent, deny: bool, reason: &str) -> Value {
    let asks = !deny && agent.can_ask();
    let reason = told_reason(agent, deny, reason);
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
        answer["systemMessage"] = json!(TELL_THE_PERSON);
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
        // An agent that does not run a rewritten command (Qwen Code's runs its own, checked with
        // the real client): the command is not rewritten, and the gate's reading (silent) stands.
        (_, None) if !agent.takes_rewrite() => return None,
        (Agent::Codex | Agent::Droid, None) => {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": input}})
        }
        (Agent::Copilot, None) => json!({"permissionDecision": "allow", "modifiedArgs": input}),
        (Agent::Cline, None) => json!({"cancel": false, "overrideInput": input}),
        // hookjudge's own plugin puts the command into the call's arguments.
        (Agent::OpenCode, None) => json!({"decision": "allow", "tool_input": input}),
        // No decision: Gemini CLI merges the input and its own confirmation rules still apply.
        (Agent::Gemini, None) => {
            json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": input}})
        }
        (_, None) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_is_answered_exactly_to_the_agents_that_run_it() {
        let input = json!({"command": "hookjudge run-confined -- bash -c ls"});
        for agent in Agent::ALL {
            assert_eq!(
                confined_output(agent, &input, None).is_some(),
                agent.takes_rewrite(),
                "{}",
                agent.name()
            );
        }
    }

    #[test]
    fn a_refusal_in_place_prints_the_reason_exactly_and_fails() {
        let reason = "it's `$(rm -rf ~)` and \"quoted\";\nsecond line";
        let line = refusal_command(reason);
        let ran = std::process::Command::new("sh")
            .args(["-c", &line])
            .output()
            .unwrap();
        assert_eq!(ran.status.code(), Some(1));
        assert_eq!(
            String::from_utf8(ran.stderr).unwrap(),
            format!("hookjudge did not run this command. {reason}\n")
        );
        let input = json!({"commands": ["git push"], "timeout": 30});
        let refused = GateOutcome::RefusedInPlace {
            input: crate::agent::replaced_commands(Some(&input), &line).unwrap(),
            reason: reason.to_owned(),
        };
        assert_eq!(
            Agent::Cline.gate_answer(&refused),
            Some(json!({"cancel": false, "overrideInput": {"commands": [line], "timeout": 30}}))
        );
        // An agent that refuses in its own way is refused so, should one be handed this.
        assert_eq!(
            Agent::Claude.gate_answer(&refused),
            Some(gate_output(Agent::Claude, true, reason))
        );
        // Only Cline CLI 3's list of commands is replaced; the extension's `command` is not.
        assert_eq!(
            crate::agent::replaced_commands(Some(&json!({"command": "git push"})), &line),
            None
        );
    }

    /// A hook input for `tool` with `input`, as the hooks read it.
    fn call(tool: &str, input: Value) -> crate::agent::HookInput {
        let stdin = json!({"tool_name": tool, "tool_input": input}).to_string();
        crate::agent::HookInput::parse(stdin.as_bytes()).unwrap()
    }

    #[test]
    fn a_rewrite_keeps_the_shape_each_agent_runs() {
        let confined = |c: &str| format!("confined {c}");
        // Cline CLI 3 runs each command of its list on its own (a heredoc split over entries
        // joined back): each is confined on its own.
        let cli = call(
            "run_commands",
            json!({"commands": ["make test", "cat <<EOF", "body", "EOF", "git push"], "requires_approval": false}),
        );
        assert_eq!(
            crate::agent::rewritten_input(Agent::Cline, &cli, "", confined),
            Some(
                json!({"commands": ["confined make test", "confined cat <<EOF\nbody\nEOF", "confined git push"],
                        "requires_approval": false})
            )
        );
        // Only Cline's list is a list: another agent's `commands` is not what runs.
        assert_eq!(
            crate::agent::rewritten_input(
                Agent::Gemini,
                &call(
                    "run_shell_command",
                    json!({"command": "git push", "commands": ["ls"]})
                ),
                "git push",
                confined
            ),
            Some(json!({"command": "confined git push", "commands": ["ls"]}))
        );
        let extension = call(
            "execute_command",
            json!({"command": "git push", "requires_approval": "false"}),
        );
        assert_eq!(
            crate::agent::rewritten_input(Agent::Cline, &extension, "git push", confined),
            None
        );
        assert_eq!(
            crate::agent::rewritten_input(
                Agent::Codex,
                &call("Bash", json!({"command": "ls", "workdir": "/w"})),
                "ls",
                confined
            ),
            Some(json!({"command": "confined ls", "workdir": "/w"}))
        );
        assert_eq!(
            crate::agent::rewritten_input(
                Agent::Copilot,
                &call("bash", Value::Null),
                "ls",
                confined
            ),
            Some(json!({"command": "confined ls"}))
        );
    }

    #[test]
    fn clines_list_is_run_as_cline_runs_it() {
        let run = |list: Value| {
            crate::agent::cline_commands_run(&call("run_commands", json!({"commands": list})))
        };
        let owned = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        // A heredoc is joined up to the entry that is its word, trimmed; `<<<` is no heredoc.
        assert_eq!(
            run(json!(["cat > n <<-'END'", "a", "  END  ", "ls"])),
            owned(&["cat > n <<-'END'\na\n  END  ", "ls"])
        );
        assert_eq!(
            run(json!(["grep x <<<y", "y"])),
            owned(&["grep x <<<y", "y"])
        );
        // Cline's word, not bash's: `<<E\OF` ends at `E`, which never comes, so nothing joins.
        assert_eq!(
            run(json!(["cat <<E\\OF", "git push", "EOF"])),
            owned(&["cat <<E\\OF", "git push", "EOF"])
        );
        // Nothing else joins: a continuation or an open quote ends with its entry.
        assert_eq!(
            run(json!(["true \\", "git push"])),
            owned(&["true \\", "git push"])
        );
        assert_eq!(run(json!([])), None);
        assert_eq!(run(json!(["ls", 7])), None);
    }

    #[test]
    fn notices_add_up_beside_any_outcome() {
        let line = || "trust".to_string();
        assert_eq!(
            StopOutcome::Allow.with_notice(line()),
            StopOutcome::Notice("trust".into())
        );
        assert_eq!(
            StopOutcome::Notice("failed".into()).with_notice(line()),
            StopOutcome::Notice("failed\ntrust".into())
        );
        assert_eq!(
            StopOutcome::Block {
                reason: "r".into(),
                notice: None
            }
            .with_notice(line()),
            StopOutcome::Block {
                reason: "r".into(),
                notice: Some("trust".into())
            }
        );
    }
}
