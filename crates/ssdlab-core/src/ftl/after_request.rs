//! Background GC as FEMU's black-box SSD runs it (`hw/femu/bbssd/ftl.c`, its FTL thread):
//! after each request, when free blocks are short (`should_gc`: a plane has fewer than the
//! background threshold), one collection of the GC victim, and only if enough of the victim
//! is invalid (FEMU collects a line only when `ipc >= pgs_per_line / 8`); otherwise nothing
//! until the next request. Foreground GC (`gc_threshold`) is apart and unchanged.
//!
//! The victim is the one foreground GC would take for the plane with the fewest free blocks
//! (ties: the lowest plane): a whole superblock where superblocks are collected whole, else
//! that plane's full block with the fewest valid units (ties: the lowest block), FEMU's
//! greedy choice either way.

use super::{BlockState, Ftl, Pick};
use crate::Result;

/// What one check after a request found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// A victim was collected.
    Collected,
    /// Every plane has at least the threshold of free blocks.
    Plenty,
    /// Free blocks are short but no victim is invalid enough: none can be before `needed`
    /// more units are invalidated or another block fills (the FTL's block clock moves).
    Short { needed: u64 },
}

impl Ftl {
    /// One check of FEMU's background GC: collect the victim if a plane has fewer than
    /// `threshold` free blocks and at least `min_invalid` of the victim's units are invalid
    /// (rounded down to whole units, and never fewer than one).
    pub fn collect_if_worth(&mut self, threshold: usize, min_invalid: f64) -> Result<Check> {
        let Some((plane, free)) = (0..self.geo.planes)
            .map(|p| (p, self.planes[p].free.len()))
            .min_by_key(|&(p, f)| (f, p))
        else {
            return Ok(Check::Plenty);
        };
        if free >= threshold {
            return Ok(Check::Plenty);
        }
        let required = |cap: u64| ((cap as f64 * min_invalid).floor() as u64).max(1);
        let mut needed = u64::MAX;
        if self.sb.as_deref().is_some_and(|s| s.collects_whole()) {
            let best = self.superblock_victim(plane, |valid, cap| {
                needed = needed.min(required(cap).saturating_sub(cap - valid));
            });
            if let Some((valid, cap, b)) = best {
                if cap - valid >= required(cap) {
                    self.collect_superblock(valid, cap, b, true)?;
                    return Ok(Check::Collected);
                }
            }
            return Ok(Check::Short { needed });
        }
        let upb = self.geo.units_per_block as u64;
        let bpp = self.geo.blocks_per_plane;
        let need = required(upb);
        let mut best: Option<(u32, usize)> = None;
        for b in plane * bpp..(plane + 1) * bpp {
            if self.state[b] != BlockState::Full {
                continue;
            }
            let v = self.valid[b];
            needed = needed.min(need.saturating_sub(upb - v as u64));
            if best.is_none_or(|(bv, _)| v < bv) {
                best = Some((v, b));
            }
        }
        match best {
            Some((v, b)) if upb - v as u64 >= need => {
                self.superblock_victim_block(v);
                self.collect(plane, Pick::Gc(b as u32), true)?;
                Ok(Check::Collected)
            }
            _ => Ok(Check::Short { needed }),
        }
    }

    /// Blocks filled so far (the clock that stamps a block when it fills).
    #[inline]
    pub fn block_clock(&self) -> u64 {
        self.clock
    }
}

#[cfg(test)]
mod tests {
    use super::Check;
    use crate::ftl::tests::ftl;
    use crate::ftl::BlockState;

    /// Plane 0 of the test FTL (16 blocks of 8 units) with blocks 0..5 written in order
    /// (units 0..40), then units 8, 9, 10 (block 1) and 16 (block 2) overwritten: block 1
    /// holds 5 valid units, block 2 holds 7, blocks 0, 3 and 4 hold 8.
    fn aged() -> crate::ftl::Ftl {
        let mut f = ftl("greedy");
        for lpn in 0..40 {
            f.append_host(0, lpn).unwrap();
        }
        for lpn in [8, 9, 10, 16] {
            f.append_host(0, lpn).unwrap();
        }
        assert_eq!(&f.valid[..5], &[8, 5, 7, 8, 8]);
        assert!(f.state[..5].iter().all(|&s| s == BlockState::Full));
        f
    }

    #[test]
    fn a_short_plane_collects_its_greedy_victim_when_it_is_invalid_enough() {
        let mut f = aged();
        // Plane 0 has 10 free blocks (5 full, the open one), plane 1 all 16: plane 0 is short
        // of 11, not of 10.
        assert_eq!((f.free_blocks(0), f.free_blocks(1)), (10, 16));
        assert_eq!(f.collect_if_worth(10, 0.125).unwrap(), Check::Plenty);
        // A victim needs 3 of 8 units invalid (0.375 × 8): block 1 has 3. Collected whole:
        // its 5 valid units copied, the block erased, in the background.
        assert_eq!(f.collect_if_worth(11, 0.375).unwrap(), Check::Collected);
        assert_eq!(f.state[1], BlockState::Free);
        assert_eq!(
            (
                f.stats.gc_runs_background,
                f.stats.gc_runs_foreground,
                f.stats.gc_units_copied,
                f.stats.erases
            ),
            (1, 0, 5, 1)
        );
        for lpn in [11u64, 12, 13, 14, 15] {
            assert_ne!(f.lookup(lpn) as usize / 8, 1, "unit {lpn} left in the victim");
        }
        f.check_invariants().unwrap();
    }

    #[test]
    fn a_victim_short_of_the_invalid_share_is_left_and_the_units_it_lacks_are_told() {
        let mut f = aged();
        // 4 of 8 wanted: block 1 lacks 1, block 2 lacks 3, the others 4.
        assert_eq!(f.collect_if_worth(11, 0.5).unwrap(), Check::Short { needed: 1 });
        // The share is rounded down to whole units: 0.6 × 8 = 4.8 → 4, as 0.5.
        assert_eq!(f.collect_if_worth(11, 0.6).unwrap(), Check::Short { needed: 1 });
        // 0.625 × 8 = 5: block 1 lacks 2.
        assert_eq!(f.collect_if_worth(11, 0.625).unwrap(), Check::Short { needed: 2 });
        assert_eq!((f.stats.gc_runs(), f.stats.erases), (0, 0));
        // One more overwrite in block 1 makes it 4 of 8 invalid: collected.
        f.append_host(0, 11).unwrap();
        assert_eq!(f.collect_if_worth(11, 0.5).unwrap(), Check::Collected);
        assert_eq!(f.stats.gc_units_copied, 4);
    }

    #[test]
    fn with_no_share_set_a_victim_still_needs_an_invalid_unit() {
        let mut f = ftl("greedy");
        for lpn in 0..40 {
            f.append_host(0, lpn).unwrap();
        }
        // 11 free blocks (the fifth block is full, no new one taken yet). Every full block
        // is wholly valid: collecting one would free nothing.
        assert_eq!(f.free_blocks(0), 11);
        assert_eq!(f.collect_if_worth(12, 0.0).unwrap(), Check::Short { needed: 1 });
        f.append_host(0, 20).unwrap();
        assert_eq!(f.collect_if_worth(11, 0.0).unwrap(), Check::Collected);
        assert_eq!(f.stats.gc_units_copied, 7);
    }
}
