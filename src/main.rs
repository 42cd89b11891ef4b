//! The `hookjudge` binary: parse the command line, run one command, turn its status into an
//! exit code. Hook entry points choose their own exit codes (see `commands::run`).

fn main() -> std::process::ExitCode {
    hookjudge::commands::run(std::env::args_os()).into()
}
