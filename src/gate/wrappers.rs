//! Programs that run another command: the table of how each one takes its options, and where
//! the command it runs starts (after options, after a fixed number of operands, or as a string
//! a shell reads). Also the interpreters whose inline code can run anything.

use std::sync::OnceLock;

use super::packed::{Reader, Writer};

/// A program that runs the command given after its own arguments.
#[derive(Debug, PartialEq)]
pub struct Wrapper {
    pub name: &'static str,
    /// A subcommand that must come first (`uv run`, `op run`, `direnv exec`).
    pub sub: Option<&'static str>,
    /// Options (short letters or long names) that take a value.
    pub value_options: &'static [&'static str],
    /// Operands before the command (`timeout 10`, `flock FILE`, `chroot DIR`).
    pub operands: usize,
    /// Options whose value is a command line a shell reads (`su -c '…'`, `script -c '…'`).
    pub script_options: &'static [&'static str],
    /// Joins the rest into one command line for a shell (`watch git push`).
    pub joins: bool,
}

const fn w(name: &'static str, value_options: &'static [&'static str]) -> Wrapper {
    Wrapper {
        name,
        sub: None,
        value_options,
        operands: 0,
        script_options: &[],
        joins: false,
    }
}

const fn with_operands(
    name: &'static str,
    value_options: &'static [&'static str],
    operands: usize,
) -> Wrapper {
    Wrapper {
        name,
        sub: None,
        value_options,
        operands,
        script_options: &[],
        joins: false,
    }
}

const fn with_script(
    name: &'static str,
    value_options: &'static [&'static str],
    operands: usize,
    script_options: &'static [&'static str],
) -> Wrapper {
    Wrapper {
        name,
        sub: None,
        value_options,
        operands,
        script_options,
        joins: false,
    }
}

const fn sub(
    name: &'static str,
    sub: &'static str,
    value_options: &'static [&'static str],
    operands: usize,
) -> Wrapper {
    Wrapper {
        name,
        sub: Some(sub),
        value_options,
        operands,
        script_options: &[],
        joins: false,
    }
}

/// Every wrapper the shell reader removes. Only `const` evaluation reads it: the binary holds
/// its packed form (see `packed`), decoded on first use.
const TABLE: &[Wrapper] = &[
    w(
        "sudo",
        &[
            "u",
            "g",
            "C",
            "D",
            "h",
            "p",
            "r",
            "t",
            "U",
            "T",
            "R",
            "user",
            "group",
            "chdir",
            "host",
            "prompt",
            "role",
            "type",
            "other-user",
            "close-from",
            "command-timeout",
        ],
    ),
    w("doas", &["u", "C"]),
    w(
        "run0",
        &[
            "u",
            "user",
            "g",
            "group",
            "D",
            "chdir",
            "setenv",
            "unit",
            "property",
            "description",
            "slice",
        ],
    ),
    w(
        "env",
        &[
            "u",
            "C",
            "unset",
            "chdir",
            "default-signal",
            "ignore-signal",
            "block-signal",
        ],
    ),
    w("command", &[]),
    w("builtin", &[]),
    w("exec", &["a"]),
    w("nohup", &[]),
    w("setsid", &[]),
    w("nice", &["n", "adjustment"]),
    w("ionice", &["c", "n", "p", "P", "u", "class", "classdata"]),
    with_operands("chrt", &[], 1),
    with_operands("taskset", &[], 1),
    w("time", &["f", "o", "format", "output"]),
    with_operands("timeout", &["s", "k", "signal", "kill-after"], 1),
    w("stdbuf", &["i", "o", "e", "input", "output", "error"]),
    w(
        "xargs",
        &[
            "I",
            "L",
            "n",
            "P",
            "d",
            "E",
            "s",
            "a",
            // `-i`, `-e`, `-l`, `--replace`, `--eof` and `--max-lines` take their value only
            // attached (`-i{}`, `--replace=R`): the next word is the program.
            "max-args",
            "max-procs",
            "delimiter",
            "arg-file",
            "max-chars",
            "process-slot-var",
        ],
    ),
    w("chronic", &[]),
    w("caffeinate", &["t", "w"]),
    w("coproc", &[]),
    w("eatmydata", &[]),
    w("fakeroot", &["l", "s", "i", "b", "lib", "faked"]),
    w("unbuffer", &[]),
    w("torsocks", &["u", "p", "a", "P"]),
    w("proxychains", &["f", "q"]),
    w("proxychains4", &["f", "q"]),
    w("firejail", &[]),
    w(
        "systemd-run",
        &[
            "u",
            "unit",
            "p",
            "property",
            "description",
            "slice",
            "E",
            "setenv",
            "M",
            "machine",
            "H",
            "host",
            "working-directory",
            "uid",
            "gid",
            "nice",
            "on-calendar",
        ],
    ),
    w(
        "nsenter",
        &["t", "target", "S", "setuid", "G", "setgid", "wd", "wdns"],
    ),
    w(
        "unshare",
        &[
            "S",
            "setuid",
            "G",
            "setgid",
            "wd",
            "root",
            "propagation",
            "setgroups",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
        ],
    ),
    w(
        "strace",
        &[
            "o", "e", "p", "s", "u", "E", "a", "b", "I", "O", "P", "S", "X", "output", "trace",
            "signal", "status", "attach",
        ],
    ),
    w(
        "ltrace",
        &[
            "o", "e", "p", "s", "u", "n", "a", "A", "D", "E", "x", "F", "w", "output",
        ],
    ),
    w("valgrind", &[]),
    w("perf", &[]),
    w("catchsegv", &[]),
    w("dumb-init", &[]),
    w("tini", &[]),
    w("npx", &["p", "package", "c", "call", "registry"]),
    w("bunx", &["p", "package"]),
    w("pnpx", &[]),
    w("uvx", &["from", "with", "python", "p", "index-url"]),
    w("dotenv", &["e", "c", "v", "p"]),
    with_operands("chroot", &["userspec", "groups"], 1),
    with_script(
        "flock",
        &["w", "E", "timeout", "conflict-exit-code"],
        1,
        &["c", "command"],
    ),
    with_script(
        "script",
        &[
            "E",
            "I",
            "O",
            "B",
            "T",
            "echo",
            "log-in",
            "log-out",
            "log-io",
            "log-timing",
            "logging-format",
            "output-limit",
        ],
        0,
        &["c", "command"],
    ),
    with_script(
        "su",
        &[
            "g",
            "G",
            "s",
            "shell",
            "group",
            "supp-group",
            "w",
            "whitelist-environment",
        ],
        0,
        &["c", "command", "session-command"],
    ),
    with_script(
        "runuser",
        &[
            "u",
            "user",
            "g",
            "G",
            "s",
            "shell",
            "group",
            "supp-group",
            "w",
        ],
        0,
        &["c", "command", "session-command"],
    ),
    with_script("sg", &[], 1, &["c"]),
    with_script(
        "nix-shell",
        &[
            "p", "packages", "I", "arg", "argstr", "A", "attr", "E", "expr",
        ],
        0,
        &["run", "command"],
    ),
    Wrapper {
        name: "watch",
        sub: None,
        value_options: &["n", "interval", "d", "q", "equexit"],
        operands: 0,
        script_options: &[],
        joins: true,
    },
    // `python3 -m twine upload`: the module runs as its own program would.
    sub("python", "-m", &[], 0),
    sub("python3", "-m", &[], 0),
    sub(
        "uv",
        "run",
        &[
            "with",
            "python",
            "p",
            "project",
            "directory",
            "env-file",
            "extra",
            "group",
            "package",
            "with-requirements",
            "index-url",
            "from",
        ],
        0,
    ),
    sub("poetry", "run", &["C", "directory", "P", "project"], 0),
    sub("pipenv", "run", &[], 0),
    sub("pdm", "run", &["p", "project"], 0),
    sub("hatch", "run", &[], 0),
    sub("rye", "run", &[], 0),
    sub("bundle", "exec", &["gemfile"], 0),
    sub("pnpm", "exec", &["C", "dir", "filter", "F"], 0),
    sub("pnpm", "dlx", &["package"], 0),
    sub("yarn", "dlx", &["p", "package"], 0),
    sub("yarn", "exec", &[], 0),
    sub(
        "npm",
        "exec",
        &["package", "c", "call", "w", "workspace"],
        0,
    ),
    sub("bun", "x", &[], 0),
    sub("op", "run", &["env-file"], 0),
    sub(
        "doppler",
        "run",
        &["p", "project", "c", "config", "command"],
        0,
    ),
    sub("infisical", "run", &["env", "path", "projectId"], 0),
    sub("aws-vault", "exec", &["d", "duration", "region"], 1),
    sub("direnv", "exec", &[], 1),
    sub("mise", "exec", &["C", "cd", "jobs", "j"], 0),
    sub("mise", "x", &["C", "cd"], 0),
    sub("rtx", "exec", &[], 0),
    sub("asdf", "exec", &[], 0),
    sub("devbox", "run", &["c", "config", "e", "env", "env-file"], 0),
    sub("nix", "develop", &[], 0),
    sub("cargo", "exec", &[], 0),
    sub("dotnet", "exec", &[], 0),
];

/// The wrapper `program` (with `first`, its first argument) is, if any.
pub fn wrapper(program: &str, first: Option<&str>) -> Option<&'static Wrapper> {
    wrappers()
        .iter()
        .find(|w| w.name == program && w.sub.is_none_or(|s| first == Some(s)))
}

/// Whether `option` (without dashes; a long name or one short letter) takes a value.
pub fn takes_value(wrapper: &Wrapper, option: &str) -> bool {
    wrapper.value_options.contains(&option)
}

/// Interpreters with inline code, and the options that give it (packed like the wrappers).
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("python3", &["-c"]),
    ("python2", &["-c"]),
    ("pypy3", &["-c"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("Rscript", &["-e"]),
    ("osascript", &["-e"]),
    ("tclsh", &[]),
    ("gdb", &["-ex", "--ex", "-eval-command", "--eval-command"]),
    ("awk", &[]),
    ("gawk", &[]),
    ("mawk", &[]),
    ("nawk", &[]),
    ("busybox", &[]),
    ("make", &["--eval", "-f", "--file", "--makefile"]),
    ("gmake", &["--eval", "-f", "--file", "--makefile"]),
];

/// The interpreter entry of `program`.
pub fn interpreter(program: &str) -> Option<&'static [&'static str]> {
    interpreters()
        .iter()
        .find(|(name, _)| *name == program)
        .map(|(_, opts)| *opts)
}

/// Writes both tables (`N = 0` counts their bytes).
const fn pack<const N: usize>() -> Writer<N> {
    let mut w = Writer::new();
    w.count(TABLE.len());
    let mut i = 0;
    while i < TABLE.len() {
        let wrapper = &TABLE[i];
        w.str(wrapper.name);
        w.opt_str(wrapper.sub);
        w.strs(wrapper.value_options);
        w.count(wrapper.operands);
        w.strs(wrapper.script_options);
        w.flag(wrapper.joins);
        i += 1;
    }
    w.count(INTERPRETERS.len());
    let mut i = 0;
    while i < INTERPRETERS.len() {
        w.str(INTERPRETERS[i].0);
        w.strs(INTERPRETERS[i].1);
        i += 1;
    }
    w
}

const PACKED_LEN: usize = pack::<0>().len;
static PACKED: [u8; PACKED_LEN] = pack::<PACKED_LEN>().finish();

type Interpreter = (&'static str, &'static [&'static str]);

fn decoded() -> &'static (Vec<Wrapper>, Vec<Interpreter>) {
    static TABLES: OnceLock<(Vec<Wrapper>, Vec<Interpreter>)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut r = Reader::new(&PACKED);
        let wrappers = (0..r.count())
            .map(|_| Wrapper {
                name: r.str(),
                sub: r.opt_str(),
                value_options: r.strs(),
                operands: r.count(),
                script_options: r.strs(),
                joins: r.flag(),
            })
            .collect();
        let interpreters = (0..r.count()).map(|_| (r.str(), r.strs())).collect();
        debug_assert!(r.done());
        (wrappers, interpreters)
    })
}

fn wrappers() -> &'static [Wrapper] {
    &decoded().0
}

fn interpreters() -> &'static [Interpreter] {
    &decoded().1
}

/// Words of code that runs other programs.
pub const RUNS_PROGRAMS: [&str; 12] = [
    "system",
    "exec",
    "spawn",
    "popen",
    "subprocess",
    "child_process",
    "execSync",
    "shell",
    "Popen",
    "`",
    "run(",
    "qx",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_tables_read_back_as_written() {
        assert_eq!(wrappers(), TABLE);
        assert_eq!(interpreters(), INTERPRETERS);
    }
}
