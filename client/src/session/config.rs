//! The GGRS configuration of the maze duel.

use engine::{Tick, WireInput};
use std::net::SocketAddr;

/// GGRS parameters for this game.
///
/// - `Input` is [`WireInput`], the 3-byte tick-less form of an `InputCmd`; its `Default` is "no
///   input", which is also what a disconnected player sends.
/// - `State` is the [`Tick`] of the saved state. The snapshots themselves live in the driver's
///   own `StateHistory`, whose slots are reused frame after frame: handing GGRS a whole
///   `WorldSnapshot` per save would allocate and copy on every frame of every rollback. GGRS
///   still gets the state's checksum with every save, which is what its desync detection
///   compares.
/// - `Address` is a UDP socket address.
#[derive(Debug)]
pub struct GgrsConfig;

impl ggrs::Config for GgrsConfig {
    type Input = WireInput;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = Tick;
    type Address = SocketAddr;
}
