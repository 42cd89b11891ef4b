//! The prefilter's words and the verbs that make a computed program suspect: derived from the
//! table (tests keep them equal), and read in their packed form (see `packed`).

use crate::gate::packed::{Words, bytes};

/// Words outside the table that still make a command worth parsing: git and what can hide or
/// lose work (`rm`, `find`), shells and interpreters that run other code, `eval`, the state
/// hookjudge reads (`.hookjudge/verified`, remote-tracking refs), and hook switches.
/// (`PREFILTER_SORTED` is what the hook reads; a test derives it from these and the table.)
#[cfg(test)]
const EXTRA_WORDS: [&str; 48] = [
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
    // Interpreter calls that run programs: code that builds the program's name at run time
    // names nothing gated (`import_module('sub'+'process')`, `exec(bytes.fromhex(…))`).
    "exec",
    "system",
    "spawn",
    "popen",
    "subprocess",
    "import_module",
    "execsync",
    "child_process",
    // GNU sed's `e` command runs a line as a shell command.
    "sed",
    // Copies to and commands on other machines (`tools::remote`).
    "scp",
    "ssh",
    "remove",
    "rmtree",
    "remove_tree",
    "unlinksync",
    // HTTP clients that write through a forge's API (`tools::http`).
    "curl",
    "wget",
    // A test runner that loads hook files (`conftest.py`) the session may have written.
    "pytest",
];

/// The prefilter's words: every program of the table, the verbs that make a computed program
/// suspect, git's gated verbs, and the extra words. A table verb needs its program to be
/// gated, so the program's word is enough.
#[cfg(test)]
pub(super) fn prefilter_words() -> impl Iterator<Item = &'static str> {
    super::tools()
        .flat_map(|t| t.programs.iter().map(|p| p.trim_start_matches("./")))
        .chain(DYNAMIC_VERBS)
        .chain(crate::gate::git_options::GATED_VERBS.iter().copied())
        .chain(EXTRA_WORDS)
}

/// The prefilter's words split at `-`/`.`/`/` (`git-push` reads as `git` and `push`), sorted:
/// what `prefilter_words` derives from the table, written out so that a hook call does not
/// build it (a test keeps the two equal).
pub(super) const PREFILTER_SORTED: [&str; 182] = [
    "amplify",
    "anaconda",
    "ansible",
    "apply",
    "argocd",
    "at",
    "aws",
    "az",
    "bash",
    "batch",
    "branch",
    "buildah",
    "bun",
    "cabal",
    "cap",
    "cargo",
    "cdk",
    "cdktf",
    "changeset",
    "checkout",
    "child_process",
    "clean",
    "commit",
    "compose",
    "conda",
    "config",
    "copilot",
    "cp",
    "crane",
    "curl",
    "dart",
    "dash",
    "deno",
    "deploy",
    "deployctl",
    "destroy",
    "docker",
    "doctl",
    "dotnet",
    "eb",
    "elm",
    "eval",
    "ex",
    "exec",
    "execsync",
    "find",
    "firebase",
    "flit",
    "flutter",
    "flux",
    "fly",
    "flyctl",
    "gcloud",
    "gem",
    "gh",
    "git",
    "glab",
    "gmake",
    "gradle",
    "gradlew",
    "hash",
    "hatch",
    "helm",
    "helmfile",
    "heroku",
    "hookjudge",
    "hub",
    "husky",
    "import_module",
    "index",
    "it",
    "jj",
    "jsr",
    "just",
    "kamal",
    "kapp",
    "ko",
    "ksh",
    "kubecolor",
    "kubectl",
    "kustomize",
    "lerna",
    "luarocks",
    "make",
    "maturin",
    "mise",
    "mix",
    "mv",
    "mvn",
    "mvnw",
    "nerdctl",
    "netlify",
    "nimble",
    "now",
    "np",
    "npm",
    "ntl",
    "nuget",
    "nvim",
    "oc",
    "opam",
    "oras",
    "ovsx",
    "pack",
    "packed",
    "parallel",
    "pdm",
    "playbook",
    "pnpm",
    "pod",
    "podman",
    "poetry",
    "popen",
    "publish",
    "pulumi",
    "push",
    "pytest",
    "railway",
    "rake",
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
    "sbt",
    "scp",
    "sed",
    "semantic",
    "send",
    "serverless",
    "sh",
    "shred",
    "skaffold",
    "skopeo",
    "sl",
    "sls",
    "snapcraft",
    "spawn",
    "sqlite3",
    "ssh",
    "sst",
    "stack",
    "stash",
    "subprocess",
    "surge",
    "swift",
    "switch",
    "system",
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
    "vsce",
    "wget",
    "wrangler",
    "xargs",
    "yank",
    "yarn",
    "zsh",
];

/// Whether one word of a command line (letters, digits and `_`; lower case) is a prefilter
/// word.
pub fn is_prefilter_word(word: &str) -> bool {
    PREFILTER.contains_sorted(word)
}

static PREFILTER: Words<{ bytes(&PREFILTER_SORTED) }, { PREFILTER_SORTED.len() }> =
    Words::pack(&PREFILTER_SORTED);

/// Verbs that, next to a program computed at run time, make it suspect (`$c push`, `"$@"` of
/// `publish`). Only words that name the action itself: `run`, `build` or `create` next to a
/// computed program are ordinary. Each is a verb of the table or of git (tested).
pub(super) const DYNAMIC_VERBS: [&str; 13] = [
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
    static PACKED: Words<{ bytes(&DYNAMIC_VERBS) }, { DYNAMIC_VERBS.len() }> =
        Words::pack(&DYNAMIC_VERBS);
    PACKED.contains(word)
}
