//! The gate: what a shell command is about to do to shared state, and whether it should.
//!
//! `shell` finds the simple commands in a command line, `classify` names the gated ones
//! (commit, push, publish, deploy, hook bypass, destructive), `facts` reads the target
//! repository, `evidence` looks for proof that the code was verified since its last change
//! (`evidence_gemini` reads Gemini CLI sessions for it),
//! and `policy` decides: silent, deny, or ask a human.

pub mod classify;
pub mod evidence;
mod evidence_gemini;
pub mod facts;
pub mod policy;
pub mod shell;

use std::path::Path;

use classify::{Class, Gated, Target};
use shell::Word;

/// The approval marker a user-approved command carries (see the Codex ask-the-user reason).
pub const APPROVAL_ENV: &str = "HOOKJUDGE_APPROVED";

/// Every gated action in `command`, with whether the user approved it explicitly.
pub fn find(command: &str, cwd: &Path, deploy_commands: &[Vec<String>]) -> Vec<(Gated, bool)> {
    let script = shell::parse(command, cwd);
    let mut found: Vec<(Gated, bool)> = Vec::new();
    for cmd in &script.commands {
        let approved = cmd.env_var(APPROVAL_ENV).and_then(Word::literal) == Some("1");
        for gated in classify::classify(cmd, deploy_commands) {
            found.push((gated, approved));
        }
        // A dynamic program name with a gated verb: cannot be read, must not pass silently.
        if cmd.argv.first().is_some_and(|w| w.literal().is_none())
            && cmd.argv.iter().skip(1).filter_map(Word::literal).any(|a| {
                matches!(
                    a,
                    "push" | "commit" | "publish" | "deploy" | "apply" | "upload"
                )
            })
        {
            found.push((
                unparsed(
                    cmd.source.clone(),
                    "runs a dynamic command with a gated verb",
                ),
                false,
            ));
        }
    }
    let unreadable = script.had_errors || !script.incomplete.is_empty();
    if unreadable && found.is_empty() && classify::may_be_gated(command, deploy_commands) {
        let why = if script.incomplete.is_empty() {
            "does not parse".to_string()
        } else {
            script.incomplete.join("; ")
        };
        found.push((unparsed(command.to_owned(), &why), false));
    }
    found
}

fn unparsed(command: String, what: &str) -> Gated {
    Gated {
        class: Class::Unparsed,
        command,
        target: Target::default(),
        push: None,
        destructive: None,
        what: what.to_owned(),
    }
}
