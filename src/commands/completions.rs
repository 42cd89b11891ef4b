//! `hookjudge completions SHELL`: a completion script for the shell, generated from the same
//! clap definition as `--help` and the man pages, so it never falls behind the flags.

use std::io::{self, Write};

use clap::CommandFactory;

use super::{ExitStatus, UserError};
use crate::cli::{Cli, CompletionsArgs};

/// Prints the script on stdout.
pub(super) fn completions(args: &CompletionsArgs) -> Result<ExitStatus, UserError> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "hookjudge", &mut script);
    let mut out = io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .map_err(UserError::output)?;
    Ok(ExitStatus::Success)
}
