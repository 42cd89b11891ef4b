//! The member names of a tar archive, read without extracting it, for `tar -x` to be judged
//! by the files it writes. The compression is told from the archive's first bytes, as tar's
//! own auto-detection does (so `tar xf a.tar.gz` and `tar -xzf a.tgz` read the same): plain
//! (ustar or GNU), gzip (inflated in process by `zlib-rs`, which git's object reading already
//! brings), and bzip2, xz or zstd, read through the decompressor program tar itself runs to
//! extract them (`bzip2 -dc`, …). An archive that cannot be read this way has no members here.
//! Zip archives (`unzip`) are read from their central directory.

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
            // POSIX (pax): an extended header whose `path` record names the next member.
            b'x' => {
                let mut data = Vec::new();
                (&mut input).take(padded).read_to_end(&mut data).ok()?;
                let text = &data[..usize::try_from(size).ok()?.min(data.len())];
                if let Some(path) = pax_path(text) {
                    long_name = Some(path);
                }
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

/// The `path` record of a pax extended header: records are `LEN key=value\n`, LEN counting
/// the whole record.
fn pax_path(mut data: &[u8]) -> Option<String> {
    let mut path = None;
    while let Some(space) = data.iter().position(|b| *b == b' ') {
        let len: usize = std::str::from_utf8(&data[..space]).ok()?.parse().ok()?;
        let record = data.get(space + 1..len)?;
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(value) = record.strip_prefix(b"path=") {
            path = Some(String::from_utf8_lossy(value).into_owned());
        }
        data = &data[len..];
    }
    path
}

/// The member names of a zip archive, from its central directory (what `unzip` extracts);
/// `None` when it is not one, or is a zip64 archive, which is not read here.
pub fn zip_members(archive: &Path) -> Option<Vec<String>> {
    use std::io::{Seek, SeekFrom};
    let mut file = std::fs::File::open(archive).ok()?;
    let len = file.metadata().ok()?.len();
    if len > MAX_BYTES {
        return None;
    }
    // The end-of-central-directory record: 22 bytes and a comment of up to 65 535.
    let tail_len = len.min(22 + 65_535);
    file.seek(SeekFrom::Start(len - tail_len)).ok()?;
    let mut tail = vec![0; usize::try_from(tail_len).ok()?];
    file.read_exact(&mut tail).ok()?;
    let end = tail.windows(4).rposition(|w| w == b"PK\x05\x06")?;
    let u16_at =
        |b: &[u8], at: usize| Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?));
    let u32_at =
        |b: &[u8], at: usize| Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?));
    let eocd = &tail[end..];
    let (count, size, offset) = (u16_at(eocd, 10)?, u32_at(eocd, 12)?, u32_at(eocd, 16)?);
    if count == u16::MAX || offset == u32::MAX || usize::from(count) > MAX_MEMBERS {
        return None;
    }
    file.seek(SeekFrom::Start(u64::from(offset))).ok()?;
    let mut directory = vec![0; usize::try_from(size).ok()?];
    file.read_exact(&mut directory).ok()?;
    let mut names = Vec::with_capacity(usize::from(count));
    let mut at = 0;
    for _ in 0..count {
        if directory.get(at..at + 4)? != b"PK\x01\x02" {
            return None;
        }
        let name_len = usize::from(u16_at(&directory, at + 28)?);
        let extra = usize::from(u16_at(&directory, at + 30)?);
        let comment = usize::from(u16_at(&directory, at + 32)?);
        let name = directory.get(at + 46..at + 46 + name_len)?;
        names.push(String::from_utf8_lossy(name).into_owned());
        at += 46 + name_len + extra + comment;
    }
    Some(names)
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

    #[test]
    fn pax_path_records_name_their_member() {
        let dir = tempfile::tempdir().unwrap();
        let long = format!("deep/{}/trust.json", "d".repeat(120));
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join(&long).parent().unwrap()).unwrap();
        std::fs::write(src.join(&long), "{}").unwrap();
        let out = dir.path().join("pax.tar");
        let made = Command::new("tar")
            .args(["--format=pax", "-cf"])
            .arg(&out)
            .arg(&long)
            .current_dir(&src)
            .status()
            .unwrap();
        assert!(made.success());
        assert_eq!(members(&out), Some(vec![long]));
    }

    #[test]
    fn zip_archives_list_their_members() {
        let dir = tempfile::tempdir().unwrap();
        let zip = dir.path().join("a.zip");
        let made = Command::new("python3")
            .args([
                "-c",
                "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n    z.writestr('a.txt', 'x')\n    z.writestr('hookjudge/trust.json', '{}')\n    z.comment = b'a comment'",
            ])
            .arg(&zip)
            .status()
            .expect("python3 runs here");
        assert!(made.success());
        assert_eq!(
            zip_members(&zip),
            Some(vec!["a.txt".to_owned(), "hookjudge/trust.json".to_owned()])
        );
        std::fs::write(dir.path().join("no.zip"), "not a zip\n").unwrap();
        assert_eq!(zip_members(&dir.path().join("no.zip")), None);
    }
}
