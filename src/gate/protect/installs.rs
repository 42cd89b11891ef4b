//! Package installers that put a program named `hookjudge` where the hooks run it from:
//! `cargo install --force --path evilcrate` over `~/.cargo/bin/hookjudge`, when the crate it
//! builds declares a binary of that name. The crate is read (its `Cargo.toml`), and where its
//! binary would land checked like any other write ([`Protected::what`]: the binary the hooks
//! run, or a directory on PATH). A crate that cannot be read on the machine (`--git`, a registry
//! crate) is refused only with `--force` over an existing `hookjudge`: without it, cargo itself
//! refuses to replace a binary another package installed.

use std::path::{Path, PathBuf};

use super::places::Protected;

/// What `words` (a `cargo` command, run in `cwd`) would do against hookjudge.
pub(super) fn cargo_install(
    protected: &Protected,
    words: &[&str],
    cwd: Option<&Path>,
) -> Option<String> {
    let verb = words[1..]
        .iter()
        .position(|w| !w.starts_with('-') && !w.starts_with('+'))?;
    let args = &words[verb + 2..];
    // `uninstall` removes what `install` put there; `binstall` installs a prebuilt binary.
    let verb = words[verb + 1];
    if !matches!(verb, "install" | "uninstall" | "binstall") {
        return None;
    }
    let value = |name: &str| {
        args.iter().enumerate().find_map(|(i, w)| {
            w.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('='))
                .or_else(|| (*w == name).then(|| args.get(i + 1).copied()).flatten())
        })
    };
    // A crate named on the line (`cargo install hookjudge`), or the one at `--path`.
    let named = args.iter().enumerate().any(|(i, w)| {
        let after_valued = i > 0 && VALUED.contains(&args[i - 1]);
        !w.starts_with('-') && !after_valued && w.split('@').next() == Some("hookjudge")
    });
    let manifest = value("--path")
        .map(|dir| std::fs::read_to_string(protected.word_path(dir, cwd).join("Cargo.toml")));
    let from_path = matches!(&manifest, Some(Ok(manifest)) if declares_hookjudge(manifest));
    let root = || {
        value("--root")
            .map(|r| protected.word_path(r, cwd))
            .or_else(|| std::env::var_os("CARGO_INSTALL_ROOT").map(PathBuf::from))
            .or_else(|| std::env::var_os("CARGO_HOME").map(PathBuf::from))
            .or_else(|| protected.home.as_ref().map(|h| h.join(".cargo")))
    };
    if !named && !from_path {
        // Without `--force` cargo refuses to replace a binary another package installed; with
        // it, a crate whose binaries cannot be read before it is fetched (`--git`, a registry
        // crate, a `--path` with no readable manifest) may overwrite hookjudge's.
        let forced = args.iter().any(|w| matches!(*w, "--force" | "-f"));
        let readable = matches!(manifest, Some(Ok(_)));
        if verb != "install" || !forced || readable {
            return None;
        }
        let landing = root()?.join("bin/hookjudge");
        if !landing.exists() {
            return None;
        }
        return protected.what(&landing).map(|what| {
            format!(
                "command installs with `--force` a crate whose binaries cannot be read before it is built, so it may overwrite `{}` (it {what}); install it without `--force`, and cargo refuses to replace another package's binary",
                landing.display()
            )
        });
    }
    let landing = root()?.join("bin/hookjudge");
    protected.what(&landing).map(|what| {
        format!(
            "command {} a program named hookjudge as `{}`: it {what}",
            if verb == "uninstall" {
                "removes"
            } else {
                "installs"
            },
            landing.display()
        )
    })
}

/// Whether `command` may run an installer this module reads (checked before parsing).
pub(super) fn may_install(command: &str) -> bool {
    command.contains("cargo") && command.contains("install")
}

/// `cargo install` options that take the next word as their value.
const VALUED: [&str; 12] = [
    "--version",
    "--git",
    "--branch",
    "--tag",
    "--rev",
    "--path",
    "--root",
    "--index",
    "--registry",
    "--features",
    "--profile",
    "--target",
];

/// Whether a `Cargo.toml` names its package or one of its binaries `hookjudge`.
fn declares_hookjudge(manifest: &str) -> bool {
    manifest.lines().any(|line| {
        let line = line.trim();
        line.strip_prefix("name")
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix('='))
            .is_some_and(|value| value.trim().trim_matches(['"', '\'']) == "hookjudge")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_declares_hookjudge_by_its_package_or_a_binary() {
        assert!(declares_hookjudge("[package]\nname = \"hookjudge\"\n"));
        assert!(declares_hookjudge(
            "[package]\nname = \"tools\"\n[[bin]]\nname='hookjudge'\npath = \"x.rs\"\n"
        ));
        assert!(!declares_hookjudge(
            "[package]\nname = \"hookjudge-extra\"\n"
        ));
        assert!(!declares_hookjudge("[package]\nname = \"ripgrep\"\n"));
    }
}
