//! Content hashes: a small stable key for caches and file names, and git's blob id for what a
//! person trusted or approved.

/// A small stable hash (FNV-1a), for keys that must not depend on the Rust version.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The content's git blob id (`sha1:…`, what `git hash-object` prints), the identity of a
/// trusted file's content.
pub fn content_hash(bytes: &[u8]) -> String {
    match gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes) {
        Ok(id) => format!("sha1:{id}"),
        // Only a detected SHA-1 collision attack fails: such content is never trusted.
        Err(_) => "sha1:collision".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_the_git_blob_id() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            content_hash(b"hello\n"),
            "sha1:ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }

    #[test]
    fn fnv1a_is_stable() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
