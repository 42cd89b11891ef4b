//! The gate: what a shell command is about to do to shared state, and whether it should.
//!
//! `shell` finds the simple commands in a command line, `classify` names the gated ones
//! (commit, push, publish, deploy, hook bypass, destructive), `facts` reads the target
//! repository, `evidence` looks for proof that the code was verified since its last change
//! (`evidence_gemini` reads Gemini CLI sessions for it), and `policy` decides: silent, deny,
//! or ask a human. `protect` comes first: it denies actions against hookjudge itself, through
//! the shell and the agents' file-writing tools.

pub mod classify;
pub mod evidence;
mod evidence_gemini;
pub mod facts;
pub mod glob;
pub mod policy;
pub mod protect;
pub mod shell;

use std::path::Path;

use classify::{Class, Gated, Target};
use shell::Word;

/// Every gated action in `command`.
pub fn find(command: &str, cwd: &Path, deploy_commands: &[Vec<String>]) -> Vec<Gated> {
    let script = shell::parse(command, cwd);
    let mut found: Vec<Gated> = Vec::new();
    for cmd in &script.commands {
        found.extend(classify::classify(cmd, deploy_commands));
        // A dynamic program name with a gated verb: cannot be read, must not pass silently.
        if cmd.argv.first().is_some_and(|w| w.literal().is_none())
            && cmd.argv.iter().skip(1).filter_map(Word::literal).any(|a| {
                matches!(
                    a,
                    "push" | "commit" | "publish" | "deploy" | "apply" | "upload"
                )
            })
        {
            found.push(unparsed(
                cmd.source.clone(),
                "runs a dynamic command with a gated verb",
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
        found.push(unparsed(command.to_owned(), &why));
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
