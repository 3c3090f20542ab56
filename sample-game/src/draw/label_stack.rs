//! Keeping the small things drawn over the arena apart: health bars above fighters and damage
//! numbers pile into one unreadable smear when fighters touch, so each is placed in turn and
//! lifted above whatever it would overlap.
//!
//! Presentation only, recomputed every frame from what is shown: nothing here is remembered,
//! so a rollback that moves a fighter moves its labels with it.

use sdl2::rect::Rect;

/// Most lifts tried for one label; past that it is drawn where it ends up (a pile this tall
/// only happens with many popups on one spot, and the newest stays readable on top).
const MAX_LIFTS: usize = 24;

/// The labels placed so far this frame.
#[derive(Debug, Default)]
pub(crate) struct LabelStack {
    placed: Vec<Rect>,
}

impl LabelStack {
    /// Nothing placed.
    pub(crate) fn new() -> LabelStack {
        LabelStack::default()
    }

    /// Where `wanted` goes: where it asked, or lifted (keeping `gap` pixels clear) just above
    /// each placed label it would touch, until it touches none. The result is placed too.
    pub(crate) fn place(&mut self, wanted: Rect, gap: u32) -> Rect {
        let mut at = wanted;
        for _ in 0..MAX_LIFTS {
            let Some(blocker) = self.placed.iter().find(|p| touches(p, &at, gap)) else {
                break;
            };
            at.set_y(blocker.y() - gap as i32 - at.height() as i32);
        }
        self.placed.push(at);
        at
    }
}

/// Whether `a` and `b` overlap or come closer than `gap` pixels vertically (horizontally they
/// must truly overlap: labels side by side are readable).
fn touches(a: &Rect, b: &Rect, gap: u32) -> bool {
    let g = gap as i32;
    a.left() < b.right()
        && b.left() < a.right()
        && a.top() - g < b.bottom()
        && b.top() - g < a.bottom()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apart_labels_stay_where_they_asked() {
        let mut stack = LabelStack::new();
        let a = Rect::new(0, 100, 40, 6);
        let b = Rect::new(50, 100, 40, 6);
        assert_eq!(stack.place(a, 2), a);
        assert_eq!(stack.place(b, 2), b);
    }

    #[test]
    fn overlapping_labels_are_lifted_above_with_the_gap_and_never_touch() {
        let mut stack = LabelStack::new();
        let wanted = Rect::new(10, 100, 40, 6);
        let mut got = Vec::new();
        for dx in [0, 5, -7, 12, 3] {
            got.push(stack.place(Rect::new(10 + dx, 100, 40, 6), 2));
        }
        assert_eq!(got[0], wanted, "the first keeps its place");
        assert_eq!(got[1].y(), 100 - 2 - 6, "lifted just above the first");
        for (i, a) in got.iter().enumerate() {
            for b in &got[i + 1..] {
                assert!(!touches(a, b, 2), "{a:?} and {b:?} touch");
            }
            assert_eq!(a.height(), 6, "only moved, never resized");
        }
    }

    #[test]
    fn a_label_lifted_into_another_is_lifted_again() {
        let mut stack = LabelStack::new();
        stack.place(Rect::new(0, 100, 40, 6), 2);
        // Sits exactly where a label lifted off the first would go.
        stack.place(Rect::new(30, 92, 40, 6), 2);
        let third = stack.place(Rect::new(5, 100, 40, 6), 2);
        assert_eq!(third.y(), 84, "above both");
    }

    #[test]
    fn a_huge_pile_ends_without_hanging() {
        let mut stack = LabelStack::new();
        for _ in 0..500 {
            stack.place(Rect::new(0, 0, 10, 4), 1);
        }
        assert_eq!(stack.placed.len(), 500);
    }

    /// The edges: labels side by side (sharing only an edge) both stay; above or below, a
    /// label exactly `gap` away stays, one a pixel closer is lifted.
    #[test]
    fn labels_touch_only_when_they_overlap_across_or_come_within_the_gap() {
        let label = |x, y| Rect::new(x, y, 40, 6);
        for (first, second) in [
            (label(0, 100), label(40, 100)),
            (label(40, 100), label(0, 100)),
        ] {
            let mut stack = LabelStack::new();
            stack.place(first, 2);
            assert_eq!(stack.place(second, 2), second, "side by side");
        }
        // Below the first (bottom 106): 2 pixels clear stays, 1 does not.
        let second_at = |y| {
            let mut stack = LabelStack::new();
            stack.place(label(0, 100), 2);
            stack.place(label(10, y), 2).y()
        };
        assert_eq!(second_at(108), 108);
        assert_eq!(second_at(107), 100 - 2 - 6);
        // Above it (top 100): a bottom at 98 stays, at 99 is lifted.
        assert_eq!(second_at(92), 92);
        assert_eq!(second_at(93), 92);
        assert!(!touches(&label(0, 100), &label(0, 92), 2));
        assert!(touches(&label(0, 100), &label(0, 93), 2));
    }
}
