//! One Stop judged: the config and its judges loaded, the response's text read, the judges
//! run, the loop breaker applied, and the notices for the human added. What the hook runner
//! does around it (the input, panics, the answer, the log line) is the hook runner's (`hook`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::evaluation::{Run, run_judges};
use super::fail_open::{config_note, fail_open};
use super::ledger::Limits;
use super::response::{Response, Stop, judged_text};
use super::session_facts::Session;
use super::{no_llm, verdict};
use crate::agent::StopOutcome;
use crate::config::{self, Settings};
use crate::log::StopRecord;
use crate::log::cause::Cause;
use crate::support::dirs;
use crate::support::time::Timestamp;

/// One Stop call: the end of the response as the agent reported it, and what the hook entry
/// adds.
pub struct Call<'a> {
    pub stop: &'a Stop,
    /// Where the config's project layer is looked for.
    pub project_dir: PathBuf,
    /// The directory the agent's shell runs in, when the agent says.
    pub cwd: Option<&'a Path>,
    /// The agent's session id ("" when it sends none).
    pub session: &'a str,
    /// `--config`, when given.
    pub config: Option<&'a Path>,
    /// The LLM's deadline (milliseconds) for the configured one, kept below the agent's
    /// timeout for the hook.
    pub llm_deadline: &'a dyn Fn(u64) -> u64,
    pub started: Instant,
}

/// How a judged Stop ends, and the log directory its record goes to.
pub struct Judged {
    pub outcome: StopOutcome,
    pub log_dir: PathBuf,
}

/// Judges one Stop into `record`. A config that does not load is the caller's to fail open
/// with (the default log directory stays: the file that would name another is the broken one).
pub fn judge(call: &Call, record: &mut StopRecord) -> Result<Judged, config::Error> {
    let settings = Settings::load(&call.project_dir, call.config)?;
    let log_dir = settings.log_dir.clone();
    crate::log::prune_on_new_day(&log_dir, Timestamp::now(), settings.log_retention_days);
    // Told once per file content: what of an untrusted repository file was ignored.
    let trust_note = settings
        .repo_report
        .as_ref()
        .filter(|r| crate::config::trust::first_notice(r))
        .map(|r| format!("hookjudge: {}", r.message()));
    let panel = match settings.panel(&[]) {
        Ok(panel) => panel,
        // Logged where the config says, which loaded.
        Err(e) => {
            let outcome = fail_open(record, Cause::Config, e.to_string(), config_note(&e));
            return Ok(Judged { outcome, log_dir });
        }
    };
    let (text, request) = judged_text(&call.stop.response, &settings, record);
    let outcome = if text.trim().is_empty() {
        StopOutcome::Allow
    } else {
        let session = Session {
            file: call.stop.session_file.as_deref(),
            cwd: call.cwd,
            last_message: match &call.stop.response {
                Response::Transcript { last_message, .. } => last_message.as_deref(),
                _ => None,
            },
        };
        let run = Run {
            text: &text,
            request,
            session,
            panel: &panel,
            settings: &settings,
            // The agent kills the hook at its settings timeout: keep the deadline below it.
            llm_timeout_ms: (call.llm_deadline)(settings.llm.timeout_ms),
            started: call.started,
        };
        let no_llm = run_judges(run, record);
        let limits = Limits {
            per_judge: settings.max_blocks_per_judge,
            per_prompt: settings.max_blocks_per_prompt,
        };
        let state_dir = dirs::state_dir();
        let outcome = verdict::conclude(record, &panel.judges, limits, &state_dir, call.session);
        match no_llm {
            Some(note) if no_llm::told_first(&state_dir, call.session, record) => {
                outcome.with_notice(note)
            }
            _ => outcome,
        }
    };
    // The process ends right after this answer. Freeing hundreds of compiled patterns and
    // prefilters one allocation at a time costs more than a quiet turn's whole Layer 1
    // scan (callgrind: 0.18 M of 2.35 M instructions), so the memory is left to the exit.
    std::mem::forget(panel);
    std::mem::forget(settings);
    let outcome = match trust_note {
        Some(note) => outcome.with_notice(note),
        None => outcome,
    };
    Ok(Judged { outcome, log_dir })
}
