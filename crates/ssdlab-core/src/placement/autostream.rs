//! AutoStream's SFR (Yang et al., SYSTOR 2017): the device assigns stream ids itself from
//! each LBA chunk's history, as the public implementations do (REFERENCES.md §4.2):
//! - **Sequentiality**: a write that starts where the previous write ended takes the
//!   previous write's stream.
//! - Otherwise its chunk's entry is updated first (`access_cnt += 1`, then divided by
//!   `2^floor((now − last_access) / decay)`: **recency**) and the write takes the chunk's
//!   stream, the smallest `i` with `2^(i+1) ≥ access_cnt` (**frequency**), capped at the last
//!   slot. Sequential writes update their chunk too.
//!
//! Time is the device's write clock (host data written), not seconds: `decay` is a share of
//! the logical capacity, so that a scaled-down run sees as many decay periods per device fill
//! as a full-size drive. Defaults after the zhxq/AutoStream example (`20 GiB disk, 2 MiB
//! chunks, 10 s decay`): 2 MiB chunks, and a decay of 0.1 of the capacity (10 s at about
//! 200 MB/s on that 20 GiB disk).

use super::{Placement, Write};
use crate::config::PlacementConfig;
use crate::geometry::Geometry;

#[derive(Clone, Copy, Default)]
struct Chunk {
    count: u32,
    stream: u8,
    last: u64,
}

pub struct AutoStream {
    chunk_units: u64,
    unit: u64,
    decay: u64,
    slots: usize,
    chunks: Vec<Chunk>,
    prev_end: u64,
    prev_stream: usize,
    sequential: u64,
    per_slot: Vec<u64>,
}

pub fn make(p: &PlacementConfig, geo: &Geometry) -> Box<dyn Placement> {
    Box::new(AutoStream::new(p, geo))
}

/// The stream of an access count: the smallest `i` with `2^(i+1) ≥ count`.
fn frequency_class(count: u32) -> usize {
    if count <= 2 {
        0
    } else {
        (32 - (count - 1).leading_zeros()) as usize - 1
    }
}

impl AutoStream {
    fn new(p: &PlacementConfig, geo: &Geometry) -> AutoStream {
        let unit = geo.unit_size;
        let chunk_units = (p.chunk.0 / unit).max(1);
        let slots = p.open_superblocks as usize;
        AutoStream {
            chunk_units,
            unit,
            decay: ((p.decay * geo.logical_units as f64) as u64).max(1),
            slots,
            chunks: vec![Chunk::default(); geo.logical_units.div_ceil(chunk_units) as usize],
            prev_end: u64::MAX,
            prev_stream: 0,
            sequential: 0,
            per_slot: vec![0; slots],
        }
    }

    /// Count an access to the chunk holding `offset` at `now`; returns its stream.
    fn touch(&mut self, offset: u64, now: u64) -> usize {
        let c = &mut self.chunks[(offset / self.unit / self.chunk_units) as usize];
        let periods = (now - c.last) / self.decay;
        c.count = c
            .count
            .saturating_add(1)
            .checked_shr(periods.min(32) as u32)
            .unwrap_or(0);
        c.last = now;
        c.stream = frequency_class(c.count).min(self.slots - 1) as u8;
        c.stream as usize
    }
}

impl Placement for AutoStream {
    fn route(&mut self, w: &Write) -> usize {
        let own = self.touch(w.offset, w.clock);
        let s = if w.offset == self.prev_end {
            self.sequential += 1;
            self.prev_stream
        } else {
            own
        };
        self.prev_end = w.offset + w.len;
        self.prev_stream = s;
        self.per_slot[s] += 1;
        s
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        const NAMES: [&str; 8] = [
            "writes_stream_0",
            "writes_stream_1",
            "writes_stream_2",
            "writes_stream_3",
            "writes_stream_4",
            "writes_stream_5",
            "writes_stream_6",
            "writes_stream_7",
        ];
        let mut v = vec![("sequential_writes", self.sequential)];
        v.extend(self.per_slot.iter().zip(NAMES).map(|(&n, k)| (k, n)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(p: &PlacementConfig) -> AutoStream {
        let text = "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 256\n";
        let cfg = crate::config::parse_config(text, "t.toml", std::path::Path::new(".")).unwrap();
        let geo = Geometry::from_config(&cfg.device, "t.toml").unwrap();
        AutoStream::new(p, &geo)
    }

    #[test]
    fn frequency_classes_follow_powers_of_two() {
        let got: Vec<usize> = [0, 1, 2, 3, 4, 5, 8, 9, 16, 17]
            .iter()
            .map(|&c| frequency_class(c))
            .collect();
        assert_eq!(got, vec![0, 0, 0, 1, 1, 2, 2, 3, 3, 4]);
    }

    #[test]
    fn hot_chunks_climb_cold_ones_decay_and_sequential_writes_inherit() {
        let p = PlacementConfig::default();
        let mut a = stream(&p);
        let w = |offset, clock| Write {
            offset,
            len: 4096,
            stream: 0,
            clock,
        };
        // Rewritten chunk 0: counts 1, 2, 3 (stream 1), 4, 5 (stream 2) … capped at slot 3.
        let got: Vec<usize> = (0..10).map(|k| a.route(&w(8192 * (k % 2), 2 * k))).collect();
        assert_eq!(got, vec![0, 0, 1, 1, 2, 2, 2, 2, 3, 3]);
        // A write continuing the last one inherits its stream, whatever its own chunk says.
        assert_eq!(a.route(&w(8192 + 4096, 20)), 3);
        assert_eq!(a.counters()[0], ("sequential_writes", 1));
        // Two decay periods later the count of chunk 0 (11) is divided by 4: 12 / 4 = 3.
        let later = 20 + 2 * a.decay;
        assert_eq!(a.route(&w(1 << 30, later)), 0);
        assert_eq!(a.route(&w(0, later + 1)), 1);
        // Recency counts from the chunk's own last access: a fresh chunk first touched late
        // in the run starts from 0 (its count decayed since time 0), then writes a quarter
        // period apart are not decayed (counts 0, 1, 2, 3: stream 1 at the fourth).
        let t = 5 * a.decay;
        let got: Vec<usize> = (0..4)
            .map(|k| a.route(&w((4 << 20) + 8192 * k, t + k * a.decay / 4)))
            .collect();
        assert_eq!(got, vec![0, 0, 0, 1]);
    }
}
