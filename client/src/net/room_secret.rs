//! A room's secret: what keeps strangers who know a room's name out of it.
//!
//! A room link carries it as a query parameter, `ws://HOST:PORT/ROOM?secret=SECRET`. Our
//! signalling server ([`crate::net::signal`]) lets the first peer of a room fix the room's secret
//! (or open it without one); any later peer presenting another secret, or none, is refused at
//! the websocket upgrade, before it is introduced to anyone. A room whose last peer has left
//! forgets its secret.
//!
//! [`RoomSecret::generate`] draws 120 bits from the operating system's random source and
//! writes them in lowercase base32 (24 characters: short enough to read out, far too many to
//! guess against a server). A secret given by hand must be 16 to 64 characters from
//! `A-Z a-z 0-9 - _`, so that it travels in a URL unchanged and is not a word.
//!
//! These bytes come from the command line, a pasted link, or (on the server) any stranger's
//! request: [`RoomSecret::parse`] checks them with explicit limits, and is property-tested.

use std::fmt;

/// The query parameter of a room link that carries its secret.
pub const SECRET_PARAM: &str = "secret";

/// A room secret: 16 to 64 characters from `A-Z a-z 0-9 - _`.
///
/// Its `Debug` does not show it (it ends up in logs); [`RoomSecret::as_str`] does.
#[derive(Clone)]
pub struct RoomSecret(String);

/// Compares in time that does not depend on where two secrets of one length differ (the
/// server compares what strangers present with a room's secret): `subtle`'s comparison.
impl PartialEq for RoomSecret {
    fn eq(&self, other: &RoomSecret) -> bool {
        use subtle::ConstantTimeEq as _;
        self.0.as_bytes().ct_eq(other.0.as_bytes()).into()
    }
}

impl Eq for RoomSecret {}

impl RoomSecret {
    /// The fewest characters a secret may have.
    pub const MIN_LEN: usize = 16;
    /// The most characters a secret may have.
    pub const MAX_LEN: usize = 64;
    /// Random bytes in a generated secret (120 bits).
    const GENERATED_BYTES: usize = 15;

    /// A new secret from the operating system's random source: 120 bits as 24 lowercase
    /// base32 characters.
    ///
    /// # Errors
    /// A message when the operating system gives no random bytes.
    pub fn generate() -> Result<RoomSecret, String> {
        let mut bytes = [0u8; Self::GENERATED_BYTES];
        getrandom::fill(&mut bytes)
            .map_err(|e| format!("no random bytes for a room secret: {e}"))?;
        Ok(RoomSecret(base32_lower(&bytes)))
    }

    /// Checks a secret given by hand or found in a link.
    ///
    /// # Errors
    /// A message saying what is wrong with it (it never repeats the text, which may be a
    /// mistyped secret).
    pub fn parse(text: &str) -> Result<RoomSecret, String> {
        let len = text.chars().count();
        if !(Self::MIN_LEN..=Self::MAX_LEN).contains(&len) {
            return Err(format!(
                "the room secret is {len} characters long; it takes {} to {} (leave it out to \
                 have one generated)",
                Self::MIN_LEN,
                Self::MAX_LEN
            ));
        }
        if let Some(bad) = text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_')))
        {
            return Err(format!(
                "the room secret holds {bad:?}; use letters, digits, `-` and `_`"
            ));
        }
        Ok(RoomSecret(text.to_owned()))
    }

    /// The secret's text, as it goes into a link.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for RoomSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RoomSecret(..)")
    }
}

/// RFC 4648 base32 in lowercase, without padding.
fn base32_lower(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((acc >> bits) & 31) as usize]));
        }
        acc &= (1 << bits) - 1;
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((acc << (5 - bits)) & 31) as usize]));
    }
    out
}

/// Splits a room URL's query (what follows `?`) into its secret: `Ok(None)` for no query,
/// `Ok(Some)` for `secret=S` with a valid `S`.
///
/// # Errors
/// Any other query (another parameter, the secret twice, a malformed secret).
pub fn parse_query(query: Option<&str>) -> Result<Option<RoomSecret>, String> {
    let Some(query) = query else {
        return Ok(None);
    };
    let Some(secret) = query
        .strip_prefix(SECRET_PARAM)
        .and_then(|q| q.strip_prefix('='))
    else {
        return Err(format!(
            "a room link takes only `?{SECRET_PARAM}=SECRET` after the room"
        ));
    };
    // The secret's characters need no escaping, so `&`, `%` or `=` in it are refused here.
    RoomSecret::parse(secret).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn generated_secrets_are_long_lowercase_base32_and_differ() {
        let a = RoomSecret::generate().expect("random");
        let b = RoomSecret::generate().expect("random");
        assert_eq!(a.as_str().len(), 24, "120 bits in base32");
        assert!(a
            .as_str()
            .bytes()
            .all(|c| c.is_ascii_lowercase() || (b'2'..=b'7').contains(&c)));
        assert_ne!(a, b);
        assert_eq!(
            RoomSecret::parse(a.as_str()),
            Ok(a.clone()),
            "it parses back"
        );
        assert!(!format!("{a:?}").contains(a.as_str()), "Debug hides it");
    }

    #[test]
    fn base32_matches_rfc_4648() {
        // RFC 4648 section 10, lowercased and unpadded.
        for (raw, encoded) in [
            ("", ""),
            ("f", "my"),
            ("fo", "mzxq"),
            ("foo", "mzxw6"),
            ("foob", "mzxw6yq"),
            ("fooba", "mzxw6ytb"),
            ("foobar", "mzxw6ytboi"),
        ] {
            assert_eq!(base32_lower(raw.as_bytes()), encoded, "{raw:?}");
        }
    }

    #[test]
    fn hand_given_secrets_are_checked() {
        assert!(RoomSecret::parse("correct-horse_battery9").is_ok());
        for bad in [
            "",
            "hunter2",
            "fifteen-chars-x",
            "has a space in it ok",
            "ünïcödé-secret-long",
            "amp&ersand-is-not-ok",
            &"x".repeat(65),
        ] {
            let e = RoomSecret::parse(bad).expect_err(bad);
            assert!(
                bad.len() < 4 || !e.contains(bad),
                "the message repeats it: {e}"
            );
        }
    }

    #[test]
    fn queries_carry_only_a_secret() {
        assert_eq!(parse_query(None), Ok(None));
        let s = "abcdefghijklmnop";
        assert_eq!(
            parse_query(Some(&format!("secret={s}"))),
            Ok(Some(RoomSecret(s.into())))
        );
        for bad in [
            "",
            "secret",
            "secret=",
            "secret=short",
            "other=abcdefghijklmnop",
            "secret=abcdefghijklmnop&secret=abcdefghijklmnop",
            "secret=abcdefghijklmnop&x=1",
        ] {
            assert!(parse_query(Some(bad)).is_err(), "{bad:?}");
        }
    }

    proptest! {
        /// Any text is a secret or an error, never a panic; a secret holds only URL-safe
        /// characters, within the limits, and is the text itself.
        #[test]
        fn any_text_parses_as_a_secret_or_is_refused(s in "\\PC{0,80}") {
            if let Ok(secret) = RoomSecret::parse(&s) {
                prop_assert_eq!(secret.as_str(), s.as_str());
                prop_assert!((RoomSecret::MIN_LEN..=RoomSecret::MAX_LEN).contains(&s.len()));
                prop_assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b)));
            }
            let _ = parse_query(Some(&s));
        }

        /// Base32 output is 8 characters per 5 bytes (rounded up), from the alphabet.
        #[test]
        fn base32_has_the_right_length(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let text = base32_lower(&bytes);
            prop_assert_eq!(text.len(), (bytes.len() * 8).div_ceil(5));
            prop_assert!(text.bytes().all(|c| c.is_ascii_lowercase() || (b'2'..=b'7').contains(&c)));
        }
    }

    /// Two secrets are equal only byte for byte: one character off anywhere, or one
    /// character more, is another secret.
    #[test]
    fn secrets_are_equal_only_when_every_byte_is() {
        let secret = |t: &str| RoomSecret::parse(t).expect("a secret");
        let base = "abcdefghijklmnop";
        assert!(secret(base) == secret(base));
        assert!(
            secret(base) != secret("abcdefghijklmnoq"),
            "the last differs"
        );
        assert!(
            secret(base) != secret("bbcdefghijklmnop"),
            "the first differs"
        );
        assert!(secret(base) != secret("abcdefghijklmnopq"), "a prefix");
        assert!(secret("abcdefghijklmnopq") != secret(base), "longer");
    }

    /// A secret's debug form (what ends up in logs) names it but never shows it.
    #[test]
    fn a_secrets_debug_form_hides_it() {
        let secret = RoomSecret::parse("abcdefghijklmnop").expect("a secret");
        let shown = format!("{secret:?} {:?}", Some(&secret));
        assert_eq!(shown, "RoomSecret(..) Some(RoomSecret(..))");
    }
}
