//! Naming what a simple command does to shared state: commit, push, publish, deploy, a hook
//! bypass, a destructive git operation or a catastrophic delete. Everything else is not gated.
//! Git is read by `git`, the other tools by the table in `tools`, deletes by `delete`.

use std::path::PathBuf;

use serde::Serialize;

use super::delete;
use super::git::{self, LineAliases};
use super::line_facts::{added_remote, line_facts};
use super::repos::Repos;
use super::shell::{SimpleCommand, Word};
use super::tools;

/// A class of gated action; each has a policy in the `gate` config.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, PartialOrd, Ord,
)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Commit,
    Push,
    Publish,
    Deploy,
    HookBypass,
    Destructive,
    /// `rm -rf` of `/`, the home directory, a repository or its `.git`.
    Catastrophic,
    /// Could not be read reliably but mentions a gated action.
    Unparsed,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Commit => "commit",
            Class::Push => "push",
            Class::Publish => "publish",
            Class::Deploy => "deploy",
            Class::HookBypass => "hook-bypass",
            Class::Destructive => "destructive",
            Class::Catastrophic => "catastrophic",
            Class::Unparsed => "unparsed",
        }
    }

    pub const ALL: [Class; 8] = [
        Class::Commit,
        Class::Push,
        Class::Publish,
        Class::Deploy,
        Class::HookBypass,
        Class::Destructive,
        Class::Catastrophic,
        Class::Unparsed,
    ];
}

/// What `git commit` does: the one commit that takes the uncommitted changes (with nothing
/// to commit, git refuses it).
pub const COMMITS_THE_CHANGES: &str = "creates a commit";

/// Which destructive git operation, for computing what it would lose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "op")]
pub enum Destructive {
    /// Discards every uncommitted change to tracked files.
    ResetHard,
    /// `git reset --merge` to the current commit: puts back the files whose change is all
    /// staged, keeps those changed in the work tree.
    ResetMerge,
    /// `restore paths`, `rm -f paths`, `checkout-index -f` (worktree side).
    DiscardPaths {
        paths: Vec<String>,
    },
    /// `checkout [tree-ish] [--] paths…` or `checkout -f`: which words are paths depends on
    /// what the repository can resolve, so the facts decide.
    Checkout {
        args: Vec<String>,
        /// Index in `args` of the first word after `--`.
        dashdash: Option<usize>,
        force: bool,
    },
    Clean {
        directories: bool,
        /// `-x` or `-X`: ignored files go too.
        ignored: bool,
        /// `-X`: only ignored files go.
        only_ignored: bool,
        /// `-e` patterns, added to the ignore rules.
        excludes: Vec<String>,
        /// Pathspecs: only what they match goes.
        paths: Vec<String>,
        /// `-f` given, or `clean.requireForce` turned off on the command line (the repository's
        /// own setting is read with the facts).
        forced: bool,
    },
    /// `after_stash`: a `git stash` earlier in the line put the current changes there.
    StashDrop {
        after_stash: bool,
    },
    StashClear {
        after_stash: bool,
    },
    /// A plain file tool (`rm`, `mv -f`, `shred`, `find -delete`) removes or overwrites these
    /// paths (relative to the repository root; directories cover what is below them), limited
    /// to files whose name matches one of `names` when there are any.
    RemoveFiles {
        paths: Vec<String>,
        names: Vec<String>,
        /// What a `find` selects below `paths` (its start points), when its expression is read:
        /// then only the files it selects count.
        #[serde(skip_serializing_if = "Option::is_none")]
        select: Option<super::find_select::Selection>,
    },
    BranchDelete {
        branches: Vec<String>,
    },
    /// `git rebase --onto ONTO UPSTREAM [BRANCH]` (`None`: HEAD's branch): the commits after
    /// UPSTREAM are replayed on ONTO; those below UPSTREAM that ONTO lacks leave the branch.
    Rebase {
        branch: Option<String>,
        onto: String,
        upstream: String,
    },
    /// Moves a branch (`None`: HEAD's) to `to`: commits only it had are lost; `discard` also
    /// drops uncommitted changes (`reset --hard X`).
    MoveBranch {
        branch: Option<String>,
        to: String,
        discard: bool,
    },
}

/// Where the command's git repository is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Target {
    /// The directory the command runs in (after `cd` and `git -C`); `None` when unknown.
    pub dir: Option<PathBuf>,
    pub git_dir: Option<PathBuf>,
    pub work_tree: Option<PathBuf>,
}

/// Push details.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PushSpec {
    pub remote: Option<String>,
    pub refspecs: Vec<String>,
    pub force: bool,
    pub delete: bool,
    pub tags: bool,
    pub all: bool,
    pub mirror: bool,
    /// An argument is computed at run time (its source text): where it goes is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computed: Option<String>,
    /// The remote is one an earlier command of the line adds (`git remote add backup URL &&
    /// git push backup`): the gate cannot read its branches before the line runs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub added_on_line: bool,
}

/// A gated action found in a command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gated {
    pub class: Class,
    /// The simple command, as written.
    pub command: String,
    pub target: Target,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub push: Option<PushSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<Destructive>,
    /// Why it is in this class, in a few words.
    pub what: String,
}

/// What the classifier knows besides the command itself.
#[derive(Debug, Clone)]
pub struct Known<'a> {
    /// The repositories of this hook call, for the git aliases they define.
    pub repos: &'a Repos,
    /// User-defined deploy and publish command prefixes.
    pub deploy_commands: &'a [Vec<String>],
    pub publish_commands: &'a [Vec<String>],
    /// Git aliases defined by earlier commands of the line.
    pub aliases: LineAliases,
    /// An earlier command of the line stashed the current changes.
    pub stashed: bool,
    /// An earlier command of the line brought a stash's changes back.
    pub unstashed: bool,
    /// Branches earlier commands of the line renamed: `(new, old)`, in order.
    pub renamed: Vec<(String, String)>,
    /// Links earlier commands of the line made: `(link, target)`, absolute.
    pub links: Vec<(std::path::PathBuf, std::path::PathBuf)>,
    /// Remotes earlier commands of the line add (`git remote add NAME URL`).
    pub added_remotes: Vec<String>,
}

/// What one simple command is.
pub enum Classified {
    Gated(Vec<Gated>),
    /// A part that decides whether it is gated is computed at run time.
    Unreadable(String),
    /// A git alias that runs a shell command: read it as a script.
    /// Besides what is already known to be gated.
    Script(String, Vec<Gated>),
}

/// Programs that write the files named in their arguments.
const WRITERS: [&str; 14] = [
    "touch", "cp", "mv", "ln", "install", "tee", "dd", "rsync", "sed", "truncate", "mkdir", "perl",
    "python3", "python",
];

/// Files and refs hookjudge reads as evidence or as the remote's state.
fn is_protected_state(path: &str) -> bool {
    path.contains(".hookjudge/verified")
        || path.contains("refs/remotes/")
        || path.ends_with("packed-refs")
        || path.ends_with(".hookjudge/verified")
}

/// Classifies one simple command.
/// A git command that stashes the current changes or defines an alias marks `known` for the
/// commands after it.
pub fn classify(cmd: &SimpleCommand, known: &mut Known) -> Classified {
    let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
    let gated = |class: Class, what: String| Gated {
        class,
        command: cmd.source.clone(),
        target: Target {
            dir: cmd.cwd.clone(),
            git_dir: None,
            work_tree: None,
        },
        push: None,
        destructive: None,
        what,
    };
    let mut out = Vec::new();
    // Writing the evidence marker or a remote-tracking ref fakes the state the gate reads.
    let writes_state = cmd.writes.iter().any(|w| is_protected_state(w.text()))
        || (cmd.program().is_some_and(|p| WRITERS.contains(&p))
            && words[1..].iter().any(|w| is_protected_state(w)));
    // Removing, replacing or disabling a hook script skips it as surely as `--no-verify`.
    let touches_hooks = cmd.program().is_some_and(|p| {
        WRITERS.contains(&p) || matches!(p, "rm" | "chmod" | "chattr" | "shred" | "unlink")
    }) && words[1..].iter().any(|w| {
        let w = w.trim_end_matches('/');
        w.contains(".git/hooks/") || w.ends_with(".git/hooks") || w.contains("/hooks/pre-")
    }) || cmd.writes.iter().any(|w| w.text().contains(".git/hooks/"));
    if touches_hooks {
        out.push(gated(
            Class::HookBypass,
            "changes or removes the repository's git hooks".into(),
        ));
    }
    if writes_state {
        out.push(gated(
            Class::HookBypass,
            "writes state hookjudge reads as evidence (`.hookjudge/verified` or a remote-tracking ref)".into(),
        ));
    }
    // A configured command adds its class and the built-in reading still follows: a prefix
    // (from a repository file nobody trusted, say `git`) may add gating, never relabel a force
    // push or `rm -rf .git` as a deploy and hide what it does.
    for (prefixes, class, kind) in [
        (known.deploy_commands, Class::Deploy, "deploy"),
        (known.publish_commands, Class::Publish, "publish"),
    ] {
        let matched = prefixes.iter().find(|prefix| {
            !prefix.is_empty()
                && words.len() >= prefix.len()
                && prefix.iter().zip(&words).enumerate().all(|(i, (p, w))| {
                    p == w || (i == 0 && w.rsplit('/').next() == Some(p.as_str()))
                })
        });
        if let Some(prefix) = matched {
            out.push(gated(
                class,
                format!("is a configured {kind} command (`{}`)", prefix.join(" ")),
            ));
        }
    }
    if git::is_git(cmd) {
        let git = git::classify(cmd, &known.aliases, known.repos, known.stashed);
        known.stashed |= git.stashes;
        known.aliases.0.extend(git.defines);
        known.added_remotes.extend(added_remote(&words));
        let found = match git.found {
            git::Found::Gated(mut found) => {
                line_facts(&mut found, known);
                git::Found::Gated(found)
            }
            git::Found::GatedAndProgram(mut found, text) => {
                line_facts(&mut found, known);
                git::Found::GatedAndProgram(found, text)
            }
            other => other,
        };
        known.unstashed |= git.unstashes;
        known.renamed.extend(git.renames);
        let mut found = found;
        if let git::Found::Gated(gated) | git::Found::GatedAndProgram(gated, _) = &mut found {
            for spec in gated.iter_mut().filter_map(|g| g.push.as_mut()) {
                spec.added_on_line |= spec
                    .remote
                    .as_ref()
                    .is_some_and(|r| known.added_remotes.contains(r));
            }
        }
        return match found {
            git::Found::Gated(found) => {
                out.extend(found);
                Classified::Gated(out)
            }
            git::Found::Unreadable(why) if out.is_empty() => Classified::Unreadable(why),
            git::Found::Unreadable(_) => Classified::Gated(out),
            git::Found::ShellAlias(text) => Classified::Script(text, out),
            git::Found::GatedAndProgram(found, text) => {
                out.extend(found);
                Classified::Script(text, out)
            }
        };
    }
    // `rm -rf link/`: the delete reaches the link's target.
    let through = super::links::through_links(cmd, &known.links);
    known.links.extend(super::links::made_by(cmd));
    let cmd = through.as_ref().unwrap_or(cmd);
    match delete::check(cmd) {
        delete::Verdict::Catastrophic(what) => {
            out.push(gated(Class::Catastrophic, format!("deletes {what}")));
            return Classified::Gated(out);
        }
        delete::Verdict::Unknown(why) if out.is_empty() => return Classified::Unreadable(why),
        _ => {}
    }
    if let Some((what, op)) = super::git_files::git_state_loss(cmd) {
        let mut g = gated(Class::Destructive, what);
        g.destructive = Some(op);
        out.push(g);
    }

    if let Some(loss) = delete::file_loss(cmd)
        && let Some(root) = cmd
            .cwd
            .as_deref()
            .and_then(crate::support::paths::repo_root)
    {
        let paths: Vec<String> = loss
            .paths
            .iter()
            .filter_map(|p| p.strip_prefix(&root).ok())
            .map(|p| p.to_string_lossy().into_owned())
            .map(|p| if p.is_empty() { ".".to_owned() } else { p })
            .collect();
        // A selection's start points, like the paths, relative to the repository root.
        let select = loss.select.map(|mut select| {
            select.starts.retain_mut(|start| {
                let Ok(rel) = std::path::Path::new(&start.path).strip_prefix(&root) else {
                    return false;
                };
                start.path = rel.to_string_lossy().into_owned();
                if start.path.is_empty() {
                    start.path = ".".into();
                }
                true
            });
            select
        });
        if !paths.is_empty() {
            let mut g = gated(
                Class::Destructive,
                "removes or overwrites files in the work tree".into(),
            );
            g.destructive = Some(Destructive::RemoveFiles {
                paths,
                names: loss.names,
                select,
            });
            out.push(g);
        }
    }
    let Some(program) = cmd.program() else {
        return Classified::Gated(out);
    };
    let rest: Vec<Option<&str>> = cmd.argv[1..].iter().map(Word::literal).collect();
    match tools::command(program, &rest) {
        tools::Match::Gated { class, what } => out.push(gated(class, what.to_owned())),
        tools::Match::ComputedVerb(_) if out.is_empty() => {
            return Classified::Unreadable(format!(
                "the `{program}` command is computed at run time"
            ));
        }
        _ => {}
    }
    Classified::Gated(out)
}

/// Quick test before parsing: could `text` contain a gated command at all? Quotes and
/// backslashes are removed first, so `g\\it pu"sh"` still counts; then each word (letters,
/// digits, `_`, `-`) is looked up among the table's words.
pub fn may_be_gated(text: &str, extra: &[Vec<String>]) -> bool {
    let lower = text.to_ascii_lowercase();
    if lower.contains("$'") {
        return true; // ANSI-C quoting can spell any word
    }
    if text.contains("IFS=") {
        return true; // a custom IFS splits `git_push` into a command
    }
    let any_word = |plain: &str| {
        plain
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w.len() > 1 && tools::is_prefilter_word(w))
    };
    // A backslash either quotes the next letter (`g\it`) or starts an escape (`\tgit` in a
    // printf format): read the line both ways.
    let unquoted: String = lower.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let joined: String = unquoted.chars().filter(|c| *c != '\\').collect();
    any_word(&joined)
        || (unquoted.contains('\\') && any_word(&unquoted.replace("\\n", " ").replace("\\t", " ")))
        || names_user_command(&joined, extra)
}

/// The part of [`may_be_gated`] that the user's commands add: whether `text` names one of
/// `extra` (user-defined deploy or publish commands). For a line the built-in words already
/// passed as quiet, this is all that is left to ask.
pub fn may_name_user_command(text: &str, extra: &[Vec<String>]) -> bool {
    if extra.is_empty() {
        return false;
    }
    let joined: String = text
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect();
    names_user_command(&joined, extra)
}

fn names_user_command(joined: &str, extra: &[Vec<String>]) -> bool {
    extra
        .iter()
        .filter_map(|p| p.first())
        .any(|p| joined.contains(&p.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn found(text: &str) -> Vec<Gated> {
        crate::gate::find(text, Path::new("/w"), Default::default(), &Repos::default())
    }

    fn classes(text: &str) -> Vec<&'static str> {
        found(text).iter().map(|g| g.class.name()).collect()
    }

    #[track_caller]
    fn case(text: &str, expected: &[&str]) {
        assert_eq!(classes(text), expected, "{text}");
    }

    #[test]
    fn git_actions() {
        case("git commit -am wip", &["commit"]);
        case("git commit --amend --no-edit", &["commit"]);
        case("git commit -n -m x", &["commit", "hook-bypass"]);
        case("HUSKY=0 git commit -m x", &["commit", "hook-bypass"]);
        case(
            "git -c core.hooksPath=/dev/null push",
            &["push", "hook-bypass"],
        );
        case("git config core.hooksPath .nohooks", &["hook-bypass"]);
        case(
            "git config -f .git/config core.hooksPath /dev/null",
            &["hook-bypass"],
        );
        case("git config --get core.hooksPath", &[]);
        case("git push --no-verify", &["push", "hook-bypass"]);
        case("git reset --hard HEAD~1", &["destructive"]);
        case("git reset --soft HEAD~1", &[]);
        case("git checkout -- src/main.rs", &["destructive"]);
        case("git checkout main", &[]);
        case("git restore --staged a.rs", &[]);
        case("git restore a.rs", &["destructive"]);
        case("git clean -fd", &["destructive"]);
        case("git clean -n", &[]);
        case("git stash drop", &["destructive"]);
        case("git stash push -m wip", &[]);
        case("git branch -D old", &["destructive"]);
        case("git branch -d merged", &[]);
        case("git log --grep=push", &[]);
        case("git status && git diff", &[]);
    }

    #[test]
    fn push_details() {
        let g = &found("git push -f origin +main:main --tags")[0];
        let spec = g.push.as_ref().unwrap();
        assert!(spec.force && spec.tags);
        assert_eq!(
            (spec.remote.as_deref(), spec.refspecs.as_slice()),
            (Some("origin"), &["+main:main".to_string()][..])
        );
        assert!(
            found("git push origin :old-branch")[0]
                .push
                .as_ref()
                .unwrap()
                .delete
        );
    }

    #[test]
    fn a_rebase_names_what_it_replays_and_a_scripted_todo_asks() {
        let op = |line: &str| found(line).into_iter().find_map(|g| g.destructive);
        assert_eq!(
            op("git rebase --onto main HEAD~2"),
            Some(Destructive::Rebase {
                branch: None,
                onto: "main".into(),
                upstream: "HEAD~2".into(),
            })
        );
        assert_eq!(
            op("git rebase -q --onto=main topic~3 topic"),
            Some(Destructive::Rebase {
                branch: Some("topic".into()),
                onto: "main".into(),
                upstream: "topic~3".into(),
            })
        );
        assert_eq!(
            op("git rebase main"),
            Some(Destructive::Rebase {
                branch: None,
                onto: "main".into(),
                upstream: "main".into(),
            })
        );
        case(
            "GIT_SEQUENCE_EDITOR=\"sed -i '1s/^pick/drop/'\" git rebase -i HEAD~3",
            &["unparsed", "destructive"],
        );
        case(
            "git -c sequence.editor='sed -i 2d' rebase -i HEAD~3",
            &["unparsed", "destructive"],
        );
        case(
            "GIT_SEQUENCE_EDITOR=true git rebase -i HEAD~3",
            &["destructive"],
        );
        case("git rebase --root", &[]);
        case("git rebase --continue", &[]);
        case("git rebase --abort", &[]);
    }

    #[test]
    fn reset_merge_in_place_puts_back_only_what_is_staged() {
        let op = |line: &str| found(line).into_iter().find_map(|g| g.destructive);
        assert_eq!(op("git reset --merge HEAD"), Some(Destructive::ResetMerge));
        assert_eq!(op("git reset --merge"), Some(Destructive::ResetMerge));
        assert_eq!(op("git reset --hard"), Some(Destructive::ResetHard));
        assert!(matches!(
            op("git reset --merge HEAD~2"),
            Some(Destructive::MoveBranch { discard: true, .. })
        ));
    }

    #[test]
    fn earlier_commands_of_the_line_rename_branches_and_bring_stashed_changes_back() {
        // The last command's action (`branch -M` itself moves a branch it overwrites).
        let op = |line: &str| found(line).into_iter().rev().find_map(|g| g.destructive);
        assert_eq!(
            op("git branch -m feature/wip old && git branch -D old"),
            Some(Destructive::BranchDelete {
                branches: vec!["feature/wip".into()]
            })
        );
        assert_eq!(
            op("git branch -M tmp; git branch -D tmp"),
            Some(Destructive::BranchDelete {
                branches: vec!["HEAD".into()]
            })
        );
        assert_eq!(
            op("git branch -m a b && git branch -m b c && git branch -f c main"),
            Some(Destructive::MoveBranch {
                branch: Some("a".into()),
                to: "main".into(),
                discard: false
            })
        );
        case(
            "git stash pop -q; git checkout -- README.md",
            &["destructive", "unparsed"],
        );
        case(
            "git stash apply && git reset --hard",
            &["destructive", "unparsed"],
        );
        case("git checkout -- README.md; git stash pop", &["destructive"]);
        case("git stash pop && git status", &[]);
    }

    #[test]
    fn a_fetch_into_a_local_branch_moves_it_like_branch_f() {
        let op = |line: &str| found(line).into_iter().find_map(|g| g.destructive);
        let moves = |branch: &str, to: &str| {
            Some(Destructive::MoveBranch {
                branch: Some(branch.into()),
                to: to.into(),
                discard: false,
            })
        };
        assert_eq!(
            op("git fetch -q --update-head-ok origin +main:main"),
            moves("main", "refs/remotes/origin/main")
        );
        assert_eq!(
            op("git fetch . +main:feature/wip"),
            moves("feature/wip", "main")
        );
        assert_eq!(
            op("git fetch upstream refs/heads/dev:refs/heads/dev"),
            moves("dev", "refs/remotes/upstream/dev")
        );
        for keeps_branches in [
            "git fetch",
            "git fetch origin",
            "git fetch origin main",
            "git fetch origin +refs/heads/*:refs/remotes/origin/*",
            "git fetch origin main:refs/remotes/origin/main",
            "git fetch origin v1:refs/tags/v1",
        ] {
            assert_eq!(op(keeps_branches), None, "{keeps_branches}");
        }
    }

    #[test]
    fn targets_follow_cd_and_git_options() {
        let g = &found("cd other && git -C sub --git-dir=.g push")[0];
        assert_eq!(g.target.dir, Some(PathBuf::from("/w/other/sub")));
        assert_eq!(g.target.git_dir, Some(PathBuf::from("/w/other/sub/.g")));
    }

    #[test]
    fn publish_and_deploy() {
        case("cargo publish", &["publish"]);
        case("cargo publish --dry-run", &[]);
        case("npm publish --access public", &["publish"]);
        case("twine upload dist/*", &["publish"]);
        case("docker push registry/app:1", &["publish"]);
        case("gh release create v1.0", &["publish"]);
        case("gh pr create --fill", &["deploy"]);
        case("gh pr view 12", &[]);
        case("kubectl apply -f k8s/", &["deploy"]);
        case("kubectl get pods", &[]);
        case("kubectl rollout status deploy/app", &[]);
        case("helm upgrade app ./chart", &["deploy"]);
        case("terraform plan", &[]);
        case("terraform apply -auto-approve", &["deploy"]);
        case("vercel --prod", &["deploy"]);
    }

    #[test]
    fn user_deploy_commands() {
        let prefixes = vec![
            vec!["./scripts/deploy.sh".to_string()],
            vec!["make".to_string(), "deploy".to_string()],
        ];
        let user = crate::gate::UserCommands {
            deploy: &prefixes,
            publish: &[],
        };
        let configured = crate::gate::find(
            "./scripts/deploy.sh prod && make deploy",
            Path::new("/w"),
            user,
            &Repos::default(),
        )
        .into_iter()
        .filter(|g| g.class == Class::Deploy && g.what.contains("configured"))
        .count();
        assert_eq!(configured, 2);
    }

    #[test]
    fn code_that_never_runs_is_not_gated() {
        case("false && git push origin main", &[]);
        case("true || git push origin main", &[]);
        case("if false; then git push; fi", &[]);
        case("f(){ git push origin main; }", &[]);
        case("bash -n -c 'git push'", &[]);
        case("trap 'git push' USR2", &[]);
        // … while the forms that do run still are.
        case("false || git push", &["push"]);
        case("if false; then :; else git push; fi", &["push"]);
        case("f(){ git push origin main; }; f", &["push"]);
        case("f(){ git \"$@\"; }; f push", &["push"]);
        case("trap 'git push' USR2; kill -USR2 $$", &["push"]);
    }

    #[test]
    fn shells_and_programs_that_run_hidden_code() {
        case("git pu\\\nsh origin main", &["push"]);
        case("sh -c 'exec \"$0\" \"$@\"' git push origin main", &["push"]);
        case("exec -a git-push git origin main", &["push"]);
        case("PS4='$(git push)'; set -x; :", &["push"]);
        case("cat <<EOF\n$(git push origin main)\nEOF", &["push"]);
        case(
            "shopt -s expand_aliases\nalias gp='git push'\ngp",
            &["push"],
        );
        case("BASH_ENV=/dev/stdin bash -c : <<< 'git push'", &["push"]);
        case("echo 'git push' | at now", &["push"]);
        case("parallel git push ::: origin", &["push"]);
        case("vim -Es -c '!git push' -c 'qa!'", &["push"]);
        case("sqlite3 :memory: '.system git push'", &["push"]);
        case("git -c core.fsmonitor='git push #' status", &["push"]);
        case("git -c core.pager=less log", &[]);
        case("git -c core.fsmonitor='git status' push", &["push"]);
        for line in [
            "echo Z2l0IHB1c2g= | base64 -d | sh",
            "git${IFS}push",
            "hash -p /usr/bin/git g; g push",
            "printf '[alias]\\n\\tx = push\\n' > /tmp/c && GIT_CONFIG_GLOBAL=/tmp/c git x",
            "python3 -c 'import os; os.remove(\"notes.txt\")'",
        ] {
            assert_eq!(classes(line).last(), Some(&"unparsed"), "{line}");
        }
    }

    #[test]
    fn the_last_dry_run_flag_wins() {
        case("git push --dry-run --no-dry-run", &["push"]);
        case("git push --no-dry-run --dry-run", &[]);
        case("npm publish --dry-run=false", &["publish"]);
        case("kubectl apply --dry-run=none -f k8s/", &["deploy"]);
        case("kubectl apply --dry-run=client -f k8s/", &[]);
    }

    #[test]
    fn other_ecosystems_publish_and_remote_copies_deploy() {
        for line in [
            "dart pub publish --force",
            "flutter pub publish",
            "mix hex.publish",
            "gem push pkg.gem",
            "poetry publish --build",
            "hatch publish",
            "flit publish",
            "pdm publish",
            "twine upload dist/*",
            "anaconda upload pkg.tar.bz2",
            "nuget push pkg.nupkg",
            "dotnet nuget push pkg.nupkg",
            "mvn -B deploy",
            "./gradlew publish",
            "sbt +publishSigned",
            "swift package-registry publish acme.pkg 1.0.0",
            "pod trunk push Pkg.podspec",
            "helm push chart.tgz oci://r",
            "vsce publish",
            "ovsx publish -p tok",
            "snapcraft upload app.snap",
            "cabal upload dist/pkg.tar.gz",
        ] {
            assert_eq!(classes(line), ["publish"], "{line}");
        }
        case("dart pub get", &[]);
        case("mix test", &[]);
        case("pod install", &[]);
        case("sbt test", &[]);
        case("scp -r mypkg deploy@prod:/srv/app/", &["deploy"]);
        case("rsync -az dist/ deploy@prod:/var/www/", &["deploy"]);
        case("ssh deploy@prod 'cd /srv/app && git pull'", &["deploy"]);
        case("ssh prod", &[]);
        case("scp prod:/var/log/app.log .", &[]);
    }

    #[test]
    fn a_push_to_a_remote_the_line_adds_is_marked() {
        let added = found("git remote add -f backup ../o.git && git push -q backup HEAD:main");
        let spec = added[0].push.as_ref().unwrap();
        assert!(spec.added_on_line, "{spec:?}");
        let named = found("git push -q backup HEAD:main");
        assert!(!named[0].push.as_ref().unwrap().added_on_line);
    }

    #[test]
    fn targets_taken_from_a_program_s_output_are_unparsed() {
        for line in [
            "f=$(git ls-files -m | head -1); : > \"$f\"",
            "echo x > \"$(git ls-files | head -1)\"",
            "v=$(echo ZHJvcA== | base64 -d); git stash $v",
            "b=$(git branch --list 'feat*' | head -1); git branch -D \"$b\"",
            "git reset --hard `cat ref`",
        ] {
            assert!(classes(line).contains(&"unparsed"), "{line}");
        }
        for line in [
            "out=$(mktemp); git log > \"$out\"",
            "f=$(ls | head -1); echo hi >> \"$f\"",
            "git tag \"v$(cat VERSION)\"",
            "git stash push -m \"$(date)\"",
            "n=$(( 1 + 2 )); echo > \"$n.txt\"",
        ] {
            assert!(!classes(line).contains(&"unparsed"), "{line}");
        }
    }

    #[test]
    fn hook_files_and_more_publish_forms() {
        case("chmod -x .git/hooks/pre-push", &["hook-bypass"]);
        case("mv .git/hooks .git/hooks.off", &["hook-bypass"]);
        case("python3 -m twine upload dist/*", &["publish"]);
        case("./mvnw -q deploy", &["publish"]);
        case("docker buildx build --output type=registry .", &["publish"]);
        case("gh api -X PUT repos/o/r/pulls/1/merge", &["deploy"]);
        case("gh api repos/o/r/pulls", &[]);
    }

    #[test]
    fn prefilter_is_conservative() {
        assert!(may_be_gated("g\\it pu\"sh\"", &[]));
        assert!(may_be_gated(
            "make -f <(printf 'all:\\n\\tgit push\\n')",
            &[]
        ));
        assert!(!may_be_gated("ls -la && cat README.md", &[]));
        assert!(may_be_gated("./ship.sh", &[vec!["./ship.sh".into()]]));
        let ship = [vec!["./ship.sh".to_owned()]];
        assert!(may_name_user_command("./Sh\\ip.sh --prod", &ship));
        assert!(may_name_user_command("'./ship.sh' x", &ship));
        assert!(!may_name_user_command("./ship.sh", &[]));
        assert!(!may_name_user_command("ls ship", &ship));
    }
}
