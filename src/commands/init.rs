//! `hookjudge init`: put our hook entries into agents' settings (and the git pre-push hook).
//!
//! The work is in [`crate::install`]: [`plan`] reads, validates and merges every file first,
//! [`apply`] writes only when every plan succeeded (a write that fails puts back the files
//! already written) and records what it changed so that `uninstall` restores files byte for
//! byte. This module resolves the command line, asks before changing an installation that is
//! already there, and reports.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{ExitStatus, UserError};
use crate::agent::Agent;
use crate::cli::{AgentChoice, InitArgs, ScopeArg};
use crate::config::{self, Settings};
use crate::install::plan::{self, Plan, REPO_CONFIG, SCHEMA_FILE};
use crate::install::settings::{self, Fill, Scope};
use crate::install::target::Target;
use crate::install::{apply, files, githook};
use crate::support::{dirs, term};

fn scope(arg: ScopeArg) -> Scope {
    match arg {
        ScopeArg::Project => Scope::Project,
        ScopeArg::Local => Scope::Local,
        ScopeArg::User => Scope::User,
    }
}

fn home() -> Result<PathBuf, UserError> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            UserError::new("`HOME` is not set").hint("set `HOME`, or use `--scope project`")
        })
}

/// The running binary, which the entries will call.
pub fn binary() -> Result<PathBuf, UserError> {
    let exe = std::env::current_exe()
        .map_err(|e| UserError::new(format!("cannot tell where the hookjudge binary is: {e}")))?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

/// The running binary as the hook entries will call it. Its file name must be `hookjudge`:
/// that is how `init`, `uninstall`, upgrades and `doctor` tell hookjudge's entries from others,
/// so entries calling a renamed copy would never be found again.
fn entry_binary() -> Result<PathBuf, UserError> {
    let binary = binary()?;
    let name = binary.file_name().and_then(|n| n.to_str());
    match name {
        Some(name) if crate::install::settings::is_our_file_name(name) => Ok(binary),
        _ => Err(UserError::new(format!(
            "this binary is `{}`, but hook entries must run a file named `hookjudge` (that is how hookjudge finds its own entries again); nothing was written",
            binary.display()
        ))
        .hint("copy or link it as `hookjudge` on your PATH (or `cargo install hookjudge`), then run that `hookjudge init`")),
    }
}

/// What `init` (or, `removing`, `uninstall`) acts on, from the command line.
pub(super) fn target(
    agent: Option<AgentChoice>,
    scope_arg: ScopeArg,
    force: bool,
    removing: bool,
) -> Result<Target, UserError> {
    let cwd = super::current_dir();
    let scope = scope(scope_arg);
    let home = home()?;
    let root = match crate::support::paths::repo_root(&cwd) {
        Some(root) => root,
        None if scope == Scope::User || force || removing => cwd.clone(),
        None => {
            return Err(UserError::new(format!("`{}` is not inside a git repository", cwd.display()))
                .hint("run `hookjudge init` in your project, or pass `--force` to install here anyway, or `--scope user` for every project"));
        }
    };
    let (agents, explicit, defaulted) = match agent {
        Some(choice) => (choice.agents().to_vec(), true, false),
        None if removing => (Agent::INSTALLABLE.to_vec(), false, false),
        None => {
            let present: Vec<Agent> = Agent::INSTALLABLE
                .into_iter()
                .filter(|a| settings::agent_folder(*a, scope, &root, &home).is_dir())
                .collect();
            // With no agent's folder to go by, Claude Code, and the person is told so.
            let defaulted = present.is_empty();
            (
                if defaulted {
                    vec![Agent::Claude]
                } else {
                    present
                },
                false,
                defaulted,
            )
        }
    };
    Ok(Target {
        root,
        home,
        scope,
        agents,
        explicit,
        defaulted,
    })
}

/// Installs for each chosen agent.
pub(super) fn init(args: &InitArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    refuse_inside_agent("init")?;
    let t = target(args.agent, args.scope, args.force, false)?;
    if args.require && t.scope != Scope::Project {
        return Err(UserError::new("`--require` is for team mode")
            .hint("use `hookjudge init --scope project --require`"));
    }
    let binary = entry_binary()?;
    let mut warnings = Vec::new();
    let settings = match Settings::load(&t.root, config) {
        Ok(s) => {
            for problem in crate::config::check::problems(&s) {
                warnings.push(format!("{problem} ({})", problem.hint()));
            }
            s
        }
        Err(e) => {
            warnings.push(format!("{e}; the entries use the default timeouts"));
            Settings::defaults()
        }
    };
    let fill = Fill {
        binary: binary.clone(),
        stop_timeout_ms: settings.llm.timeout_ms,
        gate_timeout_ms: settings.gate.timeout_ms,
        portable: t.scope.portable(),
        required: args.require,
    };

    // Plan every file; write nothing until all of them can be written.
    let (sandbox, codex_sandbox) = super::init_boundary::boundaries(args.boundary, &t, &binary)?;
    let options = plan::Options {
        git_hook: args.git_hook,
        require: args.require,
        sandbox,
        codex_sandbox,
    };
    let plan = plan::plan(&t, &fill, &binary, options);
    if !plan.errors.is_empty() {
        let mut message = String::from("nothing was written:");
        for e in &plan.errors {
            message.push_str(&format!("\n  {e}"));
        }
        return Err(UserError::new(message)
            .hint("fix the files named above, then run `hookjudge init` again"));
    }

    let mut out = io::stdout().lock();
    if args.dry_run {
        if let Some(note) = t.default_note() {
            let _ = writeln!(out, "# note: {note}");
        }
        print_diffs(&plan, &t, &mut out);
        let _ = writeln!(
            out,
            "# dry run: nothing was written; `patch -p1` in `{}` applies the diffs above",
            t.diff_base().display()
        );
        return Ok(ExitStatus::Success);
    }

    // Adding hooks where there were none only makes hookjudge stricter, so a script may do it;
    // changing the hooks already there (another binary, other timeouts) may weaken them, so
    // only the person at the terminal may.
    let replaced = replacements(&plan, &t);
    if !replaced.is_empty() {
        let mut tty = super::trust::person_for("init")?;
        tty.say(&format!(
            "hookjudge init would change hookjudge's existing installation:\n{}\n(see them with `hookjudge init --dry-run`)\n",
            replaced.join("\n")
        ));
        if !tty.confirm("Replace them?") {
            let _ = writeln!(out, "hookjudge init: nothing was written");
            return Ok(ExitStatus::Attention);
        }
    }
    let mut lines = write(&plan, &t)?;
    // Only a repository config init wrote itself is trusted; a cloned one never is.
    let repo_config = t.root.join(config::REPO_FILE);
    if plan
        .files
        .iter()
        .any(|p| p.path == repo_config && p.old.is_none())
    {
        // What init wrote is what is trusted, never what the file holds by now.
        crate::config::trust::trust_content(&repo_config, REPO_CONFIG.as_bytes())
            .map_err(|e| UserError::new(e.to_string()))?;
    } else if let Some(report) = &settings.repo_report {
        lines.push(format!(
            "  untrusted  {}  ({})",
            config::REPO_FILE,
            report.message()
        ));
    }
    if let Some(hook) = &plan.git_hook {
        let outcome = githook::install(&hook.dir, &hook.program, false)?;
        lines.push(git_hook_line(&t, hook, outcome));
    }
    for file in plan.files.iter().filter(|p| p.unchanged()) {
        lines.push(format!(
            "  unchanged  {}  ({} already installed)",
            file.name, file.what
        ));
    }
    report(
        &mut out,
        &t,
        &plan,
        &lines,
        &warnings,
        args.require,
        &settings,
    );
    Ok(ExitStatus::Success)
}

/// The diff of every planned change, for `--dry-run`.
fn print_diffs(plan: &Plan, t: &Target, out: &mut dyn Write) {
    for file in &plan.files {
        let name = t.diff_name(&file.path);
        // Generated and hundreds of lines long: named, not shown.
        if file.path.ends_with(SCHEMA_FILE) {
            let _ = writeln!(
                out,
                "# {name}: {} the config's JSON Schema ({} lines; `hookjudge config schema` prints it)",
                if file.old.is_some() {
                    "updates"
                } else {
                    "writes"
                },
                file.new.lines().count()
            );
            continue;
        }
        let _ = write!(
            out,
            "{}",
            files::diff(&name, file.old.as_deref(), Some(&file.new))
        );
    }
    if let Some(hook) = &plan.git_hook {
        let path = hook.dir.join("pre-push");
        // A hook that cannot be read shows as new; the dry install already accepted it.
        let old = std::fs::read_to_string(&path).ok();
        let _ = write!(
            out,
            "{}",
            files::diff(
                &t.diff_name(&path),
                old.as_deref(),
                Some(&githook::script(&hook.program))
            )
        );
    }
}

/// The changes to hookjudge's own hooks already installed, which need the person's yes.
fn replacements(plan: &Plan, t: &Target) -> Vec<String> {
    let mut replaced = Vec::new();
    if let Some(hook) = &plan.git_hook
        && hook.outcome == githook::Installed::Updated
    {
        replaced.push(format!(
            "  replace  {}  (hookjudge's pre-push hook)",
            t.shown(&hook.dir.join("pre-push"))
        ));
    }
    replaced.extend(
        plan.files
            .iter()
            .filter(|p| p.has_ours_before && !p.unchanged() && !p.only_stricter)
            .map(|p| format!("  replace  {}  ({})", p.name, p.change)),
    );
    replaced
}

/// Writes every planned file, or none; one summary line per file written.
fn write(plan: &Plan, t: &Target) -> Result<Vec<String>, UserError> {
    let written = apply::write_all(&plan.files, &dirs::state_dir()).map_err(|e| {
        UserError::new(e.to_string())
            .hint("make the file writable, or see the changes with `--dry-run`")
    })?;
    let mut lines: Vec<String> = written
        .warnings
        .iter()
        .map(|e| format!("  warning    {e}"))
        .collect();
    for (file, backup) in &written.files {
        let verb = if file.old.is_some() {
            "updated"
        } else {
            "created"
        };
        let backup = backup
            .as_ref()
            .map(|b| format!("; backup: {}", t.shown(b)))
            .unwrap_or_default();
        lines.push(format!(
            "  {verb:<9}  {}  ({}{backup})",
            file.name, file.what
        ));
    }
    Ok(lines)
}

fn git_hook_line(t: &Target, hook: &plan::HookPlan, outcome: githook::Installed) -> String {
    let name = t.shown(&hook.dir.join("pre-push"));
    let how = match hook.program {
        githook::Program::OnPath { .. } => "; runs `hookjudge` from PATH",
        githook::Program::Absolute(_) => "",
    };
    match outcome {
        githook::Installed::Created => format!("  created    {name}  (git pre-push{how})"),
        githook::Installed::Updated => format!("  updated    {name}  (git pre-push{how})"),
        githook::Installed::Unchanged => format!("  unchanged  {name}"),
        githook::Installed::Chained => format!(
            "  created    {name}  (the hook that was there runs after it, as `{}`{how})",
            githook::PREVIOUS
        ),
    }
}

/// Where a file line's continuation starts: under the file's name (`  created    `).
const FILE_INDENT: &str = "             ";
/// Where a `note:` or `next:` line's continuation starts.
const NOTE_INDENT: &str = "      ";

/// The summary: what was written, then what to know and what to do next, each line wrapped
/// to the terminal's width.
fn report(
    out: &mut dyn Write,
    t: &Target,
    plan: &Plan,
    lines: &[String],
    warnings: &[String],
    require: bool,
    settings: &Settings,
) {
    let agents: Vec<&str> = plan.agents.iter().map(|a| a.display_name()).collect();
    let mut say = |text: &str, indent: &str| {
        let _ = term::say(out, text, indent);
    };
    say(
        &format!(
            "hookjudge init: {} ({} scope) in {}",
            agents.join(", "),
            t.scope.name(),
            t.root.display()
        ),
        "  ",
    );
    for line in lines {
        say(line, FILE_INDENT);
    }
    if let Some(note) = t.default_note() {
        say(&format!("note: {note}"), NOTE_INDENT);
    }
    for note in plan.notes.iter().chain(warnings) {
        say(&format!("note: {note}"), NOTE_INDENT);
    }
    if t.scope.portable() {
        say(
            &format!(
                "note: team mode: the committed entries run whatever `hookjudge` is first on each teammate's PATH; a teammate without it {}",
                if require {
                    "is asked before every shell command and cannot push"
                } else {
                    "is told it is missing and is not blocked (`--require` changes that)"
                }
            ),
            NOTE_INDENT,
        );
    }
    if plan.agents.contains(&Agent::Codex) {
        say(
            "note: Codex skips new hooks until you trust them: open `/hooks` in Codex and trust the hookjudge entries",
            NOTE_INDENT,
        );
    }
    let resolution = crate::llm::resolve::resolve(
        &settings.llm,
        &dirs::state_dir(),
        &crate::llm::resolve::process_env,
    );
    let next = match resolution.backend {
        Some(b) => format!(
            "next: the judges will use {} ({}); check it with `hookjudge doctor --online`",
            b.describe(),
            resolution.why.trim_start_matches("auto: ")
        ),
        None => format!(
            "next: no LLM provider found, so triggers are only logged; set `llm.provider` in your own config `{}` (see `hookjudge config schema`), then run `hookjudge doctor --online`",
            dirs::config_file().display()
        ),
    };
    say(&next, NOTE_INDENT);
}

/// Installing or removing hookjudge's hooks is the user's choice, never an agent's: refused
/// when the process runs inside an agent's tool (its environment markers or an agent among
/// the parent processes), as `trust` and `approve` are.
pub(super) fn refuse_inside_agent(command: &str) -> Result<(), UserError> {
    match crate::agent::human::inside_agent() {
        Some(why) => Err(UserError::new(format!(
            "`hookjudge {command}` is for you to run in your own terminal, not for an agent ({why})"
        ))
        .hint(format!(
            "open a terminal outside the agent and run `hookjudge {command}` there"
        ))),
        None => Ok(()),
    }
}
