//! The package managers of other language ecosystems, and the registries of editors' extensions,
//! snaps and conda channels, that publish with one verb (the table's rows; `tools` holds the
//! types and the matching).

use super::{Tool, verb};
use crate::gate::classify::Class::Publish;

/// Publishers outside the JavaScript, Python, Rust, Ruby, JVM and .NET rows of `publish`.
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        // `dart pub publish` and `flutter pub publish`.
        programs: &["dart", "flutter"],
        value_options: &["--directory", "-C"],
        goals: false,
        verbs: &[
            verb(
                &["pub", "publish"],
                Publish,
                "publishes a package to pub.dev",
            ),
            verb(&["pub", "lish"], Publish, "publishes a package to pub.dev"),
            verb(&["publish"], Publish, "publishes a package to pub.dev"),
            verb(
                &["pub", "uploader"],
                Publish,
                "changes a package's uploaders",
            ),
        ],
    },
    Tool {
        // Elixir's Hex: `mix hex.publish` (also `package` and `docs`), `mix hex.retire`.
        programs: &["mix"],
        value_options: &[],
        goals: true,
        verbs: &[
            verb(&["hex.publish"], Publish, "publishes a package to Hex"),
            verb(&["hex.retire"], Publish, "retires a published package"),
            verb(&["hex.owner"], Publish, "changes a package's owners"),
        ],
    },
    Tool {
        programs: &["swift"],
        value_options: &["--package-path"],
        goals: false,
        verbs: &[verb(
            &["package-registry", "publish"],
            Publish,
            "publishes a package to a registry",
        )],
    },
    Tool {
        programs: &["pod"],
        value_options: &[],
        goals: false,
        verbs: &[
            verb(&["trunk", "push"], Publish, "publishes a pod to the trunk"),
            verb(&["trunk", "delete"], Publish, "removes a published pod"),
            verb(
                &["trunk", "deprecate"],
                Publish,
                "deprecates a published pod",
            ),
            verb(
                &["repo", "push"],
                Publish,
                "publishes a pod to a spec repository",
            ),
        ],
    },
    Tool {
        // The VS Code Marketplace and Open VSX.
        programs: &["vsce", "ovsx"],
        value_options: &["-p", "--pat", "--packagePath", "-i"],
        goals: false,
        verbs: &[
            verb(&["publish"], Publish, "publishes an editor extension"),
            verb(
                &["unpublish"],
                Publish,
                "removes a published editor extension",
            ),
        ],
    },
    Tool {
        programs: &["snapcraft"],
        value_options: &[],
        goals: false,
        verbs: &[
            verb(&["upload"], Publish, "uploads a snap to the store"),
            verb(&["push"], Publish, "uploads a snap to the store"),
            verb(&["release"], Publish, "releases a snap to a channel"),
            verb(&["promote"], Publish, "promotes a snap to a channel"),
        ],
    },
    Tool {
        programs: &["anaconda", "conda"],
        value_options: &["-t", "--token", "-s", "--site"],
        goals: false,
        verbs: &[
            verb(&["upload"], Publish, "uploads a package to a conda channel"),
            verb(
                &["publish"],
                Publish,
                "uploads a package to a conda channel",
            ),
        ],
    },
    Tool {
        // sbt tasks come anywhere on the line (`sbt clean +publishSigned`).
        programs: &["sbt"],
        value_options: &[],
        goals: true,
        verbs: &[
            verb(&["publish*"], Publish, "publishes artifacts"),
            verb(&["+publish*"], Publish, "publishes artifacts"),
            verb(&["release*"], Publish, "releases and publishes artifacts"),
            verb(
                &["sonatype*"],
                Publish,
                "releases artifacts to Maven Central",
            ),
        ],
    },
    Tool {
        // Haskell: Hackage through cabal or stack.
        programs: &["cabal", "stack"],
        value_options: &[],
        goals: false,
        verbs: &[verb(&["upload"], Publish, "uploads a package to Hackage")],
    },
    Tool {
        programs: &["luarocks"],
        value_options: &["--api-key"],
        goals: false,
        verbs: &[verb(&["upload"], Publish, "uploads a rock to LuaRocks")],
    },
    Tool {
        // Nim, Elm, opam, Deno's and the JSR's registries.
        programs: &["nimble", "elm", "opam", "deno", "jsr"],
        value_options: &[],
        goals: false,
        verbs: &[verb(&["publish"], Publish, "publishes a package")],
    },
];
