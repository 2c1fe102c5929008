//! Baseline (and partial GC, which differs only in its GC): every host write goes to the one
//! full-parallel superblock open for host data, striped over all channels and chips.

use super::{Placement, Write};
use crate::geometry::Geometry;
use crate::placement::config::PlacementConfig;

pub struct Baseline;

pub fn make(_: &PlacementConfig, _: &Geometry) -> Box<dyn Placement> {
    Box::new(Baseline)
}

impl Placement for Baseline {
    fn route(&mut self, _: &Write) -> usize {
        0
    }
}
