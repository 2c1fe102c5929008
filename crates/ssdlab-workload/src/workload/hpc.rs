//! An HPC-like synthetic workload (`[job.hpc]`), after the generator of HotR (DATE 2019):
//! "an HPC-like synthetic workload lets us vary the read/write ratio, the request arrival
//! time, the read access probability (locality) and sequentiality". Those are its four knobs:
//! `read_share`, `rate` (Poisson arrivals, open loop), `read_locality` (with the hot read set's
//! size `hot_share`) and `sequentiality`; requests are `bs` each.
//!
//! The layout of the job's region, in `bs` blocks aligned to `bs` on the device (the region's
//! partial blocks at either end are not used), `S` blocks in all:
//!
//! ```text
//! [0, H)  hot read set, H = floor(hot_share × S): input data, read, never written
//! [H, S)  cold space: checkpoint and output data, where every write lands
//! [0, S)  read region: where a read outside the hot set lands (so it can hit the hot set)
//! ```
//!
//! A read goes to the hot read set with probability `read_locality`, uniform over it (or, with
//! `hot_zipf` θ > 0, Zipf with exponent θ over its blocks: the block of rank k drawn with
//! probability proportional to k^−θ, ranks scattered over the set); otherwise it is uniform
//! over the whole read region. A write is uniform over the cold space. With
//! probability `sequentiality` a request instead continues where the previous request of its
//! kind ended, in the same place as that one (a hot read in the hot set, a cold read in the
//! read region, a write in the cold space), wrapping to the start of that place at its end.
//! So every read hits the hot set with probability exactly
//! `read_locality + (1 − read_locality) × H / S`, and no write ever does.

use crate::request::{Op, Request, RequestSource};
use crate::units::fmt_size;
use crate::workload::job::{JobConfig, Limits};
use crate::workload::tables::BadKey;
use crate::{Error, Result};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp1};
use rand_xoshiro::Xoshiro256PlusPlus;

pub use crate::workload::tables::HpcJob;

/// The highest `rate`: one request per nanosecond on average.
pub const MAX_RATE: f64 = 1e9;

/// Where the requests of a job go: `slots` blocks of `bs` bytes from `start`, the first `hot`
/// of them the hot read set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// First byte of block 0 (a multiple of `bs`).
    pub start: u64,
    pub bs: u64,
    /// Blocks of the read region (S).
    pub slots: u64,
    /// Blocks of the hot read set (H), at the start of the region; the rest is the cold space.
    pub hot: u64,
}

impl Layout {
    /// Byte offset of block `slot`.
    pub fn offset(&self, slot: u64) -> u64 {
        self.start + slot * self.bs
    }

    /// Whether the block at byte `offset` is in the hot read set.
    pub fn is_hot(&self, offset: u64) -> bool {
        offset >= self.start && offset < self.offset(self.hot)
    }
}

/// Check the keys of `[job.hpc]` and lay out the job's region on a device of `capacity`
/// bytes. A bad value names its key relative to the job (`hpc.read_share`, `size`).
pub fn layout(job: &JobConfig, hpc: &HpcJob, capacity: u64) -> std::result::Result<Layout, BadKey> {
    for (key, v) in [
        ("read_share", hpc.read_share),
        ("read_locality", hpc.read_locality),
        ("sequentiality", hpc.sequentiality),
    ] {
        if !(0.0..=1.0).contains(&v) {
            return Err(BadKey::new(
                &format!("hpc.{key}"),
                format!("got {v}; expected a share from 0 to 1"),
            ));
        }
    }
    if !(hpc.rate > 0.0 && hpc.rate <= MAX_RATE) {
        return Err(BadKey::new(
            "hpc.rate",
            format!(
                "got {}; expected a positive rate in requests per second, at most {MAX_RATE:e}",
                hpc.rate
            ),
        ));
    }
    if !(0.0..=4.0).contains(&hpc.hot_zipf) {
        return Err(BadKey::new(
            "hpc.hot_zipf",
            format!("got {}; expected a Zipf exponent from 0 (uniform) to 4", hpc.hot_zipf),
        ));
    }
    if !(hpc.hot_share > 0.0 && hpc.hot_share < 1.0) {
        return Err(BadKey::new(
            "hpc.hot_share",
            format!(
                "got {}; expected a share of the region above 0 and below 1",
                hpc.hot_share
            ),
        ));
    }
    let (off, len) = job.region(capacity).map_err(|m| BadKey::new("size", m))?;
    let bs = hpc.bs.0;
    if bs == 0 || !bs.is_multiple_of(512) || bs > len / 2 {
        return Err(BadKey::new(
            "hpc.bs",
            format!(
                "got {}; expected a multiple of 512 bytes from 512B to half the job's region ({})",
                fmt_size(bs),
                fmt_size(len / 2)
            ),
        ));
    }
    let start = off.next_multiple_of(bs);
    let slots = ((off + len) / bs).saturating_sub(start / bs);
    if slots < 2 {
        return Err(BadKey::new(
            "size",
            format!(
                "the job's region of {} holds {slots} aligned block(s) of {}; expected at least 2 (one hot, one cold)",
                fmt_size(len),
                fmt_size(bs)
            ),
        ));
    }
    let hot = (hpc.hot_share * slots as f64) as u64;
    if hot == 0 || hot >= slots {
        return Err(BadKey::new(
            "hpc.hot_share",
            format!(
                "got {}: a hot read set of {hot} of the region's {slots} blocks of {}; expected a share that holds at least one block and leaves one (from {} to below 1, or a larger size)",
                hpc.hot_share,
                fmt_size(bs),
                1.0 / slots as f64
            ),
        ));
    }
    Ok(Layout { start, bs, slots, hot })
}

/// Check `[job.hpc]` of `job` against a device of `capacity` bytes.
pub fn check(job: &JobConfig, hpc: &HpcJob, capacity: u64) -> std::result::Result<(), BadKey> {
    layout(job, hpc, capacity).map(|_| ())
}

/// Where the previous read was drawn, and the block after it.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    /// The hot read set (else the read region, or the cold space for writes).
    hot: bool,
    next: u64,
}

/// The requests of one clone of an HPC-like job.
pub struct HpcSource {
    name: String,
    layout: Layout,
    read_share: f64,
    read_locality: f64,
    sequentiality: f64,
    /// Mean inter-arrival time, ns.
    mean_gap_ns: f64,
    /// Popularity of the hot read set's blocks (None: uniform).
    hot_zipf: Option<rand_distr::Zipf<f64>>,
    rng: Xoshiro256PlusPlus,
    /// Arrival time of the last request, ns from the job's start.
    time_ns: u64,
    read: Option<Cursor>,
    write: Option<Cursor>,
    limits: Limits,
}

impl HpcSource {
    /// The source of one clone (seeded `seed`) of `job` on a device of `capacity` bytes.
    pub fn new(job: &JobConfig, hpc: &HpcJob, capacity: u64, seed: u64) -> Result<HpcSource> {
        let layout = layout(job, hpc, capacity)
            .map_err(|b| Error::Invalid(format!("job '{}': {}: {}", job.name, b.key, b.msg)))?;
        Ok(HpcSource {
            name: job.name.clone(),
            layout,
            read_share: hpc.read_share,
            read_locality: hpc.read_locality,
            sequentiality: hpc.sequentiality,
            mean_gap_ns: 1e9 / hpc.rate,
            hot_zipf: (hpc.hot_zipf > 0.0)
                .then(|| rand_distr::Zipf::new(layout.hot, hpc.hot_zipf))
                .transpose()
                .map_err(|e| Error::Invalid(format!("job '{}': hpc.hot_zipf: {e}", job.name)))?,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            time_ns: 0,
            read: None,
            write: None,
            // As a fio-style job: one pass's worth of bytes over the region by default.
            limits: Limits::new(job, layout.slots * layout.bs),
        })
    }

    /// The layout the source draws from.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The next request's operation and block.
    fn draw(&mut self) -> (Op, u64) {
        let read = self.rng.gen_bool(self.read_share);
        let seq = self.rng.gen_bool(self.sequentiality);
        let l = self.layout;
        let prev = if read { self.read } else { self.write };
        let at = match prev {
            Some(c) if seq => {
                // Continue in the same place, wrapping at its end.
                let (first, end) = match (read, c.hot) {
                    (true, true) => (0, l.hot),
                    (true, false) => (0, l.slots),
                    (false, _) => (l.hot, l.slots),
                };
                Cursor {
                    hot: c.hot,
                    next: if c.next >= end { first } else { c.next },
                }
            }
            _ if read => {
                if self.rng.gen_bool(self.read_locality) {
                    let next = match &self.hot_zipf {
                        Some(z) => {
                            let rank = z.sample(&mut self.rng) as u64;
                            crate::workload::job::scatter(rank.saturating_sub(1).min(l.hot - 1), l.hot)
                        }
                        None => self.rng.gen_range(0..l.hot),
                    };
                    Cursor { hot: true, next }
                } else {
                    Cursor {
                        hot: false,
                        next: self.rng.gen_range(0..l.slots),
                    }
                }
            }
            _ => Cursor {
                hot: false,
                next: self.rng.gen_range(l.hot..l.slots),
            },
        };
        let after = Some(Cursor {
            next: at.next + 1,
            ..at
        });
        if read {
            self.read = after;
        } else {
            self.write = after;
        }
        (if read { Op::Read } else { Op::Write }, at.next)
    }
}

impl RequestSource for HpcSource {
    fn next_request(&mut self, now_ns: u64) -> Result<Option<Request>> {
        if self.limits.reached(now_ns) {
            return Ok(None);
        }
        // Poisson arrivals: exponential gaps from the job's start.
        let gap: f64 = Exp1.sample(&mut self.rng);
        let t = self.time_ns.saturating_add((gap * self.mean_gap_ns).round() as u64);
        if self.limits.runtime_ns().is_some_and(|r| t >= r) {
            return Ok(None);
        }
        if t > crate::units::HORIZON_NS {
            return Err(Error::Invalid(format!(
                "job '{}': hpc.rate: request {} would arrive at {t} ns, past the simulated-time horizon; expected a higher rate or fewer requests (times up to 2^62 ns)",
                self.name,
                self.limits.issued() + 1
            )));
        }
        self.time_ns = t;
        let (op, slot) = self.draw();
        self.limits.count(self.layout.bs);
        Ok(Some(Request {
            time_ns: t,
            op,
            offset: self.layout.offset(slot),
            len: self.layout.bs,
            stream: 0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Size;

    /// A job on `size` bytes at `offset` of a 1 GiB device, with `[job.hpc]` from TOML text.
    fn job(hpc: &str, extra: &str) -> JobConfig {
        toml::from_str(&format!("{extra}\n[hpc]\n{hpc}\n")).unwrap()
    }

    fn requests(job: &JobConfig, seed: u64) -> Vec<Request> {
        let mut s = HpcSource::new(job, job.hpc.as_ref().unwrap(), 1 << 30, seed).unwrap();
        let mut v = Vec::new();
        let mut now = 0;
        while let Some(r) = s.next_request(now).unwrap() {
            now = r.time_ns;
            v.push(r);
        }
        v
    }

    fn layout_of(job: &JobConfig) -> Layout {
        layout(job, job.hpc.as_ref().unwrap(), 1 << 30).unwrap()
    }

    /// `|got − want| ≤ k` standard deviations `sd`, with a message.
    fn within(what: &str, got: f64, want: f64, sd: f64, k: f64) {
        assert!(
            (got - want).abs() <= k * sd,
            "{what}: got {got}, expected {want} ± {k} × {sd}"
        );
    }

    #[test]
    fn defaults_are_the_seeds_hpc_46() {
        let h = HpcJob::default();
        assert_eq!(
            (
                h.read_share,
                h.rate,
                h.read_locality,
                h.hot_share,
                h.sequentiality,
                h.bs
            ),
            (0.46, 2000.0, 0.9, 0.1, 0.3, Size(4096))
        );
        let v = toml::Value::try_from(&h).unwrap();
        let mut keys: Vec<&str> = v.as_table().unwrap().keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        let mut want = HpcJob::KEYS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want, "KEYS lists the table's keys");
    }

    #[test]
    fn the_layout_is_aligned_and_split_at_hot_share() {
        // 1 MiB + 3 KiB from offset 3 KiB: its whole 4 KiB blocks are 4 KiB to 1028 KiB, 256.
        let j = job("hot_share = 0.25", "offset = 3072\nsize = 1051648");
        assert_eq!(
            layout_of(&j),
            Layout {
                start: 4096,
                bs: 4096,
                slots: 256,
                hot: 64
            }
        );
        let j = job("hot_share = 0.1\nbs = \"64KiB\"", "size = \"16MiB\"");
        assert_eq!(layout_of(&j).slots, 256);
        assert_eq!(layout_of(&j).hot, 25, "floor(0.1 × 256)");
    }

    #[test]
    fn requests_stay_in_the_region_aligned_and_writes_avoid_the_hot_set() {
        let j = job(
            "bs = \"8KiB\"\nsequentiality = 0.5",
            "offset = \"1MiB\"\nsize = \"4MiB\"\nnumber_ios = 20000",
        );
        let l = layout_of(&j);
        let reqs = requests(&j, 3);
        assert_eq!(reqs.len(), 20_000);
        let mut hot_reads = 0;
        for r in &reqs {
            assert_eq!(r.len, 8192);
            assert!(r.offset.is_multiple_of(8192), "{r:?}");
            assert!(r.offset >= 1 << 20 && r.offset + r.len <= 5 << 20, "{r:?}");
            assert_ne!(r.op, Op::Trim);
            if r.op == Op::Write {
                assert!(!l.is_hot(r.offset), "a write in the hot read set: {r:?}");
            } else {
                hot_reads += l.is_hot(r.offset) as u32;
            }
        }
        assert!(hot_reads > 0);
    }

    #[test]
    fn the_read_share_is_read_share() {
        let n = 100_000.0;
        for p in [0.0, 0.2, 0.46, 0.8, 1.0] {
            let j = job(&format!("read_share = {p}"), "size = \"64MiB\"\nnumber_ios = 100000");
            let reads = requests(&j, 5).iter().filter(|r| r.op == Op::Read).count() as f64;
            match p {
                0.0 => assert_eq!(reads, 0.0),
                1.0 => assert_eq!(reads, n),
                _ => within("read share", reads / n, p, (p * (1.0 - p) / n).sqrt(), 5.0),
            }
        }
    }

    #[test]
    fn arrivals_are_poisson_at_rate() {
        for rate in [2000.0, 150_000.0] {
            let j = job(&format!("rate = {rate}"), "size = \"64MiB\"\nnumber_ios = 100000");
            let reqs = requests(&j, 9);
            // The first arrival is a gap after the start too.
            let mut gaps = vec![reqs[0].time_ns as f64];
            gaps.extend(reqs.windows(2).map(|w| w[1].time_ns as f64 - w[0].time_ns as f64));
            assert!(gaps.iter().all(|&g| g >= 0.0), "arrivals in order");
            let n = gaps.len() as f64;
            let mean = gaps.iter().sum::<f64>() / n;
            let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let want = 1e9 / rate;
            // Exponential: the mean's deviation is mean/√n; the CV is 1 (sd of its estimate
            // about √(2/n)); P(gap > mean) = 1/e.
            within("mean gap", mean, want, want / n.sqrt(), 5.0);
            within("coefficient of variation", sd / mean, 1.0, (2.0 / n).sqrt(), 5.0);
            let above = gaps.iter().filter(|&&g| g > want).count() as f64 / n;
            let e = (-1.0f64).exp();
            within("P(gap > mean)", above, e, (e * (1.0 - e) / n).sqrt(), 5.0);
        }
    }

    #[test]
    fn reads_hit_the_hot_set_with_read_locality_plus_the_uniform_parts_chance() {
        for (loc, hot, seq) in [(0.9, 0.1, 0.3), (0.6, 0.25, 0.0), (0.0, 0.5, 0.5), (1.0, 0.1, 0.8)] {
            let j = job(
                &format!("read_locality = {loc}\nhot_share = {hot}\nsequentiality = {seq}\nread_share = 0.7"),
                "size = \"64MiB\"\nnumber_ios = 200000",
            );
            let l = layout_of(&j);
            let reads: Vec<Request> = requests(&j, 7).into_iter().filter(|r| r.op == Op::Read).collect();
            let n = reads.len() as f64;
            let got = reads.iter().filter(|r| l.is_hot(r.offset)).count() as f64 / n;
            // Exact: a read is hot-set mode with probability loc (sequential reads keep the
            // mode, fresh ones draw it), and a read-region read is uniform over S blocks.
            let want = loc + (1.0 - loc) * l.hot as f64 / l.slots as f64;
            if loc == 1.0 {
                assert_eq!(got, 1.0);
                continue;
            }
            // Sequential reads repeat their mode: the variance grows by (1 + seq) / (1 − seq).
            let sd = (want * (1.0 - want) / n * (1.0 + seq) / (1.0 - seq)).sqrt();
            within(&format!("hot reads at locality {loc}"), got, want, sd, 5.0);
        }
    }

    #[test]
    fn sequentiality_is_the_share_of_requests_continuing_their_kind() {
        for seq in [0.0, 0.3, 0.75, 1.0] {
            let j = job(
                &format!("sequentiality = {seq}"),
                "size = \"64MiB\"\nnumber_ios = 100000",
            );
            let l = layout_of(&j);
            let reqs = requests(&j, 11);
            for op in [Op::Read, Op::Write] {
                let (mut n, mut cont) = (0u64, 0u64);
                let mut end = None;
                for r in reqs.iter().filter(|r| r.op == op) {
                    if let Some(e) = end {
                        n += 1;
                        cont += (r.offset == e) as u64;
                    }
                    end = Some(r.offset + r.len);
                }
                let got = cont as f64 / n as f64;
                // A sequential request at the end of its place wraps (not counted), a random
                // one may start where the last ended by chance: both below 1/H + 1/(S − H).
                let edge = 1.0 / l.hot as f64 + 1.0 / (l.slots - l.hot) as f64;
                let sd = (seq * (1.0 - seq) / n as f64).sqrt();
                let (lo, hi) = (seq * (1.0 - edge) - 5.0 * sd, seq + (1.0 - seq) * edge + 5.0 * sd);
                assert!(
                    got >= lo && got <= hi,
                    "{op:?} at sequentiality {seq}: {got} not in [{lo}, {hi}]"
                );
            }
        }
    }

    /// `hot_zipf`: the hot set's blocks ranked by how often they are read follow k^−θ / H(n, θ)
    /// (the ranks are scattered, so the counts are sorted first); θ = 0 is uniform; out of
    /// range is refused.
    #[test]
    fn hot_reads_follow_the_zipf_law_inside_the_hot_set() {
        // 1 MiB of 4 KiB blocks, a quarter hot: 64 hot blocks.
        for theta in [0.0, 0.8, 1.2] {
            let j = job(
                &format!(
                    "sequentiality = 0.0\nread_share = 1.0\nread_locality = 1.0\nhot_share = 0.25\nhot_zipf = {theta}"
                ),
                "size = \"1MiB\"\nnumber_ios = 200000",
            );
            let l = layout_of(&j);
            assert_eq!(l.hot, 64);
            let mut count = vec![0u64; l.hot as usize];
            let reqs = requests(&j, 5);
            for r in &reqs {
                assert!(l.is_hot(r.offset));
                count[((r.offset - l.start) / l.bs) as usize] += 1;
            }
            count.sort_unstable_by(|a, b| b.cmp(a));
            let h: f64 = (1..=64).map(|k| (k as f64).powf(-theta)).sum();
            let n = reqs.len() as f64;
            for (k, &c) in count.iter().enumerate().take(3) {
                let p = ((k + 1) as f64).powf(-theta) / h;
                let got = c as f64 / n;
                // Sorting the counts biases the top ranks up when they are close (uniform).
                let slack = if theta == 0.0 { 6.0 } else { 5.0 };
                within(
                    &format!("rank {} at θ {theta}", k + 1),
                    got,
                    p,
                    (p * (1.0 - p) / n).sqrt(),
                    slack,
                );
            }
        }
        let j = job("hot_zipf = 4.5", "size = \"1MiB\"");
        assert_eq!(
            layout(&j, j.hpc.as_ref().unwrap(), 1 << 30).unwrap_err().key,
            "hpc.hot_zipf"
        );
    }

    #[test]
    fn sequential_runs_wrap_inside_their_place() {
        // Fully sequential, all hot reads: the hot set's 4 blocks over and over.
        let j = job(
            "sequentiality = 1.0\nread_share = 1.0\nread_locality = 1.0\nhot_share = 0.25",
            "size = \"64KiB\"\nnumber_ios = 12",
        );
        let slots: Vec<u64> = requests(&j, 1).iter().map(|r| r.offset / 4096).collect();
        let k = slots[0];
        assert_eq!(slots, (0..12).map(|i| (k + i) % 4).collect::<Vec<_>>());
        // Writes: the cold space, blocks 4 to 15.
        let j = job(
            "sequentiality = 1.0\nread_share = 0.0\nhot_share = 0.25",
            "size = \"64KiB\"\nnumber_ios = 30",
        );
        let slots: Vec<u64> = requests(&j, 1).iter().map(|r| r.offset / 4096).collect();
        let k = slots[0] - 4;
        assert_eq!(slots, (0..30).map(|i| 4 + (k + i) % 12).collect::<Vec<_>>());
    }

    #[test]
    fn the_same_seed_gives_the_same_requests() {
        let j = job("", "size = \"16MiB\"\nnumber_ios = 5000");
        let a = requests(&j, 42);
        assert_eq!(a, requests(&j, 42));
        assert_ne!(a, requests(&j, 43));
        assert_eq!(a.len(), 5000);
    }

    #[test]
    fn the_job_limits_stop_it() {
        // Default: one pass's worth of bytes over the region.
        let j = job("bs = \"16KiB\"", "size = \"4MiB\"");
        assert_eq!(requests(&j, 1).len(), 256);
        let j = job("", "size = \"4MiB\"\nio_size = \"40KiB\"");
        assert_eq!(requests(&j, 1).len(), 10);
        // A runtime: no arrival at or after it; at 2000 IOPS, about 200 in 100 ms.
        let j = job("", "size = \"4MiB\"\nruntime = \"100ms\"\ntime_based = true");
        let reqs = requests(&j, 1);
        assert!(reqs.iter().all(|r| r.time_ns < 100_000_000));
        within("arrivals in 100 ms", reqs.len() as f64, 200.0, 200f64.sqrt(), 5.0);
    }

    #[test]
    fn arrivals_past_the_horizon_are_an_error_naming_the_rate() {
        // A mean gap of 10^18 ns: the fifth arrival or so passes 2^62 ns.
        let j = job("rate = 1e-9", "size = \"4MiB\"\nnumber_ios = 100");
        let mut s = HpcSource::new(&j, j.hpc.as_ref().unwrap(), 1 << 30, 1).unwrap();
        let e = loop {
            match s.next_request(0) {
                Ok(Some(r)) => assert!(r.time_ns <= crate::units::HORIZON_NS),
                Ok(None) => panic!("ended before the horizon"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(e.starts_with("job 'job': hpc.rate: request "), "{e}");
        assert!(e.contains("; expected a higher rate or fewer requests"), "{e}");
    }
}
