//! The table's rows for commits, pushes, publishes and deploys in the forms agents use, each
//! against a real repository (2 commits ahead of its bare remote, a `topic` branch, a clean
//! tree, no test evidence): every gated form gets a ruling of its class and is not silent, and
//! its harmless neighbour (a GET, a diff, `--help`) stays silent. Where the tool exists here
//! (git, npm), the neighbours are replayed in a copy of the scene to show they publish nothing,
//! and a gated form to show it does what the row says.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::gate_effects::{gate_answer, run_git};
use crate::harness::{BIN, Home};

/// A scene: `root/origin.git` and `root/work` (2 commits ahead, branch `topic`), plus
/// `files` committed in `work`.
pub(crate) struct Scene {
    pub home: Home,
    pub root: PathBuf,
    pub work: PathBuf,
}

impl Scene {
    pub(crate) fn new(files: &[(&str, &str)]) -> Scene {
        let home = Home::new();
        home.user_config(r#"{"llm": {"provider": "none"}}"#);
        std::fs::write(
            home.path().join(".gitconfig"),
            "[user]\n\tname = t\n\temail = t@example.org\n",
        )
        .unwrap();
        let root = home.path().join("scene");
        std::fs::create_dir_all(&root).unwrap();
        let work = root.join("work");
        let git = |dir: &Path, args: &[&str]| run_git(dir, home.path(), args);
        git(&root, &["init", "-q", "--bare", "-b", "main", "origin.git"]);
        git(&root, &["init", "-q", "-b", "main", "work"]);
        git(&work, &["remote", "add", "origin", "../origin.git"]);
        std::fs::write(work.join("a.txt"), "a\n").unwrap();
        git(&work, &["add", "."]);
        git(&work, &["commit", "-qm", "one"]);
        git(&work, &["push", "-q", "-u", "origin", "main"]);
        git(&work, &["checkout", "-q", "-b", "topic"]);
        std::fs::write(work.join("t.txt"), "t\n").unwrap();
        git(&work, &["add", "."]);
        git(&work, &["commit", "-qm", "topic"]);
        git(&work, &["checkout", "-q", "main"]);
        for (name, text) in files {
            let path = work.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        std::fs::write(work.join("b.txt"), "b\n").unwrap();
        git(&work, &["add", "."]);
        git(&work, &["commit", "-qm", "two"]);
        std::fs::write(work.join("c.txt"), "c\n").unwrap();
        git(&work, &["add", "."]);
        git(&work, &["commit", "-qm", "three"]);
        Scene { home, root, work }
    }

    /// The gate's decision on `line` (run in `work`) and the classes it ruled on.
    pub(crate) fn answer(&self, session: &str, line: &str) -> (String, Vec<String>) {
        let decision = gate_answer(BIN, &self.home, &self.work, session, line);
        let classes = self
            .home
            .log()
            .iter()
            .filter(|r| r["session"] == session)
            .flat_map(|r| r["rulings"].as_array().cloned().unwrap_or_default())
            .filter_map(|r| r["class"].as_str().map(str::to_owned))
            .collect();
        (decision, classes)
    }

    /// Checks each `(line, class)`: not silent, with a ruling of that class (`None`: any). And
    /// each of `silent` stays silent.
    pub(crate) fn check(&self, gated: &[(&str, Option<&str>)], silent: &[&str]) {
        let mut failures = Vec::new();
        for (i, (line, class)) in gated.iter().enumerate() {
            let (decision, classes) = self.answer(&format!("g{i}"), line);
            let has_class = class.is_none_or(|c| classes.iter().any(|k| k == c));
            if decision == "silent" || !has_class {
                failures.push(format!(
                    "{line:?}: {decision} {classes:?}, expected {class:?}"
                ));
            }
        }
        for (i, line) in silent.iter().enumerate() {
            let (decision, classes) = self.answer(&format!("s{i}"), line);
            if decision != "silent" {
                failures.push(format!("{line:?}: {decision} {classes:?}, expected silent"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Runs `line` with bash in a copy of the scene; gives back the copy and the state (every
    /// ref of `work` and of `origin.git`) before and after.
    pub(crate) fn replay(&self, line: &str) -> (tempfile::TempDir, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().to_path_buf();
        let status = Command::new("cp")
            .args(["-a", &format!("{}/.", self.root.display())])
            .arg(&copy)
            .status()
            .unwrap();
        assert!(status.success());
        let work = copy.join("work");
        let state = |work: &Path| {
            let home = self.home.path();
            format!(
                "{}\n{}",
                run_git(work, home, &["for-each-ref"]),
                run_git(&work.join("../origin.git"), home, &["for-each-ref"])
            )
        };
        let before = state(&work);
        Command::new("bash")
            .args(["-c", line])
            .current_dir(&work)
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("npm_config_cache", copy.join("npm-cache"))
            .env("npm_config_update_notifier", "false")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        let after = state(&work);
        (dir, before, after)
    }
}

pub(crate) fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn package_json() -> (&'static str, &'static str) {
    ("package.json", r#"{"name": "scene", "version": "1.0.0"}"#)
}

#[test]
fn commits_the_table_did_not_know_are_gated() {
    let scene = Scene::new(&[package_json()]);
    scene.check(
        &[
            ("git merge --no-ff topic", Some("commit")),
            ("git merge topic -m 'merge topic'", Some("commit")),
            ("git cherry-pick topic", Some("commit")),
            ("git revert --no-edit HEAD", Some("commit")),
            (
                "git format-patch -1 topic --stdout | git am",
                Some("commit"),
            ),
            (
                "git merge --ff-only $(git commit-tree 'HEAD^{tree}' -p HEAD -m x)",
                Some("commit"),
            ),
            (
                "c=$(git commit-tree 'HEAD^{tree}' -p HEAD -m x) && git merge --ff-only $c",
                Some("commit"),
            ),
            ("npm version patch", Some("commit")),
            ("npm version 2.0.0 -m 'release %s'", Some("commit")),
        ],
        &[
            "git merge --ff-only origin/main",
            "git merge --abort",
            "git cherry-pick --no-commit topic",
            "git merge-base HEAD topic",
            "git format-patch -1 HEAD",
            "git pull --ff-only",
            "npm version",
            "npm version --help",
            "npm version patch --no-git-tag-version --help",
        ],
    );
}

#[test]
fn pushes_the_table_did_not_know_are_gated() {
    let scene = Scene::new(&[]);
    scene.check(
        &[
            ("hub push origin main", Some("push")),
            ("jj git push", Some("push")),
            ("jj git push --bookmark main", Some("push")),
            ("sl push --to main", Some("push")),
            (
                "git subtree push --prefix=lib origin lib-branch",
                Some("push"),
            ),
            ("git -C ../origin.git fetch ../work main:main", Some("push")),
            (
                "git --git-dir=../origin.git fetch ../work +refs/heads/main:refs/heads/main",
                Some("push"),
            ),
            ("gh repo sync", Some("deploy")),
            ("gh repo sync o/fork --source o/r", Some("deploy")),
        ],
        &[
            "git fetch . HEAD:refs/heads/snapshot",
            "git fetch origin main:refs/remotes/origin/main",
            "git fetch origin",
            "git -C ../origin.git log --oneline -1",
            "jj git fetch",
            "jj log",
            "sl pull",
            "hub pull-request --help",
        ],
    );
}

#[test]
fn writes_through_a_forge_api_are_gated_and_reads_are_not() {
    let scene = Scene::new(&[]);
    scene.check(
        &[
            ("gh api repos/o/r/issues -f title=x", Some("deploy")),
            ("gh api repos/o/r/issues -F title=x", Some("deploy")),
            ("gh api repos/o/r/issues --field title=x", Some("deploy")),
            ("gh api repos/o/r/issues --raw-field title=x", Some("deploy")),
            ("gh api repos/o/r/issues --input body.json", Some("deploy")),
            ("gh api -X POST repos/o/r/issues", Some("deploy")),
            ("gh api --method PATCH repos/o/r -f private=true", Some("deploy")),
            ("gh api -X DELETE repos/o/r/git/refs/heads/old", Some("deploy")),
            (
                "gh api graphql -f query='mutation { addStar(input: {starrableId: \"x\"}) { clientMutationId } }'",
                Some("deploy"),
            ),
            (
                "curl -X POST https://api.github.com/repos/o/r/issues -d '{\"title\":\"x\"}'",
                Some("deploy"),
            ),
            (
                "curl -sS -H 'Authorization: token x' -d '{\"title\":\"x\"}' https://api.github.com/repos/o/r/issues",
                Some("deploy"),
            ),
            (
                "curl --request PUT --header 'PRIVATE-TOKEN: x' https://gitlab.com/api/v4/projects/1/merge_requests/2/merge",
                Some("deploy"),
            ),
            (
                "curl -XDELETE https://git.example.org/api/v4/projects/1/repository/branches/main",
                Some("deploy"),
            ),
            ("glab api projects/1/issues -f title=x", Some("deploy")),
            ("glab mr merge 3", Some("deploy")),
        ],
        &[
            "gh api repos/o/r/pulls",
            "gh api user --jq .login",
            "gh api -X GET search/issues -f q=repo:o/r",
            "gh api graphql -f query='query { viewer { login } }'",
            "gh pr view 12",
            "curl -s https://api.github.com/repos/o/r",
            "curl -fsSL -o out.json https://gitlab.com/api/v4/projects/1",
            "curl -s -d x=1 https://example.org/form",
            "curl -G -d q=x https://api.github.com/search/issues",
            "glab api projects/1/issues",
            "glab mr list",
        ],
    );
}

#[test]
fn publishing_forms_are_gated() {
    let scene = Scene::new(&[]);
    scene.check(
        &[
            ("cargo release", Some("publish")),
            ("cargo release patch --execute", Some("publish")),
            ("cargo ws publish", Some("publish")),
            ("cargo workspaces publish --yes", Some("publish")),
            ("pipx run twine upload dist/*", Some("publish")),
            ("uv tool run twine upload dist/*", Some("publish")),
            ("uvx twine upload dist/*", Some("publish")),
            ("corepack pnpm publish", Some("publish")),
            ("docker compose push", Some("publish")),
            ("docker-compose push web", Some("publish")),
            ("docker buildx build --push -t r/app:1 .", Some("publish")),
            (
                "docker buildx build --output type=registry .",
                Some("publish"),
            ),
            (
                "docker buildx build -o type=image,push=true .",
                Some("publish"),
            ),
            (
                "docker buildx build --output=type=image,name=r/app,push=true .",
                Some("publish"),
            ),
            ("ko build ./cmd/app", Some("publish")),
            ("rake release", Some("publish")),
            ("bundle exec rake release", Some("publish")),
            ("gradle uploadArchives", Some("publish")),
            ("gradle publish", Some("publish")),
            ("./gradlew publishToMavenCentral", Some("publish")),
        ],
        &[
            "cargo build",
            "cargo release --help",
            "docker compose build",
            "docker compose up -d",
            "docker buildx build -t app .",
            "docker buildx build -o type=docker .",
            "ko build --local ./cmd/app",
            "rake test",
            "rake -T",
            "gradle build",
            "uv tool run ruff check .",
            "pipx run black --check .",
            "corepack enable",
        ],
    );
}

#[test]
fn deploying_forms_are_gated() {
    let scene = Scene::new(&[]);
    scene.check(
        &[
            ("kubecolor apply -f k8s/", Some("deploy")),
            ("helmfile apply", Some("deploy")),
            ("helmfile -e prod sync", Some("deploy")),
            ("argocd app sync web", Some("deploy")),
            ("flux reconcile kustomization apps", Some("deploy")),
            ("kapp deploy -a web -f config/", Some("deploy")),
            ("cdktf deploy", Some("deploy")),
            (
                "aws cloudformation create-stack --stack-name x --template-body file://t.yaml",
                Some("deploy"),
            ),
            (
                "aws cloudformation update-stack --stack-name x --template-body file://t.yaml",
                Some("deploy"),
            ),
            (
                "aws cloudformation deploy --stack-name x --template-file t.yaml",
                Some("deploy"),
            ),
            ("gcloud run services replace service.yaml", Some("deploy")),
            ("gcloud run deploy web --image r/app:1", Some("deploy")),
            (
                "az deployment group create -g rg -f main.bicep",
                Some("deploy"),
            ),
            (
                "az deployment sub create -l westeurope -f main.bicep",
                Some("deploy"),
            ),
            ("kamal deploy", Some("deploy")),
            ("cap production deploy", Some("deploy")),
            (
                "ansible all -m shell -a 'systemctl restart web'",
                Some("deploy"),
            ),
            (
                "ansible web -m apt -a 'name=nginx state=latest' --become",
                Some("deploy"),
            ),
            ("ansible all -a 'reboot'", Some("deploy")),
            ("ansible-playbook -i hosts site.yml", Some("deploy")),
        ],
        &[
            "kubecolor get pods",
            "helmfile diff",
            "helmfile template",
            "argocd app get web",
            "argocd app list",
            "flux get kustomizations",
            "kapp inspect -a web",
            "cdktf synth",
            "aws cloudformation describe-stacks",
            "gcloud run services describe web",
            "az deployment group show -g rg -n x",
            "kamal version",
            "cap -T",
            "ansible all -m ping",
            "ansible all -m setup",
            "ansible-playbook --check site.yml",
        ],
    );
}

#[test]
fn the_silent_neighbours_publish_nothing_when_run_and_the_gated_form_commits() {
    let scene = Scene::new(&[package_json()]);
    for line in [
        "git fetch . HEAD:refs/heads/snapshot",
        "git merge --ff-only origin/main",
        "git format-patch -1 HEAD",
    ] {
        let (_, before, after) = scene.replay(line);
        // Only the new local branch may appear; `main` and the remote stay.
        let kept = |state: &str| -> Vec<String> {
            state
                .lines()
                .filter(|l| !l.contains("refs/heads/snapshot"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(kept(&before), kept(&after), "{line}");
    }
    if !installed("npm") {
        return;
    }
    for line in ["npm version", "npm version --help"] {
        let (_, before, after) = scene.replay(line);
        assert_eq!(before, after, "{line}");
    }
    let (_, before, after) = scene.replay("npm version patch");
    assert_ne!(before, after, "`npm version patch` commits and tags");
    assert!(after.contains("refs/tags/v1.0.1"), "{after}");
}
