//! The Stop hook's rules: how the judges' verdicts end a turn (the loop breaker's ledger caps
//! how often one judge blocks during one user prompt), above the judges and below the hook
//! runner that reads the agent's input and writes its answer.

pub mod ledger;
pub mod verdict;
