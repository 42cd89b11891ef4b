//! The member names of a tar archive, read without extracting it, for `tar -x` to be judged
//! by the files it writes. The compression is told from the archive's first bytes, as tar's
//! own auto-detection does (so `tar xf a.tar.gz` and `tar -xzf a.tgz` read the same): plain
//! (ustar or GNU), gzip (inflated in process by `zlib-rs`, which git's object reading already
//! brings), and bzip2, xz or zstd, read through the decompressor program tar itself runs to
//! extract them (`bzip2 -dc`, …). An archive that cannot be read this way has no members here.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

/// Compressions by their magic bytes, with the program that decompresses them to stdout
/// (`None`: read in process).
const COMPRESSIONS: [(&[u8], Option<&str>); 4] = [
    (&[0x1f, 0x8b], None),
    (b"BZh", Some("bzip2")),
    (&[0xfd, b'7', b'z', b'X', b'Z', 0], Some("xz")),
    (&[0x28, 0xb5, 0x2f, 0xfd], Some("zstd")),
];

/// More members than this, or more bytes, and the archive is not read (the whole directory it
/// extracts into counts as written, as for one that cannot be read).
const MAX_MEMBERS: usize = 10_000;
const MAX_BYTES: u64 = 1 << 30;

/// The member names of the tar archive at `archive`; `None` when it cannot be read.
pub fn members(archive: &Path) -> Option<Vec<String>> {
    let mut file = BufReader::new(std::fs::File::open(archive).ok()?);
    let head = file.fill_buf().ok()?.to_vec();
    match COMPRESSIONS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
    {
        None => read_tar(file),
        Some((_, None)) => read_tar(Gunzip {
            input: file,
            inflate: zlib_rs::Inflate::new(true, 16 + 15),
            done: false,
        }),
        Some((_, Some(program))) => {
            let mut child = Command::new(program)
                .args(["-dc", "--"])
                .arg(archive)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .ok()?;
            let names = read_tar(child.stdout.take()?);
            // The rest of the stream is not needed: stop the decompressor.
            let _ = child.kill();
            let _ = child.wait();
            names
        }
    }
}

/// The member names of an uncompressed tar stream; `None` when it is not one.
fn read_tar(input: impl Read) -> Option<Vec<String>> {
    let mut input = input.take(MAX_BYTES);
    let mut names = Vec::new();
    let mut long_name: Option<String> = None;
    let mut header = [0u8; 512];
    loop {
        input.read_exact(&mut header).ok()?;
        if header.iter().all(|b| *b == 0) {
            return Some(names);
        }
        if &header[257..262] != b"ustar" {
            return None;
        }
        let field = |range: std::ops::Range<usize>| {
            let raw = &header[range];
            let end = raw.iter().position(|b| *b == 0).unwrap_or(raw.len());
            String::from_utf8_lossy(&raw[..end]).into_owned()
        };
        let size = u64::from_str_radix(field(124..136).trim(), 8).ok()?;
        let padded = size.div_ceil(512) * 512;
        let (prefix, name) = (field(345..500), field(0..100));
        match header[156] {
            // GNU: the next member's name, too long for its header, is this entry's data.
            b'L' => {
                let mut data = Vec::new();
                (&mut input).take(padded).read_to_end(&mut data).ok()?;
                let text = &data[..usize::try_from(size).ok()?.min(data.len())];
                let end = text.iter().position(|b| *b == 0).unwrap_or(text.len());
                long_name = Some(String::from_utf8_lossy(&text[..end]).into_owned());
                continue;
            }
            b'0' | 0 | b'1' | b'2' | b'5' => names.push(match long_name.take() {
                Some(long) => long,
                None if prefix.is_empty() => name,
                None => format!("{prefix}/{name}"),
            }),
            _ => long_name = None,
        }
        if names.len() > MAX_MEMBERS {
            return None;
        }
        let skipped = std::io::copy(&mut (&mut input).take(padded), &mut std::io::sink()).ok()?;
        if skipped != padded {
            return None;
        }
    }
}

/// A gzip stream inflated as it is read.
struct Gunzip<R> {
    input: BufReader<R>,
    inflate: zlib_rs::Inflate,
    done: bool,
}

impl<R: Read> Read for Gunzip<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use std::io::{Error, ErrorKind};
        while !self.done && !out.is_empty() {
            let input = self.input.fill_buf()?;
            let flush = if input.is_empty() {
                zlib_rs::InflateFlush::Finish
            } else {
                zlib_rs::InflateFlush::NoFlush
            };
            let (was_in, was_out) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self
                .inflate
                .decompress(input, out, flush)
                .map_err(|e| Error::new(ErrorKind::InvalidData, e.as_str()))?;
            let ended = input.is_empty();
            let consumed = usize::try_from(self.inflate.total_in() - was_in).unwrap_or(0);
            let produced = usize::try_from(self.inflate.total_out() - was_out).unwrap_or(0);
            self.input.consume(consumed);
            self.done = status == zlib_rs::Status::StreamEnd;
            if produced > 0 {
                return Ok(produced);
            }
            if ended || consumed == 0 {
                return Err(Error::new(
                    ErrorKind::UnexpectedEof,
                    "a truncated gzip stream",
                ));
            }
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds `name.tar` holding `members` with the system's tar, compressed by `flag`.
    fn archive(dir: &Path, name: &str, flag: &str, members: &[&str]) -> Option<std::path::PathBuf> {
        let src = dir.join("src");
        for m in members {
            let path = src.join(m);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        let out = dir.join(name);
        let status = Command::new("tar")
            .arg(format!("-c{flag}f"))
            .arg(&out)
            .args(members)
            .current_dir(&src)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(out)
    }

    #[test]
    fn plain_and_compressed_archives_list_their_members() {
        let dir = tempfile::tempdir().unwrap();
        let long = format!("deep/{}/file.txt", "d".repeat(120));
        let listed = ["a.txt", "sub/b.txt", long.as_str()];
        let gz = archive(dir.path(), "a.tgz", "z", &listed).expect("tar -z works here");
        let plain = archive(dir.path(), "a.tar", "", &listed).unwrap();
        for path in [plain, gz] {
            let mut names = members(&path).unwrap_or_else(|| panic!("{}", path.display()));
            names.sort();
            assert_eq!(
                names,
                ["a.txt", long.as_str(), "sub/b.txt"],
                "{}",
                path.display()
            );
        }
        // bzip2 and xz when this machine's tar can make them (their decompressor is then here).
        for (name, flag) in [("a.tar.bz2", "j"), ("a.tar.xz", "J")] {
            if let Some(path) = archive(dir.path(), name, flag, &["a.txt"]) {
                assert_eq!(members(&path), Some(vec!["a.txt".to_owned()]), "{name}");
            }
        }
    }

    #[test]
    fn an_unreadable_archive_has_no_members() {
        let dir = tempfile::tempdir().unwrap();
        let gz = archive(dir.path(), "a.tgz", "z", &["a.txt"]).unwrap();
        let bytes = std::fs::read(&gz).unwrap();
        let cut = dir.path().join("cut.tgz");
        std::fs::write(&cut, &bytes[..12]).unwrap();
        let junk = dir.path().join("junk.tgz");
        std::fs::write(&junk, [0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
        let text = dir.path().join("notes.tar");
        std::fs::write(&text, "not an archive\n").unwrap();
        for path in [cut, junk, text, dir.path().join("missing.tgz")] {
            assert_eq!(members(&path), None, "{}", path.display());
        }
    }
}
