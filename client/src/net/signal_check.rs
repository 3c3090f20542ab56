//! The signals peers exchange through the signalling server (SDP offers and answers, ICE
//! candidates), checked before anything trusts them.
//!
//! matchbox 0.15 `unwrap`s what a peer sends it: a session description that does not parse
//! (`SdpInvalidSyntax`) or that WebRTC cannot apply panics its message loop, and with it every
//! connection of that peer — a running match included. So these bytes are checked twice, with
//! the same rules: our signalling server ([`crate::net::signal`]) disconnects a peer that sends a
//! signal that fails them, before it reaches anyone, and our client ([`super::signaller`])
//! drops such a signal from any server before matchbox sees it.
//!
//! The checks use the parsers of the WebRTC stack itself (`rtc-sdp` for descriptions, `rtc-ice`
//! for candidates), within explicit size limits, and then ask for what a data-channel
//! connection cannot do without: an `application` media section, ICE credentials and a DTLS
//! fingerprint.

use matchbox_socket::PeerSignal;
use serde::Deserialize;
use std::io::Cursor;

/// The longest websocket message a peer may send the signalling server (one request).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;
/// The longest session description relayed (ours are about 1 KB).
pub(crate) const MAX_SDP_BYTES: usize = 12 * 1024;
/// The longest ICE candidate relayed, as JSON (ours are about 200 bytes).
pub(crate) const MAX_CANDIDATE_BYTES: usize = 2 * 1024;
/// The most media sections a description may have (ours has one).
const MAX_MEDIA: usize = 8;

/// Checks one signal; `Err` says what is wrong with it.
pub(crate) fn check_signal(signal: &PeerSignal) -> Result<(), String> {
    match signal {
        PeerSignal::Offer(sdp) => check_sdp(sdp).map_err(|e| format!("malformed SDP offer: {e}")),
        PeerSignal::Answer(sdp) => check_sdp(sdp).map_err(|e| format!("malformed SDP answer: {e}")),
        PeerSignal::IceCandidate(json) => {
            check_candidate(json).map_err(|e| format!("malformed ICE candidate: {e}"))
        }
    }
}

/// A session description matchbox can apply: it parses, and it has a data-channel section with
/// ICE credentials and a DTLS fingerprint.
fn check_sdp(sdp: &str) -> Result<(), String> {
    if sdp.len() > MAX_SDP_BYTES {
        return Err(format!("{} bytes, more than {MAX_SDP_BYTES}", sdp.len()));
    }
    // The parser is not ours: should it panic on some input, that input is malformed.
    let parsed = std::panic::catch_unwind(|| {
        rtc_sdp::SessionDescription::unmarshal(&mut Cursor::new(sdp.as_bytes()))
    })
    .map_err(|_| "the SDP parser gave up on it".to_owned())?
    .map_err(|e| e.to_string())?;
    let media = &parsed.media_descriptions;
    if media.len() > MAX_MEDIA {
        return Err(format!(
            "{} media sections, more than {MAX_MEDIA}",
            media.len()
        ));
    }
    let Some(data) = media.iter().find(|m| m.media_name.media == "application") else {
        return Err("no data-channel (`m=application`) section".into());
    };
    // Each may sit at the session level or in the media section.
    for key in ["ice-ufrag", "ice-pwd", "fingerprint"] {
        let session = parsed.attribute(key).is_some_and(|v| !v.is_empty());
        let section = data.attribute(key).flatten().is_some_and(|v| !v.is_empty());
        if !(session || section) {
            return Err(format!("no `a={key}`"));
        }
    }
    Ok(())
}

/// What matchbox encodes an ICE candidate as (the JSON of an `RTCIceCandidateInit`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // the fields are checked by parsing them, not read
struct CandidateInit {
    candidate: String,
    sdp_mid: Option<String>,
    #[serde(rename = "sdpMLineIndex")]
    sdp_mline_index: Option<u16>,
    username_fragment: Option<String>,
}

/// An ICE candidate: `null` (no more candidates), or the JSON of one whose candidate line
/// parses (an empty line also ends the candidates).
fn check_candidate(json: &str) -> Result<(), String> {
    if json.len() > MAX_CANDIDATE_BYTES {
        return Err(format!(
            "{} bytes, more than {MAX_CANDIDATE_BYTES}",
            json.len()
        ));
    }
    if json == "null" {
        return Ok(());
    }
    let init: CandidateInit = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let line = init
        .candidate
        .strip_prefix("candidate:")
        .unwrap_or(&init.candidate);
    if line.is_empty() {
        return Ok(());
    }
    std::panic::catch_unwind(|| rtc_ice::candidate::unmarshal_candidate(line))
        .map_err(|_| "the candidate parser gave up on it".to_owned())?
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A description shaped like the ones webrtc-rs writes for matchbox's data channels.
    pub(crate) const GOOD_SDP: &str = "v=0\r\n\
        o=- 4215775240449105457 2 IN IP4 0.0.0.0\r\n\
        s=-\r\n\
        t=0 0\r\n\
        a=fingerprint:sha-256 7A:1C:A9:7D:1B:EC:4F:07:A1:8C:25:2D:2C:BD:E1:DE:6C:38:91:37:6D:1F:4D:A5:35:C5:F6:91:1F:A1:F8:D7\r\n\
        a=group:BUNDLE 0\r\n\
        m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n\
        c=IN IP4 0.0.0.0\r\n\
        a=setup:actpass\r\n\
        a=mid:0\r\n\
        a=sendrecv\r\n\
        a=sctp-port:5000\r\n\
        a=ice-ufrag:wMuZfWwBQVdDeXlg\r\n\
        a=ice-pwd:oeDpDTSQgYPxiSvPAkDVeHEyVmkNNDdd\r\n";

    /// A candidate as matchbox's native socket encodes it.
    pub(crate) const GOOD_CANDIDATE: &str = r#"{"candidate":"candidate:2230659927 1 udp 2130706431 192.168.1.20 51234 typ host","sdpMid":"0","sdpMLineIndex":0,"usernameFragment":"wMuZfWwBQVdDeXlg"}"#;

    #[test]
    fn well_formed_signals_pass() {
        for signal in [
            PeerSignal::Offer(GOOD_SDP.into()),
            PeerSignal::Answer(GOOD_SDP.into()),
            PeerSignal::IceCandidate(GOOD_CANDIDATE.into()),
            PeerSignal::IceCandidate("null".into()),
            PeerSignal::IceCandidate(r#"{"candidate":"","sdpMid":"0"}"#.into()),
        ] {
            assert_eq!(check_signal(&signal), Ok(()), "{signal:?}");
        }
    }

    /// The size limits to the byte: a description or a candidate of exactly the limit passes,
    /// one byte more is refused for its size; and the largest signal that passes still fits in
    /// one request to the signalling server, as the client sends it.
    #[test]
    fn signals_at_the_size_limits_pass_and_one_byte_more_does_not() {
        use matchbox_socket::PeerRequest;
        let sdp_of = |len: usize| {
            let pad = len - GOOD_SDP.len() - "a=x:\r\n".len();
            format!("{GOOD_SDP}a=x:{}\r\n", "y".repeat(pad))
        };
        let candidate_of = |len: usize| {
            format!(
                "{{{}{}",
                " ".repeat(len - GOOD_CANDIDATE.len()),
                &GOOD_CANDIDATE[1..]
            )
        };
        let largest = [
            PeerSignal::Offer(sdp_of(12 * 1024)),
            PeerSignal::IceCandidate(candidate_of(2 * 1024)),
        ];
        for signal in &largest {
            assert_eq!(check_signal(signal), Ok(()), "at the limit");
            let request = PeerRequest::Signal {
                receiver: serde_json::from_str("\"ffffffff-ffff-ffff-ffff-ffffffffffff\"")
                    .expect("a peer id"),
                data: signal.clone(),
            };
            let json = serde_json::to_string(&request).expect("json");
            assert!(json.len() <= MAX_MESSAGE_BYTES, "{} bytes", json.len());
        }
        for signal in [
            PeerSignal::Answer(sdp_of(12 * 1024 + 1)),
            PeerSignal::IceCandidate(candidate_of(2 * 1024 + 1)),
        ] {
            let refused = check_signal(&signal).expect_err("one byte more");
            assert!(refused.contains("bytes, more than"), "{refused}");
        }
    }

    /// A description may carry up to eight media sections (ours has one); nine or more are
    /// refused, naming the count.
    #[test]
    fn more_than_eight_media_sections_are_refused() {
        let with = |extra: usize| {
            let section = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=mid:x\r\n";
            format!("{GOOD_SDP}{}", section.repeat(extra))
        };
        assert_eq!(check_sdp(&with(7)), Ok(()), "eight");
        for extra in [8, 20] {
            let refused = check_sdp(&with(extra)).expect_err("too many");
            assert!(
                refused.contains(&format!("{} media sections", extra + 1)),
                "{refused}"
            );
        }
    }

    #[test]
    fn malformed_descriptions_are_refused_saying_why() {
        let without = |key: &str| {
            GOOD_SDP
                .split("\r\n")
                .filter(|l| !l.starts_with(&format!("a={key}")))
                .collect::<Vec<_>>()
                .join("\r\n")
        };
        for (sdp, why) in [
            ("garbage".to_owned(), ""),
            (String::new(), ""),
            ("v=0\r\nthis is not sdp\r\n".into(), ""),
            (
                GOOD_SDP.replace("m=application", "m=audio"),
                "no data-channel",
            ),
            (without("fingerprint"), "fingerprint"),
            (without("ice-ufrag"), "ice-ufrag"),
            (without("ice-pwd"), "ice-pwd"),
            (
                format!("{GOOD_SDP}{}", "a=x:y\r\n".repeat(2000)),
                "more than",
            ),
        ] {
            let e = check_signal(&PeerSignal::Answer(sdp.clone())).expect_err(&sdp);
            assert!(
                e.starts_with("malformed SDP answer") && e.contains(why),
                "{e}"
            );
        }
    }

    #[test]
    fn malformed_candidates_are_refused() {
        for json in [
            "",
            "{}",
            "garbage",
            r#"{"candidate":"candidate:1 1 udp"}"#,
            r#"{"candidate":"candidate:x y udp 1 1.2.3.4 5 typ host"}"#,
            r#"{"candidate":"candidate:1 1 udp 1 1.2.3.4 99999999 typ host"}"#,
            r#"{"candidate":7}"#,
            &format!(r#"{{"candidate":"{}"}}"#, "a".repeat(3000)),
        ] {
            let e = check_signal(&PeerSignal::IceCandidate(json.into())).expect_err(json);
            assert!(e.starts_with("malformed ICE candidate"), "{e}");
        }
    }

    proptest! {
        /// Any text, as a description or a candidate, is accepted or refused, never a panic
        /// that escapes.
        #[test]
        fn any_text_is_checked_without_panic(s in "\\PC{0,300}") {
            let _ = check_signal(&PeerSignal::Offer(s.clone()));
            let _ = check_signal(&PeerSignal::IceCandidate(s));
        }

        /// Any one line of a good description damaged: accepted or refused, never a panic.
        #[test]
        fn a_damaged_good_description_is_checked_without_panic(
            line in 0usize..14,
            junk in "\\PC{0,40}",
        ) {
            let mut lines: Vec<String> = GOOD_SDP.split("\r\n").map(str::to_owned).collect();
            if let Some(l) = lines.get_mut(line) {
                *l = junk;
            }
            let _ = check_signal(&PeerSignal::Answer(lines.join("\r\n")));
        }
    }
}
