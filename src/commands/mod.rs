//! Subcommands: one file each, named after the command. `run` parses the command line and
//! dispatches; hook entry points pick their own exit codes (a usage error in `stop` must not
//! become clap's exit 2, which Claude Code reads as "block").

mod approve;
mod check;
mod completions;
mod config_cmd;
mod doctor;
mod eval;
mod gate;
mod init;
mod init_boundary;
pub mod install_extras;
mod judge;
mod log;
mod redact;
mod replay;
mod repo_filter;
mod run_confined;
mod run_tests;
mod stats;
mod stop;
mod trust;
mod uninstall;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Parser;

use crate::cli::{Cli, Command};

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Exit 0: done, allowed, nothing needs attention.
    Success,
    /// Exit 1: a block, or something that needs the user's attention.
    Attention,
    /// Exit 2: the command could not do its work.
    Error,
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(status: ExitStatus) -> Self {
        std::process::ExitCode::from(match status {
            ExitStatus::Success => 0,
            ExitStatus::Attention => 1,
            ExitStatus::Error => 2,
        })
    }
}

/// Hook entry points: they always exit 0 and fail open (or safe), even on a usage error.
const HOOK_COMMANDS: [&str; 2] = ["stop", "gate"];

/// Parses `args` and runs the command.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitStatus {
    let args: Vec<OsString> = args.into_iter().collect();
    if let Some(status) = run_hook_fast(&args) {
        return status;
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let hook = args
                .iter()
                .skip(1)
                .find(|a| !a.to_string_lossy().starts_with('-'));
            let informational = matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            );
            if let Some(hook) = hook
                .map(|h| h.to_string_lossy().into_owned())
                .filter(|h| HOOK_COMMANDS.contains(&h.as_str()) && !informational)
            {
                return if hook == "gate" {
                    gate::usage_error(&e.to_string())
                } else {
                    stop::usage_error(&hook, &e.to_string())
                };
            }
            let _ = e.print();
            return if e.use_stderr() {
                ExitStatus::Error
            } else {
                ExitStatus::Success
            };
        }
    };
    let config = cli.config.clone();
    let result = match cli.command {
        Command::Stop(args) => return stop::stop(&args, config.as_deref()),
        Command::Gate(args) => return gate::gate(&args, config.as_deref()),
        Command::Init(args) => init::init(&args, config.as_deref()),
        Command::Uninstall(args) => uninstall::uninstall(&args),
        Command::Trust(args) => trust::trust(&args),
        Command::Approve(args) => approve::approve(&args),
        Command::Doctor(args) => doctor::doctor(&args, config.as_deref()),
        Command::Config(args) => config_cmd::config(&args, config.as_deref()),
        Command::Check(args) => check::check(&args, config.as_deref()),
        Command::Judge(args) => judge::judge(&args, config.as_deref()),
        Command::Eval(args) => eval::eval(&args, config.as_deref()),
        Command::Log(args) => log::log(&args, config.as_deref()),
        Command::Stats(args) => stats::stats(&args, config.as_deref()),
        Command::Redact(args) => redact::redact(&args),
        Command::Replay(args) => replay::replay(&args, config.as_deref()),
        Command::Completions(args) => completions::completions(&args),
        Command::InstallExtras(args) => install_extras::install_extras(&args),
        Command::RunConfined(args) => run_confined::run_confined(&args),
    };
    match result {
        Ok(status) => status,
        Err(e) if e.quiet => ExitStatus::Success,
        Err(e) => {
            report(&e);
            ExitStatus::Error
        }
    }
}

/// Hook entries run on every agent turn and tool call: their usual command lines (`stop`,
/// `gate`, with `--agent NAME`) skip building the whole clap command tree. Anything else goes
/// through clap as usual.
fn run_hook_fast(args: &[OsString]) -> Option<ExitStatus> {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .map(|a| a.to_str())
        .collect::<Option<_>>()?;
    let (command, mut rest) = words.split_first()?;
    // `--hook-timeout N` comes last in the entries `init` writes.
    let mut hook_timeout = None;
    if let [head @ .., "--hook-timeout", seconds] = rest {
        hook_timeout = Some(seconds.parse::<u64>().ok()?);
        rest = head;
    }
    let agent = match rest {
        [] => None,
        ["--agent", name] => Some(*name),
        [flag] => Some(flag.strip_prefix("--agent=")?),
        _ => return None,
    };
    let agent = match agent {
        None => None,
        Some(name) => Some(crate::agent::Agent::from_name(name)?),
    };
    match *command {
        "stop" => Some(stop::stop(
            &crate::cli::StopArgs {
                agent,
                hook_timeout,
            },
            None,
        )),
        "gate" => Some(gate::gate(
            &crate::cli::GateArgs {
                agent,
                hook_timeout,
            },
            None,
        )),
        _ => None,
    }
}

/// An error for the user: what went wrong, and optionally what to do next.
#[derive(Debug)]
pub struct UserError {
    pub message: String,
    pub hint: Option<String>,
    /// The reader went away (`hookjudge log | head`): not worth a word.
    pub quiet: bool,
}

impl UserError {
    pub fn new(message: impl Into<String>) -> UserError {
        UserError {
            message: message.into(),
            hint: None,
            quiet: false,
        }
    }

    /// An error writing the command's output.
    pub fn output(e: io::Error) -> UserError {
        let quiet = e.kind() == io::ErrorKind::BrokenPipe;
        UserError {
            quiet,
            ..UserError::new(format!("cannot write output: {e}"))
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> UserError {
        self.hint = Some(hint.into());
        self
    }
}

impl From<crate::install::Error> for UserError {
    fn from(e: crate::install::Error) -> Self {
        UserError::new(e.to_string())
    }
}

impl From<crate::config::Error> for UserError {
    fn from(e: crate::config::Error) -> Self {
        let hint = config_fix(&e);
        UserError::new(e.to_string()).hint(hint)
    }
}

/// Tells the user on stderr about config problems that do not stop the command (a pattern
/// that is not a regex, a glob that is not a glob), each with its key and next step.
pub(crate) fn warn_config_problems(settings: &crate::config::Settings) {
    let mut err = io::stderr().lock();
    for problem in crate::config::check::problems(settings) {
        let _ = writeln!(err, "warning: {problem}\n  hint: {}", problem.hint());
    }
}

/// What to do about a config that does not load: the key and file at fault, and the commands
/// that list the keys and check a fix.
pub(crate) fn config_fix(e: &crate::config::Error) -> String {
    let key = e.key().map(|key| format!("`{key}`"));
    match (&e.path, key) {
        (Some(path), Some(key)) => format!(
            "fix {key} in `{}` (`hookjudge config schema` lists every key), then run `hookjudge config show` to check it",
            path.display()
        ),
        (Some(path), None) => format!(
            "fix `{}`, then run `hookjudge config show` to check it",
            path.display()
        ),
        (None, _) => "check the `judges` section of your config files with `hookjudge config show`"
            .to_string(),
    }
}

fn report(e: &UserError) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "error: {}", e.message);
    if let Some(hint) = &e.hint {
        let _ = writeln!(err, "\nhint: {hint}");
    }
}

/// Decision log records since `since` (a duration back, or a date read in `zone`; all when
/// `None`).
fn read_log(
    settings: &crate::config::Settings,
    since: Option<&str>,
    zone: crate::support::time::Zone,
) -> Result<crate::log::Records, UserError> {
    let since = since
        .map(|s| crate::support::time::parse_since(s, crate::support::time::Timestamp::now(), zone))
        .transpose()
        .map_err(|e| UserError::new(e.to_string()).hint(e.hint()))?;
    crate::log::read(&settings.log_dir, since).map_err(|e| {
        UserError::new(format!(
            "cannot read the decision log in `{}`: {e}",
            settings.log_dir.display()
        ))
    })
}

/// The working directory, for config discovery.
fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Reads a text argument: a file, or stdin for `-` or nothing.
fn read_input(file: Option<&std::path::Path>) -> Result<String, UserError> {
    use std::io::Read;
    match file.filter(|f| f.as_os_str() != "-") {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| UserError::new(format!("cannot read `{}`: {e}", path.display()))),
        None => {
            let mut text = String::new();
            io::stdin().read_to_string(&mut text).map_err(|e| {
                UserError::new(format!("cannot read stdin: {e}"))
                    .hint("pass the text as a file, or pipe UTF-8 text in")
            })?;
            Ok(text)
        }
    }
}
