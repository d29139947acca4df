//! Content digests, `sha256:<hex>`: what proves a file unchanged since its
//! preview (plan, apply, undo), names a workspace's state dir, and identifies
//! the running build (the store).

use sha2::{Digest, Sha256};

/// `sha256:<hex>` of some bytes.
pub fn digest(bytes: &[u8]) -> String {
    written(Sha256::digest(bytes).as_slice())
}

/// `sha256:<hex>` of a hash fed in parts (`h`, e.g. a file read in blocks).
pub(crate) fn finish(h: Sha256) -> String {
    written(h.finalize().as_slice())
}

/// `sha256:` and `bytes` in lowercase hex.
fn written(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(7 + 2 * bytes.len());
    s.push_str("sha256:");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_digest_is_sha256_in_lowercase_hex() {
        assert_eq!(super::digest(b"abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let mut h = <sha2::Sha256 as sha2::Digest>::new();
        sha2::Digest::update(&mut h, b"ab");
        sha2::Digest::update(&mut h, b"c");
        assert_eq!(super::finish(h), super::digest(b"abc"));
    }
}
