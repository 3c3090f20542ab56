//! `.phases` files: the inputs of one step and the state hash after each of its phases.
//!
//! Beside each dumped snapshot `<role>-tick-<t>.snapshot` a peer writes `<role>-tick-<t>.phases`
//! for the step that reached tick `t`. The files come from another machine: they are read with a
//! size limit and parsed strictly (every phase once, in order; 16-digit hex hashes; a last line
//! `check <xxh3 of everything before it>`, so a flipped bit is damage, not a phase that
//! differs), and a bad file is an error naming its line.

use crate::error::Error;
use game_api::{Game, PhaseHashes, SectionHash, Tick};
use std::fmt::Write as _;
use std::path::Path;

/// Largest `.phases` file read (a real one is about 1.3 KB).
const MAX_TRACE_BYTES: u64 = 64 * 1024;

/// Longest input description, in characters (not bytes): [`describe_input`] cuts there, and
/// a `.phases` file's longer one is refused.
const MAX_INPUT_TEXT: usize = 200;

/// The per-phase hashes of one step of the game `G`, with the inputs it was simulated with.
pub struct PhaseTrace<G: Game> {
    /// The hashes after every phase of the step from `hashes.tick` to `hashes.tick + 1`.
    pub hashes: PhaseHashes<G::Hash>,
    /// Every player's input, in slot order, as written (`buttons=.. move=x,y view=t+f`).
    pub inputs: Vec<String>,
}

impl<G: Game> Clone for PhaseTrace<G> {
    fn clone(&self) -> Self {
        PhaseTrace {
            hashes: self.hashes,
            inputs: self.inputs.clone(),
        }
    }
}

impl<G: Game> PartialEq for PhaseTrace<G> {
    fn eq(&self, other: &Self) -> bool {
        (self.hashes, &self.inputs) == (other.hashes, &other.inputs)
    }
}

impl<G: Game> Eq for PhaseTrace<G> {}

impl<G: Game> std::fmt::Debug for PhaseTrace<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhaseTrace")
            .field("game", &G::NAME)
            .field("hashes", &self.hashes)
            .field("inputs", &self.inputs)
            .finish()
    }
}

/// One input as `.phases` files and reports print it: its `Debug` form, on one line (a line
/// feed or carriage return printed becomes a space: a `\r` before the line's end would be
/// read back as part of a `\r\n` and lost).
#[must_use]
pub fn describe_input<I: std::fmt::Debug>(input: &I) -> String {
    let text = format!("{input:?}").replace(['\n', '\r'], " ");
    match text.char_indices().nth(MAX_INPUT_TEXT) {
        Some((end, _)) => text[..end].to_owned(),
        None => text,
    }
}

impl<G: Game> PhaseTrace<G> {
    /// A trace of `hashes` from `inputs`.
    #[must_use]
    pub fn new(hashes: PhaseHashes<G::Hash>, inputs: &[G::Input]) -> PhaseTrace<G> {
        PhaseTrace {
            hashes,
            inputs: inputs.iter().map(describe_input).collect(),
        }
    }

    /// The file's text: `step <tick>`, one `input <slot> ...` line per player, then one
    /// `<phase> <combined> <section hashes...>` line per phase (for the duel: `players
    /// projectiles maze history rest`).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "# state hashes after each phase of the step from tick {} to {}\nstep {}\n",
            self.hashes.tick,
            u64::from(self.hashes.tick) + 1,
            self.hashes.tick
        );
        for (slot, input) in self.inputs.iter().enumerate() {
            let _ = writeln!(out, "input {slot} {input}");
        }
        for (&phase, hash) in G::PHASES.iter().zip(self.hashes.after()) {
            let _ = write!(out, "{} {:016x}", G::phase_name(phase), hash.combined());
            for section in 0..<G::Hash as SectionHash>::SECTIONS.len() {
                let _ = write!(out, " {:016x}", hash.section(section));
            }
            out.push('\n');
        }
        let check = xxhash_rust::xxh3::xxh3_64(out.as_bytes());
        let _ = writeln!(out, "check {check:016x}");
        out
    }

    /// Parses [`PhaseTrace::to_text`] output strictly.
    ///
    /// # Errors
    /// [`Error::PhaseTraceSyntax`] naming the line.
    pub fn parse(path: &Path, text: &str) -> Result<PhaseTrace<G>, Error> {
        let bad = |line: usize, reason: String| Error::PhaseTraceSyntax {
            path: path.to_owned(),
            line,
            reason,
        };
        let text = checked_body(text).map_err(|(line, reason)| bad(line, reason))?;
        let mut tick = None;
        let mut inputs = Vec::new();
        let mut after = Vec::with_capacity(G::PHASES.len());
        let mut phases = 0;
        for (index, line) in text.lines().enumerate() {
            let n = index + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "step" if tick.is_none() => {
                    tick = Some(
                        rest.parse::<Tick>()
                            .map_err(|e| bad(n, format!("tick `{rest}`: {e}")))?,
                    );
                }
                "input" if phases == 0 && inputs.len() < G::MAX_PLAYERS => {
                    let (slot, input) = rest.split_once(' ').unwrap_or((rest, ""));
                    if slot != inputs.len().to_string() || input.chars().count() > MAX_INPUT_TEXT {
                        return Err(bad(n, format!("input line for slot `{slot}` out of order")));
                    }
                    inputs.push(input.to_owned());
                }
                name if G::PHASES.get(phases).map(|&p| G::phase_name(p)) == Some(name) => {
                    after.push(parse_hash::<G::Hash>(rest).map_err(|reason| bad(n, reason))?);
                    phases += 1;
                }
                other => {
                    let expected = G::PHASES
                        .get(phases)
                        .map_or("nothing more", |&p| G::phase_name(p));
                    return Err(bad(
                        n,
                        format!("unexpected `{other}` (expected {expected})"),
                    ));
                }
            }
        }
        let Some(tick) = tick else {
            return Err(bad(0, "no `step` line".into()));
        };
        if phases < G::PHASES.len() {
            return Err(bad(0, format!("{phases} of {} phases", G::PHASES.len())));
        }
        Ok(PhaseTrace {
            hashes: PhaseHashes::new(tick, &after),
            inputs,
        })
    }
}

/// The text before its last line, once that line, `check <16 lower-case hex digits>`, holds
/// for it; else the line number and why not.
fn checked_body(text: &str) -> Result<&str, (usize, String)> {
    let body_end = text
        .strip_suffix('\n')
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let last_line = text.lines().count();
    let (body, check_line) = text.split_at(body_end);
    let stated = check_line
        .strip_prefix("check ")
        .and_then(|c| c.strip_suffix('\n'))
        // Lower-case only: `A` is `a` with one bit flipped, and would read as the same.
        .filter(|c| c.len() == 16 && c.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .and_then(|c| u64::from_str_radix(c, 16).ok())
        .ok_or_else(|| {
            (
                last_line,
                "the last line is not `check <16 hex digits>`".to_owned(),
            )
        })?;
    let actual = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
    if stated != actual {
        return Err((
            last_line,
            format!(
                "check {stated:016x} does not hold (the text gives {actual:016x}): the file is \
                 damaged"
            ),
        ));
    }
    Ok(body)
}

/// `<combined> <section>...`, each 16 lower-case hex digits; the combined hash must be the one
/// the sections give.
fn parse_hash<H: SectionHash>(text: &str) -> Result<H, String> {
    let words: Vec<&str> = text.split(' ').collect();
    let expected = 1 + H::SECTIONS.len();
    if words.len() != expected {
        return Err(format!("expected {expected} hashes, found {}", words.len()));
    }
    let mut values = Vec::with_capacity(expected);
    for word in &words {
        if word.len() != 16 {
            return Err(format!("hash `{word}` is not 16 hex digits"));
        }
        values.push(u64::from_str_radix(word, 16).map_err(|e| format!("hash `{word}`: {e}"))?);
    }
    let hash = H::from_sections(&values[1..]).ok_or("wrong number of sections")?;
    if hash.combined() != values[0] {
        return Err(format!(
            "combined hash {:016x} is not the one its sections give",
            values[0]
        ));
    }
    Ok(hash)
}

/// Writes `<stem>.phases` into `dir`.
///
/// # Errors
/// [`Error::Io`].
pub fn write_phase_trace<G: Game>(
    dir: &Path,
    stem: &str,
    trace: &PhaseTrace<G>,
) -> Result<(), Error> {
    let path = dir.join(format!("{stem}.phases"));
    std::fs::write(&path, trace.to_text()).map_err(|e| Error::io(&path, e))
}

/// Reads a `.phases` file (at most 64 KiB).
///
/// # Errors
/// [`Error::Io`], [`Error::LogTooLarge`], [`Error::PhaseTraceSyntax`].
pub fn read_phase_trace<G: Game>(path: &Path) -> Result<PhaseTrace<G>, Error> {
    let bytes = crate::logs::matchlog::read_limited(path, MAX_TRACE_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|_| Error::PhaseTraceSyntax {
        path: path.to_owned(),
        line: 0,
        reason: "not UTF-8 text".into(),
    })?;
    PhaseTrace::parse(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Rules, WireInput, World};

    fn trace() -> PhaseTrace<World> {
        let mut world = World::new(Rules::default(), 3, 2).expect("world");
        let inputs = [WireInput::default(); 2];
        let mut hashes = PhaseHashes::default();
        Game::step_traced(&mut world, &inputs, &mut hashes).expect("step");
        PhaseTrace::new(hashes, &inputs)
    }

    #[test]
    fn a_phase_trace_reads_back_as_written() {
        let t = trace();
        let back = PhaseTrace::<World>::parse(Path::new("t.phases"), &t.to_text()).expect("parse");
        assert_eq!(back, t);
    }

    /// `text` with its check line replaced by one that holds, as a forger would write it.
    fn rechecked(text: &str) -> String {
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with("check "))
            .map(|l| format!("{l}\n"))
            .collect();
        format!(
            "{body}check {:016x}\n",
            xxhash_rust::xxh3::xxh3_64(body.as_bytes())
        )
    }

    /// Forged traces (the check recomputed) are refused by the parser, naming the line.
    #[test]
    fn forged_phase_traces_are_refused_with_their_line() {
        let text = trace().to_text();
        assert_eq!(rechecked(&text), text, "the forger's check is the writer's");
        let cases = [
            text.replace("movement", "moving"),
            text.replace("step 0", "step x"),
            text.lines().take(8).collect::<Vec<_>>().join("\n"),
            text.replace("validate ", "validate 0 "),
            format!("{text}events {}\n", "0".repeat(16)),
            text.replace("input 1", "input 7"),
        ];
        for bad in cases {
            let err = PhaseTrace::<World>::parse(Path::new("t.phases"), &rechecked(&bad))
                .expect_err(&bad);
            assert!(matches!(err, Error::PhaseTraceSyntax { .. }), "{err}");
        }
    }

    /// The line number and reason of a refused text.
    fn refused(text: &str) -> (usize, String) {
        match PhaseTrace::<World>::parse(Path::new("t.phases"), text) {
            Err(Error::PhaseTraceSyntax { line, reason, .. }) => (line, reason),
            other => panic!("not refused as syntax: {other:?}\n{text}"),
        }
    }

    /// The 1-based number of the first line of `text` that starts with `prefix`.
    fn line_of(text: &str, prefix: &str) -> usize {
        1 + text
            .lines()
            .position(|l| l.starts_with(prefix))
            .expect("the line is there")
    }

    /// `text` with `line` inserted before its first line that starts with `before`.
    fn inserted(text: &str, before: &str, line: &str) -> String {
        let at = text
            .find(&format!("\n{before}"))
            .expect("the line is there")
            + 1;
        format!("{}{line}\n{}", &text[..at], &text[at..])
    }

    /// Two traces are equal only if both their hashes and their inputs are.
    #[test]
    fn traces_that_differ_in_a_hash_or_an_input_are_not_equal() {
        let t = trace();
        assert_eq!(t.clone(), t);
        let mut inputs = t.clone();
        inputs.inputs[1].push('x');
        assert_ne!(inputs, t);
        let mut world = World::new(Rules::default(), 4, 2).expect("world");
        let mut hashes = PhaseHashes::default();
        Game::step_traced(&mut world, &[WireInput::default(); 2], &mut hashes).expect("step");
        let other = PhaseTrace::<World> {
            hashes,
            inputs: t.inputs.clone(),
        };
        assert_ne!(other, t, "another seed's hashes");
    }

    /// A trace's debug form says which game it is of and shows its hashes and inputs.
    #[test]
    fn the_debug_form_names_the_game_and_shows_hashes_and_inputs() {
        let t = trace();
        let text = format!("{t:?}");
        assert!(text.contains(&format!("{:?}", World::NAME)), "{text}");
        assert!(text.contains(&format!("{:?}", t.hashes)), "{text}");
        assert!(text.contains(&format!("{:?}", t.inputs)), "{text}");
    }

    /// An input is described by its `Debug` form on one line, cut to its first 200 characters.
    #[test]
    fn an_input_is_described_on_one_line_of_at_most_200_characters() {
        struct Lines(usize);
        impl std::fmt::Debug for Lines {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&"é\n".repeat(self.0))
            }
        }
        assert_eq!(describe_input(&Lines(2)), "é é ");
        assert_eq!(
            describe_input(&WireInput::default()),
            format!("{:?}", WireInput::default())
        );
        let long = describe_input(&Lines(150));
        assert_eq!(long.chars().count(), 200, "{long}");
        assert_eq!(long, "é ".repeat(100));
    }

    /// The longest description an input can have reads back, whatever its characters; one
    /// character more is refused, naming its line.
    #[test]
    fn an_input_of_the_longest_description_reads_back_and_a_longer_one_is_refused() {
        let mut t = trace();
        for text in ["x".repeat(200), "é".repeat(200)] {
            t.inputs[1] = text;
            let back = PhaseTrace::<World>::parse(Path::new("t.phases"), &t.to_text());
            assert_eq!(back.expect("the longest input reads"), t);
            let mut longer = t.clone();
            longer.inputs[1].push('x');
            let text = longer.to_text();
            let (line, reason) = refused(&text);
            assert_eq!(line, line_of(&text, "input 1"), "{reason}");
        }
    }

    /// A trace holds at most one input per player the game allows, all before the phases.
    #[test]
    fn inputs_beyond_the_largest_match_or_after_a_phase_are_refused() {
        let mut world = World::new(Rules::default(), 3, World::MAX_PLAYERS).expect("world");
        let inputs = vec![WireInput::default(); World::MAX_PLAYERS];
        let mut hashes = PhaseHashes::default();
        Game::step_traced(&mut world, &inputs, &mut hashes).expect("step");
        let full = PhaseTrace::<World>::new(hashes, &inputs);
        let text = full.to_text();
        let back = PhaseTrace::<World>::parse(Path::new("t.phases"), &text);
        assert_eq!(back.expect("a full match reads"), full);

        let one_more = format!("input {} {}", World::MAX_PLAYERS, full.inputs[0]);
        let first_phase = World::phase_name(World::PHASES[0]);
        let bad = rechecked(&inserted(&text, first_phase, &one_more));
        assert_eq!(refused(&bad).0, line_of(&bad, &one_more));

        let two = trace().to_text();
        let second_phase = World::phase_name(World::PHASES[1]);
        let late = format!("input 2 {}", full.inputs[0]);
        let bad = rechecked(&inserted(&two, second_phase, &late));
        assert_eq!(refused(&bad).0, line_of(&bad, &late));
    }

    /// A trace is of one step: a second `step` line is refused, naming its line.
    #[test]
    fn a_second_step_line_is_refused() {
        let text = trace().to_text();
        let bad = rechecked(&inserted(&text, "input 0", "step 0"));
        assert_eq!(refused(&bad).0, line_of(&bad, "input 0") - 1);
    }

    /// An error names the line of the text that is wrong, counted from 1.
    #[test]
    fn an_error_names_the_line_it_is_on() {
        let text = rechecked(&trace().to_text().replace("step 0", "step x"));
        let (line, reason) = refused(&text);
        assert_eq!(line, line_of(&text, "step x"), "{reason}");
        assert!(line > 1, "the header comment comes first");
    }

    /// The check line's digits are lower-case: upper-case ones (each one flipped bit away from
    /// the lower-case) are refused, naming the last line.
    #[test]
    fn a_check_line_in_upper_case_is_refused() {
        let text = trace().to_text();
        let at = text.rfind("check ").expect("a check line") + "check ".len();
        let upper = format!("{}{}", &text[..at], text[at..].to_uppercase());
        assert_ne!(upper, text, "the check has a letter");
        assert_eq!(refused(&upper).0, text.lines().count());
    }

    /// A `.phases` file of 64 KiB is read; one byte more is refused by its length.
    #[test]
    fn a_phases_file_over_64_kib_is_refused_by_its_length() {
        let dir = std::env::temp_dir().join(format!("duel-phases-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("host-tick-1.phases");
        let t = trace();
        let text = t.to_text();
        // Padded with a comment line (`#`, the padding, a newline) to 64 KiB, check included.
        let pad = 64 * 1024 - text.len() - 2;
        let padded = |pad: usize| rechecked(&format!("#{}\n{text}", "p".repeat(pad)));
        let exact = padded(pad);
        assert_eq!(exact.len(), 64 * 1024);
        std::fs::write(&path, &exact).expect("write");
        assert_eq!(read_phase_trace::<World>(&path).expect("64 KiB reads"), t);
        std::fs::write(&path, padded(pad + 1)).expect("write");
        let err = read_phase_trace::<World>(&path).expect_err("too long");
        assert!(matches!(err, Error::LogTooLarge { .. }), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    proptest::proptest! {
        /// Issue 18 item 8: one flipped bit anywhere in a `.phases` file is refused (it used to
        /// read as a phase whose hash differs, or as other inputs).
        #[test]
        fn any_flipped_bit_is_refused(at in proptest::prelude::any::<usize>(), bit in 0u8..7) {
            let mut bytes = trace().to_text().into_bytes();
            let i = at % bytes.len();
            bytes[i] ^= 1 << bit;
            if let Ok(text) = String::from_utf8(bytes) {
                proptest::prop_assert!(PhaseTrace::<World>::parse(Path::new("t.phases"), &text).is_err());
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_is_refused_without_panicking(text in ".{0,400}") {
            let _ = PhaseTrace::<World>::parse(Path::new("t.phases"), &text);
        }
    }

    /// Any `Debug` text, as an input's description: raw, so every character reaches the file.
    struct Raw(String);

    impl std::fmt::Debug for Raw {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0)
        }
    }

    proptest::proptest! {
        /// Whatever an input prints (any characters, line breaks and other whitespace, any
        /// length), its description as written reads back as written: a `.phases` file a
        /// tool wrote is always one the tool reads.
        #[test]
        fn any_input_description_reads_back_as_written(
            first in "(?s).{0,300}",
            second in "[ \t\r\n\u{0b}\u{0c}\u{85}\u{2028}a-zé€😀]{0,260}",
        ) {
            let mut t = trace();
            t.inputs[0] = describe_input(&Raw(first));
            t.inputs[1] = describe_input(&Raw(second));
            let back = PhaseTrace::<World>::parse(Path::new("t.phases"), &t.to_text());
            proptest::prop_assert_eq!(back.expect("a written trace reads"), t);
        }
    }
}
