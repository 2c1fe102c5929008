//! Multi-Stream (Kang et al., HotStorage 2014): the host tags each write with a stream id
//! (per job, per file, or per class of data where the application knows its lifetime) and
//! the device keeps one open superblock per stream. Stream ids 0 (none given) and 1 share
//! slot 0; id `s` goes to slot `(s − 1) mod open_superblocks`.

use super::{Placement, Write};
use crate::geometry::Geometry;
use crate::placement::config::PlacementConfig;

pub struct MultiStream {
    slots: usize,
}

pub fn make(p: &PlacementConfig, _: &Geometry) -> Box<dyn Placement> {
    Box::new(MultiStream {
        slots: p.open_superblocks as usize,
    })
}

impl Placement for MultiStream {
    fn route(&mut self, w: &Write) -> usize {
        (w.stream.max(1) as usize - 1) % self.slots
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_pick_slots() {
        let mut m = MultiStream { slots: 4 };
        let w = crate::placement::write_on;
        let got: Vec<usize> = [0, 1, 2, 3, 4, 5, 9].iter().map(|&s| m.route(&w(s))).collect();
        assert_eq!(got, vec![0, 0, 1, 2, 3, 0, 0]);
    }
}
