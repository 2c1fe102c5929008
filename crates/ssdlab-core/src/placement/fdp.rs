//! NVMe Flexible Data Placement (TP4146, NVMe 2.1): reclaim unit handles (RUHs), each writing
//! its own open reclaim unit (RU). Here an RU is a superblock of the slot's width and a handle
//! is a slot: `open_superblocks` handles in each reclaim group, slot `r·open_superblocks + h`
//! handle `h` of group `r`. A write's placement identifier (its stream id less one;
//! `placement_ids` puts fio's index `i` on stream `i + 1`) picks the slot. A write without one
//! (stream 0), or whose identifier names no handle (counted as an "invalid placement
//! identifier" event), goes to placement handle 0 in a reclaim group the controller chooses,
//! as NVMe leaves it: here the groups in turn, write by write, so that such writes spread over
//! every group's flash as a conventional drive's do (one group would hold them all on 1/R of
//! the flash, and a plain job writing more than that could never be collected). GC survivors
//! of every handle share GC's superblock: the handles are initially isolated.

use super::{Placement, Write};
use crate::geometry::Geometry;
use crate::placement::config::PlacementConfig;

pub struct Fdp {
    handles: usize,
    /// Handles per reclaim group, and the groups.
    per_group: usize,
    groups: usize,
    /// The reclaim group of the next write without a usable identifier.
    next_group: usize,
    /// Writes with no placement identifier.
    undirected: u64,
    /// Writes whose identifier named no handle: NVMe's "invalid placement identifier" events.
    invalid: u64,
}

pub fn make(p: &PlacementConfig, _: &Geometry) -> Box<dyn Placement> {
    Box::new(Fdp {
        handles: p.placement_handles() as usize,
        per_group: p.open_superblocks.max(1) as usize,
        groups: p.reclaim_groups.max(1) as usize,
        next_group: 0,
        undirected: 0,
        invalid: 0,
    })
}

impl Fdp {
    /// Handle 0 of the next reclaim group in turn.
    fn default_handle(&mut self) -> usize {
        let g = self.next_group;
        self.next_group = (g + 1) % self.groups;
        g * self.per_group
    }
}

impl Placement for Fdp {
    fn route(&mut self, w: &Write) -> usize {
        match (w.stream as usize).checked_sub(1) {
            None => {
                self.undirected += 1;
                self.default_handle()
            }
            Some(h) if h < self.handles => h,
            Some(_) => {
                self.invalid += 1;
                self.default_handle()
            }
        }
    }

    fn unplaced_slots(&self) -> Vec<usize> {
        (0..self.groups).map(|g| g * self.per_group).collect()
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
            per_group: 4,
            groups: 1,
            next_group: 0,
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

    #[test]
    fn writes_without_an_identifier_take_handle_0_of_each_group_in_turn() {
        // Two groups of three handles: slots 0-2 are group 0's, 3-5 group 1's.
        let mut f = Fdp {
            handles: 6,
            per_group: 3,
            groups: 2,
            next_group: 0,
            undirected: 0,
            invalid: 0,
        };
        let w = crate::placement::write_on;
        let got: Vec<usize> = [0, 0, 0, 5, 0, 7, 0].iter().map(|&s| f.route(&w(s))).collect();
        assert_eq!(got, vec![0, 3, 0, 4, 3, 0, 3]);
        assert_eq!(
            f.counters(),
            vec![("writes_without_placement_id", 5), ("invalid_placement_id_events", 1)]
        );
    }
}
