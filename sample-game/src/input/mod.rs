//! Input: keyboards and controllers read into `InputCmd`s, and the key bindings.

pub(crate) mod key_bindings;
pub(crate) mod local_input;
