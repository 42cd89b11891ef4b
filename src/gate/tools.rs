//! The table of tools that publish or deploy: each tool's programs, the global options that
//! take a value before its verb, its verbs, the flags that change what a verb does, and the
//! class. The prefilter's words and the list of verbs that make a computed program suspect are
//! derived from this same table (plus git's), so they cannot drift apart.

use super::classify::Class;

/// A verb of a tool: the words that name it, and what it does.
pub struct Verb {
    /// The verb's words after the program (`["release", "create"]`); a word ending in `*` matches
    /// any word with that prefix (`publish*` for Gradle's `publishToMavenCentral`).
    pub words: &'static [&'static str],
    pub class: Class,
    pub what: &'static str,
    /// Flags that make it harmless (besides `--help`/`-h`/`--dry-run`, which always do).
    pub harmless: &'static [&'static str],
    /// Flags one of which must be present for the verb to do it (`netlify deploy --prod`).
    pub requires: &'static [&'static str],
}

/// A tool: its program names and verbs.
pub struct Tool {
    pub programs: &'static [&'static str],
    /// Global options that take the next word as their value.
    pub value_options: &'static [&'static str],
    /// Verbs may come anywhere among the operands (build tools with goals: `mvn clean deploy`).
    pub goals: bool,
    pub verbs: &'static [Verb],
}

/// Flags that make any verb harmless: it only prints or plans.
pub const HARMLESS: [&str; 4] = ["--help", "-h", "--dry-run", "--dryrun"];

const fn verb(words: &'static [&'static str], class: Class, what: &'static str) -> Verb {
    Verb {
        words,
        class,
        what,
        harmless: &[],
        requires: &[],
    }
}

const fn verb_unless(
    words: &'static [&'static str],
    class: Class,
    what: &'static str,
    harmless: &'static [&'static str],
) -> Verb {
    Verb {
        words,
        class,
        what,
        harmless,
        requires: &[],
    }
}

const fn verb_with(
    words: &'static [&'static str],
    class: Class,
    what: &'static str,
    requires: &'static [&'static str],
) -> Verb {
    Verb {
        words,
        class,
        what,
        harmless: &[],
        requires,
    }
}

use Class::{Deploy, Publish};

/// Every tool the gate knows besides git.
pub const TOOLS: &[Tool] = &[
    Tool {
        programs: &["cargo"],
        value_options: &["--config", "-Z", "--color", "--manifest-path", "-C"],
        goals: false,
        verbs: &[verb(&["publish"], Publish, "publishes a crate")],
    },
    Tool {
        programs: &["npm", "pnpm", "bun"],
        value_options: &[
            "--registry",
            "--prefix",
            "-C",
            "--dir",
            "--filter",
            "--workspace",
            "-w",
            "--otp",
            "--tag",
            "--access",
            "--userconfig",
        ],
        goals: false,
        verbs: &[
            verb(&["publish"], Publish, "publishes a package"),
            verb(&["unpublish"], Publish, "removes a published package"),
            verb(&["dist-tag", "add"], Publish, "moves a published tag"),
            verb(
                &["run", "publish*"],
                Publish,
                "runs the package's publish script",
            ),
            verb(
                &["run", "deploy*"],
                Deploy,
                "runs the package's deploy script",
            ),
        ],
    },
    Tool {
        programs: &["yarn"],
        value_options: &["--cwd", "--registry"],
        goals: false,
        verbs: &[
            verb(&["publish"], Publish, "publishes a package"),
            verb(&["npm", "publish"], Publish, "publishes a package"),
            verb(
                &["run", "publish*"],
                Publish,
                "runs the package's publish script",
            ),
            verb(
                &["run", "deploy*"],
                Deploy,
                "runs the package's deploy script",
            ),
            verb(&["deploy*"], Deploy, "runs the package's deploy script"),
        ],
    },
    Tool {
        programs: &["make", "gmake", "just", "task", "mise"],
        value_options: &["-f", "--file", "-C", "--directory", "-j", "--justfile"],
        goals: true,
        verbs: &[
            verb_unless(
                &["publish*"],
                Publish,
                "runs a publish target",
                &["-n", "--just-print", "--recon", "--dry-run", "-l", "--list"],
            ),
            verb_unless(
                &["deploy*"],
                Deploy,
                "runs a deploy target",
                &["-n", "--just-print", "--recon", "--dry-run", "-l", "--list"],
            ),
        ],
    },
    Tool {
        programs: &["lerna"],
        value_options: &[],
        goals: false,
        verbs: &[verb(&["publish"], Publish, "publishes packages")],
    },
    Tool {
        programs: &["changeset"],
        value_options: &[],
        goals: false,
        verbs: &[verb(&["publish"], Publish, "publishes packages")],
    },
    Tool {
        programs: &["twine"],
        value_options: &[],
        goals: false,
        verbs: &[verb(&["upload"], Publish, "uploads to a package index")],
    },
    Tool {
        programs: &["uv", "poetry", "flit", "hatch", "pdm", "maturin"],
        value_options: &[
            "--directory",
            "--project",
            "-C",
            "--config-file",
            "--index-url",
            "-r",
            "--repository",
        ],
        goals: false,
        verbs: &[
            verb(&["publish"], Publish, "publishes a package"),
            verb(&["upload"], Publish, "uploads a package"),
        ],
    },
    Tool {
        programs: &["gem"],
        value_options: &["--host", "--key"],
        goals: false,
        verbs: &[
            verb(&["push"], Publish, "publishes a gem"),
            verb(&["yank"], Publish, "removes a published gem"),
        ],
    },
    Tool {
        programs: &["dotnet"],
        value_options: &[],
        goals: false,
        verbs: &[verb(
            &["nuget", "push"],
            Publish,
            "publishes a NuGet package",
        )],
    },
    Tool {
        programs: &["nuget"],
        value_options: &[],
        goals: false,
        verbs: &[verb(&["push"], Publish, "publishes a NuGet package")],
    },
    Tool {
        programs: &["mvn", "mvnw", "./mvnw"],
        value_options: &[
            "-f",
            "--file",
            "-s",
            "--settings",
            "-P",
            "-pl",
            "--projects",
            "-D",
            "-T",
        ],
        goals: true,
        verbs: &[
            verb(&["deploy"], Publish, "deploys artifacts to a repository"),
            verb(
                &["deploy:deploy-file"],
                Publish,
                "deploys artifacts to a repository",
            ),
            verb(&["release:perform"], Publish, "performs a release"),
        ],
    },
    Tool {
        programs: &["gradle", "gradlew", "./gradlew"],
        value_options: &[
            "-p",
            "--project-dir",
            "-b",
            "--build-file",
            "-x",
            "--exclude-task",
            "-P",
            "-D",
        ],
        goals: true,
        verbs: &[verb_unless(
            &["publish*"],
            Publish,
            "publishes artifacts",
            &["--dry-run", "-m"],
        )],
    },
    Tool {
        programs: &["docker", "podman", "nerdctl", "buildah"],
        value_options: &[
            "-H",
            "--host",
            "--context",
            "-c",
            "--config",
            "--log-level",
            "-l",
        ],
        goals: false,
        verbs: &[
            verb(&["push"], Publish, "pushes an image"),
            verb(&["image", "push"], Publish, "pushes an image"),
            verb(&["manifest", "push"], Publish, "pushes an image manifest"),
            verb_with(
                &["buildx", "build"],
                Publish,
                "builds and pushes an image",
                &[
                    "--push",
                    "--output=type=registry",
                    "type=registry",
                    "-o=type=registry",
                ],
            ),
            verb_with(
                &["build"],
                Publish,
                "builds and pushes an image",
                &["--push"],
            ),
            verb_with(
                &["buildx", "bake"],
                Publish,
                "builds and pushes images",
                &["--push"],
            ),
            verb(
                &["buildx", "imagetools", "create"],
                Publish,
                "pushes an image manifest",
            ),
            verb(&["stack", "deploy"], Deploy, "deploys a stack"),
            verb(&["service", "update"], Deploy, "updates a service"),
        ],
    },
    Tool {
        programs: &["skopeo", "crane", "oras"],
        value_options: &[],
        goals: false,
        verbs: &[
            verb(&["copy"], Publish, "copies an image to a registry"),
            verb(&["push"], Publish, "pushes to a registry"),
            verb(&["cp"], Publish, "copies an image to a registry"),
        ],
    },
    Tool {
        programs: &["gh"],
        value_options: &["-R", "--repo"],
        goals: false,
        verbs: &[
            verb(&["release", "create"], Publish, "creates a release"),
            verb(&["release", "upload"], Publish, "uploads release assets"),
            verb(&["release", "edit"], Publish, "edits a release"),
            verb(&["release", "delete"], Publish, "deletes a release"),
            verb(&["pr", "create"], Deploy, "opens a pull request"),
            verb(&["pr", "merge"], Deploy, "merges a pull request"),
            verb(&["workflow", "run"], Deploy, "starts a workflow"),
            verb(&["repo", "delete"], Deploy, "deletes a repository"),
            verb_with(
                &["api"],
                Deploy,
                "changes repository state through the GitHub API",
                &[
                    "PUT",
                    "POST",
                    "PATCH",
                    "DELETE",
                    "--method=PUT",
                    "--method=POST",
                    "--method=PATCH",
                    "--method=DELETE",
                    "-XPUT",
                    "-XPOST",
                    "-XPATCH",
                    "-XDELETE",
                ],
            ),
        ],
    },
    Tool {
        programs: &["kubectl", "oc", "k"],
        value_options: &[
            "-n",
            "--namespace",
            "--context",
            "--kubeconfig",
            "--cluster",
            "--user",
            "-s",
            "--server",
            "--token",
            "-l",
            "--selector",
        ],
        goals: false,
        verbs: &[
            verb(&["apply"], Deploy, "changes a cluster"),
            verb(&["create"], Deploy, "changes a cluster"),
            verb(&["replace"], Deploy, "changes a cluster"),
            verb(&["set"], Deploy, "changes a cluster"),
            verb(&["scale"], Deploy, "changes a cluster"),
            verb(&["autoscale"], Deploy, "changes a cluster"),
            verb(&["delete"], Deploy, "changes a cluster"),
            verb(&["patch"], Deploy, "changes a cluster"),
            verb(&["edit"], Deploy, "changes a cluster"),
            verb(&["label"], Deploy, "changes a cluster"),
            verb(&["annotate"], Deploy, "changes a cluster"),
            verb(&["drain"], Deploy, "changes a cluster"),
            verb(&["cordon"], Deploy, "changes a cluster"),
            verb(&["taint"], Deploy, "changes a cluster"),
            verb(&["rollout", "restart"], Deploy, "changes a cluster"),
            verb(&["rollout", "undo"], Deploy, "changes a cluster"),
            verb(&["rollout", "pause"], Deploy, "changes a cluster"),
            verb(&["rollout", "resume"], Deploy, "changes a cluster"),
            verb(&["run"], Deploy, "changes a cluster"),
            verb(&["expose"], Deploy, "changes a cluster"),
        ],
    },
    Tool {
        programs: &["helm"],
        value_options: &[
            "--kube-context",
            "--kubeconfig",
            "-n",
            "--namespace",
            "--registry-config",
            "--repository-config",
        ],
        goals: false,
        verbs: &[
            verb(&["install"], Deploy, "changes a cluster"),
            verb(&["upgrade"], Deploy, "changes a cluster"),
            verb(&["uninstall"], Deploy, "changes a cluster"),
            verb(&["delete"], Deploy, "changes a cluster"),
            verb(&["rollback"], Deploy, "changes a cluster"),
            verb(&["push"], Publish, "pushes a chart"),
        ],
    },
    Tool {
        programs: &["kustomize", "skaffold", "tilt"],
        value_options: &[],
        goals: false,
        verbs: &[
            verb(&["run"], Deploy, "deploys to a cluster"),
            verb(&["deploy"], Deploy, "deploys to a cluster"),
            verb(&["up"], Deploy, "deploys to a cluster"),
        ],
    },
    Tool {
        programs: &["terraform", "tofu", "terragrunt"],
        value_options: &[],
        goals: false,
        verbs: &[
            verb(&["apply"], Deploy, "changes infrastructure"),
            verb(&["destroy"], Deploy, "destroys infrastructure"),
            verb(&["import"], Deploy, "changes infrastructure state"),
            verb(&["taint"], Deploy, "changes infrastructure state"),
            verb(&["state", "rm"], Deploy, "changes infrastructure state"),
            verb(&["state", "mv"], Deploy, "changes infrastructure state"),
            verb(&["state", "push"], Deploy, "changes infrastructure state"),
            verb(&["run-all", "apply"], Deploy, "changes infrastructure"),
        ],
    },
    Tool {
        programs: &["pulumi"],
        value_options: &["-C", "--cwd", "-s", "--stack"],
        goals: false,
        verbs: &[
            verb_unless(
                &["up"],
                Deploy,
                "changes infrastructure",
                &["--preview-only"],
            ),
            verb(&["update"], Deploy, "changes infrastructure"),
            verb(&["destroy"], Deploy, "destroys infrastructure"),
            verb(&["refresh"], Deploy, "changes infrastructure state"),
        ],
    },
    Tool {
        programs: &[
            "cdk",
            "sam",
            "serverless",
            "sls",
            "eb",
            "copilot",
            "amplify",
            "sst",
        ],
        value_options: &["--profile", "--region", "-c", "--context", "--stage", "-s"],
        goals: false,
        verbs: &[
            verb(&["deploy"], Deploy, "deploys to the cloud"),
            verb(&["destroy"], Deploy, "destroys cloud resources"),
            verb(&["remove"], Deploy, "removes cloud resources"),
            verb(&["publish"], Deploy, "publishes to the cloud"),
        ],
    },
    Tool {
        programs: &["aws"],
        value_options: &["--profile", "--region", "--output", "--endpoint-url"],
        goals: false,
        verbs: &[
            verb(&["cloudformation", "deploy"], Deploy, "deploys a stack"),
            verb(
                &["cloudformation", "delete-stack"],
                Deploy,
                "deletes a stack",
            ),
            verb(&["s3", "sync"], Deploy, "uploads to S3"),
            verb(&["s3", "cp"], Deploy, "uploads to S3"),
            verb(&["s3", "rm"], Deploy, "deletes from S3"),
            verb(
                &["lambda", "update-function-code"],
                Deploy,
                "deploys a function",
            ),
            verb(&["ecs", "update-service"], Deploy, "updates a service"),
        ],
    },
    Tool {
        programs: &["gcloud"],
        value_options: &["--project", "--account", "--configuration"],
        goals: false,
        verbs: &[
            verb(&["app", "deploy"], Deploy, "deploys to App Engine"),
            verb(&["run", "deploy"], Deploy, "deploys to Cloud Run"),
            verb(&["functions", "deploy"], Deploy, "deploys a function"),
            verb(&["builds", "submit"], Deploy, "starts a cloud build"),
        ],
    },
    Tool {
        programs: &["az"],
        value_options: &["--subscription"],
        goals: false,
        verbs: &[
            verb(&["webapp", "deploy"], Deploy, "deploys a web app"),
            verb(&["webapp", "up"], Deploy, "deploys a web app"),
            verb(&["functionapp", "deploy"], Deploy, "deploys a function app"),
            verb(
                &["deployment", "group", "create"],
                Deploy,
                "deploys resources",
            ),
        ],
    },
    Tool {
        programs: &["fly", "flyctl"],
        value_options: &["-a", "--app", "-c", "--config"],
        goals: false,
        verbs: &[
            verb(&["deploy"], Deploy, "deploys to Fly.io"),
            verb(&["apps", "destroy"], Deploy, "destroys a Fly.io app"),
            verb(&["scale"], Deploy, "changes a Fly.io app"),
            verb(&["secrets", "set"], Deploy, "changes a Fly.io app"),
        ],
    },
    Tool {
        programs: &["vercel"],
        value_options: &["--scope", "--token", "-t", "--cwd"],
        goals: false,
        verbs: &[
            verb(&["deploy"], Deploy, "deploys to Vercel"),
            verb(&["--prod"], Deploy, "deploys to Vercel"),
            verb(&["promote"], Deploy, "deploys to Vercel"),
            verb(&["rollback"], Deploy, "deploys to Vercel"),
        ],
    },
    Tool {
        programs: &["netlify", "ntl"],
        value_options: &[],
        goals: false,
        verbs: &[verb_with(
            &["deploy"],
            Deploy,
            "deploys to Netlify",
            &["--prod", "-p", "--prod-if-unlocked"],
        )],
    },
    Tool {
        programs: &[
            "wrangler",
            "firebase",
            "heroku",
            "railway",
            "render",
            "doctl",
            "deployctl",
            "surge",
            "now",
        ],
        value_options: &[
            "--project",
            "-P",
            "--app",
            "-a",
            "--env",
            "-e",
            "--config",
            "-c",
        ],
        goals: false,
        verbs: &[
            verb(&["deploy"], Deploy, "deploys"),
            verb(&["publish"], Deploy, "deploys"),
            verb(&["up"], Deploy, "deploys"),
            verb(&["releases:rollback"], Deploy, "rolls back a release"),
            verb(&["rollback"], Deploy, "rolls back a release"),
            verb(&["apps", "create-deployment"], Deploy, "deploys"),
        ],
    },
    Tool {
        programs: &["ansible-playbook"],
        value_options: &[],
        goals: false,
        verbs: &[verb_unless(
            &[],
            Deploy,
            "runs a playbook against hosts",
            &[
                "--check",
                "-C",
                "--syntax-check",
                "--list-hosts",
                "--list-tasks",
            ],
        )],
    },
    Tool {
        programs: &["semantic-release", "release-it", "np"],
        value_options: &[],
        goals: false,
        verbs: &[verb_unless(
            &[],
            Publish,
            "publishes a release",
            &["--dry-run", "-d", "--no-publish"],
        )],
    },
];

/// Words outside the table that still make a command worth parsing: git and what can hide or
/// lose work (`rm`, `find`), shells and interpreters that run other code, `eval`, the state
/// hookjudge reads (`.hookjudge/verified`, remote-tracking refs), and hook switches.
const EXTRA_WORDS: [&str; 34] = [
    "git",
    "eval",
    "husky",
    "rm",
    "find",
    "hookjudge",
    "refs",
    "remotes",
    "packed",
    "xargs",
    // Shells: one fed computed text runs what no word of the line says.
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    // Programs that run other command lines.
    "at",
    "batch",
    "parallel",
    "vim",
    "vi",
    "nvim",
    "ex",
    "sqlite3",
    "hash",
    // File tools that remove or overwrite work, and the interpreter calls that do.
    "mv",
    "cp",
    "shred",
    "unlink",
    "truncate",
    "rsync",
    "remove",
    "rmtree",
    "remove_tree",
    "unlinksync",
];

/// The prefilter's words: every program of the table, the verbs that make a computed program
/// suspect, git's gated verbs, and the extra words. A table verb needs its program to be
/// gated, so the program's word is enough.
pub fn prefilter_words() -> impl Iterator<Item = &'static str> {
    TOOLS
        .iter()
        .flat_map(|t| t.programs.iter().map(|p| p.trim_start_matches("./")))
        .chain(DYNAMIC_VERBS)
        .chain(super::git_options::GATED_VERBS.iter().copied())
        .chain(EXTRA_WORDS)
}

/// The prefilter's words split at `-`/`.`/`/` (`git-push` reads as `git` and `push`), sorted:
/// what `prefilter_words` derives from the table, written out so that a hook call does not
/// build it (a test keeps the two equal).
const PREFILTER_SORTED: [&str; 134] = [
    "amplify",
    "ansible",
    "apply",
    "at",
    "aws",
    "az",
    "bash",
    "batch",
    "branch",
    "buildah",
    "bun",
    "cargo",
    "cdk",
    "changeset",
    "checkout",
    "clean",
    "commit",
    "config",
    "copilot",
    "cp",
    "crane",
    "dash",
    "deploy",
    "deployctl",
    "destroy",
    "docker",
    "doctl",
    "dotnet",
    "eb",
    "eval",
    "ex",
    "find",
    "firebase",
    "flit",
    "fly",
    "flyctl",
    "gcloud",
    "gem",
    "gh",
    "git",
    "gmake",
    "gradle",
    "gradlew",
    "hash",
    "hatch",
    "helm",
    "heroku",
    "hookjudge",
    "husky",
    "index",
    "it",
    "just",
    "ksh",
    "kubectl",
    "kustomize",
    "lerna",
    "make",
    "maturin",
    "mise",
    "mv",
    "mvn",
    "mvnw",
    "nerdctl",
    "netlify",
    "now",
    "np",
    "npm",
    "ntl",
    "nuget",
    "nvim",
    "oc",
    "oras",
    "pack",
    "packed",
    "parallel",
    "pdm",
    "playbook",
    "pnpm",
    "podman",
    "poetry",
    "publish",
    "pulumi",
    "push",
    "railway",
    "read",
    "ref",
    "refs",
    "release",
    "remotes",
    "remove",
    "remove_tree",
    "render",
    "reset",
    "restore",
    "rm",
    "rmtree",
    "rsync",
    "sam",
    "semantic",
    "send",
    "serverless",
    "sh",
    "shred",
    "skaffold",
    "skopeo",
    "sls",
    "sqlite3",
    "sst",
    "stash",
    "surge",
    "switch",
    "task",
    "terraform",
    "terragrunt",
    "tilt",
    "tofu",
    "tree",
    "truncate",
    "twine",
    "unlink",
    "unlinksync",
    "unpublish",
    "update",
    "upgrade",
    "upload",
    "uv",
    "vercel",
    "vi",
    "vim",
    "wrangler",
    "xargs",
    "yank",
    "yarn",
    "zsh",
];

/// Whether one word of a command line (letters, digits and `_`; lower case) is a prefilter
/// word.
pub fn is_prefilter_word(word: &str) -> bool {
    PREFILTER_SORTED.binary_search(&word).is_ok()
}

/// Verbs that, next to a program computed at run time, make it suspect (`$c push`, `"$@"` of
/// `publish`). Only words that name the action itself: `run`, `build` or `create` next to a
/// computed program are ordinary. Each is a verb of the table or of git (tested).
const DYNAMIC_VERBS: [&str; 13] = [
    "commit",
    "push",
    "send-pack",
    "publish",
    "unpublish",
    "deploy",
    "upload",
    "apply",
    "destroy",
    "yank",
    "upgrade",
    "reset",
    "clean",
];

/// Verb words that, next to a program computed at run time, could make it gated.
pub fn is_gated_verb(word: &str) -> bool {
    DYNAMIC_VERBS.contains(&word)
}

/// Whether `program` is a tool of the table (or git).
pub fn is_gated_program(program: &str) -> bool {
    program == "git" || tool(program).is_some()
}

/// The tool `program` belongs to.
pub fn tool(program: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| {
        t.programs
            .iter()
            .any(|p| *p == program || p.trim_start_matches("./") == program)
    })
}

/// The match of a command against a tool's verbs.
pub enum Match {
    Gated(&'static Verb),
    /// The verb position holds a word computed at run time.
    ComputedVerb(String),
    None,
}

/// Finds the verb of `words` (the arguments after the program; `None` for a computed word).
pub fn find_verb(tool: &Tool, words: &[Option<&str>]) -> Match {
    // The last mention of a flag decides: `--dry-run=false`, `--dry-run=none` and a later
    // `--no-dry-run` turn it off, as npm, kubectl and most option parsers read them.
    let flag_present = |names: &[&str]| {
        let mut on = false;
        for w in words.iter().flatten() {
            for n in names {
                if *w == *n {
                    on = true;
                } else if let Some(value) = n
                    .starts_with("--")
                    .then(|| w.strip_prefix(n).and_then(|r| r.strip_prefix('=')))
                    .flatten()
                {
                    on = !matches!(value, "false" | "none" | "0" | "no" | "off");
                } else if n.starts_with("--") && w.strip_prefix("--no-") == Some(&n[2..]) {
                    on = false;
                }
            }
        }
        on
    };
    if flag_present(&HARMLESS) {
        return Match::None;
    }
    for verb in tool.verbs {
        if verb.words.is_empty() {
            if !flag_present(verb.harmless) {
                return Match::Gated(verb);
            }
            continue;
        }
        match verb_at(tool, verb, words) {
            VerbAt::Yes
                if (verb.requires.is_empty() || flag_present(verb.requires))
                    && !flag_present(verb.harmless) =>
            {
                return Match::Gated(verb);
            }
            VerbAt::Computed(src) => return Match::ComputedVerb(src),
            _ => {}
        }
    }
    Match::None
}

enum VerbAt {
    Yes,
    No,
    Computed(String),
}

fn word_matches(pattern: &str, word: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => word.starts_with(prefix),
        None => pattern == word,
    }
}

/// Whether `verb`'s words come in order in `words`, skipping options (and the values of the
/// options that take one). A word after an unknown option may be its value: it is skipped
/// when it is not the next verb word.
fn verb_at(tool: &Tool, verb: &Verb, words: &[Option<&str>]) -> VerbAt {
    let mut want = verb.words.iter().peekable();
    let mut i = 0;
    let mut after_option = false;
    while let Some(pattern) = want.peek() {
        let Some(word) = words.get(i) else {
            return VerbAt::No;
        };
        i += 1;
        let Some(word) = word else {
            if after_option {
                after_option = false;
                continue;
            }
            return VerbAt::Computed(String::from("a computed word"));
        };
        if pattern.starts_with('-') {
            if *word == **pattern {
                want.next();
            }
            continue;
        }
        if word.starts_with('-') || word.starts_with('+') {
            let takes_value = !word.contains('=') && tool.value_options.iter().any(|o| o == word);
            if takes_value {
                i += 1;
                after_option = false;
            } else {
                after_option = word.starts_with("--") && !word.contains('=');
            }
            continue;
        }
        if word_matches(pattern, word) {
            want.next();
            after_option = false;
            continue;
        }
        if after_option || tool.goals {
            after_option = false;
            continue;
        }
        return VerbAt::No;
    }
    VerbAt::Yes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(program: &str, args: &[&str]) -> Option<Class> {
        let words: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        match find_verb(tool(program)?, &words) {
            Match::Gated(v) => Some(v.class),
            _ => None,
        }
    }

    #[test]
    fn global_options_before_the_verb() {
        assert_eq!(class("cargo", &["--locked", "publish"]), Some(Publish));
        assert_eq!(class("cargo", &["+nightly", "publish"]), Some(Publish));
        assert_eq!(
            class("npm", &["--registry", "http://x", "publish"]),
            Some(Publish)
        );
        assert_eq!(
            class("kubectl", &["-n", "prod", "apply", "-f", "x"]),
            Some(Deploy)
        );
        assert_eq!(class("terraform", &["-chdir=infra", "apply"]), Some(Deploy));
        assert_eq!(
            class("helm", &["--kube-context", "x", "upgrade", "a", "."]),
            Some(Deploy)
        );
        assert_eq!(
            class("docker", &["buildx", "build", "--push", "."]),
            Some(Publish)
        );
        assert_eq!(class("docker", &["buildx", "build", "."]), None);
        assert_eq!(class("mvn", &["-B", "clean", "deploy"]), Some(Publish));
        assert_eq!(class("cargo", &["build"]), None);
        assert_eq!(class("cargo", &["publish", "--dry-run"]), None);
        assert_eq!(
            class("kubectl", &["apply", "--dry-run=client", "-f", "x"]),
            None
        );
        assert_eq!(class("kubectl", &["get", "pods"]), None);
    }

    #[test]
    fn the_sorted_prefilter_is_the_table_s() {
        let mut words: Vec<&str> = prefilter_words()
            .flat_map(|w| w.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
            .filter(|w| w.len() > 1)
            .collect();
        words.sort_unstable();
        words.dedup();
        assert_eq!(
            words, PREFILTER_SORTED,
            "update PREFILTER_SORTED from the table"
        );
    }

    #[test]
    fn prefilter_words_cover_the_table() {
        let words: Vec<&str> = prefilter_words().collect();
        for t in TOOLS {
            for p in t.programs {
                assert!(words.contains(&p.trim_start_matches("./")), "{p}");
            }
        }
        assert!(is_gated_verb("publish") && is_gated_verb("push") && !is_gated_verb("build"));
        for verb in DYNAMIC_VERBS {
            let in_table = TOOLS
                .iter()
                .any(|t| t.verbs.iter().any(|v| v.words.first() == Some(&verb)));
            assert!(
                in_table || super::super::git_options::GATED_VERBS.contains(&verb),
                "{verb} is no verb of the table"
            );
        }
    }
}
