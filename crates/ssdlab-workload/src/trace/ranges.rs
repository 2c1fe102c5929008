//! Per-page read and write counts in memory bounded by a cap, never by the offsets and sizes in
//! a trace. Requests of a few pages count page by page in a hash map (fast, as most requests
//! are small); longer ones as runs: maximal ranges of consecutive 4 KiB pages with the same
//! counts, so a request covers its pages in one step whatever its length (a request of 2^50
//! bytes is one run, not 2^38 pages). Pages and runs together are capped.

use std::collections::{BTreeMap, HashMap};

/// Approximate memory of one page or run, for messages and docs.
pub const RUN_BYTES: usize = 40;
/// Requests of at most this many pages are counted page by page.
const SMALL_PAGES: u64 = 16;

/// Counts of one run of pages `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    end: u64,
    reads: u32,
    writes: u32,
}

/// Adding a range would need more pages and runs than the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimit {
    pub max_runs: usize,
}

/// Per-page read and write counts: single pages in a hash map, long ranges as runs.
#[derive(Clone, Debug)]
pub(crate) struct PageCounts {
    pages: HashMap<u64, (u32, u32)>,
    runs: PageRuns,
    max_runs: usize,
}

impl PageCounts {
    /// Counts keeping at most `max_runs` pages and runs.
    pub(crate) fn new(max_runs: usize) -> Self {
        PageCounts {
            pages: HashMap::new(),
            runs: PageRuns::default(),
            max_runs,
        }
    }

    /// Pages and runs stored.
    pub(crate) fn len(&self) -> usize {
        self.pages.len() + self.runs.runs.len()
    }

    /// Count one read (or write) of every page in `[first, end)`. Fails, changing nothing, if
    /// that would need more than the cap of pages and runs.
    pub(crate) fn add(&mut self, first: u64, end: u64, read: bool) -> Result<(), RunLimit> {
        let limit = RunLimit {
            max_runs: self.max_runs,
        };
        let room = self.max_runs.saturating_sub(self.len());
        if end.saturating_sub(first) > SMALL_PAGES {
            return self.runs.add(first, end, read, room).map_err(|_| limit);
        }
        let new = (first..end).filter(|p| !self.pages.contains_key(p)).count();
        if new > room {
            return Err(limit);
        }
        for p in first..end {
            let e = self.pages.entry(p).or_insert((0, 0));
            if read {
                e.0 = e.0.saturating_add(1);
            } else {
                e.1 = e.1.saturating_add(1);
            }
        }
        Ok(())
    }

    /// Call `f(pages, reads, writes)` for groups of pages with equal counts that together
    /// cover every page counted once (a page counted both ways gets the sum of its counts).
    /// Groups come in page order.
    pub(crate) fn for_each_group(&self, mut f: impl FnMut(u64, u32, u32)) {
        let mut single: Vec<(u64, (u32, u32))> = self.pages.iter().map(|(&p, &c)| (p, c)).collect();
        single.sort_unstable_by_key(|&(p, _)| p);
        let mut next = single.iter().peekable();
        for (start, len, rr, rw) in self.runs.iter() {
            let end = start + len;
            while let Some(&&(p, (r, w))) = next.peek() {
                if p >= start {
                    break;
                }
                f(1, r, w);
                next.next();
            }
            let mut inside = 0;
            while let Some(&&(p, (r, w))) = next.peek() {
                if p >= end {
                    break;
                }
                f(1, rr.saturating_add(r), rw.saturating_add(w));
                inside += 1;
                next.next();
            }
            if len > inside {
                f(len - inside, rr, rw);
            }
        }
        for &(_, (r, w)) in next {
            f(1, r, w);
        }
    }
}

/// Page counts as runs, keyed by their first page.
#[derive(Clone, Debug, Default)]
struct PageRuns {
    runs: BTreeMap<u64, Run>,
}

impl PageRuns {
    /// `(first page, pages, reads, writes)` of every run, in page order.
    fn iter(&self) -> impl Iterator<Item = (u64, u64, u32, u32)> + '_ {
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
    /// that would need more than `room` new runs.
    ///
    /// Adjacent runs always differ in their counts; only the runs meeting at `first` and at
    /// `end` can become equal, so merging looks only there.
    fn add(&mut self, first: u64, end: u64, read: bool, room: usize) -> Result<(), ()> {
        if first >= end {
            return Ok(());
        }
        // Fast path: the range is exactly one run.
        if let Some(r) = self.runs.get_mut(&first) {
            if r.end == end {
                r.bump(read);
                self.merge_at(first);
                self.merge_at(end);
                return Ok(());
            }
        }
        // Runs to create: the pieces of split runs, and the gaps between existing runs.
        let before = self.straddling(first);
        let mut new_runs = usize::from(before.is_some()) + usize::from(self.straddling(end).is_some());
        let mut pos = before.map_or(first, |(_, r)| r.end.min(end));
        for (&s, r) in self.runs.range(pos..end) {
            new_runs += usize::from(s > pos);
            pos = r.end.min(end);
        }
        new_runs += usize::from(pos < end);
        if new_runs > room {
            return Err(());
        }
        self.split_at(first);
        self.split_at(end);
        let mut pos = first;
        while pos < end {
            let gap_end = match self.runs.range_mut(pos..end).next() {
                Some((&s, r)) if s == pos => {
                    r.bump(read);
                    pos = r.end;
                    continue;
                }
                Some((&s, _)) => s,
                None => end,
            };
            let mut gap = Run {
                end: gap_end,
                reads: 0,
                writes: 0,
            };
            gap.bump(read);
            self.runs.insert(pos, gap);
            pos = gap_end;
        }
        self.merge_at(first);
        self.merge_at(end);
        Ok(())
    }

    /// Merge the run starting at `page` into the run ending there if their counts are equal.
    fn merge_at(&mut self, page: u64) {
        let Some(&b) = self.runs.get(&page) else { return };
        if let Some((_, a)) = self.runs.range_mut(..page).next_back() {
            if a.end == page && a.reads == b.reads && a.writes == b.writes {
                a.end = b.end;
                self.runs.remove(&page);
            }
        }
    }
}

impl Run {
    #[inline]
    fn bump(&mut self, read: bool) {
        if read {
            self.reads = self.reads.saturating_add(1);
        } else {
            self.writes = self.writes.saturating_add(1);
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
    fn overlapping_runs_split_and_merge() {
        let mut p = PageRuns::default();
        p.add(0, 10, true, 9).unwrap();
        assert_eq!(runs(&p), [(0, 10, 1, 0)]);
        p.add(5, 15, false, 9).unwrap();
        assert_eq!(runs(&p), [(0, 5, 1, 0), (5, 5, 1, 1), (10, 5, 0, 1)]);
        // Filling the gap and evening the counts merges back into one run.
        p.add(0, 5, false, 9).unwrap();
        p.add(10, 15, true, 9).unwrap();
        assert_eq!(runs(&p), [(0, 15, 1, 1)]);
        // A range spanning runs and gaps.
        p.add(20, 22, true, 9).unwrap();
        p.add(12, 30, true, 9).unwrap();
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
        // Three new runs needed, room for two: refused, nothing changed.
        let before = runs(&p);
        assert_eq!(p.add(40, 41, true, 0), Err(()));
        assert_eq!(p.add(1, 2, true, 1), Err(()));
        assert_eq!(runs(&p), before);
        p.add(1, 2, true, 2).unwrap();
        assert_eq!(runs(&p)[..3], [(0, 1, 1, 1), (1, 1, 2, 1), (2, 10, 1, 1)]);
    }

    #[test]
    fn huge_ranges_are_one_run_and_the_cap_holds() {
        let mut p = PageCounts::new(4);
        p.add(0, 1 << 38, true).unwrap();
        p.add(1 << 30, 1 << 31, false).unwrap();
        assert_eq!(p.len(), 3);
        // A small request is counted page by page: one more entry, then the cap.
        p.add(5, 6, false).unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p.add(7, 8, true), Err(RunLimit { max_runs: 4 }));
        assert_eq!(p.add(1 << 40, 1 << 41, true), Err(RunLimit { max_runs: 4 }));
        // Adding to what is there needs no new entry.
        p.add(5, 6, true).unwrap();
        p.add(1 << 30, 1 << 31, true).unwrap();
        let mut groups = Vec::new();
        p.for_each_group(|n, r, w| groups.push((n, r, w)));
        assert_eq!(
            groups,
            [
                (1, 2, 1),                     // page 5: the run's read, its own write and read
                ((1 << 30) - 1, 1, 0),         // the rest of the first run
                (1 << 30, 2, 1),               // the overlap
                ((1 << 38) - (1 << 31), 1, 0), // the tail
            ]
        );
        assert_eq!(groups.iter().map(|g| g.0).sum::<u64>(), 1 << 38);
    }
}
