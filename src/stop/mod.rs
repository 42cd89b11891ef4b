//! The Stop hook's rules: what is judged of a turn's end (the response's text, the user's
//! request, the session's facts), the judges' run, how their verdicts end the turn (the loop
//! breaker's ledger caps how often one judge blocks during one user prompt), failing open,
//! and the notices for the human. Above the judges and below the hook runner that reads the
//! agent's input and writes its answer.
//!
//! - [`judging`]: one Stop, from the config to the outcome; the entry point.
//! - [`response`]: where the response's text is, and the text the judges read.
//! - [`session_facts`]: the session's facts, read when a judge that uses them wakes.
//! - [`evaluation`]: the judges' run (Layer 1, then the LLM) into the record.
//! - [`verdict`] and [`ledger`]: from the judges' outcomes to block, release or allow.
//! - [`no_llm`]: the once-per-session notice that no LLM judges.
//! - [`fail_open`]: a Stop that cannot be judged ends the turn, logged and told.

pub mod evaluation;
pub mod fail_open;
pub mod judging;
pub mod ledger;
pub mod no_llm;
pub mod response;
pub mod session_facts;
pub mod verdict;
