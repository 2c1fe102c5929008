//! AutoStream's SFR (Yang et al., SYSTOR 2017): the device assigns stream ids itself from
//! each LBA chunk's history, as the public implementations do (REFERENCES.md §4.2):
//! - **Sequentiality**: a write that starts where the previous write ended takes the
//!   previous write's stream.
//! - Otherwise its chunk's entry is updated first (`access_cnt += 1`, then divided by
//!   `2^floor((now − last_access) / decay)`: **recency**) and the write takes the chunk's
//!   class, the smallest `i` with `2^(i+1) ≥ access_cnt` (**frequency**, log2), capped at
//!   the last of [`CLASSES`]. Sequential writes update their chunk too.
//!
//! As zhxq/AutoStream (`nvme0n1:21474836480:2097152:10:16`): 2 MiB chunks (`chunk`), a
//! decay period of 10 s of simulated time (`decay`), 16 classes. The device has fewer open
//! superblocks than classes: class `c` goes to slot `c × slots / 16`, equal ranges of
//! classes per slot, so that every slot takes a band of access rates and none is the
//! catch-all of every count above a few. The writes per class are counted
//! (`writes_class_N`) to show where a workload's chunks sit.

use super::{Placement, Write};
use crate::geometry::Geometry;
use crate::placement::config::PlacementConfig;

/// Frequency classes (zhxq/AutoStream's 16 streams).
pub const CLASSES: usize = 16;

#[derive(Clone, Copy, Default)]
struct Chunk {
    count: u32,
    class: u8,
    last: u64,
}

pub struct AutoStream {
    chunk_units: u64,
    unit: u64,
    decay_ns: u64,
    slots: usize,
    chunks: Vec<Chunk>,
    prev_end: u64,
    prev_class: usize,
    sequential: u64,
    per_class: [u64; CLASSES],
}

pub fn make(p: &PlacementConfig, geo: &Geometry) -> Box<dyn Placement> {
    Box::new(AutoStream::new(p, geo))
}

/// The class of an access count: the smallest `i` with `2^(i+1) ≥ count`.
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
        AutoStream {
            chunk_units,
            unit,
            decay_ns: p.decay.0.max(1),
            slots: p.open_superblocks as usize,
            chunks: vec![Chunk::default(); geo.logical_units.div_ceil(chunk_units) as usize],
            prev_end: u64::MAX,
            prev_class: 0,
            sequential: 0,
            per_class: [0; CLASSES],
        }
    }

    /// Count an access to the chunk holding `offset` at `now` (ns); returns its class.
    fn touch(&mut self, offset: u64, now: u64) -> usize {
        let c = &mut self.chunks[(offset / self.unit / self.chunk_units) as usize];
        let periods = now.saturating_sub(c.last) / self.decay_ns;
        c.count = c
            .count
            .saturating_add(1)
            .checked_shr(periods.min(32) as u32)
            .unwrap_or(0);
        c.last = now;
        c.class = frequency_class(c.count).min(CLASSES - 1) as u8;
        c.class as usize
    }

    /// The slot of a class: equal ranges of the classes per slot.
    fn slot(&self, class: usize) -> usize {
        class * self.slots / CLASSES
    }
}

impl Placement for AutoStream {
    fn route(&mut self, w: &Write) -> usize {
        let own = self.touch(w.offset, w.now_ns);
        let class = if w.offset == self.prev_end {
            self.sequential += 1;
            self.prev_class
        } else {
            own
        };
        self.prev_end = w.offset + w.len;
        self.prev_class = class;
        self.per_class[class] += 1;
        self.slot(class)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        const NAMES: [&str; CLASSES] = [
            "writes_class_0",
            "writes_class_1",
            "writes_class_2",
            "writes_class_3",
            "writes_class_4",
            "writes_class_5",
            "writes_class_6",
            "writes_class_7",
            "writes_class_8",
            "writes_class_9",
            "writes_class_10",
            "writes_class_11",
            "writes_class_12",
            "writes_class_13",
            "writes_class_14",
            "writes_class_15",
        ];
        let mut v = vec![("sequential_writes", self.sequential)];
        v.extend(self.per_class.iter().zip(NAMES).map(|(&n, k)| (k, n)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(p: &PlacementConfig) -> AutoStream {
        let text = "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 256\n";
        let cfg = crate::config::parse_config(text, "t.toml", std::path::Path::new(".")).unwrap();
        let geo = crate::redundancy::geometry_of(&cfg.device, "t.toml").unwrap();
        AutoStream::new(p, &geo)
    }

    #[test]
    fn frequency_classes_follow_powers_of_two() {
        let got: Vec<usize> = [0, 1, 2, 3, 4, 5, 8, 9, 16, 17]
            .iter()
            .map(|&c| frequency_class(c))
            .collect();
        assert_eq!(got, vec![0, 0, 0, 1, 1, 2, 2, 3, 3, 4]);
        assert_eq!(frequency_class(u32::MAX), 31);
    }

    #[test]
    fn classes_fold_onto_the_slots_in_equal_ranges() {
        let a = stream(&PlacementConfig::default());
        // 16 classes on 4 slots: 0–3, 4–7, 8–11, 12–15.
        let got: Vec<usize> = (0..CLASSES).map(|c| a.slot(c)).collect();
        assert_eq!(got, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
        let a = stream(&PlacementConfig {
            open_superblocks: 3,
            ..PlacementConfig::default()
        });
        let got: Vec<usize> = (0..CLASSES).map(|c| a.slot(c)).collect();
        assert_eq!(got, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    }

    #[test]
    fn hot_chunks_climb_cold_ones_decay_in_time_and_sequential_writes_inherit() {
        let p = PlacementConfig::default();
        let mut a = stream(&p);
        assert_eq!(a.decay_ns, 10_000_000_000, "zhxq/AutoStream's 10 s");
        let w = |offset, now_ns| Write {
            offset,
            len: 4096,
            stream: 0,
            clock: 0,
            now_ns,
        };
        // Chunk 0 rewritten every millisecond: counts 1, 2, …, 40; classes by log2; the
        // slot moves to 1 once the class reaches 4 (count 17).
        for k in 1..=40u64 {
            let s = a.route(&w(8192 * (k % 2), k * 1_000_000));
            assert_eq!(s, if k >= 17 { 1 } else { 0 }, "write {k}");
        }
        let c = a.counters();
        // Classes 0 (counts 1–2), 1 (3–4), 2 (5–8), 3 (9–16), 4 (17–32), 5 (33–40).
        let n = |k: usize| c[1 + k].1;
        assert_eq!([n(0), n(1), n(2), n(3), n(4), n(5)], [2, 2, 4, 8, 16, 8]);
        // A write continuing the last one inherits its class, whatever its own chunk says:
        // chunk 0's last block (count 41, class 5, slot 1), then chunk 1's first (its own
        // count 1, class 0) in slot 1.
        assert_eq!(a.route(&w((2 << 20) - 4096, 41_000_000)), 1);
        assert_eq!(a.counters()[0], ("sequential_writes", 0));
        assert_eq!(a.route(&w(2 << 20, 41_000_001)), 1);
        assert_eq!(a.counters()[0], ("sequential_writes", 1));
        assert_eq!((a.chunks[1].count, a.chunks[1].class), (1, 0));
        // Two decay periods (20 s) later chunk 0's count (41 with that write) is divided by
        // 4 when it is next written: (41 + 1) / 4 = 10, class 3, slot 0.
        let later = 41_000_000 + 20_000_000_000;
        assert_eq!(a.route(&w(1 << 30, later)), 0);
        assert_eq!(a.route(&w(0, later + 1)), 0);
        assert_eq!(a.chunks[0].count, 10);
        assert_eq!(a.chunks[0].class, 3);
        // Less than a period between writes: no decay (a period is counted from the chunk's
        // own last access).
        let t = later + 9_999_999_999;
        a.route(&w(0, t));
        assert_eq!(a.chunks[0].count, 11);
    }
}
