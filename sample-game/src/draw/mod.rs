//! Drawing: the renderer and its scene, shapes, palette and font, the maze and fighters, HUDs,
//! banners, meters and overlays, screenshots.

pub(crate) mod banner;
pub(crate) mod fighter_view;
pub(crate) mod font;
pub(crate) mod frame_meter;
pub(crate) mod hud;
pub(crate) mod label_stack;
pub(crate) mod layout;
pub(crate) mod maze_view;
pub(crate) mod net_hud;
pub mod palette;
pub(crate) mod rail_debug;
pub(crate) mod renderer;
pub(crate) mod scene;
pub(crate) mod screenshot;
pub(crate) mod shapes;
pub mod timeline;
pub(crate) mod training_view;
