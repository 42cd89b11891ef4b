//! The repositories one hook call opens, each once: classification reads git aliases from
//! them, [`super::gather`] the facts each action is decided on, and the session's test runs
//! are read with the same aliases.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::classify::Target;
use super::facts::{self, Repo};

/// A repository opened (or not) for a target.
pub type Opened = Rc<Result<Repo, facts::Error>>;

/// The repositories opened so far, by where they were found.
#[derive(Default)]
pub struct Repos {
    opened: RefCell<Vec<(Place, Opened)>>,
}

/// What [`Repo::open`] reads of a target: the git dir when one is given, else the directory
/// discovery starts from; and the work tree.
#[derive(Debug, PartialEq, Eq)]
struct Place {
    git_dir: Option<PathBuf>,
    dir: Option<PathBuf>,
    work_tree: Option<PathBuf>,
}

impl Place {
    fn of(target: &Target, cwd: &Path) -> Place {
        Place {
            git_dir: target.git_dir.clone(),
            dir: target
                .git_dir
                .is_none()
                .then(|| target.dir.clone().unwrap_or_else(|| cwd.to_path_buf())),
            work_tree: target.work_tree.clone(),
        }
    }
}

impl Repos {
    /// The repository of `target` (discovered from `cwd` when the target names no directory).
    pub fn open(&self, target: &Target, cwd: &Path) -> Opened {
        let place = Place::of(target, cwd);
        let mut opened = self.opened.borrow_mut();
        if let Some((_, repo)) = opened.iter().find(|(p, _)| *p == place) {
            return Rc::clone(repo);
        }
        let repo = Rc::new(Repo::open(target, cwd));
        opened.push((place, Rc::clone(&repo)));
        repo
    }

    /// The repository `target` itself names, by its git dir or its directory; `None` when it
    /// names neither (a command after `cd "$dir"`), as nothing then says where it runs.
    pub fn named(&self, target: &Target) -> Option<Opened> {
        // With a git dir, the directory is not read; without one, the target's own is.
        let dir = target.git_dir.as_deref().or(target.dir.as_deref())?;
        Some(self.open(target, dir))
    }
}

#[cfg(test)]
impl Repos {
    /// How many repositories were opened.
    pub(crate) fn opened(&self) -> usize {
        self.opened.borrow().len()
    }
}

impl std::fmt::Debug for Repos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let opened = self.opened.borrow();
        f.debug_list()
            .entries(opened.iter().map(|(place, _)| place))
            .finish()
    }
}
