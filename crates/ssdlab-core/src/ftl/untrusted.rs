//! An FTL read from a file (a snapshot) is untrusted input: [`Ftl::check_loaded`] checks every
//! index and count it holds before anything uses them, so that an edited file whose checksum
//! was recomputed is refused with one line instead of indexing out of bounds later. The order
//! matters: the lengths first, then every index against them, then the maps, and only then the
//! invariants a run keeps ([`Ftl::check_invariants`]), which index freely.

use super::{BlockState, Ftl, FtlParams, NONE};

/// `Err(what)` unless `ok`.
fn need(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

impl Ftl {
    /// Check a loaded FTL against its geometry and the parameters its device gives
    /// (`expected`, whose seed is not compared: the state carries its own generator).
    pub fn check_loaded(&self, expected: &FtlParams) -> Result<(), String> {
        let g = &self.geo;
        let p = &self.params;
        need(
            p.gc_policy == expected.gc_policy
                && p.gc_d == expected.gc_d
                && p.gc_threshold == expected.gc_threshold
                && p.endurance == expected.endurance
                && p.static_wl_threshold == expected.static_wl_threshold
                && p.gc_shared_frontier == expected.gc_shared_frontier
                && p.read_ns == expected.read_ns
                && p.program_ns == expected.program_ns
                && p.erase_ns == expected.erase_ns,
            || "its FTL's parameters are not its device's".into(),
        )?;
        need(self.policy.name() == p.gc_policy, || {
            format!(
                "its GC index is of policy '{}', its device's is '{}'",
                self.policy.name(),
                p.gc_policy
            )
        })?;
        // Lengths.
        let len = |what: &str, n: usize, want: usize| {
            need(n == want, || format!("{what} has {n} entries, its geometry {want}"))
        };
        len("the block valid counts", self.valid.len(), g.blocks)?;
        len("the erase counts", self.erase.len(), g.blocks)?;
        len("the block states", self.state.len(), g.blocks)?;
        len("the block stamps", self.stamp.len(), g.blocks)?;
        len("the plane states", self.planes.len(), g.planes)?;
        len("the plane valid counts", self.plane_valid.len(), g.planes)?;
        len("the plane block counts", self.plane_blocks.len(), g.planes)?;
        need(self.streams >= 1, || "it has no write streams".into())?;
        len(
            "the host frontiers",
            self.hosts.len(),
            g.planes.saturating_mul(self.streams),
        )?;
        len("the L2P map", self.l2p.len(), g.logical_units as usize)?;
        len("the P2L map", self.p2l.len(), g.physical_units as usize)?;
        len(
            "the valid bitmap",
            self.bits.len(),
            (g.physical_units as usize).div_ceil(64),
        )?;
        len(
            "the victim histogram",
            self.stats.victim_valid_hist.len(),
            g.units_per_block + 1,
        )?;
        need(self.gc_ops.is_empty() && self.moves.is_empty(), || {
            "it holds GC work in flight, which a saved state never has".into()
        })?;
        // Indexes and counts.
        let upb = g.units_per_block as u32;
        let frontier = |what: String, f: &super::Frontier, plane: usize| {
            if f.block == NONE {
                return Ok(());
            }
            need(
                (f.block as usize) < g.blocks && g.plane_of_block(f.block as usize) == plane,
                || format!("{what} names block {}, not one of plane {plane}", f.block),
            )?;
            need(self.state[f.block as usize] == BlockState::Open, || {
                format!("{what}'s block {} is not open", f.block)
            })?;
            need(f.next <= upb, || {
                format!("{what} is at unit {} of a block of {upb}", f.next)
            })
        };
        for (i, f) in self.hosts.iter().enumerate() {
            frontier(format!("host frontier {i}"), f, i / self.streams)?;
        }
        for (plane, ps) in self.planes.iter().enumerate() {
            frontier(format!("plane {plane}'s GC frontier"), &ps.gc, plane)?;
            if let Some(c) = ps.cursor {
                need((c.victim as usize) < g.blocks && c.next <= upb, || {
                    format!(
                        "plane {plane} collects block {} from unit {}, outside its geometry",
                        c.victim, c.next
                    )
                })?;
            }
            for std::cmp::Reverse((_, b)) in ps.free.iter() {
                need((*b as usize) < g.blocks, || {
                    format!("plane {plane}'s free pool holds block {b}, outside its geometry")
                })?;
            }
        }
        for (b, &v) in self.valid.iter().enumerate() {
            need(v <= upb, || format!("block {b} counts {v} valid units of {upb}"))?;
        }
        need(self.clock >= self.stamp.iter().copied().max().unwrap_or(0), || {
            "its clock is behind a block's stamp".into()
        })?;
        need(self.max_erase == self.erase.iter().copied().max().unwrap_or(0), || {
            "its highest erase count is not its blocks'".into()
        })?;
        // Counters a run adds to, and sums of them: all together far below where an addition
        // could overflow (2^56 units is 2^68 bytes; no drive gets near).
        const HIGH: u64 = 1 << 56;
        let stats = serde_json::to_value(&self.stats).map_err(|e| e.to_string())?;
        let sb_stats = match self.sb.as_deref() {
            Some(sb) => serde_json::to_value(&sb.stats).map_err(|e| e.to_string())?,
            None => serde_json::Value::Null,
        };
        need(
            numbers(&stats)
                .chain(numbers(&sb_stats))
                .try_fold(0u64, |sum, n| sum.checked_add(n).filter(|&s| s < HIGH))
                .is_some()
                && self.clock < HIGH
                && self.erases_since_wl < HIGH
                && self.erase.iter().all(|&e| e < u32::MAX / 2),
            || "a counter of its is beyond any a drive reaches".into(),
        )?;
        // The maps: every entry within its range (check_invariants then checks that they agree).
        for (pun, &lpn) in self.p2l.iter().enumerate() {
            need(lpn == NONE || (lpn as u64) < g.logical_units, || {
                format!("P2L[{pun}] = {lpn}, outside its {} logical units", g.logical_units)
            })?;
        }
        let tail = g.physical_units % 64;
        if tail != 0 {
            let last = *self.bits.last().unwrap_or(&0);
            need(last >> tail == 0, || {
                "its valid bitmap marks units past the last".into()
            })?;
        }
        // The GC index holds the full blocks of each plane, with their valid counts.
        let mut full = vec![Vec::new(); g.planes];
        for (b, s) in self.state.iter().enumerate() {
            if *s == BlockState::Full {
                full[g.plane_of_block(b)].push((b as u32, self.valid[b]));
            }
        }
        self.policy
            .check(&full, g.blocks, upb)
            .map_err(|e| format!("its GC index: {e}"))?;
        if let Some(sb) = self.sb.as_deref() {
            sb.check_bounds(g, self.streams)
                .map_err(|e| format!("its superblocks: {e}"))?;
        }
        self.check_invariants()
    }
}

/// Every number in `v` (a negative or fractional one as the largest).
fn numbers(v: &serde_json::Value) -> Box<dyn Iterator<Item = u64> + '_> {
    match v {
        serde_json::Value::Number(n) => Box::new(std::iter::once(n.as_u64().unwrap_or(u64::MAX))),
        serde_json::Value::Array(a) => Box::new(a.iter().flat_map(numbers)),
        serde_json::Value::Object(o) => Box::new(o.values().flat_map(numbers)),
        _ => Box::new(std::iter::empty()),
    }
}
