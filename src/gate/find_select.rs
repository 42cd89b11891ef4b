//! What a `find` expression selects, for a delete to be judged by the files it removes:
//! `find . -name '*.pyc' -delete`, `find . -type f -name '*.pyc' -print0 | xargs -0 rm -f`,
//! `rm $(find . -name '*.orig')`. Only simple conjunctions are read (`-name`, `-iname`,
//! `-path`, `-ipath`, `-type f|d`, `-maxdepth`, `-mindepth`, each test possibly negated with
//! `-not`/`!`); any other test or operator leaves the expression unread, and the delete is then
//! judged as removing anything below its start points.

use serde::Serialize;

use super::shell::Word;

/// One test of the expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Test {
    Name(String),
    Iname(String),
    Path(String),
    Ipath(String),
    /// `-type f` (`'f'`) or `-type d` (`'d'`).
    Type(char),
}

/// A test, or its negation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Condition {
    pub not: bool,
    pub test: Test,
}

/// A start point of the walk: where it is (relative to the repository root, once the gate
/// knows it) and as written (`find` prints the paths below it from there, which `-path`
/// tests).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Start {
    pub path: String,
    pub written: String,
}

/// The files a `find` expression selects: those below a start point, within the depths, for
/// which every condition holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selection {
    pub starts: Vec<Start>,
    pub conditions: Vec<Condition>,
    pub min_depth: usize,
    pub max_depth: Option<usize>,
}

/// What the expression does with what it selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Prints it (`-print`, `-print0`, or no action): for `xargs rm` to remove.
    Prints,
    /// Removes it (`-delete`, `-exec rm … {} +`).
    Removes,
}

/// Programs that remove (or empty) the files `find -exec` hands them.
const REMOVERS: [&str; 4] = ["rm", "unlink", "shred", "truncate"];

/// Options that change nothing of what the expression selects, or only narrow it: `-prune`
/// stops find descending into a directory it matched, so read as true it selects a superset.
const NEUTRAL: [&str; 8] = [
    "-prune",
    "-a",
    "-and",
    "-depth",
    "-xdev",
    "-mount",
    "-noleaf",
    "-ignore_readdir_race",
];

/// Reads `find WORDS…` (the words after `find`); `None` when a part of it is not read here.
/// The start points come out with their path as written (the caller places them).
pub fn parse(words: &[&str]) -> Option<(Selection, Action)> {
    let mut i = 0;
    while i < words.len() && matches!(words[i], "-H" | "-L" | "-P") {
        i += 1;
    }
    let mut starts = Vec::new();
    while i < words.len() && !(words[i].starts_with('-') || words[i] == "(" || words[i] == "!") {
        starts.push(Start {
            path: words[i].to_owned(),
            written: words[i].to_owned(),
        });
        i += 1;
    }
    if starts.is_empty() {
        starts.push(Start {
            path: ".".into(),
            written: ".".into(),
        });
    }
    let mut selection = Selection {
        starts,
        conditions: Vec::new(),
        min_depth: 0,
        max_depth: None,
    };
    let mut action = Action::Prints;
    let mut not = false;
    while i < words.len() {
        let word = words[i];
        let value = words.get(i + 1).copied();
        i += 1;
        let test = match word {
            "-not" | "!" => {
                not = !not;
                continue;
            }
            "-name" => Test::Name(value?.to_owned()),
            "-iname" => Test::Iname(value?.to_owned()),
            "-path" | "-wholename" => Test::Path(value?.to_owned()),
            "-ipath" | "-iwholename" => Test::Ipath(value?.to_owned()),
            "-type" if matches!(value, Some("f" | "d")) => Test::Type(value?.chars().next()?),
            _ if not => return None, // a negated action or operator
            "-maxdepth" | "-mindepth" => {
                let n: usize = value?.parse().ok()?;
                if word == "-maxdepth" {
                    selection.max_depth = Some(n);
                } else {
                    selection.min_depth = n;
                }
                i += 1;
                continue;
            }
            "-print" | "-print0" => continue,
            "-delete" => {
                action = Action::Removes;
                continue;
            }
            "-exec" | "-execdir" if value.is_some_and(|p| REMOVERS.contains(&base(p))) => {
                let end = words[i..].iter().position(|w| matches!(*w, ";" | "+"))?;
                i += end + 1;
                action = Action::Removes;
                continue;
            }
            w if NEUTRAL.contains(&w) => continue,
            _ => return None,
        };
        i += 1;
        selection.conditions.push(Condition { not, test });
        not = false;
    }
    (!not).then_some((selection, action))
}

/// The selection of the `find` whose output a computed word holds (`$(xargs < find …)`, as
/// the parser writes what xargs reads, or `$(find …)`), when it only prints what it selects.
pub fn printed_by_find(src: &str) -> Option<Selection> {
    let inner = src
        .strip_prefix("$(xargs < ")
        .or_else(|| src.strip_prefix("$("))?
        .strip_suffix(')')?;
    let words = shell_words::split(inner).ok()?;
    let (program, rest) = words.split_first()?;
    if program.rsplit('/').next() != Some("find") || rest.iter().any(|w| w.contains(['$', '`'])) {
        return None;
    }
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    match parse(&rest)? {
        (select, Action::Prints) => Some(select),
        _ => None,
    }
}

/// What `find WORDS…` removes itself (`-delete`, `-exec rm`), when its expression is read.
pub fn removed_by(words: &[Word]) -> Option<Selection> {
    let literal: Option<Vec<&str>> = words
        .iter()
        .map(|w| match w {
            Word::Dynamic(src) if src == "{}" => Some("{}"),
            w => w.literal(),
        })
        .collect();
    match parse(&literal?)? {
        (select, Action::Removes) => Some(select),
        _ => None,
    }
}

fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

impl Selection {
    /// Whether the selection removes `file` (relative to the repository root; a trailing `/`
    /// marks a directory whose content is not listed): `file` itself or a directory above it
    /// below a start point is selected, or, for such a directory, what it holds may be.
    pub fn selects(&self, file: &str) -> bool {
        let listed_dir = file.ends_with('/');
        let file = file.trim_end_matches('/');
        self.starts.iter().any(|start| {
            let root = start.path.trim_start_matches("./").trim_end_matches('/');
            let rest = match root {
                "" | "." => Some(file),
                _ if file == root => Some(""),
                _ => file.strip_prefix(root).and_then(|r| r.strip_prefix('/')),
            };
            let Some(rest) = rest else {
                return false;
            };
            let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
            let written = start.written.trim_end_matches('/');
            let mut printed = if written.is_empty() { "/" } else { written }.to_owned();
            let entry = |depth: usize, printed: &str, dir: bool| {
                depth >= self.min_depth
                    && self.max_depth.is_none_or(|m| depth <= m)
                    && self
                        .conditions
                        .iter()
                        .all(|c| c.holds(printed, dir) != c.not)
            };
            if entry(0, &printed, true) && !parts.is_empty() {
                return true;
            }
            for (k, part) in parts.iter().enumerate() {
                printed = format!("{}/{part}", printed.trim_end_matches('/'));
                let last = k + 1 == parts.len();
                if entry(k + 1, &printed, !last || listed_dir) {
                    return true;
                }
            }
            // Below a directory whose content is unknown: anything deeper may be selected.
            (listed_dir && self.max_depth.is_none_or(|m| m > parts.len()))
                || (parts.is_empty() && entry(0, &printed, listed_dir))
        })
    }
}

/// Untracked directories listed whole (`notes/`) that the selection may reach into, replaced
/// by the files they hold (relative to `root`), so that only the selected ones count; one
/// holding more than a bounded number of entries stays listed whole.
pub fn list_untracked(
    root: &std::path::Path,
    untracked: Vec<String>,
    select: &Selection,
) -> Vec<String> {
    const MAX_ENTRIES: usize = 2_000;
    let mut out = Vec::new();
    for entry in untracked {
        if !(entry.ends_with('/') && select.selects(&entry)) {
            out.push(entry);
            continue;
        }
        let mut files = Vec::new();
        let mut dirs = vec![entry.trim_end_matches('/').to_owned()];
        let mut seen = 0;
        while let Some(dir) = dirs.pop() {
            for item in std::fs::read_dir(root.join(&dir))
                .into_iter()
                .flatten()
                .flatten()
            {
                seen += 1;
                let name = format!("{dir}/{}", item.file_name().to_string_lossy());
                if item.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(name);
                } else {
                    files.push(name);
                }
            }
            if seen > MAX_ENTRIES {
                break;
            }
        }
        if seen > MAX_ENTRIES {
            out.push(entry);
        } else {
            out.extend(files);
        }
    }
    out
}

impl Condition {
    /// Whether the test (not negated) holds for the entry `printed` (the path as `find` prints
    /// it), a directory when `dir`.
    fn holds(&self, printed: &str, dir: bool) -> bool {
        let name = printed.rsplit('/').next().unwrap_or(printed);
        let name = if name.is_empty() { printed } else { name };
        match &self.test {
            Test::Name(p) => super::glob::find_matches(p, name, false, false),
            Test::Iname(p) => super::glob::find_matches(p, name, false, true),
            Test::Path(p) => super::glob::find_matches(p, printed, true, false),
            Test::Ipath(p) => super::glob::find_matches(p, printed, true, true),
            Test::Type(t) => (*t == 'd') == dir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Option<(Selection, Action)> {
        let words: Vec<&str> = line.split_whitespace().collect();
        parse(&words)
    }

    fn selection(line: &str) -> Selection {
        read(line).unwrap_or_else(|| panic!("{line} is read")).0
    }

    #[test]
    fn simple_conjunctions_are_read_and_the_rest_is_not() {
        assert_eq!(read(". -name *.pyc").unwrap().1, Action::Prints);
        assert_eq!(read(". -name *.pyc -delete").unwrap().1, Action::Removes);
        assert_eq!(
            read("src -type f -name x -exec rm -f {} +").unwrap().1,
            Action::Removes
        );
        assert_eq!(
            read(". -name __pycache__ -type d -prune -exec rm -rf {} +")
                .unwrap()
                .1,
            Action::Removes
        );
        let s = selection("-L a b -maxdepth 2 ! -name *.keep -a -not -type d -print0");
        assert_eq!(s.starts.len(), 2);
        assert_eq!(s.max_depth, Some(2));
        assert_eq!(
            s.conditions,
            [
                Condition {
                    not: true,
                    test: Test::Name("*.keep".into())
                },
                Condition {
                    not: true,
                    test: Test::Type('d')
                },
            ]
        );
        for unread in [
            ". -name a -o -name b",
            ". ( -name a )",
            ". -newer x -delete",
            ". -type l",
            ". -name",
            ". -not",
            ". -not -delete",
            ". -name a -exec grep x {} +",
            ". -regex .*",
            ". -path ./keep -prune -o -name *.pyc -delete",
        ] {
            assert!(read(unread).is_none(), "{unread}");
        }
    }

    /// The file loss `line` makes (its start points in `/w`), from the command that makes one.
    fn loss(line: &str) -> crate::gate::delete::FileLoss {
        let script = crate::gate::shell::parse(line, std::path::Path::new("/w"));
        script
            .commands
            .iter()
            .find_map(crate::gate::delete::file_loss)
            .unwrap_or_else(|| panic!("{line} removes files"))
    }

    #[test]
    fn a_find_that_deletes_or_feeds_rm_is_read_as_its_selection() {
        for line in [
            "find . -name '*.pyc' | xargs rm",
            "find . -name '*.pyc' -print0 | xargs -0 rm -f",
            "find . -type f -name '*.pyc' -print | xargs rm",
            "rm $(find . -name '*.pyc')",
            "find . -name '*.pyc' -delete",
            "find . -name '*.pyc' -exec rm -f {} +",
            "find . -name '*.pyc' -exec rm {} \\;",
        ] {
            let select = loss(line).select.unwrap_or_else(|| panic!("{line}"));
            assert!(select.selects("/w/src/a.pyc"), "{line}");
            assert!(!select.selects("/w/src/a.py"), "{line}");
        }
        for unread in [
            "find . -name a -o -name b | xargs rm",
            "find . -newer x | xargs rm",
            "find . -name '*.pyc' -exec grep -l x {} + | xargs rm",
            "cat list | xargs rm",
            "find . -not -name '*.keep' -o -name x -delete",
        ] {
            let loss = loss(unread);
            assert!(loss.select.is_none(), "{unread}");
            assert_eq!(loss.paths, [std::path::PathBuf::from("/w")], "{unread}");
        }
    }

    #[test]
    fn a_selection_removes_what_it_names_and_what_lies_below_a_named_directory() {
        let pyc = selection(". -name *.pyc");
        assert!(pyc.selects("src/a.pyc") && pyc.selects("a.pyc"));
        assert!(!pyc.selects("src/a.py") && !pyc.selects("notes.txt"));
        let cache = selection(". -type d -name __pycache__");
        assert!(cache.selects("src/__pycache__/a.pyc"));
        assert!(!cache.selects("src/app.py"));
        let files = selection(". -type f -name src");
        assert!(!files.selects("src/app.py"), "`src` is a directory");
        let shallow = selection(". -maxdepth 1 -name *.txt");
        assert!(shallow.selects("a.txt") && !shallow.selects("docs/b.txt"));
        let under = selection("src -path src/gen/* -iname *.RS");
        assert!(under.selects("src/gen/x.rs") && !under.selects("src/x.rs"));
        assert!(!under.selects("gen/x.rs"), "outside the start point");
        let dotted = selection("./src -path ./src/*.orig");
        assert!(dotted.selects("src/a/b.orig") && !dotted.selects("src/a/b.rs"));
        let keep = selection(". -type f -not -name *.keep");
        assert!(keep.selects("a.txt") && !keep.selects("a.keep"));
        // An untracked directory listed whole may hold a selected file.
        assert!(pyc.selects("notes/"));
        assert!(!shallow.selects("notes/"));
    }
}
