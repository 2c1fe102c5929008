//! Windows of simulated time: what completed in each fixed-width interval from an origin. The
//! bandwidth and IOPS samples of a job (fio's `bw_avg_time`, `iops_avg_time`) and the averaged
//! entries of fio's logs (`log_avg_msec`) are both made of them.

/// What completed in one window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Window {
    pub ios: u64,
    pub bytes: u64,
    /// Sum of the latencies of the window's I/Os (ns).
    pub lat_sum: u128,
}

impl Window {
    /// Bytes per second over a window of `width_ns`, in KiB/s (fio's bandwidth unit).
    pub fn kib_per_s(&self, width_ns: u64) -> u64 {
        (self.bytes as u128 * 1_000_000_000 / width_ns as u128 / 1024) as u64
    }
    /// I/Os per second over a window of `width_ns`.
    pub fn iops(&self, width_ns: u64) -> u64 {
        (self.ios as u128 * 1_000_000_000 / width_ns as u128) as u64
    }
    /// Mean latency (ns) of the window's I/Os.
    pub fn mean_lat(&self) -> u64 {
        if self.ios == 0 {
            0
        } else {
            (self.lat_sum / self.ios as u128) as u64
        }
    }
}

/// Consecutive windows `[origin + k * width, origin + (k + 1) * width)`, one [`Window`] per
/// direction (read, write, trim); only the current one is kept, so memory does not grow with
/// the run.
#[derive(Clone, Debug)]
pub struct Windows {
    pub width: u64,
    origin: u64,
    index: u64,
    cur: [Window; 3],
}

impl Windows {
    pub fn new(width_ns: u64, origin_ns: u64) -> Windows {
        Windows {
            width: width_ns.max(1),
            origin: origin_ns,
            index: 0,
            cur: [Window::default(); 3],
        }
    }

    /// Hand the windows that end at or before `t` to `closed` as (index, window, count), in
    /// order: the current window with count 1, then the empty ones after it as one call with
    /// their number, so that a long idle gap costs one call, not one per window.
    pub fn close_until<E>(
        &mut self,
        t: u64,
        closed: &mut impl FnMut(u64, &[Window; 3], u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let k = t.saturating_sub(self.origin) / self.width;
        if self.index < k {
            closed(self.index, &self.cur, 1)?;
            self.cur = [Window::default(); 3];
            self.index += 1;
            if self.index < k {
                closed(self.index, &self.cur, k - self.index)?;
                self.index = k;
            }
        }
        Ok(())
    }

    /// Count an I/O of direction `dir` (0 read, 1 write, 2 trim) completed at `t` (not before
    /// the origin; times do not go backwards), after closing the windows that ended before it.
    pub fn add<E>(
        &mut self,
        t: u64,
        dir: usize,
        bytes: u64,
        lat_ns: u64,
        closed: &mut impl FnMut(u64, &[Window; 3], u64) -> Result<(), E>,
    ) -> Result<(), E> {
        self.close_until(t, closed)?;
        let w = &mut self.cur[dir];
        w.ios += 1;
        w.bytes += bytes;
        w.lat_sum += lat_ns as u128;
        Ok(())
    }
}

/// Running sample variance by Welford's update: each sample moves the mean by its share of
/// its distance from it and adds that distance's product with the new distance to the sum of
/// squared deviations. Stable where a sum of squares cancels (values far from zero with a
/// small spread: latencies of seconds that differ by nanoseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Welford {
    /// `count` samples of value `v`.
    #[inline]
    pub fn add_n(&mut self, v: f64, count: u64) {
        if count == 0 {
            return;
        }
        self.n += count;
        let delta = v - self.mean;
        self.mean += delta * count as f64 / self.n as f64;
        self.m2 += delta * (v - self.mean) * count as f64;
    }
    /// Sample standard deviation (n − 1), 0 below two samples.
    pub fn stddev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        (self.m2 / (self.n - 1) as f64).max(0.0).sqrt()
    }
}

/// Running minimum, maximum, mean and sample standard deviation of integer samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleStats {
    pub n: u64,
    pub min: u64,
    pub max: u64,
    sum: u128,
    spread: Welford,
}

impl SampleStats {
    pub fn add(&mut self, v: u64) {
        self.add_n(v, 1);
    }
    /// `count` samples of value `v`.
    pub fn add_n(&mut self, v: u64, count: u64) {
        if count == 0 {
            return;
        }
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.n += count;
        self.sum += v as u128 * count as u128;
        self.spread.add_n(v as f64, count);
    }
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Sample standard deviation (n − 1), 0 below two samples.
    pub fn stddev(&self) -> f64 {
        self.spread.stddev()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_close_in_order_with_empty_ones() {
        let mut w = Windows::new(10, 100);
        let mut seen = Vec::new();
        let mut rec = |i: u64, x: &[Window; 3], count: u64| -> Result<(), ()> {
            for c in 0..count {
                seen.push((i + c, x[0].ios, x[0].bytes, x[1].ios));
            }
            Ok(())
        };
        w.add(100, 0, 4096, 5, &mut rec).unwrap();
        w.add(109, 0, 4096, 7, &mut rec).unwrap();
        w.add(109, 1, 8192, 7, &mut rec).unwrap();
        w.add(131, 0, 512, 1, &mut rec).unwrap();
        w.close_until(145, &mut rec).unwrap();
        // [100,110): two reads, a write; [110,120) and [120,130) empty; [130,140): one read;
        // [140,150) still open.
        assert_eq!(seen, vec![(0, 2, 8192, 1), (1, 0, 0, 0), (2, 0, 0, 0), (3, 1, 512, 0)]);
    }

    #[test]
    fn window_rates() {
        let w = Window {
            ios: 250,
            bytes: 250 * 4096,
            lat_sum: 250 * 1000 + 125,
        };
        // 250 I/Os of 4 KiB in 0.5 s: 500 IOPS, 2000 KiB/s.
        assert_eq!(w.iops(500_000_000), 500);
        assert_eq!(w.kib_per_s(500_000_000), 2000);
        assert_eq!(w.mean_lat(), 1000);
    }

    #[test]
    fn sample_stats() {
        let mut s = SampleStats::default();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            s.add(v);
        }
        assert_eq!((s.n, s.min, s.max), (8, 2, 9));
        assert_eq!(s.mean(), 5.0);
        // Sum of squared deviations 32 over 7.
        assert!((s.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        // The same spread 10^12 from zero, and repeated counts: a sum of squares (10^24 per
        // sample, rounded to about 10^8) would leave nothing of a variance of 4.6; Welford's
        // running mean is off by at most its ulp at 10^12 (1.2e-4), the deviation by less.
        let mut far = SampleStats::default();
        for v in [2u64, 4, 4, 4, 5, 5, 7, 9] {
            far.add(1_000_000_000_000 + v);
        }
        assert!((far.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-3, "{}", far.stddev());
        let mut counted = SampleStats::default();
        counted.add_n(2, 1);
        counted.add_n(4, 3);
        counted.add_n(5, 2);
        counted.add_n(7, 0);
        counted.add_n(7, 1);
        counted.add_n(9, 1);
        assert!((counted.stddev() - s.stddev()).abs() < 1e-12);
        assert_eq!(counted.mean(), 5.0);
        let mut one = SampleStats::default();
        one.add_n(5, 1);
        assert_eq!(one.stddev(), 0.0);
    }
}
