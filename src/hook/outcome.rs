//! What a hook decided, before it is put in any agent's words: the agent adapters
//! ([`crate::agent::Agent::stop_answer`], [`crate::agent::Agent::gate_answer`]) render these
//! values into each agent's JSON.

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
}

#[cfg(test)]
mod tests {
    use super::*;

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
