//! The verb table walked row by row: each row is the one its subcommand (and form) finds, no
//! row hides another, each names every class it lists on a command that reaches it, and the
//! classes of git's actions all appear in it. And aliases a line defines for its later
//! commands, however the defining `git config` is reached.

use std::collections::BTreeSet;
use std::path::Path;

use super::verbs::{GitVerb, Rule, VERBS, row_for};
use crate::gate::classify::Class;
use crate::gate::repos::Repos;

/// Commands that reach each row, by (subcommand, form): together they name every class the
/// row lists. `fetch` writes a branch of the bare repository `{bare}`.
const EXAMPLES: &[(&str, Option<&str>, &[&str])] = &[
    ("commit", None, &["git commit -n -m x"]),
    ("merge", None, &["git merge --no-verify topic"]),
    ("cherry-pick", None, &["git cherry-pick --no-verify topic"]),
    ("revert", None, &["git revert --no-verify HEAD"]),
    ("am", None, &["git am --no-verify fix.patch"]),
    ("pull", None, &["git pull --no-verify"]),
    ("commit-tree", None, &["git commit-tree 4b825dc -m x"]),
    (
        "push",
        None,
        &["git push --no-verify . HEAD:refs/remotes/origin/main"],
    ),
    (
        "send-pack",
        None,
        &["git send-pack --no-verify origin main"],
    ),
    (
        "subtree",
        Some("push"),
        &["git subtree push --prefix=lib origin b"],
    ),
    (
        "fetch",
        None,
        &[
            "git -C {bare} fetch ../work main:main",
            "git fetch . +main:topic",
        ],
    ),
    ("config", None, &["git config core.hooksPath .nohooks"]),
    (
        "update-ref",
        None,
        &[
            "git update-ref refs/remotes/origin/main HEAD",
            "git update-ref --stdin",
            "git update-ref -d refs/heads/old",
        ],
    ),
    ("reset", None, &["git reset --hard"]),
    (
        "rebase",
        None,
        &[
            "git rebase --onto main HEAD~2",
            "GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/drop/' git rebase -i HEAD~3",
        ],
    ),
    ("checkout", None, &["git checkout -- a.rs"]),
    ("switch", None, &["git switch -f main"]),
    ("restore", None, &["git restore a.rs"]),
    ("rm", None, &["git rm -f a.rs"]),
    ("clean", None, &["git clean -fd"]),
    ("stash", Some("drop"), &["git stash drop"]),
    ("stash", Some("clear"), &["git stash clear"]),
    ("branch", None, &["git branch -D old"]),
    ("read-tree", None, &["git read-tree -u --reset HEAD"]),
    ("checkout-index", None, &["git checkout-index -f -a"]),
    // What runs in each submodule is read as a script: its own classes.
    (
        "submodule",
        Some("foreach"),
        &["git submodule foreach 'git commit -m x'"],
    ),
];

/// Classes that belong to other tools (or to `rm -rf`), never to a git subcommand.
const NOT_GIT: [Class; 3] = [Class::Publish, Class::Deploy, Class::Catastrophic];

fn classes(command: &str) -> BTreeSet<Class> {
    crate::gate::find(
        command,
        Path::new("/w"),
        Default::default(),
        &Repos::default(),
    )
    .iter()
    .map(|g| g.class)
    .collect()
}

fn listed(row: &GitVerb) -> BTreeSet<Class> {
    Class::ALL
        .into_iter()
        .filter(|c| row.may_name(*c))
        .collect()
}

#[test]
fn every_row_is_the_one_its_subcommand_finds() {
    for row in VERBS {
        let found = row_for(row.verb, row.form);
        assert!(
            found.is_some_and(|f| std::ptr::eq(f, row)),
            "`git {} {}` finds another row: an earlier one hides it",
            row.verb,
            row.form.unwrap_or("")
        );
    }
}

#[test]
fn every_row_names_each_class_it_lists_on_a_command_that_reaches_it() {
    let bare = tempfile::tempdir().unwrap();
    std::fs::write(bare.path().join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::create_dir(bare.path().join("objects")).unwrap();
    for row in VERBS {
        let examples = EXAMPLES
            .iter()
            .find(|(verb, form, _)| *verb == row.verb && *form == row.form)
            .map(|(.., examples)| *examples)
            .unwrap_or_else(|| panic!("no example reaches the row of `git {}`", row.verb));
        let mut named = BTreeSet::new();
        for example in examples {
            let command = example.replace("{bare}", &bare.path().to_string_lossy());
            let found = classes(&command);
            assert!(!found.is_empty(), "{command}: names nothing");
            named.extend(found);
        }
        let expected = match row.rule {
            Rule::RunsScript => classes("git commit -m x"),
            _ => listed(row),
        };
        assert_eq!(named, expected, "`git {}`: {examples:?}", row.verb);
    }
    assert_eq!(
        EXAMPLES.len(),
        VERBS.len(),
        "an example for a row that is gone"
    );
}

#[test]
fn every_class_of_a_git_action_appears_in_the_table() {
    for class in Class::ALL {
        let in_table = VERBS.iter().any(|row| row.may_name(class));
        assert_eq!(
            in_table,
            !NOT_GIT.contains(&class),
            "{}: in the table {in_table}",
            class.name()
        );
    }
}

#[test]
fn a_row_that_runs_a_script_covers_one_form() {
    for row in VERBS {
        if matches!(row.rule, Rule::RunsScript) {
            assert!(row.form.is_some(), "`git {}`", row.verb);
        }
    }
}

#[test]
fn an_alias_defined_through_another_alias_of_the_line_is_followed() {
    let typed_out = classes("git config alias.p push && git p origin main");
    assert!(typed_out.contains(&Class::Push), "{typed_out:?}");
    for line in [
        // `git c alias.p push` runs `git config alias.p push`.
        "git config alias.c config && git c alias.p push && git p origin main",
        // Through two aliases.
        "git config alias.b config; git config alias.c b && git c alias.p push; git p origin main",
        // Given on the command line instead of defined by the line.
        "git -c alias.c=config c alias.p push && git p origin main",
    ] {
        assert_eq!(classes(line), typed_out, "{line}");
    }
    // A loop of aliases reaches no `git config`: it defines nothing, as git runs nothing.
    let looped =
        "git config alias.a b && git config alias.b a && git a alias.p push && git p origin main";
    assert!(!classes(looped).contains(&Class::Push), "{looped}");
}
