//! The long options of the git subcommands the gate reads, and which of them take a value,
//! packed at compile time (see `packed`) and decoded on first use.

use std::sync::OnceLock;

use super::long_table::{LONG_OPTIONS, LONG_VALUE_OPTIONS};
use crate::gate::packed::{Reader, Writer};

/// Writes both keyed tables (`N = 0` counts their bytes).
const fn pack_options<const N: usize>() -> Writer<N> {
    let mut w = Writer::new();
    let tables = [LONG_OPTIONS, LONG_VALUE_OPTIONS];
    let mut t = 0;
    while t < tables.len() {
        w.count(tables[t].len());
        let mut i = 0;
        while i < tables[t].len() {
            w.strs(tables[t][i].0);
            w.strs(tables[t][i].1);
            i += 1;
        }
        t += 1;
    }
    w
}

const PACKED_LEN: usize = pack_options::<0>().len;
static PACKED: [u8; PACKED_LEN] = pack_options::<PACKED_LEN>().finish();

type Decoded = Vec<(&'static [&'static str], &'static [&'static str])>;

/// The keyed tables, decoded on first use: the long options, the long options with a value.
fn decoded() -> &'static [Decoded; 2] {
    static TABLES: OnceLock<[Decoded; 2]> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut r = Reader::new(&PACKED);
        let mut table = || (0..r.count()).map(|_| (r.strs(), r.strs())).collect();
        let tables = [table(), table()];
        debug_assert!(r.done());
        tables
    })
}

fn lookup(table: &'static Decoded, verb: &str) -> &'static [&'static str] {
    table
        .iter()
        .find(|(verbs, _)| verbs.contains(&verb))
        .map_or(&[], |(_, options)| options)
}

/// The long options of `verb` (see `long_table::LONG_OPTIONS`).
pub fn long_options(verb: &str) -> &'static [&'static str] {
    lookup(&decoded()[0], verb)
}

/// The long options of `verb` that take a value (see `long_table::LONG_VALUE_OPTIONS`).
pub fn long_value_options(verb: &str) -> &'static [&'static str] {
    lookup(&decoded()[1], verb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_tables_read_back_as_written() {
        assert_eq!(decoded()[0], LONG_OPTIONS);
        assert_eq!(decoded()[1], LONG_VALUE_OPTIONS);
        assert_eq!(long_options("send-pack"), long_options("push"));
        assert!(long_options("log").is_empty() && long_value_options("log").is_empty());
    }
}
