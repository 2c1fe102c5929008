//! NVMe Flexible Data Placement (TP4146, NVMe 2.1): reclaim unit handles (RUHs), each writing
//! its own open reclaim unit (RU). Here an RU is a superblock of the slot's width and a handle
//! is a slot: `open_superblocks` handles in one reclaim group. A write's placement identifier
//! (its stream id less one; `placement_ids` puts fio's index `i` on stream `i + 1`) picks the
//! handle; a write without one (stream 0) goes to handle 0, as does one whose identifier names
//! no handle, counted as an "invalid placement identifier" event. GC survivors of every handle
//! share GC's superblock: the handles are initially isolated.

use super::{Placement, Write};
use crate::geometry::Geometry;
use crate::placement::config::PlacementConfig;

pub struct Fdp {
    handles: usize,
    /// Writes with no placement identifier.
    undirected: u64,
    /// Writes whose identifier named no handle: NVMe's "invalid placement identifier" events.
    invalid: u64,
}

pub fn make(p: &PlacementConfig, _: &Geometry) -> Box<dyn Placement> {
    Box::new(Fdp {
        handles: p.placement_handles() as usize,
        undirected: 0,
        invalid: 0,
    })
}

impl Placement for Fdp {
    fn route(&mut self, w: &Write) -> usize {
        match (w.stream as usize).checked_sub(1) {
            None => {
                self.undirected += 1;
                0
            }
            Some(h) if h < self.handles => h,
            Some(_) => {
                self.invalid += 1;
                0
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("writes_without_placement_id", self.undirected),
            ("invalid_placement_id_events", self.invalid),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placement_identifier_picks_its_handle_and_the_others_go_to_handle_0() {
        let mut f = Fdp {
            handles: 4,
            undirected: 0,
            invalid: 0,
        };
        let w = crate::placement::write_on;
        // Streams 1..=4 carry identifiers 0..=3; 0 carries none; 5 and 99 name no handle.
        let got: Vec<usize> = [1, 2, 3, 4, 0, 5, 99, 4].iter().map(|&s| f.route(&w(s))).collect();
        assert_eq!(got, vec![0, 1, 2, 3, 0, 0, 0, 3]);
        assert_eq!(
            f.counters(),
            vec![("writes_without_placement_id", 1), ("invalid_placement_id_events", 2)]
        );
    }
}
