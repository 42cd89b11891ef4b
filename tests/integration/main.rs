//! Integration tests: they run the built `hookjudge` binary as the agents do (stdin JSON, a
//! fresh process per call) in an isolated home, and check stdout, stderr, exit codes and the
//! decision log.

mod check;
mod cli;
mod completions;
mod config_teaches;
mod eval;
mod fail_open;
mod gate_agents;
mod gate_corpus;
mod gate_effects;
mod gate_everyday;
mod gate_evidence;
mod gate_fuzz;
mod gate_gemini;
mod gate_repo;
mod gate_table;
mod harness;
mod hook_plumbing;
mod install;
mod install_agents;
mod install_files;
mod install_script;
mod llama;
mod llm_http;
mod log_reading;
mod loop_breaker;
mod man;
mod man_sections;
mod opencode_plugin;
mod person_only;
mod redaction;
mod replay;
mod self_protection;
mod stop_agents;
mod stop_protocol;
mod transcripts;
mod trust;
mod user_request;
