//! `hookjudge doctor`: is everything in place? Each problem comes with the command that fixes it.
//!
//! One module per group of checks ([`installs`], [`config`], [`environment`], [`llm`]); the
//! [`report`] prints them.

mod boundary;
mod codex_boundary;
mod config;
mod environment;
mod installs;
mod llm;
mod report;

use std::io;
use std::path::{Path, PathBuf};

use super::{ExitStatus, UserError};
use crate::cli::DoctorArgs;
use crate::config::Settings;
use report::check;

/// Runs every check and prints the report.
pub(super) fn doctor(args: &DoctorArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let root = crate::support::paths::repo_root(&cwd).unwrap_or_else(|| cwd.clone());
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let binary = super::init::binary()?;
    let mut checks = vec![check(
        "binary",
        true,
        format!(
            "{} (version {})",
            binary.display(),
            env!("CARGO_PKG_VERSION")
        ),
        None,
    )];

    let loaded = Settings::load(&cwd, config).unwrap_or_else(|_| Settings::defaults());
    checks.extend(installs::settings_checks(&root, &home, &binary, &loaded));
    checks.extend(installs::git_hook_check(&root, &binary));
    let (config_checks, settings) = config::config_checks(&cwd, config);
    checks.extend(config_checks);
    checks.push(config::repo_trust(&settings, &root));
    checks.extend(environment::hooks_switched_off(&root, &home));
    checks.extend(environment::env_files_that_move_hookjudge(
        &cwd, &root, &home,
    ));
    checks.extend(llm::llm_checks(&settings, args.online));
    checks.extend(environment::writable_dirs(&settings));
    let installed = installs::installed_agents(&root, &home);
    checks.extend(boundary::boundary_checks(
        &root, &home, &binary, &settings, &installed,
    ));

    report::render(
        &mut io::stdout().lock(),
        &checks,
        args.json,
        crate::support::term::colour_stdout(),
        crate::support::term::width(),
    )
    .map_err(UserError::output)?;
    Ok(if report::problems(&checks) == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Attention
    })
}
