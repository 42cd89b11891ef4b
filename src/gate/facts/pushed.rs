//! The paths pushed commits change, commit by commit: what a push of documentation only is
//! read on (a net comparison of the pushed tip with the remote's would miss a change a later
//! commit undoes).

use super::{Error, Repo};

impl Repo {
    /// Every path that some commit reachable from `tip`, and from no remote-tracking ref of
    /// `remote`, changes against each of its parents (a root commit: all its paths). An error
    /// past `limit` commits or paths: a partial list must not pass for the whole.
    pub fn paths_each_commit_changes(
        &self,
        tip: gix::ObjectId,
        remote: &str,
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        let by_location = remote.contains(['/', ':']) || remote == ".";
        let hidden = self.remote_tips(if by_location { "" } else { remote })?;
        let walk = ctx!(
            self.repo.rev_walk([tip]).with_hidden(hidden).all(),
            "cannot walk the history"
        )?;
        let mut out = Vec::new();
        for (n, info) in walk.enumerate() {
            let info = ctx!(info, "cannot walk the history")?;
            let mut parents: Vec<Option<gix::ObjectId>> =
                info.parent_ids.iter().copied().map(Some).collect();
            if parents.is_empty() {
                parents.push(None);
            }
            for parent in parents {
                out.extend(self.changed_paths(parent, info.id, limit)?);
            }
            if n >= limit || out.len() >= limit {
                return Err(Error::new(format!(
                    "more than {limit} commits or paths to compare"
                )));
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}
