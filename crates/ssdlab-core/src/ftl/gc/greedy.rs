//! Greedy: the candidate with the fewest valid units, in O(1) per update with one doubly
//! linked list per valid count per plane (the bucket scheme of seed 002: 257 lists for
//! 256 pages per block).
use super::{VictimCtx, VictimPolicy};
use rand_xoshiro::Xoshiro256PlusPlus;

const NONE: u32 = u32::MAX;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Greedy {
    /// heads[plane * (upb + 1) + valid]
    heads: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Lowest possibly non-empty bucket per plane.
    low: Vec<u32>,
    counts: Vec<usize>,
    upb1: usize,
}

impl Greedy {
    pub fn boxed(planes: usize, blocks: usize, upb: u32, _d: u32) -> Box<dyn VictimPolicy> {
        let upb1 = upb as usize + 1;
        Box::new(Greedy {
            heads: vec![NONE; planes * upb1],
            prev: vec![NONE; blocks],
            next: vec![NONE; blocks],
            low: vec![0; planes],
            counts: vec![0; planes],
            upb1,
        })
    }
    #[inline]
    fn link(&mut self, plane: usize, block: u32, v: u32) {
        let h = plane * self.upb1 + v as usize;
        let head = self.heads[h];
        self.next[block as usize] = head;
        self.prev[block as usize] = NONE;
        if head != NONE {
            self.prev[head as usize] = block;
        }
        self.heads[h] = block;
        if v < self.low[plane] {
            self.low[plane] = v;
        }
    }
    #[inline]
    fn unlink(&mut self, plane: usize, block: u32, v: u32) {
        let (p, n) = (self.prev[block as usize], self.next[block as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.heads[plane * self.upb1 + v as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }
}

impl VictimPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn insert(&mut self, plane: usize, block: u32, valid: u32) {
        self.link(plane, block, valid);
        self.counts[plane] += 1;
    }
    #[inline]
    fn invalidate(&mut self, plane: usize, block: u32, old_valid: u32) {
        self.unlink(plane, block, old_valid);
        self.link(plane, block, old_valid - 1);
    }
    fn remove(&mut self, plane: usize, block: u32, valid: u32) {
        self.unlink(plane, block, valid);
        self.counts[plane] -= 1;
    }
    fn select(&mut self, plane: usize, _ctx: &VictimCtx, _rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        if self.counts[plane] == 0 {
            return None;
        }
        let base = plane * self.upb1;
        let mut v = self.low[plane] as usize;
        while self.heads[base + v] == NONE {
            v += 1;
        }
        self.low[plane] = v as u32;
        let b = self.heads[base + v];
        self.unlink(plane, b, v as u32);
        self.counts[plane] -= 1;
        Some(b)
    }
    fn len(&self, plane: usize) -> usize {
        self.counts[plane]
    }
    fn check(&self, full: &[Vec<(u32, u32)>], blocks: usize, upb: u32) -> Result<(), String> {
        let planes = full.len();
        if self.upb1 != upb as usize + 1
            || self.heads.len() != planes * self.upb1
            || self.prev.len() != blocks
            || self.next.len() != blocks
            || self.low.len() != planes
            || self.counts.len() != planes
        {
            return Err("its buckets are not of its geometry".into());
        }
        let mut seen = vec![false; blocks];
        for (plane, want) in full.iter().enumerate() {
            let mut got = Vec::new();
            for v in 0..self.upb1 {
                // Walk the bucket's list: every link in range, each block once, linked back.
                let (mut b, mut prev) = (self.heads[plane * self.upb1 + v], NONE);
                while b != NONE {
                    if b as usize >= blocks || seen[b as usize] || self.prev[b as usize] != prev {
                        return Err(format!("plane {plane}'s bucket {v} is not a list of its blocks"));
                    }
                    seen[b as usize] = true;
                    got.push((b, v as u32));
                    (prev, b) = (b, self.next[b as usize]);
                }
            }
            got.sort_unstable();
            if got != *want {
                return Err(format!(
                    "plane {plane} indexes {} candidates where it has {} full blocks, or other blocks or valid counts",
                    got.len(),
                    want.len()
                ));
            }
            if self.counts[plane] != got.len() || got.iter().any(|&(_, v)| v < self.low[plane]) {
                return Err(format!("plane {plane}'s count or lowest bucket is not its candidates'"));
            }
        }
        Ok(())
    }
}
