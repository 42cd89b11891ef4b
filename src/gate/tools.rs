//! The table of tools that publish or deploy: each tool's programs, the global options that
//! take a value before its verb, its verbs, the flags that change what a verb does, and the
//! class. The prefilter's words and the list of verbs that make a computed program suspect are
//! derived from this same table (plus git's), so they cannot drift apart.

use std::sync::OnceLock;

use super::classify::Class;
use super::packed::{Reader, Words, Writer, bytes};

mod deploy;
mod ecosystems;
mod http;
mod publish;
mod remote;
mod words;

pub use words::{is_gated_verb, is_prefilter_word};

/// A verb of a tool: the words that name it, and what it does.
#[derive(Debug, PartialEq)]
pub struct Verb {
    /// The verb's words after the program (`["release", "create"]`); a word ending in `*` matches
    /// any word with that prefix (`publish*` for Gradle's `publishToMavenCentral`).
    pub words: &'static [&'static str],
    pub class: Class,
    pub what: &'static str,
    /// Flags that make it harmless (besides `--help`/`-h`/`--dry-run`, which always do).
    pub harmless: &'static [&'static str],
    /// Flags one of which must be present for the verb to do it (`netlify deploy --prod`).
    /// A flag written `*text` is any word that contains `text` (`-o type=image,push=true`).
    pub requires: &'static [&'static str],
}

/// A tool: its program names and verbs.
#[derive(Debug, PartialEq)]
pub struct Tool {
    pub programs: &'static [&'static str],
    /// Global options that take the next word as their value.
    pub value_options: &'static [&'static str],
    /// Verbs may come anywhere among the operands (build tools with goals: `mvn clean deploy`).
    pub goals: bool,
    pub verbs: &'static [Verb],
}

/// Flags that make any verb harmless: it only prints or plans.
const HARMLESS: [&str; 4] = ["--help", "-h", "--dry-run", "--dryrun"];

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

/// The table, in three files by what the tools do. Only `const` evaluation reads it: the binary
/// holds its packed form (see `packed`), decoded by [`tools`] on first use.
const TABLES: [&[Tool]; 3] = [publish::TOOLS, ecosystems::TOOLS, deploy::TOOLS];

/// The number of tools in the table.
const TOOL_COUNT: usize = {
    let mut n = 0;
    let mut t = 0;
    while t < TABLES.len() {
        n += TABLES[t].len();
        t += 1;
    }
    n
};

/// Writes one tool.
const fn pack_tool<const N: usize>(w: &mut Writer<N>, tool: &Tool) {
    w.strs(tool.programs);
    w.strs(tool.value_options);
    w.flag(tool.goals);
    w.count(tool.verbs.len());
    let mut j = 0;
    while j < tool.verbs.len() {
        let verb = &tool.verbs[j];
        w.strs(verb.words);
        w.byte(verb.class as u8);
        w.str(verb.what);
        w.strs(verb.harmless);
        w.strs(verb.requires);
        j += 1;
    }
}

/// Writes the table, one tool after another (`N = 0` counts its bytes), and where each tool
/// starts.
const fn pack_tools<const N: usize>() -> (Writer<N>, [usize; TOOL_COUNT]) {
    let mut w = Writer::new();
    let mut starts = [0; TOOL_COUNT];
    let mut k = 0;
    let mut t = 0;
    while t < TABLES.len() {
        let mut i = 0;
        while i < TABLES[t].len() {
            starts[k] = w.len;
            pack_tool(&mut w, &TABLES[t][i]);
            k += 1;
            i += 1;
        }
        t += 1;
    }
    (w, starts)
}

const PACKED_LEN: usize = pack_tools::<0>().0.len;
static PACKED: [u8; PACKED_LEN] = pack_tools::<PACKED_LEN>().0.finish();
/// Where each tool starts in `PACKED`.
static STARTS: [usize; TOOL_COUNT] = pack_tools::<0>().1;

/// How many programs the tools have, all together.
const PROGRAM_COUNT: usize = {
    let mut n = 0;
    let mut t = 0;
    while t < TABLES.len() {
        let mut i = 0;
        while i < TABLES[t].len() {
            n += TABLES[t][i].programs.len();
            i += 1;
        }
        t += 1;
    }
    n
};

/// Every program of the table (`./` removed), and the tool each belongs to: a program is
/// looked up here, and only its tool is decoded.
const PROGRAMS: ([&str; PROGRAM_COUNT], [u8; PROGRAM_COUNT]) = {
    let mut names = [""; PROGRAM_COUNT];
    let mut owner = [0u8; PROGRAM_COUNT];
    let (mut n, mut k, mut t) = (0, 0, 0);
    while t < TABLES.len() {
        let mut i = 0;
        while i < TABLES[t].len() {
            let programs = TABLES[t][i].programs;
            let mut j = 0;
            while j < programs.len() {
                let name = programs[j].as_bytes();
                names[n] = match name {
                    [b'.', b'/', rest @ ..] => match std::str::from_utf8(rest) {
                        Ok(s) => s,
                        Err(_) => panic!("a program name is UTF-8"),
                    },
                    _ => programs[j],
                };
                owner[n] = k as u8;
                n += 1;
                j += 1;
            }
            k += 1;
            i += 1;
        }
        t += 1;
    }
    assert!(k <= u8::MAX as usize, "the table holds at most 255 tools");
    (names, owner)
};

static PROGRAM_NAMES: Words<{ bytes(&PROGRAMS.0) }, PROGRAM_COUNT> = Words::pack(&PROGRAMS.0);
static PROGRAM_TOOL: [u8; PROGRAM_COUNT] = PROGRAMS.1;

/// The tool at `index`, decoded from the packed table on first use.
fn decoded(index: usize) -> &'static Tool {
    static TOOLS: [OnceLock<Tool>; TOOL_COUNT] = [const { OnceLock::new() }; TOOL_COUNT];
    TOOLS[index].get_or_init(|| {
        let mut r = Reader::new(&PACKED[STARTS[index]..]);
        let programs = r.strs();
        let value_options = r.strs();
        let goals = r.flag();
        let verbs: Vec<Verb> = (0..r.count())
            .map(|_| Verb {
                words: r.strs(),
                class: class_of(r.byte()),
                what: r.str(),
                harmless: r.strs(),
                requires: r.strs(),
            })
            .collect();
        Tool {
            programs,
            value_options,
            goals,
            verbs: Vec::leak(verbs),
        }
    })
}

/// Every tool the gate knows besides git.
pub fn tools() -> impl Iterator<Item = &'static Tool> {
    (0..TOOL_COUNT).map(decoded)
}

fn class_of(byte: u8) -> Class {
    Class::ALL
        .into_iter()
        .find(|c| *c as u8 == byte)
        .expect("the packed table holds classes written from `Class`")
}

/// Whether `program` is a tool of the table (or git).
pub fn is_gated_program(program: &str) -> bool {
    program == "git" || PROGRAM_NAMES.position(program).is_some()
}

/// The tool `program` belongs to.
pub fn tool(program: &str) -> Option<&'static Tool> {
    let at = PROGRAM_NAMES.position(program)?;
    Some(decoded(PROGRAM_TOOL[at] as usize))
}

/// What `program` with `args` (`None` for a computed word) does, by the table or, for the
/// clients of forges' HTTP APIs, by its method and data (see `http`), and for copies to and
/// commands on other machines, by their operands (see `remote`).
pub fn command(program: &str, args: &[Option<&str>]) -> Match {
    if let Some(write) = http::api_write(program, args) {
        return Match::Gated {
            class: write.class,
            what: write.what,
        };
    }
    if let Some(remote) = remote::act(program, args) {
        return Match::Gated {
            class: remote.class,
            what: remote.what,
        };
    }
    match tool(program) {
        Some(tool) => find_verb(tool, args),
        None => Match::None,
    }
}

/// The match of a command against a tool's verbs.
pub enum Match {
    Gated {
        class: Class,
        what: &'static str,
    },
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
                if n.len() > 1
                    && let Some(part) = n.strip_prefix('*')
                {
                    on |= w.contains(part);
                } else if *w == *n {
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
                return gated(verb);
            }
            continue;
        }
        match verb_at(tool, verb, words) {
            VerbAt::Yes
                if (verb.requires.is_empty() || flag_present(verb.requires))
                    && !flag_present(verb.harmless) =>
            {
                return gated(verb);
            }
            VerbAt::Computed(src) => return Match::ComputedVerb(src),
            _ => {}
        }
    }
    Match::None
}

fn gated(verb: &'static Verb) -> Match {
    Match::Gated {
        class: verb.class,
        what: verb.what,
    }
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
        // sbt's cross-build prefix (`+publishSigned`) is part of the verb, not an option.
        if pattern.starts_with('+') && word_matches(pattern, word) {
            want.next();
            after_option = false;
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
    use super::words::{DYNAMIC_VERBS, PREFILTER_SORTED, prefilter_words};
    use super::*;
    use Class::{Deploy, Publish};

    fn class(program: &str, args: &[&str]) -> Option<Class> {
        let words: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        match command(program, &words) {
            Match::Gated { class, .. } => Some(class),
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
        for t in tools() {
            for p in t.programs {
                assert!(words.contains(&p.trim_start_matches("./")), "{p}");
            }
        }
        assert!(is_gated_verb("publish") && is_gated_verb("push") && !is_gated_verb("build"));
        for verb in DYNAMIC_VERBS {
            let in_table = tools().any(|t| t.verbs.iter().any(|v| v.words.first() == Some(&verb)));
            assert!(
                in_table || super::super::git_options::GATED_VERBS.contains(&verb),
                "{verb} is no verb of the table"
            );
        }
    }

    #[test]
    fn the_packed_table_reads_back_as_written() {
        let written: Vec<&Tool> = TABLES.iter().flat_map(|t| t.iter()).collect();
        let read: Vec<&Tool> = tools().collect();
        assert_eq!(read, written);
    }

    #[test]
    fn each_program_belongs_to_one_tool() {
        for t in tools() {
            for p in t.programs {
                let found = tool(p.trim_start_matches("./")).expect("every program is found");
                assert!(std::ptr::eq(found, t), "{p} finds another tool");
            }
        }
        let mut programs: Vec<&str> = tools().flat_map(|t| t.programs.to_vec()).collect();
        let all = programs.len();
        programs.sort_unstable();
        programs.dedup();
        assert_eq!(programs.len(), all, "a program is listed under two tools");
    }
}
