//! The command line, as clap definitions. Doc comments here are the `--help` text and the man
//! pages; behaviour lives in `commands`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::agent::Agent;

mod install_args;
pub use install_args::{AgentChoice, BoundaryArg, InitArgs, ScopeArg, UninstallArgs};

/// Keeps coding agents honest without breaking the conversation: Stop-hook judges (regex
/// signals, then an LLM) and a gate for shell commands.
#[derive(Debug, Parser)]
#[command(
    name = "hookjudge",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Use this config file as the top layer (also `HOOKJUDGE_CONFIG`)
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install hookjudge's hooks into this repository's agent settings
    ///
    /// Merges the Stop and gate entries (the gate also sees the file-writing tools) into the
    /// settings of Claude Code, Codex CLI or Gemini CLI without touching anything else (a backup
    /// is kept), writes `.hookjudge.json` where none exists (and trusts it, having written it),
    /// and with `--git-hook` installs the git pre-push hook. Running it again changes nothing;
    /// after an upgrade it updates the entries in place.
    ///
    /// Adding hooks where there were none, or raising their timeouts, only makes hookjudge
    /// stricter, so a script may do it. Replacing hookjudge's entries already there (another
    /// binary, lower timeouts, another pre-push hook) may weaken them: `init` then lists them
    /// and asks on your terminal, and refuses without one. It refuses inside an agent's tool
    /// either way.
    Init(InitArgs),
    /// Remove exactly what `init` installed (settings entries and the git hook)
    ///
    /// Removing hooks switches hookjudge off, so `uninstall` lists what it would remove and asks
    /// on your own terminal; without a terminal, in the background of one, or inside an agent's
    /// tool it refuses and removes nothing. `--dry-run` needs no terminal.
    Uninstall(UninstallArgs),
    /// Trust this repository's `.hookjudge.json` as it is now, so that all of it applies
    ///
    /// Until you trust it (and again after any change), a repository's config may only make
    /// hookjudge stricter; everything else in it is ignored. Shows what trusting would let the
    /// file do and asks on your terminal (always: nothing else can answer). Refuses without a
    /// terminal, in the background of one, and inside an agent's tool.
    Trust(TrustArgs),
    /// Approve, on your own terminal, a command the gate held back for Codex CLI or Gemini CLI
    ///
    /// Lists the commands waiting for you with their repository and why they were held back, and
    /// asks on the controlling terminal. An approval is bound to that exact command line and
    /// repository, is used up by one run and expires after 10 minutes. Refuses without a
    /// terminal and inside an agent's tool.
    Approve(ApproveArgs),
    /// Check the installation: hook entries, the binary they run, the config, the LLM, the dirs
    Doctor(DoctorArgs),
    /// Show the effective config and where each value comes from, the files consulted, or its
    /// JSON Schema
    Config(ConfigArgs),
    /// Check by hand, before pushing or committing, what the gate would say
    ///
    /// Prints the branch, its upstream, commits ahead and behind, uncommitted work, the
    /// verification evidence and recent decisions, then the verdict. With a terminal it asks
    /// whether to proceed when something needs attention. Exit status: 0 clear (or confirmed),
    /// 1 needs attention (or declined), 2 error.
    Check(CheckArgs),
    /// Judge a text directly (a file, or stdin), to tune patterns and prompts
    ///
    /// Exit status: 0 allow, 1 block, 2 error.
    Judge(JudgeArgs),
    /// Run labelled cases and report, per judge, Layer 1 recall and wake rate, and (with an
    /// LLM) precision and recall of the final decisions
    Eval(EvalArgs),
    /// Show recent decisions from the decision log
    ///
    /// One row per decision, sized to the terminal, in local time unless `--utc`; a fail-open
    /// row is followed by its cause. Outcomes: allow, block, release, fail-open, deny, ask.
    Log(LogArgs),
    /// Summarise the decision log: wake rates, blocks, fail-opens, loop-breaker releases
    ///
    /// Outcomes per response, per judge run and per gated command, fail-opens by cause, Layer 2
    /// latency, and a per-day trend of responses, wakes, blocks, fail-opens and gate decisions.
    Stats(StatsArgs),
    /// Redact secrets from stdin and print the result, as hookjudge does before any LLM call
    Redact(RedactArgs),
    /// Re-judge logged responses under the current config and show which decisions would change
    ///
    /// Use it after editing a pattern, a prompt or a rule. Needs `log.text` (on by default).
    Replay(ReplayArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    ///
    /// For example `hookjudge completions bash > ~/.local/share/bash-completion/completions/hookjudge`;
    /// `install/install.sh` installs them for bash, zsh and fish.
    Completions(CompletionsArgs),
    /// Put the man pages and shell completions where `man` and the shells find them
    ///
    /// After `cargo install`, which installs only the binary: writes the man pages next to the
    /// binary (`~/.cargo/share/man/man1` for `~/.cargo/bin/hookjudge`: `man` finds them while
    /// that `bin` is on PATH; `~/.local/share/man/man1` for a binary outside a `bin` folder) and
    /// the completions for bash, zsh and fish under `$XDG_DATA_HOME` (else `~/.local/share`):
    /// `bash-completion/completions`, `zsh/site-functions` and `fish/vendor_completions.d`.
    /// With `--prefix DIR`, all of them under `DIR/share`. `install/install.sh` runs this.
    InstallExtras(InstallExtrasArgs),
    /// Stop-hook entry: judge the agent's last response and block it or let the turn end
    ///
    /// Reads the hook JSON of Claude Code (`Stop`, `SubagentStop`), Codex CLI (`Stop`) or Gemini
    /// CLI (`AfterAgent`) on stdin. Always exits 0: any failure lets the turn end (fail-open)
    /// and is logged.
    Stop(StopArgs),
    /// PreToolUse/BeforeTool entry: check a shell command before it runs
    ///
    /// Reads the hook JSON of Claude Code or Codex CLI (`PreToolUse`, tool `Bash`) or Gemini CLI
    /// (`BeforeTool`, tool `run_shell_command`). Silent unless the command commits, pushes,
    /// publishes, deploys, skips hooks or destroys work; then denies with a reason or asks a
    /// human. Always exits 0; when it cannot decide, a human does (fail-safe).
    Gate(GateArgs),
    /// Run a command inside hookjudge's boundary, where it cannot write hookjudge's own files
    ///
    /// The gate rewrites the agent's shell commands to this when `boundary.mode` is
    /// `landlock`. Linux only: a user and mount namespace with hookjudge's anchors read-only,
    /// locked by Landlock. Exits with the command's status, or 126 when the boundary cannot be
    /// set up (nothing is run).
    #[command(hide = true)]
    RunConfined(RunConfinedArgs),
}

#[derive(Debug, Args)]
pub struct InstallExtrasArgs {
    /// Install everything under `DIR/share` instead
    #[arg(long, value_name = "DIR")]
    pub prefix: Option<PathBuf>,
    /// List what would be written, and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Only responses logged since this time: a duration back (`30m`, `2h`, `7d`) or a date
    /// (local midnight, or UTC with `--utc`)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Show times and read `--since` dates in UTC instead of local time
    #[arg(long)]
    pub utc: bool,
    /// Only this judge (repeatable)
    #[arg(long = "judge", value_name = "NAME")]
    pub judges: Vec<String>,
    /// Layer 1 only: compare trigger outcomes without calling the LLM (also what happens when
    /// no LLM is configured)
    #[arg(long)]
    pub no_llm: bool,
    /// Re-judge at most this many responses (the most recent)
    #[arg(long, short = 'n', default_value_t = 200)]
    pub limit: usize,
    /// Re-judge at most this many responses at once when calling the LLM
    #[arg(long, short = 'j', default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
    /// Print the changes as JSON lines
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Print `{"text": …, "counts": {kind: n}}` instead of the redacted text
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StopArgs {
    /// The agent calling the hook; detected from the input when absent
    #[arg(long, value_enum)]
    pub agent: Option<Agent>,
    /// The timeout (seconds) the agent gives this hook; the LLM deadline is kept below it
    #[arg(long, value_name = "SECONDS")]
    pub hook_timeout: Option<u64>,
}

#[derive(Debug, Args)]
pub struct GateArgs {
    /// The agent calling the hook; detected from the input when absent
    #[arg(long, value_enum)]
    pub agent: Option<Agent>,
    /// The timeout (seconds) the agent gives this hook; the judge's deadline is kept below it
    #[arg(long, value_name = "SECONDS")]
    pub hook_timeout: Option<u64>,
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The config file or the repository to trust; by default this repository's `.hookjudge.json`
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// List the trusted files and whether each still holds the trusted content
    #[arg(long, conflicts_with_all = ["revoke", "yes"])]
    pub list: bool,
    /// Forget the trust given to the file
    #[arg(long)]
    pub revoke: bool,
    /// Print the summary on stdout too; the question is still asked on your terminal
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The id of the command to approve (as `--list` shows it); by default you choose
    #[arg(value_name = "ID")]
    pub id: Option<String>,
    /// List the commands waiting for approval and exit
    #[arg(long)]
    pub list: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Also call the LLM provider once and report how it answered and how long it took
    #[arg(long)]
    pub online: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// The effective config, each value with the file it comes from
    Show {
        /// Print as JSON
        #[arg(long)]
        json: bool,
    },
    /// Check every config file: exit 1 when a file, or part of one, is ignored
    ///
    /// Loads the layers as the hooks do and says what each file contributes. A repository file
    /// that does not parse, or that is not trusted and holds keys that would weaken hookjudge,
    /// is (partly) ignored: that exits 1 with what to do. A user config that does not load
    /// exits 2.
    Check,
    /// The config files consulted, in order, and whether they exist
    Path,
    /// A JSON Schema of the config file, for editors
    Schema {
        /// Write it to `.hookjudge/schema.json` in the repository (git-ignored), for your editor's
        /// JSON schema setting
        #[arg(long)]
        write: bool,
    },
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Check a push of the current branch (the default)
    #[arg(long, conflicts_with = "commit")]
    pub push: bool,
    /// Check a commit of the current changes
    #[arg(long)]
    pub commit: bool,
    /// Proceed without asking when something needs attention (records your approval)
    #[arg(long, conflicts_with = "no_input")]
    pub yes: bool,
    /// Never ask; something that needs attention exits 1
    #[arg(long)]
    pub no_input: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Run the project's tests first (COMMAND, or the one its files name: `cargo test`,
    /// `npm test`, `go test ./...`, `pytest`, `make test`); a passing run writes
    /// `.hookjudge/verified`, which counts as evidence until the next change
    #[arg(long, value_name = "COMMAND", num_args = 0..=1, default_missing_value = "")]
    pub run_tests: Option<String>,
    /// Run as git's pre-push hook: read the refs being pushed from stdin
    #[arg(long, hide = true)]
    pub pre_push: bool,
    /// With `--pre-push`: the remote's name and URL, as git passes them
    #[arg(hide = true)]
    pub remote: Vec<String>,
}

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// Run only this judge (repeatable); by default every enabled judge runs
    #[arg(long = "judge", value_name = "NAME")]
    pub judges: Vec<String>,
    /// Print the outcome as JSON
    #[arg(long)]
    pub json: bool,
    /// Layer 1 only: do not call the LLM
    #[arg(long)]
    pub no_llm: bool,
    /// A file holding the user's request that the text answers: the LLM reads it as context,
    /// as it does in the Stop hook with the prompt that started the turn
    #[arg(long, value_name = "FILE")]
    pub request: Option<PathBuf>,
    /// An agent's session file (Claude Code transcript, Codex rollout, Gemini session) whose
    /// last turn the text ends: claims that tests or a build pass are checked against it, as
    /// the Stop hook does (even with `--no-llm`)
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// The text to judge; `-` or nothing reads stdin
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Labelled cases, one JSON object per line: {"id","text","judge","expect":"block"|"allow"}
    /// or {"id","text","labels":[judges that should block]}
    #[arg(value_name = "CASES.jsonl")]
    pub cases: PathBuf,
    /// The field of each case that is judged (`turn_text`: the whole turn, in real-message sets)
    #[arg(long, value_name = "FIELD", default_value = "text")]
    pub text: String,
    /// Cases judged at once with `--llm`
    #[arg(long, short = 'j', value_name = "N", default_value_t = 4)]
    pub jobs: usize,
    /// Print the figures as JSON
    #[arg(long)]
    pub json: bool,
    /// List every case whose outcome differs from its label
    #[arg(long)]
    pub misses: bool,
    /// Judge cases with the configured LLM (one call per judged case) and report the
    /// precision and recall of the final decisions
    #[arg(long)]
    pub llm: bool,
    /// Which cases go to the LLM, instead of the config's `stop.judge_turns`: `all` or `lexicon`
    #[arg(long, value_name = "SETTING")]
    pub judge_turns: Option<crate::judge::evaluate::JudgeTurns>,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only decisions where this judge was woken (triggered or bypassed)
    #[arg(long, value_name = "NAME")]
    pub judge: Option<String>,
    /// Only blocks, loop-breaker releases, and the gate's denies and asks
    #[arg(long)]
    pub blocks: bool,
    /// Only decisions since this time: a duration back (`30m`, `2h`, `7d`), a date (local
    /// midnight, or UTC with `--utc`) or a date and time (`2026-12-01 09:30`)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Show times and read `--since` dates in UTC instead of local time
    #[arg(long)]
    pub utc: bool,
    /// Show at most this many decisions (the most recent)
    #[arg(long, short = 'n', default_value_t = 20)]
    pub limit: usize,
    /// Only decisions in this repository (a path in it), or `all`. By default, the repository
    /// of the current directory when inside one, and every repository outside one
    #[arg(long, value_name = "PATH|all")]
    pub repo: Option<String>,
    /// Print the log lines as they are (JSON lines)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Only decisions since this time: a duration back (`30m`, `2h`, `7d`) or a date (local
    /// midnight, or UTC with `--utc`)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Count days and read `--since` dates in UTC instead of local time
    #[arg(long)]
    pub utc: bool,
    /// Only decisions in this repository (a path in it), or `all`. By default, the repository
    /// of the current directory when inside one, and every repository outside one
    #[arg(long, value_name = "PATH|all")]
    pub repo: Option<String>,
    /// Print the figures as JSON
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_agent_is_a_choice_by_its_name() {
        for agent in Agent::INIT {
            let choice = AgentChoice::from_str(agent.name(), false).unwrap();
            assert_eq!(choice.agents(), [agent]);
        }
        let all = AgentChoice::from_str("all", false).unwrap();
        assert_eq!(all.agents(), Agent::INIT);
        assert_eq!(AgentChoice::value_variants().len(), Agent::INIT.len() + 1);
    }
}

#[derive(Debug, Args)]
pub struct RunConfinedArgs {
    /// List what the boundary protects for this directory (and run COMMAND, if given)
    #[arg(long)]
    pub explain: bool,
    /// Leave publishing credentials (SSH keys and agent, git credential stores, `gh`, npm,
    /// cargo, PyPI, docker, kube and cloud credentials, and those written into git's
    /// configuration) visible; by default they are hidden
    #[arg(long)]
    pub with_credentials: bool,
    /// The command and its arguments
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<std::ffi::OsString>,
}
