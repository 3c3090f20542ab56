//! The GGRS configuration of a game.

use game_api::{Game, Tick};
use std::marker::PhantomData;
use std::net::SocketAddr;

/// GGRS parameters for the game `G`.
///
/// - `Input` is [`Game::Input`]: intent only and small; its `Default` is "no input", which is
///   also what a disconnected player sends.
/// - `State` is the [`Tick`] of the saved state. The snapshots themselves live in the driver's
///   own `StateHistory`, whose slots are reused frame after frame: handing GGRS a whole
///   snapshot per save would allocate and copy on every frame of every rollback. GGRS still
///   gets the state's checksum with every save, which is what its desync detection compares.
/// - `Address` is a UDP socket address.
pub struct GgrsConfig<G>(PhantomData<fn() -> G>);

impl<G> std::fmt::Debug for GgrsConfig<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GgrsConfig")
    }
}

impl<G: Game> ggrs::Config for GgrsConfig<G> {
    type Input = G::Input;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = Tick;
    type Address = SocketAddr;
}
