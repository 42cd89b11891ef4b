//! The end of a response as the agent's Stop input gives it, and the text the judges read
//! from it: the turn's assistant text (from the transcript, the last message or the turn the
//! agent sends), redacted, and the user's request that started the turn.

use std::path::PathBuf;
use std::time::Instant;

use crate::config::Settings;
use crate::log::{StopRecord, TranscriptInfo};
use crate::support::time::micros;
use crate::transcript;

/// The end of a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// What identifies "one user prompt" for the loop breaker (see [`crate::agent::HookInput::prompt_key`]).
    pub prompt: Option<String>,
    /// The agent is already continuing because of a Stop hook.
    pub stop_hook_active: bool,
    pub response: Response,
    /// The agent's session file (Claude Code's transcript, the subagent's own for
    /// `SubagentStop`; Codex's rollout; Gemini's and Droid's sessions), where the turn's facts
    /// are read.
    pub session_file: Option<PathBuf>,
}

/// Where the text of the response is, per agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// Claude Code: the turn is read from the transcript (the subagent's own for
    /// `SubagentStop`); the last message is what is judged when there is none.
    Transcript {
        path: Option<PathBuf>,
        last_message: Option<String>,
    },
    /// Codex: the last assistant message; its rollout file (`transcript_path`, "not a stable
    /// interface") is read only for the user's request, and only when a judge wakes.
    LastMessage {
        text: Option<String>,
        rollout: Option<PathBuf>,
    },
    /// Gemini CLI: the text of every model turn since the request, and the request itself.
    Turn {
        text: Option<String>,
        request: Option<String>,
    },
}

/// The response text, redacted (secrets go before anything else sees it: the LLM, the cache,
/// the log), and the user's request, which [`crate::llm::LlmJudge::with_request`] redacts in turn.
pub fn judged_text(
    response: &Response,
    settings: &Settings,
    record: &mut StopRecord,
) -> (String, Request) {
    let transcript_started = Instant::now();
    let (text, request) = response_text(response, settings, record);
    record.timings_us.transcript = micros(transcript_started.elapsed());
    let redacted = crate::redact::redact(&text);
    record.redactions = redacted.counts;
    record.text_bytes = redacted.text.len();
    if settings.log_text {
        record.text = Some(redacted.text.clone());
    }
    (redacted.text, request)
}

/// The text the judges read (the turn's assistant text, last `text_bytes` bytes), and the
/// user's request that started the turn where the agent gives it (context for Layer 2).
fn response_text(
    response: &Response,
    settings: &Settings,
    record: &mut StopRecord,
) -> (String, Request) {
    match response {
        Response::Turn { text, request } => (
            transcript::judged_text(&[], text.as_deref(), settings.text_bytes),
            Request::Known(request.clone()),
        ),
        // Codex's Stop input carries no prompt: the request is read from its rollout, and only
        // if a judge wakes.
        Response::LastMessage { text, rollout } => (
            transcript::judged_text(&[], text.as_deref(), settings.text_bytes),
            rollout
                .clone()
                .map_or(Request::Known(None), Request::InRollout),
        ),
        Response::Transcript { path, last_message } => {
            let last = last_message.as_deref();
            let Some(path) = path.clone() else {
                return (
                    transcript::judged_text(&[], last, settings.text_bytes),
                    Request::Known(None),
                );
            };
            match transcript::turn_text(&path, settings.transcript) {
                Ok(turn) => {
                    record.transcript = Some(TranscriptInfo {
                        path,
                        boundary: turn.boundary,
                        scanned_bytes: turn.scanned_bytes,
                        giant_lines: turn.giant_lines,
                        bad_lines: turn.bad_lines,
                        rest: serde_json::Map::new(),
                    });
                    (
                        transcript::judged_text(&turn.messages, last, settings.text_bytes),
                        Request::Known(turn.user_request),
                    )
                }
                Err(e) => {
                    record.errors.push(format!(
                        "cannot read transcript `{}`: {e}; judging the last message only",
                        path.display()
                    ));
                    (
                        transcript::judged_text(&[], last, settings.text_bytes),
                        Request::Known(None),
                    )
                }
            }
        }
    }
}

/// The user's request that started the turn: known from the hook input or the transcript
/// already read, or in a Codex rollout that is read only when a judge wakes.
pub enum Request {
    Known(Option<String>),
    InRollout(PathBuf),
}
