//! Match sources: what the app plays (local, vs bot, online, sync test, replay, training),
//! behind one trait, with the online view of a match and frame pacing.

pub(crate) mod local_match;
pub(crate) mod match_source;
pub(crate) mod net_match;
pub(crate) mod net_view;
pub(crate) mod pacing;
pub(crate) mod replay_match;
pub(crate) mod synctest_match;
pub(crate) mod training;
