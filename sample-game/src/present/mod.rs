//! Presentation beyond drawing: effects and sound from the match's events, the smoothing of
//! rollback corrections, interpolation between ticks, and the remote player's view.

pub(crate) mod effects;
pub(crate) mod interpolate;
pub(crate) mod remote_view;
pub mod smoothing;
pub mod sound;
