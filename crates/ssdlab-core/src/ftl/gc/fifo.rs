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
}
