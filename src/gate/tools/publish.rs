//! The tools that publish: package registries, build tools with publishing goals, container
//! registries and release tools (the table's rows; `tools` holds the types and the matching).

use super::{Tool, verb, verb_unless, verb_with};
use crate::gate::classify::Class::{Commit, Deploy, Publish, Push};

/// What `npm version patch` and its kind do.
const NEW_VERSION: &str = "bumps the version, commits and tags";

/// The tools that publish packages, images or releases.
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        programs: &["cargo"],
        value_options: &["--config", "-Z", "--color", "--manifest-path", "-C"],
        goals: false,
        verbs: &[
            verb(&["publish"], Publish, "publishes a crate"),
            // cargo-release (older versions run without `--execute`), cargo-workspaces.
            verb(
                &["release"],
                Publish,
                "releases crates (version, tag, publish, push)",
            ),
            verb(
                &["ws", "publish"],
                Publish,
                "publishes the workspace's crates",
            ),
            verb(
                &["workspaces", "publish"],
                Publish,
                "publishes the workspace's crates",
            ),
            verb(
                &["ws", "version"],
                Push,
                "bumps versions, commits, tags and pushes",
            ),
            verb(
                &["workspaces", "version"],
                Push,
                "bumps versions, commits, tags and pushes",
            ),
        ],
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
        // npm runs any unique prefix of a command (`npm pub` is `npm publish`) and knows
        // `run-script` as `run`, `rum` and `urn`.
        verbs: &[
            verb(&["publish"], Publish, "publishes a package"),
            verb(&["unpublish"], Publish, "removes a published package"),
            verb(&["pu*"], Publish, "publishes a package"),
            verb(&["unp*"], Publish, "removes a published package"),
            verb(&["dist-tag", "add"], Publish, "moves a published tag"),
            // `npm version patch` commits and tags (alone, `npm version` prints versions).
            verb_unless(
                &["version", "*"],
                Commit,
                NEW_VERSION,
                &["--no-git-tag-version", "--json"],
            ),
            verb(
                &["run", "publish*"],
                Publish,
                "runs the package's publish script",
            ),
            verb(
                &["run-*", "publish*"],
                Publish,
                "runs the package's publish script",
            ),
            verb(
                &["rum", "publish*"],
                Publish,
                "runs the package's publish script",
            ),
            verb(
                &["urn", "publish*"],
                Publish,
                "runs the package's publish script",
            ),
            verb(
                &["run", "deploy*"],
                Deploy,
                "runs the package's deploy script",
            ),
            verb(
                &["run-*", "deploy*"],
                Deploy,
                "runs the package's deploy script",
            ),
            verb(
                &["rum", "deploy*"],
                Deploy,
                "runs the package's deploy script",
            ),
            verb(
                &["urn", "deploy*"],
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
            verb_unless(&["version"], Commit, NEW_VERSION, &["--no-git-tag-version"]),
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
        verbs: &[
            verb_unless(
                &["publish*"],
                Publish,
                "publishes artifacts",
                &["--dry-run", "-m"],
            ),
            verb_unless(
                &["uploadArchives"],
                Publish,
                "uploads artifacts",
                &["--dry-run", "-m"],
            ),
        ],
    },
    Tool {
        programs: &["rake"],
        value_options: &["-f", "--rakefile", "-C", "--directory", "-I", "-R"],
        goals: true,
        // Bundler's gem tasks: `release` tags, pushes and publishes the gem.
        verbs: &[verb_unless(
            &["release*"],
            Publish,
            "tags, pushes and publishes a gem",
            &[
                "-n",
                "--dry-run",
                "-T",
                "--tasks",
                "-P",
                "--prereqs",
                "-W",
                "--where",
            ],
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
                &["--push", "*type=registry", "*push=true"],
            ),
            verb_with(
                &["build"],
                Publish,
                "builds and pushes an image",
                &["--push", "*type=registry", "*push=true"],
            ),
            verb(&["compose", "push"], Publish, "pushes the services' images"),
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
        programs: &["docker-compose"],
        value_options: &["-f", "--file", "-p", "--project-name", "--env-file"],
        goals: false,
        verbs: &[verb(&["push"], Publish, "pushes the services' images")],
    },
    Tool {
        programs: &["ko"],
        value_options: &["--platform", "-t", "--tags", "--image-refs"],
        goals: false,
        // ko pushes what it builds unless told to keep it local.
        verbs: &[
            verb_unless(
                &["build"],
                Publish,
                "builds and pushes an image",
                &["--local", "-L", "--push=false"],
            ),
            verb_unless(
                &["publish"],
                Publish,
                "builds and pushes an image",
                &["--local", "-L", "--push=false"],
            ),
            verb_unless(
                &["resolve"],
                Publish,
                "builds and pushes the images a configuration names",
                &["--local", "-L", "--push=false"],
            ),
            verb(
                &["apply"],
                Deploy,
                "builds, pushes and applies to a cluster",
            ),
            verb(
                &["create"],
                Deploy,
                "builds, pushes and creates in a cluster",
            ),
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
            verb(
                &["repo", "sync"],
                Deploy,
                "moves a repository's branch to another's",
            ),
            // `gh api` is read by its method and fields (`tools::http`).
        ],
    },
    Tool {
        programs: &["glab"],
        value_options: &["-R", "--repo"],
        goals: false,
        // `glab api` is read by its method and fields (`tools::http`).
        verbs: &[
            verb(&["release", "create"], Publish, "creates a release"),
            verb(&["release", "upload"], Publish, "uploads release assets"),
            verb(&["mr", "create"], Deploy, "opens a merge request"),
            verb(&["mr", "merge"], Deploy, "merges a merge request"),
            verb(&["repo", "delete"], Deploy, "deletes a repository"),
        ],
    },
    Tool {
        programs: &["hub"],
        value_options: &["-C", "-c"],
        goals: false,
        verbs: &[
            verb(&["push"], Push, "pushes commits"),
            verb(&["pull-request"], Deploy, "opens a pull request"),
            verb(&["release", "create"], Publish, "creates a release"),
            verb(&["commit"], Commit, "creates a commit"),
        ],
    },
    Tool {
        programs: &["jj"],
        value_options: &["-R", "--repository", "--at-op", "--config"],
        goals: false,
        verbs: &[verb(&["git", "push"], Push, "pushes bookmarks")],
    },
    Tool {
        programs: &["sl"],
        value_options: &["-R", "--repository", "--cwd", "--config"],
        goals: false,
        verbs: &[
            verb(&["push"], Push, "pushes commits"),
            verb(&["pr", "submit"], Deploy, "opens pull requests"),
        ],
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
