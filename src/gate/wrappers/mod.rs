//! Programs that run another command: the table of how each one takes its options, and where
//! the command it runs starts (after options, after a fixed number of operands, or as a string
//! a shell reads). Also the interpreters whose inline code can run anything.

mod table;

use std::sync::OnceLock;

use super::packed::{Reader, Writer};
use table::{INTERPRETERS, TABLE};

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
pub const RUNS_PROGRAMS: [&str; 15] = [
    "system",
    // Modules loaded by a computed name (`import_module('sub'+'process')`), and code
    // evaluated from a string, run whatever that string says.
    "import_module",
    "__import__",
    "eval(",
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
