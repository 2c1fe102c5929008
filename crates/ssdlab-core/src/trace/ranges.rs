//! Per-page read and write counts kept as runs: maximal ranges of consecutive 4 KiB pages with
//! the same counts. A request covers its pages in one step whatever its length (a request of
//! 2^50 bytes is one run, not 2^38 pages), and the number of runs is capped: memory depends on
//! the cap, never on the offsets and sizes in a trace.

use std::collections::BTreeMap;

/// Approximate memory of one run in the map, for messages and docs.
pub const RUN_BYTES: usize = 40;

/// Counts of one run of pages `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    end: u64,
    reads: u32,
    writes: u32,
}

/// Adding a range would need more runs than the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimit {
    pub max_runs: usize,
}

/// Page counts as runs, keyed by their first page.
#[derive(Clone, Debug)]
pub(crate) struct PageRuns {
    runs: BTreeMap<u64, Run>,
    max_runs: usize,
}

impl PageRuns {
    pub(crate) fn new(max_runs: usize) -> Self {
        PageRuns {
            runs: BTreeMap::new(),
            max_runs,
        }
    }

    /// Runs stored.
    pub(crate) fn len(&self) -> usize {
        self.runs.len()
    }

    /// `(first page, pages, reads, writes)` of every run, in page order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, u64, u32, u32)> + '_ {
        self.runs.iter().map(|(&s, r)| (s, r.end - s, r.reads, r.writes))
    }

    /// The run containing `page` that starts before it, if any.
    fn straddling(&self, page: u64) -> Option<(u64, Run)> {
        self.runs
            .range(..page)
            .next_back()
            .filter(|(_, r)| r.end > page)
            .map(|(&s, &r)| (s, r))
    }

    /// Split the run straddling `page` (if any) so that a run starts at `page`.
    fn split_at(&mut self, page: u64) {
        if let Some((s, r)) = self.straddling(page) {
            self.runs.insert(s, Run { end: page, ..r });
            self.runs.insert(page, r);
        }
    }

    /// Count one read (or write) of every page in `[first, end)`. Fails, changing nothing, if
    /// the result would need more than the cap of runs.
    pub(crate) fn add(&mut self, first: u64, end: u64, read: bool) -> Result<(), RunLimit> {
        if first >= end {
            return Ok(());
        }
        // Runs to create: the pieces of split runs, and the gaps between existing runs.
        let mut new_runs = usize::from(self.straddling(first).is_some()) + usize::from(self.straddling(end).is_some());
        let mut gaps = Vec::new();
        let mut pos = self.straddling(first).map_or(first, |(_, r)| r.end.min(end));
        for (&s, r) in self.runs.range(pos..end) {
            if s > pos {
                gaps.push((pos, s));
            }
            pos = r.end.min(end);
        }
        if pos < end {
            gaps.push((pos, end));
        }
        new_runs += gaps.len();
        if self.runs.len() + new_runs > self.max_runs {
            return Err(RunLimit {
                max_runs: self.max_runs,
            });
        }
        self.split_at(first);
        self.split_at(end);
        for (s, e) in gaps {
            self.runs.insert(
                s,
                Run {
                    end: e,
                    reads: 0,
                    writes: 0,
                },
            );
        }
        for (_, r) in self.runs.range_mut(first..end) {
            if read {
                r.reads = r.reads.saturating_add(1);
            } else {
                r.writes = r.writes.saturating_add(1);
            }
        }
        self.merge(first, end);
        Ok(())
    }

    /// Merge adjacent runs with equal counts from the run before `first` to the run at `end`.
    fn merge(&mut self, first: u64, end: u64) {
        let from = self.runs.range(..first).next_back().map_or(first, |(&s, _)| s);
        let mut keys = self.runs.range(from..=end).map(|(&s, _)| s);
        let Some(mut cur) = keys.next() else { return };
        let keys: Vec<u64> = keys.collect();
        for k in keys {
            let a = self.runs[&cur];
            let b = self.runs[&k];
            if a.end == k && a.reads == b.reads && a.writes == b.writes {
                self.runs.remove(&k);
                self.runs.insert(cur, Run { end: b.end, ..a });
            } else {
                cur = k;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(p: &PageRuns) -> Vec<(u64, u64, u32, u32)> {
        p.iter().collect()
    }

    #[test]
    fn overlapping_ranges_split_and_merge() {
        let mut p = PageRuns::new(100);
        p.add(0, 10, true).unwrap();
        assert_eq!(runs(&p), [(0, 10, 1, 0)]);
        p.add(5, 15, false).unwrap();
        assert_eq!(runs(&p), [(0, 5, 1, 0), (5, 5, 1, 1), (10, 5, 0, 1)]);
        // Filling the gap and evening the counts merges back into one run.
        p.add(0, 5, false).unwrap();
        p.add(10, 15, true).unwrap();
        assert_eq!(runs(&p), [(0, 15, 1, 1)]);
        // A range spanning runs and gaps.
        p.add(20, 22, true).unwrap();
        p.add(12, 30, true).unwrap();
        assert_eq!(
            runs(&p),
            [
                (0, 12, 1, 1),
                (12, 3, 2, 1),
                (15, 5, 1, 0),
                (20, 2, 2, 0),
                (22, 8, 1, 0)
            ]
        );
    }

    #[test]
    fn huge_ranges_are_one_run_and_the_cap_holds() {
        let mut p = PageRuns::new(3);
        p.add(0, 1 << 50, true).unwrap();
        p.add(1 << 40, 1 << 41, false).unwrap();
        assert_eq!(p.len(), 3);
        let total: u64 = p.iter().map(|r| r.1).sum();
        assert_eq!(total, 1 << 50);
        // A fourth run is refused and nothing changes.
        let before = runs(&p);
        assert_eq!(p.add(5, 6, true), Err(RunLimit { max_runs: 3 }));
        assert_eq!(runs(&p), before);
        // Adding to existing runs needs no new run.
        p.add(1 << 40, 1 << 41, true).unwrap();
        assert_eq!(runs(&p)[1], (1 << 40, 1 << 40, 2, 1));
    }
}
