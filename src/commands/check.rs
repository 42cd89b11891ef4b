//! `hookjudge check`: the gate's facts and policy, by hand or as git's pre-push hook.
//!
//! It prints what it found (branch, upstream, commits ahead and behind, uncommitted work,
//! evidence, recent decisions) and the verdict. When something needs attention and a terminal
//! is there, it asks on `/dev/tty` (git hooks have stdin taken by git); without one it refuses
//! rather than hang, and `--yes` records an explicit approval. As the pre-push hook, a push
//! without a terminal (an IDE's button) is the person's own: it is told and goes ahead, unless
//! an agent runs it. `--run-tests` runs the project's tests and records a pass as evidence.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{ExitStatus, UserError};
use crate::cli::CheckArgs;
use crate::config::Settings;
use crate::gate::classify::{Class, Gated, PushSpec, Target};
use crate::gate::evidence::Finding;
use crate::gate::facts::{Changes, PushFacts, Repo};
use crate::gate::gather::Reads;
use crate::gate::outcome;
use crate::gate::policy::{self, Context, Decision, Ruling, RulingFacts};
use crate::log::{CheckDecider, CheckRecord, Origin, Record, RulingEntry};
use crate::support::time::Timestamp;

/// Runs the check.
pub(super) fn check(args: &CheckArgs, config: Option<&Path>) -> Result<ExitStatus, UserError> {
    let cwd = super::current_dir();
    let settings = Settings::load(&cwd, config)?;
    crate::log::prune_on_new_day(
        &settings.log_dir,
        Timestamp::now(),
        settings.log_retention_days,
    );
    let target = Target {
        dir: Some(cwd.clone()),
        ..Target::default()
    };
    super::warn_config_problems(&settings);
    // Opened once: the report and every ruling read the same repository.
    let reads = Reads::default();
    let opened = reads.repo(&target, &cwd);
    let repo = opened.as_ref().as_ref().map_err(|e| {
        UserError::new(e.to_string()).hint("run `hookjudge check` inside a git work tree")
    })?;
    let class = if args.commit {
        Class::Commit
    } else {
        Class::Push
    };
    if let Some(command) = &args.run_tests {
        let root = repo.work_tree.clone().unwrap_or_else(|| cwd.clone());
        super::run_tests::run_and_record(&root, command)?;
    }
    let pushes = if args.pre_push {
        pre_push_specs(args)?
    } else {
        vec![(PushSpec::default(), None)]
    };
    let now = Timestamp::now().millis;
    let mut rulings = Vec::new();
    for (spec, words) in &pushes {
        let (command, what) = match class {
            Class::Commit => ("git commit".into(), "creates a commit"),
            _ => (push_command(spec), "pushes commits"),
        };
        let gated = Gated {
            class,
            command,
            target: target.clone(),
            push: (class == Class::Push).then(|| spec.clone()),
            destructive: None,
            what: what.into(),
        };
        let ctx = Context::plain(&settings.gate, &cwd, now, &reads);
        let mut ruling = policy::decide(&gated, &ctx);
        // Git names the commits by id; the person reads what they are pushing, in words.
        if let Some(words) = words {
            ruling.reason = ruling
                .reason
                .replace(&format!("`{}`", ruling.command), words);
            ruling.command = words.clone();
        }
        rulings.push(ruling);
    }
    let report = Report::of(repo, &settings, &rulings);
    let worst = outcome::worst(&rulings);
    let mut out: Box<dyn Write> = if args.pre_push {
        Box::new(io::stderr())
    } else {
        Box::new(io::stdout())
    };
    let write = |out: &mut dyn Write| -> io::Result<()> {
        if args.json {
            let json = serde_json::to_string(&Json {
                report: &report,
                decision: worst,
                rulings: &rulings,
            })
            .map_err(io::Error::other)?;
            writeln!(out, "{json}")
        } else {
            write_report(out, &report, &rulings, worst)
        }
    };
    write(out.as_mut()).map_err(UserError::output)?;
    let (status, by) = match worst {
        Decision::Silent => (ExitStatus::Success, CheckDecider::Facts),
        _ if args.yes => (ExitStatus::Success, CheckDecider::UserYes),
        _ if args.no_input || args.json => (ExitStatus::Attention, CheckDecider::NoInput),
        _ => match confirm(&rulings) {
            Some(true) => (ExitStatus::Success, CheckDecider::UserTerminal),
            Some(false) => (ExitStatus::Attention, CheckDecider::UserTerminal),
            // A person's push from an IDE or a script: theirs to make, told what was found.
            None if args.pre_push && crate::agent::human::inside_agent().is_none() => {
                let _ = writeln!(out, "\n{}", PUSH_GOES_AHEAD);
                (ExitStatus::Success, CheckDecider::NoTerminal)
            }
            None => {
                let _ = writeln!(out, "\n{}", no_terminal_hint(args.pre_push, class));
                (ExitStatus::Attention, CheckDecider::NoTerminal)
            }
        },
    };
    if args.yes && worst != Decision::Silent && !args.json {
        let _ = writeln!(out, "\n{}", accepted_line(class, &rulings));
    }
    let record = Record::Check(CheckRecord {
        origin: Origin::now(Some(cwd.to_string_lossy().into_owned())),
        command: if args.pre_push {
            "git push (pre-push hook)"
        } else {
            "hookjudge check"
        }
        .to_owned(),
        action: worst,
        proceed: status == ExitStatus::Success,
        decided_by: Some(by),
        rulings: rulings.into_iter().map(RulingEntry::from).collect(),
        rest: serde_json::Map::new(),
    });
    if let Err(e) = crate::log::append(&settings.log_dir, Timestamp::now(), &record) {
        let _ = writeln!(io::stderr(), "warning: cannot write the decision log: {e}");
    }
    Ok(status)
}

/// What the pre-push hook says when it lets a person's push go ahead without asking.
const PUSH_GOES_AHEAD: &str = "no terminal to ask on, so the push goes ahead: it is yours to make. This was logged; `hookjudge check` shows this report again, `hookjudge check --run-tests` runs the tests and records a pass.";

/// What to do when something needs attention and there is no terminal to ask on. Git has no
/// flag to pass on to its hook, so the pre-push hook's answer is to push from a terminal.
fn no_terminal_hint(pre_push: bool, class: Class) -> String {
    if pre_push {
        "this push runs inside an agent, with no terminal to ask on; refusing the push. Push from your own terminal to be asked, or fix what is listed above (`hookjudge check` shows this report again).".into()
    } else {
        let what = if class == Class::Commit {
            " --commit"
        } else {
            ""
        };
        format!(
            "no terminal to ask on; refusing. Run `hookjudge check{what}` in a terminal to be asked, `hookjudge check{what} --yes` to proceed anyway, or fix what is listed above."
        )
    }
}

/// The confirmation `--yes` prints: what was accepted, so that an approval is never silent.
fn accepted_line(class: Class, rulings: &[Ruling]) -> String {
    let what = if class == Class::Commit {
        "the commit"
    } else {
        "the push"
    };
    let points = rulings
        .iter()
        .filter(|r| r.decision != Decision::Silent)
        .count();
    let points = if points == 1 {
        "the point".to_string()
    } else {
        format!("the {points} points")
    };
    format!(
        "accepted with --yes: {what}, despite {points} listed above; recorded in the decision log as your approval"
    )
}

fn push_command(spec: &PushSpec) -> String {
    let mut parts = vec!["git push".to_string()];
    parts.extend(spec.remote.clone());
    parts.extend(spec.refspecs.clone());
    parts.join(" ")
}

/// The refs git is pushing, from the pre-push hook's stdin:
/// `<local ref> <local sha> <remote ref> <remote sha>` per line; each with what it pushes in
/// words (`the push of `main` to `origin`'s `main``), since git names the commits by id.
fn pre_push_specs(args: &CheckArgs) -> Result<Vec<(PushSpec, Option<String>)>, UserError> {
    let remote = args.remote.first().cloned();
    let mut specs = Vec::new();
    for line in io::stdin().lock().lines() {
        let line =
            line.map_err(|e| UserError::new(format!("cannot read the refs from git: {e}")))?;
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [local_ref, local_sha, remote_ref, _remote_sha] = parts[..] else {
            continue;
        };
        let deleting = local_sha.chars().all(|c| c == '0');
        let dst = remote_ref.trim_start_matches("refs/heads/");
        let src = if local_ref == "(delete)" {
            String::new()
        } else {
            local_sha.to_owned()
        };
        let to = match &remote {
            Some(remote) => format!("`{remote}`'s `{dst}`"),
            None => format!("`{dst}`"),
        };
        let words = if deleting {
            format!("the deletion of {to}")
        } else {
            let local = local_ref
                .strip_prefix("refs/heads/")
                .or_else(|| local_ref.strip_prefix("refs/tags/"))
                .unwrap_or(local_ref);
            format!("the push of `{local}` to {to}")
        };
        specs.push((
            PushSpec {
                remote: remote.clone(),
                refspecs: vec![format!("{src}:{dst}")],
                delete: deleting,
                ..PushSpec::default()
            },
            Some(words),
        ));
    }
    Ok(specs)
}

/// What `--json` prints.
#[derive(Serialize)]
struct Json<'a> {
    report: &'a Report<'a>,
    decision: Decision,
    rulings: &'a [Ruling],
}

/// What `check` found, besides the rulings.
#[derive(Serialize)]
struct Report<'a> {
    repository: Option<PathBuf>,
    branch: Option<String>,
    upstream: Option<String>,
    /// A push ruling holds the facts of each ref it pushes; any other ruling, its facts.
    push: Vec<Pushed<'a>>,
    uncommitted: Option<Changes>,
    evidence: Vec<Option<&'a Finding>>,
    recent_decisions: Vec<Record>,
}

/// One entry of [`Report::push`].
#[derive(Serialize)]
#[serde(untagged)]
enum Pushed<'a> {
    Ref(&'a PushFacts),
    Facts(&'a RulingFacts),
}

impl<'a> Report<'a> {
    fn of(repo: &Repo, settings: &Settings, rulings: &'a [Ruling]) -> Report<'a> {
        let root = repo.work_tree.clone();
        let recent = crate::log::read(
            &settings.log_dir,
            Some(Timestamp {
                millis: Timestamp::now().millis - 7 * 86_400_000,
            }),
        )
        .map(|r| r.records)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.kind() != "check")
        .filter(|r| {
            root.as_ref()
                .is_some_and(|root| r.cwd().is_some_and(|c| Path::new(c).starts_with(root)))
        })
        .rev()
        .take(5)
        .collect();
        let push = rulings
            .iter()
            .flat_map(|r| match r.facts.pushed_refs() {
                Some(refs) => refs.iter().map(Pushed::Ref).collect(),
                None => vec![Pushed::Facts(&r.facts)],
            })
            .collect();
        Report {
            uncommitted: repo.changes().ok(),
            repository: root,
            branch: repo.branch(),
            upstream: repo.upstream(),
            push,
            evidence: rulings.iter().map(|r| r.evidence.as_ref()).collect(),
            recent_decisions: recent,
        }
    }
}

fn write_report(
    out: &mut dyn Write,
    report: &Report,
    rulings: &[Ruling],
    worst: Decision,
) -> io::Result<()> {
    let repository = report.repository.as_deref().and_then(Path::to_str);
    writeln!(out, "hookjudge check: {}", repository.unwrap_or("?"))?;
    let branch = report.branch.as_deref().unwrap_or("(detached HEAD)");
    let upstream = report
        .upstream
        .as_ref()
        .map(|u| format!(" -> {u}"))
        .unwrap_or_else(|| " (no upstream)".into());
    writeln!(out, "  branch       {branch}{upstream}")?;
    for facts in rulings
        .iter()
        .filter_map(|r| r.facts.pushed_refs())
        .flatten()
    {
        writeln!(
            out,
            "  to push      {} ahead, {} behind `{}/{}`",
            facts.ahead.count, facts.behind.count, facts.remote, facts.destination
        )?;
        for c in &facts.ahead.first {
            writeln!(out, "               + {} {}", c.id, c.subject)?;
        }
        for c in &facts.behind.first {
            writeln!(
                out,
                "               - {} {} (only on the remote)",
                c.id, c.subject
            )?;
        }
    }
    let u = report.uncommitted.as_ref();
    writeln!(
        out,
        "  uncommitted  {} modified, {} untracked",
        u.map_or(0, |u| u.modified.len()),
        u.map_or(0, |u| u.untracked.len())
    )?;
    let path = |p: &PathBuf| p.to_str().unwrap_or("").to_owned();
    for e in report.evidence.iter().flatten() {
        let line = match e {
            Finding::FreshArtifact { path: p, age_ms } => format!("test results `{}`, {} s old, newer than the last change", path(p), age_ms / 1000),
            Finding::StaleArtifact { path: p, .. } => format!("test results `{}` are older than the last change", path(p)),
            _ => "none found (`hookjudge check --run-tests` runs the tests and records a pass; see also `gate.artifacts`)".into(),
        };
        writeln!(out, "  evidence     {line}")?;
    }
    if !report.recent_decisions.is_empty() {
        writeln!(out, "  recent       (newest first)")?;
        for r in &report.recent_decisions {
            let ts = r.ts();
            let text: String = r.subject().split_whitespace().collect::<Vec<_>>().join(" ");
            writeln!(
                out,
                "               {} {} {:<8} {}",
                ts.get(..16).unwrap_or(ts),
                r.kind(),
                crate::log::outcome::of(r),
                text.chars().take(60).collect::<String>()
            )?;
        }
    }
    match worst {
        Decision::Silent => writeln!(out, "\nclear: nothing needs attention"),
        _ => {
            writeln!(out, "\nneeds attention:")?;
            for r in rulings.iter().filter(|r| r.decision != Decision::Silent) {
                writeln!(out, "  {}", r.reason.trim_start_matches("hookjudge: "))?;
            }
            Ok(())
        }
    }
}

/// Asks on the terminal whether to proceed. `None` when there is no terminal.
fn confirm(rulings: &[Ruling]) -> Option<bool> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let term = console::Term::read_write_pair(tty.try_clone().ok()?, tty);
    let what = if rulings.iter().any(|r| r.class == Class::Commit) {
        "commit"
    } else {
        "push"
    };
    dialoguer::Confirm::new()
        .with_prompt(format!("Proceed with the {what} anyway?"))
        .default(false)
        .interact_on(&term)
        .ok()
}
