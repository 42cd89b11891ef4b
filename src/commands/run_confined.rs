//! `hookjudge run-confined -- COMMAND…`: runs one command inside the boundary (see
//! [`crate::boundary`]), where it cannot write hookjudge's anchors. The gate rewrites the
//! agent's shell commands to this when `boundary.mode` is `landlock`.
//!
//! It stays the parent (a child subreaper) while the command runs, so that a process the
//! command detaches (`setsid -f`, a double fork) keeps an agent among its ancestors for as
//! long as the command runs, and exits with the command's status (128 + signal when killed).
//! When the boundary cannot be set up it runs nothing and exits 126 (fail closed).

use crate::cli::RunConfinedArgs;

use super::{ExitStatus, UserError};

/// Exit status when the boundary could not be set up (the shell's "cannot execute").
const NOT_RUN: i32 = 126;

pub(super) fn run_confined(args: &RunConfinedArgs) -> Result<ExitStatus, UserError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let exe = std::env::current_exe().unwrap_or_else(|_| "hookjudge".into());
    // Opened once for the whole plan.
    let repo = gix::discover(&cwd).ok();
    let mut plan = crate::boundary::plan_in(repo.as_ref(), &exe);
    // What the gate let through as a push, publish or deploy (or a person approved) keeps
    // the credentials and may write to a local-path remote; nothing else may.
    if !args.with_credentials {
        plan = plan
            .hide_credentials()
            .protect_local_remotes(repo.as_ref())
            .clean_git_credentials(repo.as_ref());
    }
    if args.explain {
        for anchor in &plan.read_only {
            println!("read-only  {}  ({})", anchor.path.display(), anchor.what);
        }
        for dir in &plan.hidden {
            println!("hidden     {}", dir.display());
        }
        for cleaned in &plan.cleaned {
            println!(
                "cleaned    {}  (git configuration, read without its credentials)",
                cleaned.path.display()
            );
        }
        for anchor in &plan.missing {
            println!(
                "missing    {}  ({}: not protected if created)",
                anchor.path.display(),
                anchor.what
            );
        }
        if args.command.is_empty() {
            return Ok(ExitStatus::Success);
        }
    }
    run(&plan.materialise(), args)
}

#[cfg(target_os = "linux")]
fn run(plan: &crate::boundary::Plan, args: &RunConfinedArgs) -> Result<ExitStatus, UserError> {
    let Some((program, rest)) = args.command.split_first() else {
        eprintln!("error: no command to run\n\nhint: `hookjudge run-confined -- COMMAND [ARGS…]`");
        return Ok(ExitStatus::Error);
    };
    if let Err(e) = crate::boundary::confine(plan) {
        eprintln!(
            "hookjudge: the command was not run: the boundary that keeps it off hookjudge's own files could not be set up: {e}\n\nhint: set `boundary.mode` to `agent` (the agent's own sandbox) or `off` in `hookjudge config`, or allow user namespaces"
        );
        std::process::exit(NOT_RUN);
    }
    // SAFETY: a flag on this process; orphans of the command are reparented to it.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    let mut command = std::process::Command::new(program);
    command.args(rest).env("HOOKJUDGE_CONFINED", "1");
    if !args.with_credentials {
        for variable in crate::boundary::CREDENTIAL_VARIABLES {
            command.env_remove(variable);
        }
        settings_without_credentials(&mut command);
    }
    let child = command.spawn();
    let child = match child {
        Ok(child) => child,
        Err(e) => {
            eprintln!("hookjudge: cannot run `{}`: {e}", program.to_string_lossy());
            std::process::exit(127);
        }
    };
    let pid = child.id() as libc::pid_t;
    loop {
        let mut status = 0;
        // SAFETY: waits for any child; `status` is a valid out pointer.
        let reaped = unsafe { libc::waitpid(-1, &mut status, 0) };
        if reaped == pid {
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                128 + libc::WTERMSIG(status)
            };
            std::process::exit(code);
        }
        if reaped < 0 {
            std::process::exit(NOT_RUN);
        }
    }
}

/// Passes the `git -c` settings of the environment (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`,
/// `GIT_CONFIG_VALUE_<n>`) down without their credentials. They are read as git reads them, up
/// to the first missing or unreadable pair; every other `GIT_CONFIG_KEY_*` or
/// `GIT_CONFIG_VALUE_*` variable goes (one past the count can be read by a command that sets
/// the count itself).
#[cfg(target_os = "linux")]
fn settings_without_credentials(command: &mut std::process::Command) {
    let numbered = |name: &std::ffi::OsStr| {
        let name = name.as_encoded_bytes();
        name.starts_with(b"GIT_CONFIG_KEY_") || name.starts_with(b"GIT_CONFIG_VALUE_")
    };
    let count = std::env::var("GIT_CONFIG_COUNT").ok();
    if count.is_none() && !std::env::vars_os().any(|(name, _)| numbered(&name)) {
        return;
    }
    let count = count
        .and_then(|c| c.trim().parse::<usize>().ok())
        .unwrap_or(0);
    // A value that is not UTF-8 (a name in Latin-1) is judged by its lossy reading and, when
    // kept as it is, passed on byte for byte.
    let mut original: Vec<(String, std::ffi::OsString)> = Vec::new();
    for n in 0..count {
        let (Some(key), Some(value)) = (
            std::env::var_os(format!("GIT_CONFIG_KEY_{n}")),
            std::env::var_os(format!("GIT_CONFIG_VALUE_{n}")),
        ) else {
            break;
        };
        original.push((key.to_string_lossy().into_owned(), value));
    }
    let given: Vec<(String, String)> = original
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string_lossy().into_owned()))
        .collect();
    let kept = crate::boundary::env_settings_without_credentials(&given).unwrap_or(given);
    for (name, _) in std::env::vars_os().filter(|(name, _)| numbered(name)) {
        command.env_remove(name);
    }
    command.env("GIT_CONFIG_COUNT", kept.len().to_string());
    for (n, (key, value)) in kept.iter().enumerate() {
        let value = original
            .iter()
            .find(|(k, v)| k == key && v.to_string_lossy() == value.as_str())
            .map_or_else(|| std::ffi::OsString::from(value), |(_, v)| v.clone());
        command.env(format!("GIT_CONFIG_KEY_{n}"), key);
        command.env(format!("GIT_CONFIG_VALUE_{n}"), value);
    }
}

#[cfg(not(target_os = "linux"))]
fn run(_: &crate::boundary::Plan, _: &RunConfinedArgs) -> Result<ExitStatus, UserError> {
    eprintln!(
        "hookjudge: the command was not run: hookjudge's own boundary needs Linux\n\nhint: set `boundary.mode` to `agent` and turn the agent's sandbox on (`hookjudge doctor` says how)"
    );
    std::process::exit(NOT_RUN);
}
