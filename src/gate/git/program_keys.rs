//! Git configuration keys whose value is a program git runs later, on its own: a clean or
//! smudge filter on `git add`, an external diff on `git diff`, an ssh command or upload pack
//! on `git fetch`, a pager on `git log`. Setting one to a program is asked about, naming the
//! key: the command that triggers it later names nothing it runs.

/// Keys (lowercase; `*` stands for one name part) whose value git runs as a program, or (the
/// include keys) names a file git reads as configuration, which may set any of the others.
const PROGRAM_KEYS: [&str; 27] = [
    "include.path",
    "includeif.*.path",
    "core.alternaterefscommand",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "merge.*.driver",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "core.fsmonitor",
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "sequence.editor",
    "credential.helper",
    "credential.*.helper",
    "gpg.program",
    "gpg.*.program",
    "difftool.*.cmd",
    "mergetool.*.cmd",
    "pager.*",
    "uploadpack.packobjectshook",
];

/// Values of those keys that run nothing the user did not install for the purpose: booleans,
/// git's own credential helpers, everyday pagers and editors.
const HARMLESS_VALUES: [&str; 20] = [
    "",
    "true",
    "false",
    "0",
    "1",
    "cat",
    "less",
    "less -r",
    "less -frx",
    "more",
    "vim",
    "vi",
    "nvim",
    "nano",
    "emacs",
    "code --wait",
    "store",
    "cache",
    "manager",
    "osxkeychain",
];

/// Whether git runs the value of `key` as a program.
pub fn runs_program(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let parts: Vec<&str> = key.split('.').collect();
    PROGRAM_KEYS.iter().any(|pattern| {
        let want: Vec<&str> = pattern.split('.').collect();
        match (want.as_slice(), parts.as_slice()) {
            ([a, b], [x, y]) => a == x && (b == y || *b == "*"),
            ([a, "*", c], [x, _, z @ ..]) => a == x && z.last() == Some(c) && !z.is_empty(),
            _ => false,
        }
    })
}

/// Why setting `key` to `value` is asked about, if it is.
pub fn setting_runs_program(key: &str, value: &str) -> Option<String> {
    let harmless = HARMLESS_VALUES.contains(&value.trim().to_ascii_lowercase().as_str());
    if !runs_program(key) || harmless {
        return None;
    }
    Some(if key.to_ascii_lowercase().starts_with("include") {
        format!(
            "sets `{key}`, which makes git read `{value}` as configuration, and that can set programs later git commands run"
        )
    } else {
        format!("sets `{key}`, which makes later git commands run `{value}`")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_run_programs() {
        for key in [
            "filter.rt.clean",
            "filter.lfs.process",
            "diff.external",
            "core.sshCommand",
            "remote.origin.uploadpack",
            "remote.my.fork.receivepack",
            "sequence.editor",
            "credential.https://x.example.helper",
            "pager.log",
            "include.path",
            "includeIf.gitdir:~/work/.path",
        ] {
            assert!(runs_program(key), "{key}");
        }
        for key in [
            "user.name",
            "core.autocrlf",
            "remote.origin.url",
            "filter.rt",
        ] {
            assert!(!runs_program(key), "{key}");
        }
        assert!(setting_runs_program("filter.rt.clean", "sh -c 'git push; cat'").is_some());
        assert!(setting_runs_program("core.pager", "less").is_none());
        assert!(setting_runs_program("core.fsmonitor", "true").is_none());
        assert!(
            setting_runs_program("include.path", "../evil.cfg")
                .is_some_and(|why| why.contains("read `../evil.cfg` as configuration"))
        );
    }
}
