//! hookjudge: Stop-hook judges and a Bash gate for coding agents.
//!
//! Glossary, one word per concept:
//! - **judge**: a named check on an agent's response, defined as data ([`judge`]).
//! - **trigger** / **bypass**: Layer 1 patterns; a trigger wakes the judge, a bypass lets a
//!   triggered text through without the LLM (under `stop.judge_turns: "lexicon"`; under the
//!   default `"all"` both are hints in the one LLM call a judged turn makes).
//! - **field**: a boolean the LLM returns; the **rule** (`block_when`) turns fields into a
//!   **verdict** (violation, allow, fail, unjudged).
//! - **decision**: what hookjudge tells the agent (block or allow); the **loop breaker** may
//!   release a block so that a wrong judge cannot wedge a session.
//! - **decision log**: one JSON line per judged response, the material for tuning judges.

pub mod agent;
pub mod approval;
pub mod boundary;
pub mod cli;
pub mod commands;
pub mod config;
pub mod gate;
pub mod hook;
pub mod human;
pub mod install;
pub mod judge;
pub mod ledger;
pub mod llm;
pub mod log;
pub mod outcome;
pub mod redact;
pub mod support;
pub mod transcript;
