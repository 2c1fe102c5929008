//! FIFO: the block that became full first. WA is the Desnoyers closed form, independent of
//! the block size. Entries of blocks that left the candidate set are skipped lazily.
use super::{VictimCtx, VictimPolicy};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Fifo {
    queues: Vec<VecDeque<(u32, u64)>>,
    /// Stamp under which each block is queued (0 = not a candidate).
    queued: Vec<u64>,
    counts: Vec<usize>,
    clock: u64,
}

impl Fifo {
    pub fn boxed(planes: usize, blocks: usize, _upb: u32, _d: u32) -> Box<dyn VictimPolicy> {
        Box::new(Fifo {
            queues: vec![VecDeque::new(); planes],
            queued: vec![0; blocks],
            counts: vec![0; planes],
            clock: 0,
        })
    }
}

impl VictimPolicy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn insert(&mut self, plane: usize, block: u32, _valid: u32) {
        self.clock += 1;
        self.queued[block as usize] = self.clock;
        self.queues[plane].push_back((block, self.clock));
        self.counts[plane] += 1;
    }
    fn remove(&mut self, plane: usize, block: u32, _valid: u32) {
        self.queued[block as usize] = 0;
        self.counts[plane] -= 1;
    }
    fn select(&mut self, plane: usize, _ctx: &VictimCtx, _rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        while let Some((b, s)) = self.queues[plane].pop_front() {
            if self.queued[b as usize] == s {
                self.queued[b as usize] = 0;
                self.counts[plane] -= 1;
                return Some(b);
            }
        }
        None
    }
    fn len(&self, plane: usize) -> usize {
        self.counts[plane]
    }
    fn check(&self, full: &[Vec<(u32, u32)>], blocks: usize, _upb: u32) -> Result<(), String> {
        let planes = full.len();
        if self.queues.len() != planes || self.queued.len() != blocks || self.counts.len() != planes {
            return Err("its queues are not of its geometry".into());
        }
        let mut live_total = 0;
        for (plane, q) in self.queues.iter().enumerate() {
            let mut live = Vec::new();
            for &(b, s) in q {
                if b as usize >= blocks || s > self.clock {
                    return Err(format!(
                        "plane {plane}'s queue holds block {b} stamped {s}, outside its geometry or clock"
                    ));
                }
                if s != 0 && self.queued[b as usize] == s {
                    live.push(b);
                }
            }
            live_total += live.len();
            if self.counts[plane] != live.len() {
                return Err(format!(
                    "plane {plane} counts {} candidates, its queue holds {}",
                    self.counts[plane],
                    live.len()
                ));
            }
            super::same_candidates(plane, live, &full[plane])?;
        }
        let stamped = self.queued.iter().filter(|&&s| s != 0).count();
        if stamped != live_total {
            return Err(format!(
                "{stamped} blocks are stamped queued but the queues hold {live_total}"
            ));
        }
        Ok(())
    }
}
