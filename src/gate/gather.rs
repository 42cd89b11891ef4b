//! Gathering what one gated action is decided on, each fact read once: the repository's state
//! as far as the action's class needs it, then (only when that leaves the action to them) the
//! evidence of verification, then the gate's judge. [`super::decide`] turns the facts into a
//! ruling without touching a repository, a transcript or an LLM.
//!
//! What one hook call reads is shared by all its actions ([`Reads`]): a repository is opened
//! once however many actions on the line target it (and already when classifying the line read
//! its git aliases), and the session's recent activity is summarised once. The transcript is read here and nowhere else in the gate's decision: for
//! test runs (with the short wait for a just-finished one) and for the judge's activity summary.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::classify::{Class, Destructive, Gated, Target};
use super::evidence::{self, Finding};
use super::facts::{self, Changes, Commits, PushFacts, Repo};
use super::policy::Context;
use super::repos::{Opened, Repos};
use crate::judge::evaluate::Answer;

/// Bytes of recent session activity the gate's judge reads.
const ACTIVITY_BYTES: usize = 4000;
/// Paths a pushed range is compared on at most.
const MAX_PUSHED_PATHS: usize = 5000;

/// Everything one gated action is decided on.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The user approved this exact command with `hookjudge approve`.
    pub approved: bool,
    /// The repository the action targets, as far as its class needs it.
    pub repo: RepoFacts,
    /// Proof of verification; gathered only when the repository facts leave the action to it.
    pub evidence: Option<Evidence>,
    /// What the gate's judge said; asked only when the evidence does not settle the action.
    pub judge: Option<JudgeSaid>,
}

/// What the target repository shows.
#[derive(Debug, Clone, Default)]
pub enum RepoFacts {
    /// Not read: the policy settles the action without it.
    #[default]
    NotRead,
    /// The repository could not be opened.
    Unreadable(facts::Error),
    /// A commit, publish or deploy: the uncommitted work and where HEAD is.
    Work(WorkFacts),
    Push(PushRepoFacts),
    Destructive(DestructiveFacts),
}

/// For a commit, publish or deploy.
#[derive(Debug, Clone)]
pub struct WorkFacts {
    pub work_tree: Option<PathBuf>,
    pub branch: Option<String>,
    /// Uncommitted work less test artifacts (a commit takes the index too: the exact status).
    pub changes: Result<Changes, facts::Error>,
    /// HEAD's committer time, in seconds.
    pub head_time: Option<i64>,
    /// A commit takes only changes that are not code (read only when it would otherwise need
    /// evidence: see [`super::not_code`]).
    pub takes_only_not_code: bool,
}

/// For a push.
#[derive(Debug, Clone)]
pub struct PushRepoFacts {
    pub work_tree: Option<PathBuf>,
    /// Whether the remote the command names is configured (`None`: it names none, or a URL).
    pub named_remote_configured: Option<bool>,
    pub has_upstream: bool,
    pub origin_configured: bool,
    /// What each refspec would send; `None` when the facts above already settle the push
    /// (walking the history towards a remote that does not exist could read all of it).
    pub refs: Option<Result<Vec<PushFacts>, facts::Error>>,
    /// Repository paths the pushed commits change; an error when some range could not be
    /// compared (then every change counts against the evidence).
    pub pushed_paths: Result<Vec<String>, facts::Error>,
    /// The newest pushed commit's time in ms (the end of its second; now when unreadable, so
    /// that no earlier evidence counts).
    pub newest_commit_ms: i64,
    /// Every pushed commit changes only files that are not code (read only when the push
    /// would otherwise need evidence: see [`super::not_code`]).
    pub commits_only_not_code: bool,
}

/// For a destructive operation: what it would lose.
#[derive(Debug, Clone)]
pub struct DestructiveFacts {
    pub work_tree: Option<PathBuf>,
    pub changes: Result<Changes, facts::Error>,
    /// The current branch.
    pub branch: Option<String>,
    /// `git checkout X …` without `--`: whether `X` names a commit (then the rest are paths).
    pub first_arg_is_commit: bool,
    /// `clean.requireForce` is off.
    pub clean_needs_no_force: bool,
    pub stash_count: usize,
    /// Branches being deleted (`HEAD` read as the current one), with the commits only they have.
    pub only_on_branch: Vec<(String, Commits)>,
    /// Commits a branch move or a rebase leaves on no ref.
    pub lost_by_move: Option<Result<Commits, facts::Error>>,
    /// What a `git clean` would delete that matters (read for `git clean` only).
    pub clean: Option<Result<super::clean::CleanLoss, facts::Error>>,
    /// Untracked paths (as in `changes`) that are the session's own scratch
    /// ([`super::scratch`]): removing them loses nothing of the user's.
    pub session_scratch: Vec<String>,
}

impl Default for PushRepoFacts {
    fn default() -> PushRepoFacts {
        PushRepoFacts {
            work_tree: None,
            named_remote_configured: None,
            has_upstream: false,
            origin_configured: false,
            refs: None,
            pushed_paths: Ok(Vec::new()),
            newest_commit_ms: 0,
            commits_only_not_code: false,
        }
    }
}

impl Default for DestructiveFacts {
    fn default() -> DestructiveFacts {
        DestructiveFacts {
            work_tree: None,
            changes: Ok(Changes::default()),
            branch: None,
            first_arg_is_commit: false,
            clean_needs_no_force: false,
            stash_count: 0,
            only_on_branch: Vec::new(),
            lost_by_move: None,
            clean: None,
            session_scratch: Vec::new(),
        }
    }
}

/// Evidence that the code was verified since its last change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Test artifacts in the work tree.
    pub artifacts: Finding,
    /// Test runs in the session; `None` when not read (fresh artifacts, no transcript).
    pub transcript: Option<Finding>,
}

/// What the gate's judge said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeSaid {
    /// No judge, no transcript or no activity: nothing to judge.
    Nothing,
    /// No LLM provider is configured (or found), so the judge could not be asked.
    NoLlm,
    /// Its fields, with its `block_when` applied.
    Answer {
        blocks: bool,
        reason: Option<String>,
    },
    /// The call failed.
    Failed(String),
}

/// Which changes count against evidence: all of them (a commit takes the work tree), or only
/// those to the given repository paths (a push sends commits, not the uncommitted edits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Everything,
    Paths(Vec<String>),
}

/// What the evidence is looked for against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceQuery {
    pub work_tree: Option<PathBuf>,
    /// The newest change, in ms.
    pub newest_change: i64,
    pub scope: Scope,
}

/// What one hook call has read, shared by all its actions.
#[derive(Default)]
pub struct Reads {
    /// The repositories opened, also for reading git aliases while classifying.
    repos: Repos,
    /// The session's recent activity (one session per hook call).
    activity: RefCell<Option<String>>,
}

impl Reads {
    /// The repository of `target` (discovered from `cwd` when the target names no directory).
    pub fn repo(&self, target: &Target, cwd: &Path) -> Opened {
        self.repos.open(target, cwd)
    }

    /// The repositories opened so far, for classifying the command before facts are gathered.
    pub fn repos(&self) -> &Repos {
        &self.repos
    }

    /// The last [`ACTIVITY_BYTES`] of the session's activity, for the judge (summarised once
    /// per hook call, whichever action asks first).
    fn activity(&self, transcript: &evidence::Session) -> String {
        let mut cached = self.activity.borrow_mut();
        if let Some(text) = cached.as_ref() {
            return text.clone();
        }
        let text = transcript.recent_activity(ACTIVITY_BYTES);
        *cached = Some(text.clone());
        text
    }
}

/// The repository facts `gated` is decided on (none when its policy or class needs none).
pub fn repository(gated: &Gated, ctx: &Context) -> Facts {
    let mut facts = Facts {
        approved: ctx.approved,
        ..Facts::default()
    };
    if !super::decide::rests_on_repository(gated.class, ctx.settings) {
        return facts;
    }
    let opened = ctx.reads.repo(&gated.target, ctx.cwd);
    let repo = match opened.as_ref() {
        Ok(repo) => repo,
        Err(e) => {
            facts.repo = RepoFacts::Unreadable(e.clone());
            return facts;
        }
    };
    facts.repo = match gated.class {
        Class::Destructive => {
            let mut facts = destructive(repo, gated);
            // A `find` reaches into untracked directories: list them for its selection.
            if let (
                Some(Destructive::RemoveFiles {
                    select: Some(select),
                    ..
                }),
                Some(root),
                Ok(changes),
            ) = (&gated.destructive, &facts.work_tree, &mut facts.changes)
            {
                let untracked = std::mem::take(&mut changes.untracked);
                changes.untracked = super::find_select::list_untracked(root, untracked, select);
            }
            if let (Some(Destructive::RemoveFiles { .. }), Some(session), Some(root), Ok(changes)) = (
                &gated.destructive,
                ctx.transcript,
                &facts.work_tree,
                &facts.changes,
            ) && !changes.untracked.is_empty()
            {
                let made = super::scratch::SessionMade::read(session, ctx.cwd);
                facts.session_scratch = changes
                    .untracked
                    .iter()
                    .filter(|p| made.is_scratch(&root.join(p.trim_end_matches('/'))))
                    .cloned()
                    .collect();
            }
            if let Some(op @ Destructive::Clean { .. }) = &gated.destructive {
                let made = ctx
                    .transcript
                    .map(|session| super::scratch::SessionMade::read(session, ctx.cwd));
                facts.clean = Some(super::clean::read(
                    repo,
                    op,
                    made.as_ref(),
                    &ctx.settings.artifacts,
                ));
            }
            RepoFacts::Destructive(facts)
        }
        // A push by another tool (`jj git push`, `hub push`) has no refspecs to follow: it
        // is judged like a publish, on the work it takes.
        Class::Push if gated.push.is_some() => RepoFacts::Push(push(repo, gated, ctx.now)),
        _ => {
            let artifacts = &ctx.settings.artifacts;
            RepoFacts::Work(WorkFacts {
                work_tree: repo.work_tree.clone(),
                branch: repo.branch(),
                changes: repo.changes_except(|p| evidence::is_artifact(p, artifacts)),
                head_time: repo.head().map(|(_, t)| t),
                takes_only_not_code: false,
            })
        }
    };
    facts
}

fn push(repo: &Repo, gated: &Gated, now: i64) -> PushRepoFacts {
    let spec = gated.push.clone().unwrap_or_default();
    let named = spec
        .remote
        .as_ref()
        .filter(|r| !r.contains(['/', ':']) && *r != ".");
    let mut facts = PushRepoFacts {
        work_tree: repo.work_tree.clone(),
        named_remote_configured: named.map(|r| repo.remote_exists(r)),
        has_upstream: repo.upstream().is_some(),
        origin_configured: repo.remote_exists("origin"),
        ..PushRepoFacts::default()
    };
    let nowhere = spec.remote.is_none() && !facts.has_upstream && !facts.origin_configured;
    if spec.computed.is_some() || facts.named_remote_configured == Some(false) || nowhere {
        return facts;
    }
    let refs = repo.push_facts_all(&spec);
    if let Ok(refs) = &refs {
        for pushed in refs.iter().filter(|f| f.ahead.count > 0) {
            let Some(id) = pushed.source_id else {
                continue;
            };
            match (
                repo.changed_paths(pushed.base_id, id, MAX_PUSHED_PATHS),
                &mut facts.pushed_paths,
            ) {
                (Ok(paths), Ok(all)) => all.extend(paths),
                (Err(e), all) => *all = Err(e),
                (Ok(_), Err(_)) => {}
            }
            let ms = repo.commit_time(id).map_or(now, |t| t * 1000 + 999);
            facts.newest_commit_ms = facts.newest_commit_ms.max(ms);
        }
    }
    facts.refs = Some(refs);
    facts
}

/// Whether `path` (relative to `root`) is the repository file just as `init` wrote it.
fn is_init_written_file(root: &Path, path: &str) -> bool {
    use crate::support::init_file::{REPO_FILE, is_init_written};
    path == REPO_FILE
        && std::fs::read_to_string(root.join(path)).is_ok_and(|text| is_init_written(&text))
}

fn destructive(repo: &Repo, gated: &Gated) -> DestructiveFacts {
    let mut facts = DestructiveFacts {
        work_tree: repo.work_tree.clone(),
        changes: repo.changes(),
        branch: repo.branch(),
        ..DestructiveFacts::default()
    };
    // The repository file as `init` wrote it is hookjudge's own, which `init` writes again:
    // no work of the user's.
    if let (Some(root), Ok(changes)) = (&facts.work_tree, &mut facts.changes) {
        changes.untracked.retain(|p| !is_init_written_file(root, p));
    }
    match &gated.destructive {
        Some(Destructive::Checkout {
            args,
            dashdash: None,
            ..
        }) => {
            facts.first_arg_is_commit = args
                .first()
                .is_some_and(|first| repo.resolve_rev(first).is_some());
        }
        Some(Destructive::Clean { .. }) => facts.clean_needs_no_force = repo.clean_needs_no_force(),
        Some(Destructive::StashDrop { .. } | Destructive::StashClear { .. }) => {
            facts.stash_count = repo.stash_count();
        }
        Some(Destructive::BranchDelete { branches }) => {
            for b in branches {
                // `update-ref -d HEAD` deletes the branch HEAD is on.
                let b = match (b.as_str(), &facts.branch) {
                    ("HEAD", Some(current)) => current.clone(),
                    _ => b.clone(),
                };
                if let Ok(only) = repo.only_on_branch(&b) {
                    facts.only_on_branch.push((b, only));
                }
            }
        }
        Some(Destructive::MoveBranch { branch, to, .. }) => {
            facts.lost_by_move = Some(repo.lost_by_move(branch.as_deref(), to));
        }
        Some(Destructive::Rebase {
            branch,
            onto,
            upstream,
        }) => {
            facts.lost_by_move = Some(repo.lost_by_rebase(branch.as_deref(), onto, upstream));
        }
        _ => {}
    }
    facts
}

/// Evidence of verification against `query`: the session's test runs when its session file is
/// readable, else test artifacts. Artifacts are files anyone can write (a script the session
/// ran, `touch -d` for their times): where the session shows its runs, they prove no pass,
/// though one that reports failures still shows a failed run.
pub fn evidence(query: &EvidenceQuery, ctx: &Context) -> Evidence {
    let artifacts = match &query.work_tree {
        Some(root) => {
            evidence::artifacts(root, &ctx.settings.artifacts, query.newest_change, ctx.now)
        }
        None => Finding::None,
    };
    match ctx.transcript {
        // A report of failures still counts: forging one only holds the agent back.
        Some(transcript) => Evidence {
            artifacts: match artifacts {
                Finding::FailedArtifact { .. } => artifacts,
                _ => Finding::None,
            },
            transcript: transcript_tests(transcript, query, ctx),
        },
        None => Evidence {
            artifacts,
            transcript: None,
        },
    }
}

/// The session's test runs since the last relevant change. The settings were validated when
/// they loaded, so `test_commands` compiles; if it did not, no run would be recognised, which
/// leaves the action to the judge or a human.
fn transcript_tests(
    transcript: &evidence::Session,
    query: &EvidenceQuery,
    ctx: &Context,
) -> Option<Finding> {
    let tests =
        evidence::TestCommands::compiled(evidence::test_commands(&ctx.settings.test_commands)?);
    let relevant = |path: &str| -> bool {
        let Scope::Paths(paths) = &query.scope else {
            return true;
        };
        let rel = match &query.work_tree {
            Some(r) => Path::new(path)
                .strip_prefix(r)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| path.to_owned()),
            None => path.to_owned(),
        };
        paths.contains(&rel)
    };
    let reader = evidence::Reader {
        tests: &tests,
        relevant: &relevant,
        cwd: ctx.cwd,
        commits_only: matches!(query.scope, Scope::Paths(_)),
        repos: ctx.reads.repos(),
        root: query.work_tree.as_deref(),
    };
    // Waits briefly for a just-finished test run's result to land (agents write the session
    // asynchronously), reading only what was appended meanwhile.
    Some(transcript.tests(&reader))
}

/// What the gate's judge says about the session's recent activity before `gated` runs.
pub fn judge(gated: &Gated, ctx: &Context) -> JudgeSaid {
    let Some((judge, layer2)) = ctx.judge else {
        return JudgeSaid::Nothing;
    };
    // Without a provider no judge runs, whatever the session holds: that is the cause to name.
    if !layer2.available() {
        return JudgeSaid::NoLlm;
    }
    let Some(transcript) = ctx.transcript else {
        return JudgeSaid::Nothing;
    };
    let activity = ctx.reads.activity(transcript);
    if activity.trim().is_empty() {
        return JudgeSaid::Nothing;
    }
    let text = crate::redact::redact(&format!(
        "{activity}\n\n(The agent now runs: {})",
        gated.command
    ))
    .text;
    match layer2.ask(judge, &text) {
        Answer::Fields { fields, reason, .. } => JudgeSaid::Answer {
            blocks: judge.block_when.holds(&fields),
            reason,
        },
        Answer::Failed { cause, .. } => JudgeSaid::Failed(cause),
        // Only a missing provider leaves a judge that was asked unjudged.
        Answer::Unjudged => JudgeSaid::NoLlm,
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::gate::classify::PushSpec;
    use crate::gate::settings::GateSettings;

    fn git(dir: &Path, args: &[&str]) {
        let status = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}: {status:?}");
    }

    fn scratch_repository() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-qm", "first"]);
        dir
    }

    fn context<'a>(settings: &'a GateSettings, cwd: &'a Path, reads: &'a Reads) -> Context<'a> {
        Context {
            settings,
            cwd,
            line: "",
            transcript: None,
            judge: None,
            approved: false,
            now: 0,
            reads,
        }
    }

    fn gated(class: Class, push: Option<PushSpec>) -> Gated {
        Gated {
            class,
            command: "git x".into(),
            target: Target::default(),
            push,
            destructive: None,
            what: "does it".into(),
        }
    }

    #[test]
    fn a_repository_is_opened_once_per_call() {
        let dir = scratch_repository();
        let reads = Reads::default();
        let target = Target::default();
        let first = reads.repo(&target, dir.path());
        assert!(first.is_ok());
        assert!(Rc::ptr_eq(&first, &reads.repo(&target, dir.path())));
        let other = tempfile::tempdir().unwrap();
        let missing = reads.repo(&target, other.path());
        assert!(!Rc::ptr_eq(&first, &missing));
        let err = missing.as_ref().as_ref().err().unwrap().to_string();
        assert!(err.contains("no git repository"), "{err}");
    }

    #[test]
    fn a_commit_gathers_the_work_and_nothing_more() {
        let dir = scratch_repository();
        std::fs::write(dir.path().join("b.rs"), "fn b() {}\n").unwrap();
        let (settings, reads) = (GateSettings::default(), Reads::default());
        let ctx = context(&settings, dir.path(), &reads);
        let facts = repository(&gated(Class::Commit, None), &ctx);
        let RepoFacts::Work(work) = &facts.repo else {
            panic!("{:?}", facts.repo);
        };
        assert_eq!(work.branch.as_deref(), Some("main"));
        assert_eq!(work.changes.as_ref().unwrap().untracked, ["b.rs"]);
        assert!(work.head_time.is_some());
        assert!(facts.evidence.is_none() && facts.judge.is_none());
        // A policy that settles the action reads no repository.
        let ask = GateSettings {
            policies: vec![(Class::Commit, crate::gate::settings::Policy::Ask)],
            ..GateSettings::default()
        };
        let ctx = context(&ask, dir.path(), &reads);
        let facts = repository(&gated(Class::Commit, None), &ctx);
        assert!(matches!(facts.repo, RepoFacts::NotRead));
    }

    #[test]
    fn the_aliases_of_a_line_come_from_the_repository_its_facts_are_read_from() {
        let dir = scratch_repository();
        git(dir.path(), &["config", "alias.ship", "commit"]);
        std::fs::write(dir.path().join("b.rs"), "fn b() {}\n").unwrap();
        let (settings, reads) = (GateSettings::default(), Reads::default());
        let found = crate::gate::find(
            "git ship -m x",
            dir.path(),
            Default::default(),
            reads.repos(),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].class, Class::Commit);
        // Reading the alias opened the repository; gathering the facts opens it no more.
        assert_eq!(reads.repos().opened(), 1, "{:?}", reads.repos());
        let facts = repository(&found[0], &context(&settings, dir.path(), &reads));
        assert!(matches!(facts.repo, RepoFacts::Work(_)), "{:?}", facts.repo);
        assert_eq!(reads.repos().opened(), 1, "{:?}", reads.repos());
    }

    #[test]
    fn a_push_to_a_remote_that_does_not_exist_walks_no_history() {
        let dir = scratch_repository();
        let (settings, reads) = (GateSettings::default(), Reads::default());
        let ctx = context(&settings, dir.path(), &reads);
        let spec = PushSpec {
            remote: Some("nonesuch".into()),
            ..PushSpec::default()
        };
        let facts = repository(&gated(Class::Push, Some(spec)), &ctx);
        let RepoFacts::Push(push) = &facts.repo else {
            panic!("{:?}", facts.repo);
        };
        assert_eq!(push.named_remote_configured, Some(false));
        assert!(push.refs.is_none());
        // To a path, the refs are read.
        let spec = PushSpec {
            remote: Some("../elsewhere".into()),
            ..PushSpec::default()
        };
        let facts = repository(&gated(Class::Push, Some(spec)), &ctx);
        let RepoFacts::Push(push) = &facts.repo else {
            panic!("{:?}", facts.repo);
        };
        assert_eq!(push.named_remote_configured, None);
        let refs = push.refs.as_ref().unwrap().as_ref().unwrap();
        assert_eq!(refs[0].ahead.count, 1);
        assert_eq!(push.pushed_paths.as_ref().unwrap(), &["a.rs"]);
        assert!(push.newest_commit_ms > 0);
    }

    #[test]
    fn a_destructive_action_weighs_staged_only_changes_and_leaves_out_the_init_written_file() {
        let dir = scratch_repository();
        std::fs::write(
            dir.path().join(".hookjudge.json"),
            "{\"gate\": {}, \"judges\": {}}\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine\n").unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn a() { staged }\n").unwrap();
        git(dir.path(), &["add", "a.rs"]);
        let (settings, reads) = (GateSettings::default(), Reads::default());
        let ctx = context(&settings, dir.path(), &reads);
        let mut reset = gated(Class::Destructive, None);
        reset.destructive = Some(Destructive::ResetMerge);
        let facts = repository(&reset, &ctx);
        let RepoFacts::Destructive(d) = &facts.repo else {
            panic!("{:?}", facts.repo);
        };
        let changes = d.changes.as_ref().unwrap();
        assert_eq!(changes.untracked, ["notes.txt"]);
        assert_eq!(changes.staged_only, ["a.rs"]);
        // Changed again in the work tree: `reset --merge` keeps it.
        std::fs::write(dir.path().join("a.rs"), "fn a() { more }\n").unwrap();
        // The user's own settings in the file make it theirs.
        std::fs::write(
            dir.path().join(".hookjudge.json"),
            "{\"gate\": {\"push\": \"ask\"}}\n",
        )
        .unwrap();
        let reads = Reads::default();
        let facts = repository(&reset, &context(&settings, dir.path(), &reads));
        let RepoFacts::Destructive(d) = &facts.repo else {
            panic!("{:?}", facts.repo);
        };
        let changes = d.changes.as_ref().unwrap();
        assert_eq!(changes.untracked, [".hookjudge.json", "notes.txt"]);
        assert!(changes.staged_only.is_empty(), "{changes:?}");
    }

    #[test]
    fn a_stash_on_top_of_a_branch_does_not_keep_its_commits() {
        let dir = scratch_repository();
        git(dir.path(), &["checkout", "-q", "-b", "topic"]);
        std::fs::write(dir.path().join("t.rs"), "fn t() {}\n").unwrap();
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-qm", "topic work"]);
        std::fs::write(dir.path().join("t.rs"), "fn t() { wip }\n").unwrap();
        git(dir.path(), &["stash", "-q"]);
        let (settings, reads) = (GateSettings::default(), Reads::default());
        let ctx = context(&settings, dir.path(), &reads);
        let mut reset = gated(Class::Destructive, None);
        reset.destructive = Some(Destructive::MoveBranch {
            branch: None,
            to: "main".into(),
            discard: false,
        });
        let RepoFacts::Destructive(d) = &repository(&reset, &ctx).repo else {
            panic!("not destructive facts");
        };
        assert_eq!(d.lost_by_move.as_ref().unwrap().as_ref().unwrap().count, 1);
        git(dir.path(), &["checkout", "-q", "main"]);
        let mut delete = gated(Class::Destructive, None);
        delete.destructive = Some(Destructive::BranchDelete {
            branches: vec!["topic".into()],
        });
        let reads = Reads::default();
        let RepoFacts::Destructive(d) =
            &repository(&delete, &context(&settings, dir.path(), &reads)).repo
        else {
            panic!("not destructive facts");
        };
        assert_eq!(d.only_on_branch[0].1.count, 1);
    }
}
