//! The Stop hook's entry in the hook runner: the event handed to the Stop rules
//! ([`crate::stop::judging`]), and each failure of the runner's own (bad input, a config that
//! does not load, a panic, bad arguments) failed open with its note.

use std::path::Path;
use std::time::Instant;

use crate::agent::Agent;
use crate::config;
use crate::hook::event::{Event, Kind};
use crate::hook::stop_record;
use crate::hook::{self, Failed, InputError, Ran, StopOutcome};
use crate::log::StopRecord;
use crate::log::cause::Cause;
use crate::stop::fail_open::{config_note, fail_open};
use crate::stop::judging::{self, Call};

/// The Stop hook's work for one call.
pub struct StopHook<'a> {
    /// `--config`, when given.
    pub config: Option<&'a Path>,
    /// The LLM's deadline (milliseconds) for the configured one, kept below the agent's
    /// timeout for this hook.
    pub llm_deadline: &'a dyn Fn(u64) -> u64,
}

type StopRan = Ran<StopOutcome, StopRecord>;

impl hook::Entry for StopHook<'_> {
    type Outcome = StopOutcome;
    type Record = StopRecord;
    const HOOK: hook::Hook = hook::STOP;

    fn decide(&self, event: &Event, started: Instant) -> Result<StopRan, Failed> {
        let agent = event.agent;
        if matches!(event.kind, Kind::Recorded) {
            return Ok(Ran {
                agent,
                outcome: StopOutcome::Allow,
                log: None,
            });
        }
        let mut record = stop_record::of(event);
        let Kind::Stop(stop) = &event.kind else {
            // A Stop entry wired to another event: nothing to judge.
            record.errors.push(format!(
                "`hookjudge stop` received a `{}` event; ignored",
                record.session.event.as_deref().unwrap_or("?")
            ));
            return Ok(Ran {
                agent,
                outcome: StopOutcome::Allow,
                log: Some((record, config::default_log_dir())),
            });
        };
        let call = Call {
            stop,
            project_dir: event.origin.project_dir(),
            cwd: event.origin.cwd.as_deref().map(Path::new),
            session: event.origin.session.as_deref().unwrap_or(""),
            config: self.config,
            llm_deadline: self.llm_deadline,
            started,
        };
        let judged = judging::judge(&call, &mut record)?;
        Ok(Ran {
            agent,
            outcome: judged.outcome,
            log: Some((record, judged.log_dir)),
        })
    }

    fn fail(&self, event: Option<&Event>, failed: Failed) -> StopRan {
        let mut record = event.map(stop_record::of).unwrap_or_default();
        let outcome = match &failed {
            Failed::Input(e) => return bad_input(e),
            Failed::Panic(panic) => {
                let note = format!(
                    "hookjudge: internal error while judging ({}); the turn was allowed to end. Please report it with `hookjudge log --json -n 1`.",
                    panic.message
                );
                record.fail_open(failed.cause(), failed.to_string());
                StopOutcome::Notice(note)
            }
            // A judge's pattern that is not a regex is a bad judge, as one that does not build.
            // The default log dir stays: the file that would name another one is the broken one.
            Failed::Config(e) => fail_open(
                &mut record,
                failed.cause(),
                failed.to_string(),
                config_note(e),
            ),
        };
        Ran {
            agent: event.map_or(Agent::Claude, |e| e.agent),
            outcome,
            log: Some((record, config::default_log_dir())),
        }
    }

    fn render(agent: Agent, outcome: &StopOutcome) -> Option<serde_json::Value> {
        agent.stop_answer(outcome)
    }
}

/// A usage error on the hook's own command line: fail open, and say how to repair the entry.
pub fn usage_error(command: &str, clap_message: &str) {
    let first_line = hook::usage_line(clap_message);
    let mut record = StopRecord::new();
    record.fail_open(
        Cause::BadArguments,
        format!("bad arguments for `hookjudge {command}`: {first_line}"),
    );
    let outcome = StopOutcome::Notice(format!(
        "hookjudge: the `{command}` hook entry has bad arguments ({first_line}); the turn was allowed to end. Run `hookjudge init` to rewrite it."
    ));
    let ran = Ran {
        agent: Agent::Claude,
        outcome,
        log: Some((record, config::default_log_dir())),
    };
    hook::finish::<StopHook>(ran, Instant::now());
}

/// An input that cannot be judged.
fn bad_input(error: &InputError) -> StopRan {
    let mut record = StopRecord::new();
    let note = match error {
        InputError::TooLarge { .. } => "hook input too large to judge",
        InputError::UnknownAgent(origin) => {
            record.session.event = origin.name.clone();
            record.session.session = origin.session.clone();
            record.origin.cwd = origin.cwd.clone();
            "unrecognised hook input"
        }
        _ => "could not read the hook input",
    };
    let outcome = fail_open(&mut record, Cause::BadInput, error.to_string(), note);
    Ran {
        agent: Agent::Claude,
        outcome,
        log: Some((record, config::default_log_dir())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::ParseError;
    use crate::hook::Panic;

    /// The cause `stats` counts a fail-open under, read back from its logged line.
    fn counted(ran: &StopRan) -> Cause {
        let (record, _) = ran.log.as_ref().unwrap();
        let line = serde_json::to_string(&crate::log::Record::Stop(record.clone())).unwrap();
        let read: crate::log::Record = serde_json::from_str(&line).unwrap();
        Cause::of(&read).unwrap().0
    }

    #[test]
    fn every_failure_of_the_runner_is_counted_under_its_own_cause() {
        let not_json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        let config_error = |key: &str| config::Error {
            path: Some(".hookjudge.json".into()),
            kind: config::ErrorKind::Invalid {
                key: key.into(),
                message: "not a regex".into(),
            },
        };
        let failures = [
            Failed::Input(InputError::TooLarge { limit: 5 }),
            Failed::Input(InputError::Read(std::io::Error::other("gone"))),
            Failed::Input(InputError::Parse(ParseError::Empty)),
            Failed::Input(InputError::Parse(ParseError::NotJson(not_json))),
            Failed::Input(InputError::UnknownAgent(Box::default())),
            Failed::Panic(Panic {
                message: "boom".into(),
            }),
            Failed::Config(config_error("judges.commit.triggers")),
            Failed::Config(config_error("llm.model")),
        ];
        let entry = StopHook {
            config: None,
            llm_deadline: &|ms| ms,
        };
        for failed in failures {
            let cause = failed.cause();
            let message = failed.to_string();
            let ran = hook::Entry::fail(&entry, None, failed);
            assert_eq!(counted(&ran), cause, "{message}");
        }
    }
}
