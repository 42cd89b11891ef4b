//! Which configuration rules an action: that of the repository it acts on (`git -C other`,
//! `GIT_DIR=other/.git`, `cd other && …`), not the one the agent happens to be in; each
//! repository's is loaded once per hook call.

use std::path::{Path, PathBuf};

use crate::gate::classify::Target;
use crate::gate::settings::GateSettings;
use crate::support::paths::repo_root;

/// Gate settings per target repository, loaded once each.
pub(super) struct TargetSettings<'a> {
    cwd_root: Option<PathBuf>,
    settings_at: &'a dyn Fn(&Path) -> Option<GateSettings>,
    loaded: Vec<(PathBuf, Option<GateSettings>)>,
}

impl<'a> TargetSettings<'a> {
    pub(super) fn new(
        cwd: &Path,
        settings_at: &'a dyn Fn(&Path) -> Option<GateSettings>,
    ) -> TargetSettings<'a> {
        TargetSettings {
            cwd_root: repo_root(cwd),
            settings_at,
            loaded: Vec::new(),
        }
    }

    /// The gate settings for an action on `target`; `cwd_settings` when it is the cwd's repo
    /// or its config cannot be read (then the cwd's, which the user's layers shape too).
    pub(super) fn for_target<'s>(
        &'s mut self,
        target: &Target,
        cwd_settings: &'s GateSettings,
    ) -> &'s GateSettings {
        // `GIT_DIR=other/.git git push`: the repository the git dir belongs to decides.
        let git_dir_root = target.git_dir.as_deref().map(|g| {
            let g = if g.is_relative() {
                target.dir.as_deref().unwrap_or(Path::new(".")).join(g)
            } else {
                g.to_path_buf()
            };
            match g.file_name() {
                Some(name) if name == ".git" => g.parent().map(Path::to_path_buf).unwrap_or(g),
                _ => g,
            }
        });
        let dir = target
            .work_tree
            .as_ref()
            .or(git_dir_root.as_ref())
            .or(target.dir.as_ref());
        let Some(root) = dir.and_then(|d| repo_root(d)) else {
            return cwd_settings;
        };
        if Some(&root) == self.cwd_root.as_ref() {
            return cwd_settings;
        }
        let index = match self.loaded.iter().position(|(r, _)| *r == root) {
            Some(i) => i,
            None => {
                let gate = (self.settings_at)(&root);
                self.loaded.push((root, gate));
                self.loaded.len() - 1
            }
        };
        self.loaded[index].1.as_ref().unwrap_or(cwd_settings)
    }
}
