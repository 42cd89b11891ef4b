//! Naming what a simple command does to shared state: commit, push, publish, deploy, a hook
//! bypass, or a destructive git operation. Everything else is not gated.

use std::path::PathBuf;

use serde::Serialize;

use super::shell::{SimpleCommand, Word};

/// A class of gated action; each has a policy in the `gate` config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Commit,
    Push,
    Publish,
    Deploy,
    HookBypass,
    Destructive,
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
            Class::Unparsed => "unparsed",
        }
    }

    pub const ALL: [Class; 7] = [
        Class::Commit,
        Class::Push,
        Class::Publish,
        Class::Deploy,
        Class::HookBypass,
        Class::Destructive,
        Class::Unparsed,
    ];
}

/// Which destructive git operation, for computing what it would lose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "op")]
pub enum Destructive {
    ResetHard,
    /// `checkout -- paths`, `checkout .`, `restore paths` (worktree side).
    DiscardPaths {
        paths: Vec<String>,
    },
    Clean {
        directories: bool,
        ignored: bool,
    },
    StashDrop,
    StashClear,
    BranchDelete {
        branches: Vec<String>,
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

/// Git's global options that take a value as the next word.
const GIT_VALUE_OPTIONS: [&str; 6] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
];

/// Classifies one simple command. `deploy_commands` are user-defined deploy prefixes.
pub fn classify(cmd: &SimpleCommand, deploy_commands: &[Vec<String>]) -> Vec<Gated> {
    let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
    let lit = |i: usize| cmd.argv.get(i).and_then(Word::literal);
    let mut out = Vec::new();
    let gated = |class: Class, what: String, target: Target| Gated {
        class,
        command: cmd.source.clone(),
        target,
        push: None,
        destructive: None,
        what,
    };
    let base_target = Target {
        dir: cmd.cwd.clone(),
        git_dir: env_path(cmd, "GIT_DIR"),
        work_tree: env_path(cmd, "GIT_WORK_TREE"),
    };

    for prefix in deploy_commands {
        if !prefix.is_empty()
            && words.len() >= prefix.len()
            && prefix.iter().zip(&words).all(|(p, w)| {
                p == w || (p == &prefix[0] && w.rsplit('/').next() == Some(p.as_str()))
            })
        {
            out.push(gated(
                Class::Deploy,
                format!("`{}` is a configured deploy command", prefix.join(" ")),
                base_target.clone(),
            ));
            return out;
        }
    }
    let Some(program) = cmd.program() else {
        return out;
    };
    let husky_off = cmd.env_var("HUSKY").and_then(Word::literal) == Some("0");
    match program {
        "git" => {
            let mut target = base_target;
            let mut i = 1;
            let mut hooks_path_override = false;
            while let Some(arg) = lit(i) {
                if !arg.starts_with('-') {
                    break;
                }
                let (name, inline) = match arg.split_once('=') {
                    Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
                    _ => (arg, None),
                };
                let value = if GIT_VALUE_OPTIONS.contains(&name) && inline.is_none() {
                    i += 1;
                    lit(i).map(str::to_owned)
                } else {
                    inline
                };
                match name {
                    "-C" => {
                        target.dir = value.and_then(|v| {
                            target
                                .dir
                                .as_ref()
                                .map(|d| d.join(&v))
                                .or(Some(PathBuf::from(v)))
                        })
                    }
                    "--git-dir" => target.git_dir = value.map(|v| resolve(&target.dir, &v)),
                    "--work-tree" => target.work_tree = value.map(|v| resolve(&target.dir, &v)),
                    "-c" => {
                        hooks_path_override |= value
                            .is_some_and(|v| v.to_ascii_lowercase().starts_with("core.hookspath"))
                    }
                    _ => {}
                }
                i += 1;
            }
            let Some(sub) = lit(i) else { return out };
            let destroys = |what: &str, op: Destructive| {
                destructive(gated(Class::Destructive, what.into(), target.clone()), op)
            };
            let rest: Vec<&str> = (i + 1..cmd.argv.len())
                .map(|j| cmd.argv[j].text())
                .collect();
            let has = |flags: &[&str]| {
                rest.iter().any(|a| {
                    flags.contains(a)
                        || flags
                            .iter()
                            .any(|f| f.starts_with("--") && a.starts_with(&format!("{f}=")))
                })
            };
            let short_flag = |c: char| {
                rest.iter()
                    .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c))
            };
            match sub {
                "commit" => {
                    out.push(gated(
                        Class::Commit,
                        "creates a commit".into(),
                        target.clone(),
                    ));
                    if has(&["--no-verify"]) || short_flag('n') || husky_off || hooks_path_override
                    {
                        out.push(gated(
                            Class::HookBypass,
                            "skips the commit hooks".into(),
                            target,
                        ));
                    }
                }
                "push" => {
                    let spec = push_spec(&rest);
                    let what = if spec.delete {
                        "deletes remote refs"
                    } else if spec.force {
                        "force-pushes"
                    } else {
                        "pushes commits"
                    };
                    let mut g = gated(Class::Push, what.into(), target.clone());
                    g.push = Some(spec);
                    out.push(g);
                    if has(&["--no-verify"]) || husky_off || hooks_path_override {
                        out.push(gated(
                            Class::HookBypass,
                            "skips the pre-push hook".into(),
                            target,
                        ));
                    }
                }
                "config"
                    if rest
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case("core.hookspath"))
                        && !rest
                            .iter()
                            .any(|a| matches!(*a, "--get" | "--list" | "-l" | "--get-all"))
                        && rest.len() >= 2 =>
                {
                    out.push(gated(
                        Class::HookBypass,
                        "changes `core.hooksPath`".into(),
                        target,
                    ));
                }
                "reset" if has(&["--hard"]) => out.push(destroys(
                    "discards uncommitted changes",
                    Destructive::ResetHard,
                )),
                "checkout" => {
                    let dash = rest.iter().position(|a| *a == "--");
                    let paths: Vec<String> = match dash {
                        Some(p) => rest[p + 1..].iter().map(|s| s.to_string()).collect(),
                        None if rest.first().is_some_and(|a| *a == ".") => vec![".".into()],
                        None => Vec::new(),
                    };
                    if !paths.is_empty() {
                        out.push(destroys(
                            "discards changes to files",
                            Destructive::DiscardPaths { paths },
                        ));
                    } else if has(&["-f", "--force"]) {
                        out.push(destroys(
                            "discards local changes while switching",
                            Destructive::ResetHard,
                        ));
                    }
                }
                "restore" if !has(&["--staged", "-S"]) || has(&["--worktree", "-W"]) => {
                    let paths: Vec<String> = rest
                        .iter()
                        .filter(|a| !a.starts_with('-'))
                        .map(|s| s.to_string())
                        .collect();
                    if !paths.is_empty() {
                        out.push(destroys(
                            "discards changes to files",
                            Destructive::DiscardPaths { paths },
                        ));
                    }
                }
                "clean"
                    if (has(&["--force"]) || short_flag('f'))
                        && !(has(&["--dry-run"]) || short_flag('n')) =>
                {
                    let clean = Destructive::Clean {
                        directories: short_flag('d'),
                        ignored: short_flag('x') || short_flag('X'),
                    };
                    out.push(destroys("deletes untracked files", clean));
                }
                "stash" => match rest.first().copied() {
                    Some("drop") => out.push(destroys("drops a stash", Destructive::StashDrop)),
                    Some("clear") => {
                        out.push(destroys("drops every stash", Destructive::StashClear))
                    }
                    _ => {}
                },
                "branch"
                    if has(&["-D"]) || (has(&["-d", "--delete"]) && has(&["-f", "--force"])) =>
                {
                    let branches: Vec<String> = rest
                        .iter()
                        .filter(|a| !a.starts_with('-'))
                        .map(|s| s.to_string())
                        .collect();
                    out.push(destroys(
                        "force-deletes branches",
                        Destructive::BranchDelete { branches },
                    ));
                }
                _ => {}
            }
        }
        "cargo" if words.get(1) == Some(&"publish") && !words.contains(&"--dry-run") => out.push(
            gated(Class::Publish, "publishes a crate".into(), base_target),
        ),
        "npm" | "pnpm" | "yarn" | "bun"
            if words.get(1) == Some(&"publish") && !words.contains(&"--dry-run") =>
        {
            out.push(gated(
                Class::Publish,
                "publishes a package".into(),
                base_target,
            ))
        }
        "twine" if words.get(1) == Some(&"upload") => out.push(gated(
            Class::Publish,
            "uploads to a package index".into(),
            base_target,
        )),
        "gem" if words.get(1) == Some(&"push") => {
            out.push(gated(Class::Publish, "publishes a gem".into(), base_target))
        }
        "docker" | "podman"
            if words.get(1) == Some(&"push")
                || (words.get(1) == Some(&"image") && words.get(2) == Some(&"push")) =>
        {
            out.push(gated(Class::Publish, "pushes an image".into(), base_target))
        }
        "gh" => match (words.get(1).copied(), words.get(2).copied()) {
            (Some("release"), Some("create" | "upload")) => out.push(gated(
                Class::Publish,
                "creates a release".into(),
                base_target,
            )),
            (Some("pr"), Some("create" | "merge")) => out.push(gated(
                Class::Deploy,
                format!("`gh pr {}`", words[2]),
                base_target,
            )),
            _ => {}
        },
        "kubectl" | "oc" if kubectl_changes(&words) => out.push(gated(
            Class::Deploy,
            format!("`{program} {}` changes a cluster", words[1]),
            base_target,
        )),
        "helm"
            if matches!(
                words.get(1).copied(),
                Some("install" | "upgrade" | "uninstall" | "rollback")
            ) && !words.contains(&"--dry-run") =>
        {
            out.push(gated(
                Class::Deploy,
                format!("`helm {}`", words[1]),
                base_target,
            ))
        }
        "terraform" | "tofu" if matches!(words.get(1).copied(), Some("apply" | "destroy")) => out
            .push(gated(
                Class::Deploy,
                format!("`{program} {}`", words[1]),
                base_target,
            )),
        "pulumi" if matches!(words.get(1).copied(), Some("up" | "destroy" | "update")) => out.push(
            gated(Class::Deploy, format!("`pulumi {}`", words[1]), base_target),
        ),
        "fly" | "flyctl" if words.get(1) == Some(&"deploy") => out.push(gated(
            Class::Deploy,
            "deploys to Fly.io".into(),
            base_target,
        )),
        "vercel" if words.iter().any(|w| *w == "--prod" || *w == "deploy") => out.push(gated(
            Class::Deploy,
            "deploys to Vercel".into(),
            base_target,
        )),
        "netlify" if words.get(1) == Some(&"deploy") && words.contains(&"--prod") => out.push(
            gated(Class::Deploy, "deploys to Netlify".into(), base_target),
        ),
        _ => {}
    }
    out
}

fn kubectl_changes(words: &[&str]) -> bool {
    let verb = matches!(
        words.get(1).copied(),
        Some("apply" | "rollout" | "create" | "replace" | "set" | "scale" | "delete" | "patch")
    );
    let read_only_rollout = words.get(1) == Some(&"rollout")
        && matches!(words.get(2).copied(), Some("status" | "history"));
    verb && !read_only_rollout && !words.iter().any(|w| w.starts_with("--dry-run"))
}

fn destructive(mut g: Gated, op: Destructive) -> Gated {
    g.destructive = Some(op);
    g
}

fn env_path(cmd: &SimpleCommand, name: &str) -> Option<PathBuf> {
    cmd.env_var(name)
        .and_then(Word::literal)
        .map(|v| resolve(&cmd.cwd, v))
}

fn resolve(base: &Option<PathBuf>, path: &str) -> PathBuf {
    match base {
        Some(b) if !path.starts_with('/') => b.join(path),
        _ => PathBuf::from(path),
    }
}

fn push_spec(rest: &[&str]) -> PushSpec {
    let mut spec = PushSpec::default();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let a = rest[i];
        match a {
            "-f" | "--force" | "--force-with-lease" | "--force-if-includes" => spec.force = true,
            _ if a.starts_with("--force-with-lease=") => spec.force = true,
            "-d" | "--delete" => spec.delete = true,
            "--tags" | "--follow-tags" => spec.tags = true,
            "--all" | "--mirror" | "--branches" => spec.all = true,
            "-o" | "--push-option" | "--repo" | "--receive-pack" | "--exec" => i += 1,
            _ if a.starts_with('-') => {
                if !a.starts_with("--") && a[1..].contains('f') {
                    spec.force = true;
                }
                if !a.starts_with("--") && a[1..].contains('d') {
                    spec.delete = true;
                }
            }
            _ => positional.push(a.to_string()),
        }
        i += 1;
    }
    let mut positional = positional.into_iter();
    spec.remote = positional.next();
    for refspec in positional {
        if refspec.starts_with('+') {
            spec.force = true;
        }
        if refspec.starts_with(':') {
            spec.delete = true;
        }
        spec.refspecs.push(refspec);
    }
    spec
}

/// Quick test before parsing: could `text` contain a gated command at all? Quotes and
/// backslashes are removed first, so `g\it pu"sh"` still counts.
pub fn may_be_gated(text: &str, deploy_commands: &[Vec<String>]) -> bool {
    let plain: String = text
        .chars()
        .filter(|c| !matches!(c, '\\' | '"' | '\''))
        .collect::<String>()
        .to_ascii_lowercase();
    const WORDS: [&str; 26] = [
        "git",
        "cargo",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "twine",
        "gem",
        "docker",
        "podman",
        "gh",
        "kubectl",
        "oc ",
        "helm",
        "terraform",
        "tofu",
        "pulumi",
        "fly",
        "vercel",
        "netlify",
        "push",
        "commit",
        "publish",
        "deploy",
        "husky",
        "eval",
    ];
    WORDS.iter().any(|w| plain.contains(w))
        || deploy_commands
            .iter()
            .filter_map(|p| p.first())
            .any(|p| plain.contains(&p.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::shell;
    use std::path::Path;

    fn classes(text: &str) -> Vec<&'static str> {
        let script = shell::parse(text, Path::new("/w"));
        script
            .commands
            .iter()
            .flat_map(|c| classify(c, &[]))
            .map(|g| g.class.name())
            .collect()
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
        let script = shell::parse("git push -f origin +main:main --tags", Path::new("/w"));
        let g = &classify(&script.commands[0], &[])[0];
        let spec = g.push.as_ref().unwrap();
        assert!(spec.force && spec.tags);
        assert_eq!(
            (spec.remote.as_deref(), spec.refspecs.as_slice()),
            (Some("origin"), &["+main:main".to_string()][..])
        );
        let script = shell::parse("git push origin :old-branch", Path::new("/w"));
        assert!(
            classify(&script.commands[0], &[])[0]
                .push
                .as_ref()
                .unwrap()
                .delete
        );
    }

    #[test]
    fn targets_follow_cd_and_git_options() {
        let script = shell::parse("cd other && git -C sub --git-dir=.g push", Path::new("/w"));
        let g = &classify(script.commands.last().unwrap(), &[])[0];
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
        let script = shell::parse("./scripts/deploy.sh prod && make deploy", Path::new("/w"));
        let prefixes = vec![
            vec!["./scripts/deploy.sh".to_string()],
            vec!["make".to_string(), "deploy".to_string()],
        ];
        let n: usize = script
            .commands
            .iter()
            .map(|c| classify(c, &prefixes).len())
            .sum();
        assert_eq!(n, 2);
    }

    #[test]
    fn prefilter_is_conservative() {
        assert!(may_be_gated("g\\it pu\"sh\"", &[]));
        assert!(!may_be_gated("ls -la && cat README.md", &[]));
        assert!(may_be_gated("./ship.sh", &[vec!["./ship.sh".into()]]));
    }
}
