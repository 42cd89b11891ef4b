//! Archivers that delete the files they archive (`tar --remove-files`, `zip -m`): what they
//! put away is gone from the work tree, as with `rm`, so the delete's facts judge it.

use super::shell::{SimpleCommand, Word};

/// Archivers that delete what they archive when given one of `removes` (`tar --remove-files`,
/// `zip -m`): the program, those options, the options that take a value, and whether the
/// first operand is the archive (zip's) rather than a file put in it.
struct ArchiveMover {
    program: &'static str,
    removes: &'static [&'static str],
    valued: &'static [&'static str],
    archive_first: bool,
}

const ARCHIVE_MOVERS: [ArchiveMover; 2] = [
    ArchiveMover {
        program: "tar",
        removes: &["--remove-files"],
        valued: &[
            "-f",
            "-C",
            "--file",
            "--directory",
            "-T",
            "--files-from",
            "-X",
        ],
        archive_first: false,
    },
    ArchiveMover {
        program: "zip",
        removes: &["-m", "--move"],
        valued: &[
            "-b", "-n", "-t", "-tt", "-x", "-i", "-P", "-Z", "-O", "--out",
        ],
        archive_first: true,
    },
];

/// The operands an [`ARCHIVE_MOVERS`] program deletes once archived, as written; `None` when
/// it is not one or is not asked to delete. A cluster (`-cf A`, `-qm`) holding a one-letter
/// option that takes a value takes the next word.
pub fn archived_away(cmd: &SimpleCommand) -> Option<Vec<String>> {
    let program = cmd.program()?;
    let mover = ARCHIVE_MOVERS.iter().find(|m| m.program == program)?;
    let words: Vec<&str> = cmd.argv[1..].iter().filter_map(Word::literal).collect();
    let short = |w: &str, o: &str| {
        o.len() == 2 && w.starts_with('-') && !w.starts_with("--") && w[1..].contains(&o[1..])
    };
    let removes = words
        .iter()
        .any(|w| mover.removes.iter().any(|o| *w == *o || short(w, o)));
    if !removes {
        return None;
    }
    let mut operands = Vec::new();
    let mut skip_next = false;
    for (i, w) in words.iter().enumerate() {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if w.starts_with('-') {
            skip_next = mover
                .valued
                .iter()
                .any(|o| *w == *o || (short(w, o) && !w.contains('=') && w.ends_with(&o[1..])));
            continue;
        }
        // `tar cf A …`: the old style's first word is a cluster of letters.
        if i == 0 && program == "tar" && w.chars().all(|c| c.is_ascii_alphabetic()) {
            skip_next = w.contains('f');
            continue;
        }
        operands.push((*w).to_owned());
    }
    if mover.archive_first && !operands.is_empty() {
        operands.remove(0);
    }
    Some(operands)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::shell;

    fn away(line: &str) -> Option<Vec<String>> {
        let script = shell::parse(line, std::path::Path::new("/w"));
        archived_away(&script.commands[0])
    }

    #[test]
    fn moving_into_an_archive_names_the_files_it_deletes() {
        for (line, files) in [
            (
                "tar -cf /tmp/a.tar --remove-files notes.txt",
                vec!["notes.txt"],
            ),
            (
                "tar --remove-files -czf a.tgz src b.txt",
                vec!["src", "b.txt"],
            ),
            ("tar cf a.tar --remove-files x", vec!["x"]),
            ("tar --remove-files --file=a.tar -C . x", vec!["x"]),
            ("zip -qm /tmp/a.zip notes.txt", vec!["notes.txt"]),
            ("zip --move -r a.zip dir", vec!["dir"]),
            ("zip -m -b /tmp a.zip f g", vec!["f", "g"]),
        ] {
            assert_eq!(
                away(line),
                Some(files.iter().map(|f| f.to_string()).collect()),
                "{line}"
            );
        }
    }

    #[test]
    fn archiving_that_keeps_the_files_deletes_nothing() {
        for line in [
            "tar -cf a.tar notes.txt",
            "zip -qr a.zip src",
            "tar -xf a.tar",
            "ls -m",
        ] {
            assert_eq!(away(line), None, "{line}");
        }
    }
}
