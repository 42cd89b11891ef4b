//! Commit history: what a push sends and what it would drop, what moving or deleting a branch
//! leaves on no ref, revisions as git reads them, and the paths two commits differ in.

use gix::bstr::ByteSlice;

use super::{CommitLine, Commits, Error, MAX_SUBJECTS, PushFacts, Repo};
use crate::gate::classify::PushSpec;

impl Repo {
    /// What `git push` with `spec` would send for each of its refspecs (every local branch
    /// for `--all`/`--branches`; the current branch when none is given).
    pub fn push_facts_all(&self, spec: &PushSpec) -> Result<Vec<PushFacts>, Error> {
        let mut refspecs: Vec<String> = if spec.all {
            self.local_branches()
        } else {
            spec.refspecs.clone()
        };
        // `refs/heads/*:refs/heads/*`: the pattern stands for every local branch it matches.
        let branches = self.local_branches();
        refspecs = refspecs
            .into_iter()
            .flat_map(|r| {
                let plain = r.trim_start_matches('+');
                let (src, dst) = plain.split_once(':').unwrap_or((plain, plain));
                let src = src.trim_start_matches("refs/heads/");
                let dst = dst.trim_start_matches("refs/heads/");
                if !src.contains('*') || plain.starts_with(':') {
                    return vec![r];
                }
                branches
                    .iter()
                    .filter(|b| crate::gate::glob::matches(src, b))
                    .map(|b| {
                        let stem = src.split('*').next().unwrap_or("");
                        let matched = b.strip_prefix(stem).unwrap_or(b);
                        let matched = matched
                            .strip_suffix(src.rsplit('*').next().unwrap_or(""))
                            .unwrap_or(matched);
                        format!("{b}:{}", dst.replacen('*', matched, 1))
                    })
                    .collect()
            })
            .collect();
        if refspecs.is_empty() {
            return Ok(vec![self.push_facts_for(spec, None)?]);
        }
        let mut out = Vec::new();
        for r in &refspecs {
            if r.starts_with(':') || r.contains('*') {
                continue; // a delete, or a pattern: judged by the flags
            }
            out.push(self.push_facts_for(spec, Some(r))?);
        }
        Ok(out)
    }

    /// What `git push` with `spec` would send for its first refspec (the current branch when
    /// none is given).
    pub fn push_facts(&self, spec: &PushSpec) -> Result<PushFacts, Error> {
        self.push_facts_for(spec, spec.refspecs.first().map(String::as_str))
    }

    /// Commits that moving `branch` (HEAD's when `None`) to `to` leaves on no ref at all.
    pub fn lost_by_move(&self, branch: Option<&str>, to: &str) -> Result<Commits, Error> {
        let Some((tip, mut others)) = self.branch_and_other_tips(branch)? else {
            return Ok(Commits::default());
        };
        others.push(self.commit_of(to)?);
        self.walk(tip, others)
    }

    /// Commits that `git rebase --onto ONTO UPSTREAM [BRANCH]` (HEAD's branch when `None`)
    /// leaves on no ref: the branch's commits that UPSTREAM reaches (they are not replayed)
    /// and that neither ONTO nor any other ref holds.
    pub fn lost_by_rebase(
        &self,
        branch: Option<&str>,
        onto: &str,
        upstream: &str,
    ) -> Result<Commits, Error> {
        let Some((tip, mut kept)) = self.branch_and_other_tips(branch)? else {
            return Ok(Commits::default());
        };
        kept.push(self.commit_of(onto)?);
        let walk = |from: gix::ObjectId| {
            ctx!(
                self.repo.rev_walk([from]).with_hidden(kept.clone()).all(),
                "cannot walk the history"
            )
        };
        let mut on_branch = std::collections::HashSet::new();
        for info in walk(tip)? {
            on_branch.insert(ctx!(info, "cannot walk the history")?.id);
        }
        let mut out = Commits::default();
        for info in walk(self.commit_of(upstream)?)? {
            let info = ctx!(info, "cannot walk the history")?;
            if on_branch.contains(&info.id) {
                out.count += 1;
                if out.first.len() < MAX_SUBJECTS {
                    out.first.push(CommitLine {
                        id: info.id.to_hex_with_len(8).to_string(),
                        subject: summary(info.object().ok()),
                    });
                }
            }
        }
        Ok(out)
    }

    /// The tip of `branch` (HEAD's when `None`) and the tips of every other ref but the stash; `None` when
    /// HEAD is detached (its reflog keeps what it leaves) or the branch does not exist yet.
    fn branch_and_other_tips(
        &self,
        branch: Option<&str>,
    ) -> Result<Option<(gix::ObjectId, Vec<gix::ObjectId>)>, Error> {
        let full = match branch {
            Some(b) => format!("refs/heads/{}", b.trim_start_matches("refs/heads/")),
            None => match self.repo.head_name().ok().flatten() {
                Some(n) => n.as_bstr().to_string(),
                None => return Ok(None),
            },
        };
        let Some(mut r) = ctx!(
            self.repo.try_find_reference(full.as_str()),
            "cannot read references"
        )?
        else {
            return Ok(None);
        };
        let tip = ctx!(r.peel_to_id(), format!("cannot resolve `{full}`"))?.detach();
        let refs = ctx!(self.repo.references(), "cannot list references")?;
        let all = ctx!(refs.all(), "cannot list references")?;
        // The stash is no home for commits: its entries hold HEAD as a parent, and dropping
        // or popping them (as git expects) loses what only they reached.
        let others = all
            .filter_map(Result::ok)
            .filter(|r| r.name().as_bstr() != full.as_bytes().as_bstr())
            .filter(|r| r.name().as_bstr() != "refs/stash".as_bytes().as_bstr())
            .filter_map(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
            .collect();
        Ok(Some((tip, others)))
    }

    fn commit_of(&self, rev: &str) -> Result<gix::ObjectId, Error> {
        self.resolve_rev(rev)
            .ok_or_else(|| Error::new(format!("cannot resolve `{rev}` to a commit")))
    }

    /// A revision as git reads it, for the simple forms: names, `HEAD~N`, `X^`, `@{u}`.
    pub fn resolve_rev(&self, rev: &str) -> Option<gix::ObjectId> {
        if let Some((base, n)) = rev.rsplit_once('~') {
            let n: usize = if n.is_empty() { 1 } else { n.parse().ok()? };
            let mut id = self.resolve_rev(base)?;
            for _ in 0..n {
                id = self
                    .repo
                    .find_commit(id)
                    .ok()?
                    .parent_ids()
                    .next()?
                    .detach();
            }
            return Some(id);
        }
        if let Some(base) = rev.strip_suffix('^') {
            let id = self.resolve_rev(base)?;
            return Some(
                self.repo
                    .find_commit(id)
                    .ok()?
                    .parent_ids()
                    .next()?
                    .detach(),
            );
        }
        if rev == "@" || rev.is_empty() {
            return self.resolve("HEAD");
        }
        if matches!(rev, "@{u}" | "@{upstream}") {
            return self.resolve(&format!("refs/remotes/{}", self.upstream()?));
        }
        self.resolve(rev)
            .or_else(|| self.resolve(&format!("refs/remotes/{rev}")))
            .or_else(|| self.short_id(rev))
    }

    /// An abbreviated commit id (at least 4 hex digits) that names one object.
    fn short_id(&self, hex: &str) -> Option<gix::ObjectId> {
        if hex.len() < 4 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let prefix = gix::hash::Prefix::from_hex(hex).ok()?;
        match self.repo.objects.lookup_prefix(prefix, None) {
            Ok(Some(Ok(id))) => Some(id),
            _ => None,
        }
    }

    /// Paths whose content differs between two commits (`None`: the empty tree), at most
    /// `limit` of them.
    pub fn changed_paths(
        &self,
        from: Option<gix::ObjectId>,
        to: gix::ObjectId,
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        let tree_of = |id: gix::ObjectId| -> Result<gix::ObjectId, Error> {
            let commit = ctx!(self.repo.find_commit(id), "cannot read a commit")?;
            Ok(ctx!(commit.tree_id(), "cannot read a commit's tree")?.detach())
        };
        let new = tree_of(to)?;
        let old = from.map(tree_of).transpose()?;
        let mut out = Vec::new();
        let mut stack: Vec<(String, Option<gix::ObjectId>, Option<gix::ObjectId>)> =
            vec![(String::new(), old, Some(new))];
        while let Some((prefix, a, b)) = stack.pop() {
            if a == b || out.len() >= limit {
                continue;
            }
            let entries = |id: Option<gix::ObjectId>| -> Vec<(String, gix::ObjectId, bool)> {
                let Some(id) = id else { return Vec::new() };
                let Ok(tree) = self.repo.find_tree(id) else {
                    return Vec::new();
                };
                let Ok(decoded) = tree.decode() else {
                    return Vec::new();
                };
                decoded
                    .entries
                    .iter()
                    .map(|e| (e.filename.to_string(), e.oid.to_owned(), e.mode.is_tree()))
                    .collect()
            };
            let (ea, eb) = (entries(a), entries(b));
            let mut names: Vec<&String> = ea.iter().chain(&eb).map(|(n, _, _)| n).collect();
            names.sort();
            names.dedup();
            for name in names {
                let x = ea.iter().find(|(n, _, _)| n == name);
                let y = eb.iter().find(|(n, _, _)| n == name);
                if x.map(|e| e.1) == y.map(|e| e.1) {
                    continue;
                }
                let path = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}/{name}")
                };
                let tree_a = x.filter(|e| e.2).map(|e| e.1);
                let tree_b = y.filter(|e| e.2).map(|e| e.1);
                if tree_a.is_some() || tree_b.is_some() {
                    stack.push((path.clone(), tree_a, tree_b));
                }
                if x.is_some_and(|e| !e.2) || y.is_some_and(|e| !e.2) {
                    out.push(path);
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// What `git push` with `spec` would send for `refspec`, from the current branch by
    /// default.
    pub fn push_facts_for(
        &self,
        spec: &PushSpec,
        refspec: Option<&str>,
    ) -> Result<PushFacts, Error> {
        let branch = self.branch();
        let refspec = refspec.map(|r| r.trim_start_matches('+').to_owned());
        let (src, dst) = match refspec.as_deref().map(|r| {
            r.split_once(':')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .unwrap_or((r.to_owned(), r.to_owned()))
        }) {
            Some((src, dst)) => (src, dst),
            None => {
                let b = branch.clone().unwrap_or_else(|| "HEAD".into());
                let dst = self
                    .upstream()
                    .and_then(|u| u.split_once('/').map(|(_, b)| b.to_owned()))
                    .unwrap_or_else(|| b.clone());
                (b, dst)
            }
        };
        let src = if src.is_empty() || src == "HEAD" {
            branch.clone().unwrap_or_else(|| "HEAD".into())
        } else {
            src
        };
        let dst = if dst == "HEAD" {
            src.clone()
        } else {
            dst.trim_start_matches("refs/heads/").to_owned()
        };
        let remote = spec
            .remote
            .clone()
            .or_else(|| {
                self.upstream()
                    .and_then(|u| u.split_once('/').map(|(r, _)| r.to_owned()))
            })
            .unwrap_or_else(|| "origin".into());
        let source_id = self
            .resolve_rev(&src)
            .ok_or_else(|| Error::new(format!("cannot resolve `{src}` to a commit")))?;
        // A URL or a path instead of a remote's name: no remote-tracking refs of its own, so
        // what any remote is known to have is the base.
        let by_location = remote.contains(['/', ':']) || remote == ".";
        let tracking_name = format!("refs/remotes/{remote}/{dst}");
        let tracking_id = if by_location {
            None
        } else {
            self.repo
                .try_find_reference(tracking_name.as_str())
                .ok()
                .flatten()
                .and_then(|mut r| r.peel_to_id().ok())
                .map(|id| id.detach())
        };
        let remote_tips = if by_location {
            self.remote_tips("")?
        } else {
            self.remote_tips(&remote)?
        };
        // A linear run from the pushed commit down to the destination's remote-tracking tip
        // means that tip is an ancestor: nothing on the remote would be lost.
        let (ahead, behind) = match self.linear_walk(source_id, &remote_tips) {
            Some((ahead, met)) if Some(met) == tracking_id || tracking_id.is_none() => {
                (ahead, Commits::default())
            }
            quick => {
                let ahead = match quick {
                    Some((ahead, _)) => ahead,
                    None => self.full_walk(source_id, remote_tips.clone())?,
                };
                let behind = match tracking_id {
                    Some(t) => self.walk(t, [source_id])?,
                    None => Commits::default(),
                };
                (ahead, behind)
            }
        };
        Ok(PushFacts {
            remote,
            source_id: Some(source_id),
            base_id: tracking_id,
            source: src,
            destination: dst,
            tracking: tracking_id.map(|_| tracking_name),
            ahead,
            behind,
        })
    }

    /// A branch, tag, full ref name, `HEAD` or hex id, as a commit id.
    pub fn resolve(&self, name: &str) -> Option<gix::ObjectId> {
        if name == "HEAD" {
            return self.repo.head_commit().ok().map(|c| c.id);
        }
        for candidate in [
            name.to_owned(),
            format!("refs/heads/{name}"),
            format!("refs/tags/{name}"),
        ] {
            if let Ok(Some(mut r)) = self.repo.try_find_reference(candidate.as_str())
                && let Ok(id) = r.peel_to_id()
            {
                return Some(id.detach());
            }
        }
        gix::ObjectId::from_hex(name.as_bytes()).ok()
    }

    pub(super) fn remote_tips(&self, remote: &str) -> Result<Vec<gix::ObjectId>, Error> {
        let refs = ctx!(self.repo.references(), "cannot list references")?;
        let prefix = if remote.is_empty() {
            "refs/remotes/".to_owned()
        } else {
            format!("refs/remotes/{remote}/")
        };
        let iter = ctx!(
            refs.prefixed(prefix.as_str()),
            "cannot list remote-tracking references"
        )?;
        Ok(iter
            .filter_map(Result::ok)
            .filter_map(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
            .collect())
    }

    /// Commits reachable from `tip` and not from `hidden`.
    pub fn walk(
        &self,
        tip: gix::ObjectId,
        hidden: impl IntoIterator<Item = gix::ObjectId>,
    ) -> Result<Commits, Error> {
        let hidden: Vec<gix::ObjectId> = hidden.into_iter().collect();
        if let Some((commits, _)) = self.linear_walk(tip, &hidden) {
            return Ok(commits);
        }
        self.full_walk(tip, hidden)
    }

    /// The common case, cheaply: a linear run of commits from `tip` down to a hidden tip. A
    /// hidden walk first marks the ancestors of the hidden tips (on a long history, most of
    /// it); this reads only the commits in between. `None` when the history between is not a
    /// single line ending at a hidden tip (merges, an unknown base), or is long.
    fn linear_walk(
        &self,
        tip: gix::ObjectId,
        hidden: &[gix::ObjectId],
    ) -> Option<(Commits, gix::ObjectId)> {
        const LIMIT: usize = 2000;
        let mut out = Commits::default();
        let mut id = tip;
        for _ in 0..LIMIT {
            if hidden.contains(&id) {
                return Some((out, id));
            }
            let commit = self.repo.find_commit(id).ok()?;
            let mut parents = commit.parent_ids();
            let parent = parents.next();
            if parents.next().is_some() {
                return None; // a merge: the full walk decides
            }
            out.count += 1;
            if out.first.len() < MAX_SUBJECTS {
                let subject = commit
                    .message()
                    .ok()
                    .map(|m| m.summary().to_str_lossy().into_owned())
                    .unwrap_or_default();
                out.first.push(CommitLine {
                    id: id.to_hex_with_len(8).to_string(),
                    subject,
                });
            }
            id = parent?.detach(); // the root without meeting a hidden tip: unknown base
        }
        None
    }

    fn full_walk(&self, tip: gix::ObjectId, hidden: Vec<gix::ObjectId>) -> Result<Commits, Error> {
        let walk = ctx!(
            self.repo.rev_walk([tip]).with_hidden(hidden).all(),
            "cannot walk the history"
        )?;
        let mut out = Commits::default();
        for info in walk {
            let info = ctx!(info, "cannot walk the history")?;
            out.count += 1;
            if out.first.len() < MAX_SUBJECTS {
                out.first.push(CommitLine {
                    id: info.id.to_hex_with_len(8).to_string(),
                    subject: summary(info.object().ok()),
                });
            }
        }
        Ok(out)
    }

    /// Commits reachable only from `branch` (no other branch, tag or remote-tracking ref; the
    /// stash does not count, as in [`Repo::lost_by_move`]).
    pub fn only_on_branch(&self, branch: &str) -> Result<Commits, Error> {
        let full = format!("refs/heads/{branch}");
        let Some(mut r) = ctx!(
            self.repo.try_find_reference(full.as_str()),
            "cannot read references"
        )?
        else {
            return Ok(Commits::default());
        };
        let tip = ctx!(r.peel_to_id(), format!("cannot resolve `{branch}`"))?.detach();
        let refs = ctx!(self.repo.references(), "cannot list references")?;
        let all = ctx!(refs.all(), "cannot list references")?;
        let others: Vec<gix::ObjectId> = all
            .filter_map(Result::ok)
            .filter(|r| r.name().as_bstr() != full.as_bytes().as_bstr())
            .filter(|r| r.name().as_bstr() != "refs/stash".as_bytes().as_bstr())
            .filter_map(|mut r| r.peel_to_id().ok().map(|id| id.detach()))
            .collect();
        self.walk(tip, others)
    }
}

/// A commit's subject line (empty when it cannot be read).
fn summary(commit: Option<gix::Commit<'_>>) -> String {
    commit
        .and_then(|c| {
            c.message()
                .ok()
                .map(|m| m.summary().to_str_lossy().into_owned())
        })
        .unwrap_or_default()
}
