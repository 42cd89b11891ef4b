//! Seals on the records only a person may make (trusted repository files, approved commands):
//! an HMAC-SHA256 over what the record says, with a key kept in its own directory of the state
//! dir (`key/seal.key`, mode 0600).
//!
//! A record copied into `trust.json` or `approvals.json` without a seal made with this key
//! counts for nothing. What holds depends on who can read the key:
//! - under hookjudge's boundary (`hookjudge run-confined`, see the `boundary` module) the
//!   agent's commands can neither read the key nor write the state dir, so they cannot make a
//!   seal, and a copy of the binary run by them cannot either (it runs confined too);
//! - without a boundary the key is a plain file of the user's, which the agent's commands can
//!   read like any other: the seal then only stops records written by hand or copied from
//!   another machine, and the checks on who runs `trust`/`approve` (`agent::human`) are what
//!   is left.
//!
//! The key is made by the first `trust`, `approve` or `init` that seals something; reading
//! it is the gate's slow path only (a record to check), never its quiet path.

use std::io::Write;
use std::path::PathBuf;

use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use crate::support::dirs;

/// The directory that holds the key: the boundary denies reading it to confined commands.
pub fn key_dir() -> PathBuf {
    dirs::state_dir().join("key")
}

fn key_path() -> PathBuf {
    key_dir().join("seal.key")
}

/// The seal of `parts` (a record's fields in a fixed order), or `None` when there is no key.
pub fn seal(parts: &[&str]) -> Option<String> {
    let key = read_key()?;
    Some(tag(&key, parts))
}

/// The seal of `parts`, making the key first if there is none yet (for the commands a person
/// runs: `trust`, `approve`, `init`).
pub fn seal_or_make_key(parts: &[&str]) -> std::io::Result<String> {
    let key = match read_key() {
        Some(key) => key,
        None => make_key()?,
    };
    Ok(tag(&key, parts))
}

/// Whether `seal` is the seal of `parts` under this user's key.
pub fn verify(parts: &[&str], seal: &str) -> bool {
    let Some(key) = read_key() else { return false };
    let Some(bytes) = from_hex(seal) else {
        return false;
    };
    hmac::verify(
        &hmac::Key::new(hmac::HMAC_SHA256, &key),
        &message(parts),
        &bytes,
    )
    .is_ok()
}

fn tag(key: &[u8], parts: &[&str]) -> String {
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), &message(parts));
    tag.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// The parts, each length-prefixed, so that no two records share a message.
fn message(parts: &[&str]) -> Vec<u8> {
    let mut out = b"hookjudge-seal-v1".to_vec();
    for part in parts {
        out.extend_from_slice(&(part.len() as u64).to_be_bytes());
        out.extend_from_slice(part.as_bytes());
    }
    out
}

fn read_key() -> Option<Vec<u8>> {
    let key = std::fs::read(key_path()).ok()?;
    (key.len() == 32).then_some(key)
}

fn make_key() -> std::io::Result<Vec<u8>> {
    let mut key = vec![0u8; 32];
    SystemRandom::new()
        .fill(&mut key)
        .map_err(|_| std::io::Error::other("the system's random source failed"))?;
    let dir = key_dir();
    std::fs::create_dir_all(&dir)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    }
    match options.open(key_path()) {
        Ok(mut file) => {
            file.write_all(&key)?;
            file.sync_all()?;
            Ok(key)
        }
        // Another process made it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read_key().ok_or_else(|| std::io::Error::other("the seal key is not 32 bytes"))
        }
        Err(e) => Err(e),
    }
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_binds_every_part_and_their_boundaries() {
        let key = [7u8; 32];
        let a = tag(&key, &["trust", "/r/.hookjudge.json", "sha1:1"]);
        assert_eq!(a.len(), 64);
        assert_ne!(a, tag(&key, &["trust", "/r/.hookjudge.json", "sha1:2"]));
        assert_ne!(tag(&key, &["ab", "c"]), tag(&key, &["a", "bc"]));
        assert_ne!(
            a,
            tag(&[8u8; 32], &["trust", "/r/.hookjudge.json", "sha1:1"])
        );
        assert_eq!(from_hex(&a).map(|b| b.len()), Some(32));
        assert_eq!(from_hex("zz"), None);
    }
}
