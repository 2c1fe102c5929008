//! PLAN (seed 001): too much internal parallelism hurts small random writes. Large sequential
//! writes go to a full-parallel superblock (slot 0); small random writes go to small
//! superblocks that use every channel but only 1/4 or 1/8 of the chips per channel, so a
//! small superblock fills (and ages) four or eight times faster and GC collects data written
//! over a shorter span.
//!
//! A write is **large sequential** when the request is at least `large_write` long (the
//! seed's split is by request: "large sequential requests" and "small random requests"; a
//! file written in one request is large however its neighbours were written).
//!
//! **Lifetime prediction** (PLAN-Pred) uses only what the device sees. The logical space is
//! cut into chunks of `lifetime_chunk`; each keeps the write clock (host data written) of
//! its last write and a lifetime class. When a chunk is written again, or trimmed, the host
//! data written since its last write is the lifetime its data had; the class of that
//! lifetime (below `lifetime_bounds[0]` × the logical capacity: class 0, below
//! `lifetime_bounds[1]` ×: class 1, …) becomes the chunk's. A small write is predicted to
//! live as long as the last data of its first chunk did, and goes to the small superblock of
//! that class (slot 1 + class). A chunk never seen dead is predicted to live long (the last
//! class). Trims matter: on a file system most data dies by deletion, and a new file often
//! reuses the space of a deleted one of its kind.

use super::{Placement, Write};
use crate::geometry::Geometry;
use crate::placement::config::PlacementConfig;

/// Lifetime classes of the logical chunks.
pub struct Lifetimes {
    unit: u64,
    chunk_units: u64,
    /// Class boundaries in mapping units written.
    bounds: Vec<u64>,
    /// Write clock + 1 of each chunk's last write; 0: none since it was last trimmed.
    last: Vec<u64>,
    /// Lifetime class of each chunk's last data; `UNKNOWN` when none died yet.
    class: Vec<u8>,
}

const UNKNOWN: u8 = u8::MAX;

impl Lifetimes {
    pub fn new(p: &PlacementConfig, geo: &Geometry) -> Lifetimes {
        let chunk_units = (p.lifetime_chunk.0 / geo.unit_size).max(1);
        let chunks = geo.logical_units.div_ceil(chunk_units) as usize;
        Lifetimes {
            unit: geo.unit_size,
            chunk_units,
            bounds: p
                .lifetime_bounds
                .iter()
                .map(|b| (b * geo.logical_units as f64) as u64)
                .collect(),
            last: vec![0; chunks],
            class: vec![UNKNOWN; chunks],
        }
    }

    /// Classes: one more than the bounds.
    pub fn classes(&self) -> usize {
        self.bounds.len() + 1
    }

    fn class_of(&self, lifetime: u64) -> u8 {
        self.bounds.iter().take_while(|&&b| lifetime >= b).count() as u8
    }

    /// The data of chunk `c` dies at `clock`.
    fn dies(&mut self, c: usize, clock: u64) {
        if self.last[c] != 0 {
            self.class[c] = self.class_of(clock - (self.last[c] - 1));
        }
    }

    /// A write at `clock`: returns the predicted class of its data (from its first chunk).
    pub fn write(&mut self, offset: u64, len: u64, clock: u64) -> usize {
        let first = offset / self.unit / self.chunk_units;
        let last = (offset + len - 1) / self.unit / self.chunk_units;
        for c in first..=last {
            self.dies(c as usize, clock);
            self.last[c as usize] = clock + 1;
        }
        match self.class[first as usize] {
            UNKNOWN => self.classes() - 1,
            k => k as usize,
        }
    }

    /// A trim at `clock`: chunks it covers whole die.
    pub fn trim(&mut self, offset: u64, len: u64, clock: u64) {
        let cu = self.chunk_units * self.unit;
        for c in offset.div_ceil(cu)..(offset + len) / cu {
            self.dies(c as usize, clock);
            self.last[c as usize] = 0;
        }
    }
}

pub struct Plan {
    large: u64,
    lifetimes: Option<Lifetimes>,
    large_writes: u64,
    small_writes: u64,
    per_class: Vec<u64>,
}

fn plan(p: &PlacementConfig, geo: &Geometry, pred: bool) -> Box<dyn Placement> {
    let lifetimes = pred.then(|| Lifetimes::new(p, geo));
    let classes = lifetimes.as_ref().map_or(1, |l| l.classes());
    Box::new(Plan {
        large: p.large_write.0,
        lifetimes,
        large_writes: 0,
        small_writes: 0,
        per_class: vec![0; classes],
    })
}

pub fn make_nopred(p: &PlacementConfig, geo: &Geometry) -> Box<dyn Placement> {
    plan(p, geo, false)
}

pub fn make_pred(p: &PlacementConfig, geo: &Geometry) -> Box<dyn Placement> {
    plan(p, geo, true)
}

impl Placement for Plan {
    fn route(&mut self, w: &Write) -> usize {
        let class = match self.lifetimes.as_mut() {
            Some(l) => l.write(w.offset, w.len, w.clock),
            None => 0,
        };
        if w.len >= self.large {
            self.large_writes += 1;
            0
        } else {
            self.small_writes += 1;
            self.per_class[class] += 1;
            1 + class
        }
    }

    fn trim(&mut self, offset: u64, len: u64, clock: u64) {
        if let Some(l) = self.lifetimes.as_mut() {
            l.trim(offset, len, clock);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        const NAMES: [&str; 8] = [
            "small_writes_class_0",
            "small_writes_class_1",
            "small_writes_class_2",
            "small_writes_class_3",
            "small_writes_class_4",
            "small_writes_class_5",
            "small_writes_class_6",
            "small_writes_class_7",
        ];
        let mut v = vec![("large_writes", self.large_writes), ("small_writes", self.small_writes)];
        if self.lifetimes.is_some() {
            v.extend(self.per_class.iter().zip(NAMES).map(|(&n, k)| (k, n)));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        let text = "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 256\n";
        let cfg = crate::config::parse_config(text, "t.toml", std::path::Path::new(".")).unwrap();
        crate::redundancy::geometry_of(&cfg.device, "t.toml").unwrap()
    }

    fn w(offset: u64, len: u64, clock: u64) -> Write {
        Write {
            offset,
            len,
            stream: 0,
            clock,
            now_ns: 0,
        }
    }

    #[test]
    fn large_writes_go_full_width_small_ones_small() {
        let p = PlacementConfig::default();
        let mut r = make_nopred(&p, &geo());
        assert_eq!(r.route(&w(0, 128 << 10, 0)), 0);
        assert_eq!(r.route(&w(1 << 30, 4096, 1)), 1);
        // By request: 16 KiB appends stay small however long their run, and a write just
        // under the threshold is small.
        let got: Vec<usize> = (0..9)
            .map(|k| r.route(&w((2 << 30) + k * 16384, 16384, 2 + k)))
            .collect();
        assert_eq!(got, vec![1; 9]);
        assert_eq!(r.route(&w(0, (128 << 10) - 4096, 20)), 1);
    }

    #[test]
    fn the_predictor_learns_known_lifetimes_from_rewrites_and_trims() {
        // Lifetimes in the logical capacity written: region A is rewritten every 1/64 of it
        // (class 0: below 1/8), region B every 1/4 (class 1), region C trimmed 1/64 after
        // its write and rewritten a capacity later (class 0: it died by the trim), region D
        // never dies (unknown: class 2).
        let g = geo();
        let cap = g.logical_units;
        let p = PlacementConfig::default();
        let mut l = Lifetimes::new(&p, &g);
        let chunk = p.lifetime_chunk.0;
        let (a, b, c, d) = (0, 1 << 30, 2 << 30, 3 << 30);
        for round in 0..4u64 {
            let t = round * cap;
            for k in 0..64 {
                l.write(a, chunk, t + k * cap / 64);
            }
            for k in 0..4 {
                l.write(b, chunk, t + k * cap / 4);
            }
            l.write(c, chunk, t);
            l.trim(c, chunk, t + cap / 64);
            l.write(d + round * chunk, chunk, t);
        }
        let t = 4 * cap;
        assert_eq!(l.write(a, chunk, t), 0);
        assert_eq!(l.write(b, chunk, t), 1);
        assert_eq!(l.write(c, chunk, t), 0);
        assert_eq!(l.write(d + 9 * chunk, chunk, t), 2);
        // A lifetime just below a bound stays in the class under it; at the bound, above.
        let b0 = (0.125 * cap as f64) as u64;
        assert_eq!(l.class_of(b0 - 1), 0);
        assert_eq!(l.class_of(b0), 1);
        // A trim covering part of a chunk leaves it alone.
        l.write(c, chunk, t);
        l.trim(c + 4096, chunk, t + 1);
        assert_eq!(l.last[(c / chunk) as usize], t + 1);
    }

    #[test]
    fn small_writes_go_to_the_slot_of_their_class() {
        let g = geo();
        let cap = g.logical_units;
        let p = PlacementConfig::default();
        let mut r = make_pred(&p, &g);
        // Unknown: the longest-lived class, slot 3.
        assert_eq!(r.route(&w(0, 4096, 0)), 3);
        // Rewritten soon: class 0, slot 1.
        assert_eq!(r.route(&w(0, 4096, cap / 100)), 1);
        assert_eq!(r.route(&w(0, 128 << 10, cap / 50)), 0);
        // A trim ends its data's life: rewritten a capacity later, the chunk is still hot.
        r.route(&w(1 << 30, 4096, cap));
        r.trim(1 << 30, 16 << 10, cap + cap / 100);
        assert_eq!(r.route(&w(1 << 30, 4096, 2 * cap)), 1);
        let c = r.counters();
        assert_eq!(c[0], ("large_writes", 1));
        assert_eq!(c[1], ("small_writes", 4));
        assert_eq!(c[2], ("small_writes_class_0", 2));
        assert_eq!(c[4], ("small_writes_class_2", 2));
    }
}
