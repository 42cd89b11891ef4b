//! Codex `apply_patch` patches: the files they touch and, for `*** Update File` hunks, the
//! file's text after the patch, so a settings file is judged on what it would hold rather than
//! on the patch's lines (a `\u0048` escape or a changed matcher reads as harmless text).

/// What a patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Add,
    Update,
    Delete,
}

/// One file of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub action: Action,
    pub path: String,
    pub move_to: Option<String>,
    /// The hunks (`@@` sections) of an update; for an add, one chunk of `+` lines.
    pub chunks: Vec<Chunk>,
}

/// One hunk: the lines it expects (context and `-`) and the lines it leaves (context and `+`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// `*** End of File`: the hunk ends at the file's end.
    pub at_end: bool,
}

impl FilePatch {
    /// The text an `*** Add File` writes.
    pub fn added(&self) -> String {
        let lines: Vec<&str> = self
            .chunks
            .iter()
            .flat_map(|c| c.new.iter().map(String::as_str))
            .collect();
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }
}

const HEADERS: [(&str, Action); 3] = [
    ("*** Add File: ", Action::Add),
    ("*** Update File: ", Action::Update),
    ("*** Delete File: ", Action::Delete),
];

/// The files of a patch, in order.
pub fn parse(patch: &str) -> Vec<FilePatch> {
    let mut files: Vec<FilePatch> = Vec::new();
    for line in patch.lines() {
        if let Some((path, action)) = HEADERS
            .iter()
            .find_map(|(h, a)| line.strip_prefix(h).map(|p| (p, *a)))
        {
            files.push(FilePatch {
                action,
                path: path.trim().to_owned(),
                move_to: None,
                chunks: vec![Chunk::default()],
            });
            continue;
        }
        let Some(file) = files.last_mut() else {
            continue;
        };
        if let Some(to) = line.strip_prefix("*** Move to: ") {
            file.move_to = Some(to.trim().to_owned());
        } else if line.starts_with("@@") {
            file.chunks.push(Chunk::default());
        } else if line == "*** End of File" {
            if let Some(c) = file.chunks.last_mut() {
                c.at_end = true;
            }
        } else if line.starts_with("***") {
            // `*** End Patch` and unknown markers end nothing a hunk needs.
        } else if let Some(chunk) = file.chunks.last_mut() {
            let (mark, text) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
            match mark {
                "+" => chunk.new.push(text.to_owned()),
                "-" => chunk.old.push(text.to_owned()),
                " " => {
                    chunk.old.push(text.to_owned());
                    chunk.new.push(text.to_owned());
                }
                // An empty line inside a hunk is an empty context line.
                "" => {
                    chunk.old.push(String::new());
                    chunk.new.push(String::new());
                }
                _ => {}
            }
        }
    }
    for file in &mut files {
        file.chunks
            .retain(|c| !c.old.is_empty() || !c.new.is_empty());
    }
    files
}

/// `before` with the hunks applied, as Codex applies them (each hunk found after the previous
/// one: exactly, then ignoring trailing, then surrounding white space); `None` when a hunk's
/// lines are not in the file.
pub fn apply(before: &str, chunks: &[Chunk]) -> Option<String> {
    let mut lines: Vec<String> = before.lines().map(str::to_owned).collect();
    let mut from = 0;
    for chunk in chunks {
        if chunk.old.is_empty() {
            // Pure addition: at the end of the file.
            let at = lines.len();
            lines.splice(at..at, chunk.new.iter().cloned());
            from = lines.len();
            continue;
        }
        let at = find(&lines, &chunk.old, from, chunk.at_end)?;
        lines.splice(at..at + chunk.old.len(), chunk.new.iter().cloned());
        from = at + chunk.new.len();
    }
    let mut text = lines.join("\n");
    if !lines.is_empty() {
        text.push('\n');
    }
    Some(text)
}

fn find(lines: &[String], wanted: &[String], from: usize, at_end: bool) -> Option<usize> {
    let same: [fn(&str, &str) -> bool; 3] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
    ];
    if wanted.len() > lines.len() {
        return None;
    }
    let last = lines.len() - wanted.len();
    for eq in same {
        let matches = |i: usize| wanted.iter().zip(&lines[i..]).all(|(w, l)| eq(l, w));
        if at_end && last >= from && matches(last) {
            return Some(last);
        }
        if let Some(i) = (from.min(last + 1)..=last).find(|&i| matches(i)) {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_hunk_is_applied_to_the_file() {
        let before = "{\n  \"hooks\": {\n    \"matcher\": \"^Bash$\",\n    \"x\": 1\n  }\n}\n";
        let patch = "*** Begin Patch\n*** Update File: h.json\n@@\n   \"hooks\": {\n-    \"matcher\": \"^Bash$\",\n+    \"matcher\": \"^Nope$\",\n*** End Patch\n";
        let files = parse(patch);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].action, Action::Update);
        let after = apply(before, &files[0].chunks).unwrap();
        assert!(
            after.contains("^Nope$") && !after.contains("^Bash$"),
            "{after}"
        );
        assert!(after.contains("\"x\": 1"));
    }

    #[test]
    fn a_hunk_that_is_not_in_the_file_does_not_apply() {
        let files = parse("*** Update File: a\n@@\n-missing\n+x\n");
        assert_eq!(apply("present\n", &files[0].chunks), None);
    }

    #[test]
    fn added_files_and_moves_are_read() {
        let files = parse(
            "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** Update File: b\n*** Move to: c\n@@\n-x\n+y\n*** End Patch\n",
        );
        assert_eq!(files[0].added(), "hello\n");
        assert_eq!(files[1].move_to.as_deref(), Some("c"));
    }
}
