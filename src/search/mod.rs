//! Search: time management and the mate solver live here beside the alpha-beta search.

pub mod mate;
pub mod time;
