//! The decision log: one JSON line per judged response or gated command, one file per day.
//!
//! The log is what users tune judges with, so every decision is recorded, quiet ones included
//! (they give the wake rates). Each line is a [`Record`], the one description of the format that
//! writers build and readers parse. Lines are appended under an exclusive file lock with a single
//! write each, so concurrent hook processes never interleave. Readers skip lines they cannot
//! parse (a line cut short by a crash, a hand edit) and count them. Day files older than
//! `log.retention_days` are deleted once a day, when a hook starts the day's file.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub mod cause;
pub mod outcome;
mod record;

pub use record::{
    CheckDecider, CheckRecord, GateRecord, JudgeEntry, Layer2Entry, Origin, Record, RulingEntry,
    Session, StopAction, StopRecord, Timings, TranscriptInfo,
};

use crate::support::time::Timestamp;

const PREFIX: &str = "decisions-";
const SUFFIX: &str = ".jsonl";

/// The day file that a record written at `ts` goes to.
pub fn file_for(dir: &Path, ts: Timestamp) -> PathBuf {
    dir.join(format!("{PREFIX}{}{SUFFIX}", ts.day()))
}

/// Appends one record to the day's file.
pub fn append(dir: &Path, ts: Timestamp, record: &Record) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = file_for(dir, ts);
    let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
    line.push(b'\n');
    let mut file = OpenOptions::new().create(true).append(true).open(&path)?;
    file.lock()?;
    let written = file.write_all(&line);
    let _ = file.unlock();
    written.map(|()| path)
}

/// Deletes day files older than `retention_days` days (`log.retention_days`; 0 keeps all),
/// cheaply: only when no file for `now`'s day exists yet, which is once a day, just before the
/// day's first record is written. Failures are ignored: pruning only saves space.
pub fn prune_on_new_day(dir: &Path, now: Timestamp, retention_days: u32) {
    if retention_days == 0 || file_for(dir, now).exists() {
        return;
    }
    let _ = prune(dir, now, retention_days);
}

/// Deletes the day files whose day is more than `retention_days` days before `now`'s, and
/// returns them. Only files named like day files are touched.
pub fn prune(dir: &Path, now: Timestamp, retention_days: u32) -> io::Result<Vec<PathBuf>> {
    let oldest_kept = Timestamp {
        millis: now.millis - i64::from(retention_days) * 86_400_000,
    }
    .day();
    let mut removed = Vec::new();
    for (day, path) in day_files(dir)? {
        if day < oldest_kept {
            fs::remove_file(&path)?;
            removed.push(path);
        }
    }
    Ok(removed)
}

/// The day files in `dir` as `(YYYY-MM-DD, path)`, unsorted. A missing directory has none.
fn day_files(dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let day = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
            (day.len() == 10 && Timestamp::parse(day).is_some()).then(|| (day.to_owned(), e.path()))
        })
        .collect())
}

/// Records read back from the log.
#[derive(Debug, Default)]
pub struct Records {
    /// Oldest first.
    pub records: Vec<Record>,
    /// Lines that are not records: not JSON, of no kind hookjudge writes, without a field the
    /// readers need (`ts`, `action`, a gate's `command`), or with a value this version does not
    /// know in a typed field (an `action` or a `verdict` of a newer version).
    pub bad_lines: usize,
    pub files: Vec<PathBuf>,
}

/// Reads every record at or after `since` (all when `None`). A missing directory is empty.
pub fn read(dir: &Path, since: Option<Timestamp>) -> io::Result<Records> {
    let mut out = Records::default();
    let since_day = since.map(Timestamp::day);
    let mut files: Vec<(String, PathBuf)> = day_files(dir)?
        .into_iter()
        .filter(|(day, _)| since_day.as_ref().is_none_or(|s| day >= s))
        .collect();
    files.sort();
    for (_, path) in files {
        let text = fs::read_to_string(&path)?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Record>(line) {
                Ok(record) => {
                    let ts = Timestamp::parse(record.ts());
                    if since.is_none_or(|s| ts.is_some_and(|t| t >= s)) {
                        out.records.push(record);
                    }
                }
                Err(_) => out.bad_lines += 1,
            }
        }
        out.files.push(path);
    }
    out.records.sort_by_key(|r| Timestamp::parse(r.ts()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A record from its JSON form.
    fn record(line: Value) -> Record {
        serde_json::from_value(line).unwrap()
    }

    #[test]
    fn appends_by_day_and_reads_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let day1 = Timestamp::parse("2026-11-29T23:59:00Z").unwrap();
        let day2 = Timestamp::parse("2026-11-30T00:01:00Z").unwrap();
        let check = |ts: Timestamp, n: &str| {
            record(json!({"ts": ts.rfc3339(), "kind": "check", "command": n, "action": "silent"}))
        };
        append(dir.path(), day2, &check(day2, "2")).unwrap();
        append(dir.path(), day1, &check(day1, "1")).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(file_for(dir.path(), day2))
            .unwrap()
            .write_all(b"{torn\n{\"ts\": \"2026-11-30T00:02:00Z\", \"kind\": \"nonesuch\"}\n")
            .unwrap();
        let all = read(dir.path(), None).unwrap();
        assert_eq!(
            all.records.iter().map(Record::subject).collect::<Vec<_>>(),
            ["1", "2"]
        );
        assert_eq!((all.bad_lines, all.files.len()), (2, 2));
        let recent = read(dir.path(), Some(Timestamp::parse("2026-11-30").unwrap())).unwrap();
        assert_eq!(recent.records.len(), 1);
        assert!(
            read(&dir.path().join("missing"), None)
                .unwrap()
                .records
                .is_empty()
        );
    }

    #[test]
    fn retention_prunes_only_old_day_files() {
        let dir = tempfile::tempdir().unwrap();
        let now = Timestamp::parse("2026-12-01T08:00:00Z").unwrap();
        for day in ["2026-10-31", "2026-11-01", "2026-11-02", "2026-11-30"] {
            let ts = Timestamp::parse(day).unwrap();
            append(
                dir.path(),
                ts,
                &record(json!({"ts": ts.rfc3339(), "kind": "check", "command": "c", "action": "silent"})),
            )
            .unwrap();
        }
        // Not day files: never touched, however old they look.
        for other in [
            "decisions-old.jsonl",
            "notes.txt",
            "decisions-2020-01-01.jsonl.bak",
        ] {
            std::fs::write(dir.path().join(other), "keep").unwrap();
        }
        let names = || {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        };
        // Today's file exists: nothing to do until tomorrow.
        append(
            dir.path(),
            now,
            &record(
                json!({"ts": now.rfc3339(), "kind": "check", "command": "c", "action": "silent"}),
            ),
        )
        .unwrap();
        prune_on_new_day(dir.path(), now, 30);
        assert!(names().contains(&"decisions-2026-10-31.jsonl".to_string()));
        std::fs::remove_file(file_for(dir.path(), now)).unwrap();
        prune_on_new_day(dir.path(), now, 0);
        assert!(
            names().contains(&"decisions-2026-10-31.jsonl".to_string()),
            "0 keeps all"
        );
        prune_on_new_day(dir.path(), now, 30);
        assert_eq!(
            names(),
            [
                "decisions-2020-01-01.jsonl.bak",
                "decisions-2026-11-01.jsonl",
                "decisions-2026-11-02.jsonl",
                "decisions-2026-11-30.jsonl",
                "decisions-old.jsonl",
                "notes.txt"
            ]
        );
        let removed = prune(dir.path(), now, 1).unwrap();
        assert_eq!(removed.len(), 2);
        assert!(
            prune(&dir.path().join("missing"), now, 1)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn concurrent_appends_keep_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let ts = Timestamp::now();
        std::thread::scope(|s| {
            for t in 0..8 {
                let dir = dir.path();
                s.spawn(move || {
                    for i in 0..50 {
                        append(
                            dir,
                            ts,
                            &record(json!({"ts": ts.rfc3339(), "kind": "gate", "command": format!("{t} {i}"),
                                    "action": "silent", "pad": "x".repeat(5000)})),
                        )
                        .unwrap();
                    }
                });
            }
        });
        let all = read(dir.path(), None).unwrap();
        assert_eq!((all.records.len(), all.bad_lines), (400, 0));
    }
}
