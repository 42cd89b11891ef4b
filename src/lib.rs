//! hookjudge: Stop-hook judges and a Bash gate for coding agents.
//!
//! Glossary, one word per concept:
//! - **judge**: a named check on an agent's response, defined as data ([`judge`]).
//! - **trigger** / **bypass**: Layer 1 patterns; a trigger wakes the judge, a bypass lets a
//!   triggered text through without the LLM (under `stop.judge_turns: "lexicon"`; under the
//!   default `"all"` both are hints in the one LLM call a judged turn makes).
//! - **field**: a boolean the LLM returns; the **rule** (`block_when`) turns fields into a
//!   **verdict** (violation, allow, fail, unjudged).
//! - **second reading**: with `stop.second_reading: "blocks"`, one more LLM call for a turn
//!   whose fields would block: each block stands only when upheld with the agent's own words.
//! - **decision**: what hookjudge tells the agent (block or allow); the **loop breaker** may
//!   release a block so that a wrong judge cannot wedge a session.
//! - **decision log**: one JSON line per judged response, the material for tuning judges.
//!
//! Layers, bottom-up: a module imports only from the layers listed above it, so the crate
//! reads from the bottom up with no cycle (`tests/integration/layers.rs` holds every import
//! outside tests to this list).
//! 1. `support`: helpers that answer one small question each (dirs, paths, hashes, state files).
//! 2. `redact`: secrets out of any text that leaves the machine or reaches the log.
//! 3. `transcript`: the agents' session files, read from the end, and the turn's facts.
//! 4. `judge`: judges as data, Layer 1's signals, the rule from fields to a verdict.
//! 5. `llm`: the providers that answer a judged turn's one call, and its prompt.
//! 6. `agent`: each agent's hook contract: its input, its answers, its tool names.
//! 7. `boundary`: the OS boundary around agent commands (Landlock and bind mounts).
//! 8. `gate`: the PreToolUse gate: a command line read like a shell, facts, a ruling.
//! 9. `config`: the config ladder: files, layers, trust, settings, schema.
//! 10. `log`: the decision log's records and their vocabulary.
//! 11. `stop`: the Stop hook's rules: verdicts to an outcome, the loop breaker.
//! 12. `hook`: the hook runner: input, recursion guard, failure direction, answer.
//! 13. `install`: writing and undoing hook settings in each agent's files.
//! 14. `cli`: the command-line interface's definition.
//! 15. `commands`: one module per subcommand: arguments in, text out.

pub mod agent;
pub mod boundary;
pub mod cli;
pub mod commands;
pub mod config;
pub mod gate;
pub mod hook;
pub mod install;
pub mod judge;
pub mod llm;
pub mod log;
pub mod redact;
pub mod stop;
pub mod support;
pub mod transcript;
