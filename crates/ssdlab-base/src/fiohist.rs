//! fio's latency histograms: the log-linear bins of `--output-format json+` (`clat_ns.bins`,
//! fio's `FIO_IO_U_PLAT_BITS = 6`: 64 bins per power of two, exact below 128 ns) and the coarse
//! `latency_ns` / `latency_us` / `latency_ms` buckets of fio's JSON output.

/// Bits of a latency kept exact in its bin (fio's `FIO_IO_U_PLAT_BITS`).
pub const PLAT_BITS: u32 = 6;
/// Bins per group (fio's `FIO_IO_U_PLAT_VAL`).
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Groups (fio's `FIO_IO_U_PLAT_GROUP_NR`): latencies up to about 17 s have their own bin.
pub const PLAT_GROUP_NR: usize = 29;
/// Bins in all (fio's `FIO_IO_U_PLAT_NR`).
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL as usize;

/// The bin of a latency in ns (fio's `plat_val_to_idx`).
pub fn plat_val_to_idx(val: u64) -> usize {
    let msb = if val == 0 { 0 } else { 63 - val.leading_zeros() };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) << PLAT_BITS) as usize;
    let offset = ((PLAT_VAL - 1) & (val >> error_bits)) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// The value fio prints for a bin: the middle of its range, truncated (fio's `plat_idx_to_val`).
pub fn plat_idx_to_val(idx: usize) -> u64 {
    if idx < (PLAT_VAL << 1) as usize {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = idx as u64 % PLAT_VAL;
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// Latency counts in fio's log-linear bins.
#[derive(Clone, Debug)]
pub struct PlatHist {
    counts: Vec<u64>,
}

impl Default for PlatHist {
    fn default() -> Self {
        PlatHist {
            counts: vec![0; PLAT_NR],
        }
    }
}

impl PlatHist {
    #[inline]
    pub fn record(&mut self, lat_ns: u64) {
        self.counts[plat_val_to_idx(lat_ns)] += 1;
    }

    /// Non-empty bins as (bin value in ns, count), in increasing order: fio's `bins` object.
    pub fn bins(&self) -> Vec<(u64, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, &n)| (plat_idx_to_val(i), n))
            .collect()
    }
}

/// Upper (exclusive) edges of fio's ns and us buckets; its ms buckets add 2000 and `>=2000`.
pub const EDGES: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/// Counts of latencies in fio's `latency_ns`, `latency_us` and `latency_ms` buckets: a bucket
/// named N holds the latencies below N of its unit and at or above the previous edge.
#[derive(Clone, Debug, Default)]
pub struct LatBuckets {
    pub ns: [u64; 10],
    pub us: [u64; 10],
    pub ms: [u64; 12],
}

fn edge_index(v: u64) -> usize {
    EDGES.iter().position(|&e| v < e).unwrap_or(EDGES.len() - 1)
}

impl LatBuckets {
    #[inline]
    pub fn record(&mut self, lat_ns: u64) {
        if lat_ns < 1_000 {
            self.ns[edge_index(lat_ns)] += 1;
        } else if lat_ns < 1_000_000 {
            self.us[edge_index(lat_ns / 1_000)] += 1;
        } else {
            let ms = lat_ns / 1_000_000;
            let i = match ms {
                0..=999 => edge_index(ms),
                1000..=1999 => 10,
                _ => 11,
            };
            self.ms[i] += 1;
        }
    }

    pub fn add(&mut self, o: &LatBuckets) {
        let add = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.ns, &o.ns);
        add(&mut self.us, &o.us);
        add(&mut self.ms, &o.ms);
    }

    pub fn total(&self) -> u64 {
        self.ns.iter().chain(&self.us).chain(&self.ms).sum()
    }

    /// (bucket name, count) for the ns, us and ms buckets, as fio names them.
    pub fn named(&self) -> [Vec<(String, u64)>; 3] {
        let names = |c: &[u64]| -> Vec<(String, u64)> {
            c.iter()
                .enumerate()
                .map(|(i, &n)| {
                    let name = match i {
                        10 => "2000".to_string(),
                        11 => ">=2000".to_string(),
                        _ => EDGES[i].to_string(),
                    };
                    (name, n)
                })
                .collect()
        };
        [names(&self.ns), names(&self.us), names(&self.ms)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_fios() {
        // Exact below 128 ns.
        assert_eq!(plat_val_to_idx(127), 127);
        assert_eq!(plat_idx_to_val(127), 127);
        // 128..129 share a bin printed as 129; 130..131 the next, printed as 131.
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_val_to_idx(129), 128);
        assert_eq!(plat_idx_to_val(128), 129);
        assert_eq!(plat_val_to_idx(130), 129);
        // 100 us = 100,000 ns: msb 16, 10 error bits, base (11 << 6) = 704, offset
        // (100000 >> 10) & 63 = 97 & 63 = 33: bin 737, whose range is [2^16 + 33 * 1024,
        // + 1024) = [99328, 100352), printed as its middle 99840.
        assert_eq!(plat_val_to_idx(100_000), 737);
        assert_eq!(plat_idx_to_val(737), 99_840);
        // Past the last group, everything lands in the last bin.
        assert_eq!(plat_val_to_idx(u64::MAX), PLAT_NR - 1);
        // Every bin's value falls back into that bin.
        for i in 0..PLAT_NR - 1 {
            assert_eq!(plat_val_to_idx(plat_idx_to_val(i)), i, "bin {i}");
        }
    }

    #[test]
    fn buckets_split_at_fios_edges() {
        let mut b = LatBuckets::default();
        for v in [
            0,
            1,
            2,
            999,
            1_000,
            1_999,
            3_999,
            4_000,
            999_999,
            1_000_000,
            1_999_999_999,
            2_000_000_000,
        ] {
            b.record(v);
        }
        assert_eq!(b.ns, [2, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(b.us, [2, 1, 1, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(b.ms, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]);
        assert_eq!(b.total(), 12);
        let [_, _, ms] = b.named();
        assert_eq!(ms[10].0, "2000");
        assert_eq!(ms[11].0, ">=2000");
        assert_eq!(ms[9].0, "1000");
    }
}
