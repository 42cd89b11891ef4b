//! The gate: what a shell command is about to do to shared state, and whether it should.
//!
//! `shell` finds the simple commands in a command line, `classify` names the gated ones
//! (commit, push, publish, deploy, hook bypass, destructive), `facts` reads the target
//! repository, `evidence` looks for proof that the code was verified since its last change,
//! and `policy` decides: silent, deny, or ask a human.

pub mod classify;
pub mod evidence;
pub mod facts;
pub mod policy;
pub mod shell;
