//! Git state kept as plain files below `.git` (a branch's ref file, `HEAD`, `packed-refs`,
//! the stash ref and its log): a file tool that deletes or writes them moves or loses
//! branches as `git update-ref` would, so they are judged as git's own verbs are.

use super::classify::{Class, Destructive, Gated, Target};
use super::shell::SimpleCommand;

/// Git state kept as plain files that a file tool can delete: a branch's ref file, the stash
/// ref or its log. `(what, operation)` for the repository's facts to weigh.
pub fn git_state_loss(cmd: &SimpleCommand) -> Option<(String, super::classify::Destructive)> {
    if !matches!(cmd.program()?, "rm" | "unlink" | "shred" | "mv") {
        return None;
    }
    let mut paths =
        super::delete::operand_paths(cmd, &["-t", "-S", "--target-directory", "--suffix"]);
    if cmd.program() == Some("mv") {
        paths.pop(); // the destination
    }
    for path in paths {
        let text = path.to_string_lossy();
        let Some((_, inside)) = text.split_once("/.git/") else {
            continue;
        };
        if matches!(inside, "refs/stash" | "logs/refs/stash") {
            return Some((
                "deletes the stash ref".into(),
                Destructive::StashClear { after_stash: false },
            ));
        }
        if let Some(branch) = inside.strip_prefix("refs/heads/") {
            return Some((
                "deletes a branch's ref file".into(),
                Destructive::BranchDelete {
                    branches: vec![branch.to_owned()],
                },
            ));
        }
    }
    None
}

/// What writing over git's ref files loses: `rev-parse X > .git/refs/heads/main`,
/// `cp f .git/packed-refs`, `tee .git/HEAD`. The value written is not read: a branch written
/// over is judged as deleted (denied when that loses unpushed commits), and any such write
/// asks a person, as `git update-ref` with a computed value does.
pub fn ref_writes(cmd: &SimpleCommand) -> Vec<Gated> {
    let mut out = Vec::new();
    for path in super::overwrite::overwritten(cmd, "") {
        let text = crate::support::paths::normalize(&path)
            .to_string_lossy()
            .into_owned();
        let Some((_, inside)) = text.split_once("/.git/") else {
            continue;
        };
        let branch = inside.strip_prefix("refs/heads/");
        if branch.is_none()
            && !matches!(inside, "HEAD" | "packed-refs")
            && !inside.starts_with("refs/")
        {
            continue;
        }
        // The command's own text leaves out its redirections: name them, as they are the
        // effect.
        let mut command = cmd.source.clone();
        for written in cmd.writes.iter().filter_map(super::shell::Word::literal) {
            command.push_str(&format!(" > {written}"));
        }
        let target = Target {
            dir: cmd.cwd.clone(),
            git_dir: None,
            work_tree: None,
        };
        if let Some(branch) = branch {
            out.push(Gated {
                class: Class::Destructive,
                command: command.clone(),
                target: target.clone(),
                push: None,
                destructive: Some(Destructive::BranchDelete {
                    branches: vec![branch.to_owned()],
                }),
                what: "writes over a branch's ref file".into(),
            });
        }
        out.push(Gated {
            class: Class::Unparsed,
            command,
            target,
            push: None,
            destructive: None,
            what: format!(
                "writes git's `.git/{inside}` directly, which moves refs as `git update-ref` would"
            ),
        });
        break;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::shell;

    fn judged(line: &str) -> Vec<(Class, Option<Destructive>)> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git/refs/heads")).unwrap();
        shell::parse(line, dir.path())
            .commands
            .iter()
            .flat_map(ref_writes)
            .map(|g| (g.class, g.destructive))
            .collect()
    }

    #[test]
    fn writing_a_branch_ref_file_is_judged_as_losing_the_branch_and_asks() {
        for line in [
            "git rev-parse origin/main > .git/refs/heads/main",
            "echo 0000 | tee .git/refs/heads/main",
            "cp /tmp/old .git/refs/heads/main",
            "dd of=.git/refs/heads/main",
        ] {
            assert_eq!(
                judged(line),
                vec![
                    (
                        Class::Destructive,
                        Some(Destructive::BranchDelete {
                            branches: vec!["main".into()]
                        })
                    ),
                    (Class::Unparsed, None)
                ],
                "{line}"
            );
        }
        for line in [
            "cp x .git/packed-refs",
            "echo 'ref: refs/heads/x' > .git/HEAD",
        ] {
            assert_eq!(judged(line), vec![(Class::Unparsed, None)], "{line}");
        }
    }

    #[test]
    fn other_files_and_reads_of_refs_are_not_ref_writes() {
        for line in [
            "cat .git/refs/heads/main",
            "echo x > notes.txt",
            "cp .git/refs/heads/main /tmp/saved",
            "echo x >> .git/info/exclude",
        ] {
            assert_eq!(judged(line), vec![], "{line}");
        }
    }
}
