//! Random victim: a uniformly chosen full block. WA = α/(α−1) under uniform random writes.
use super::{candidates::candidate_set_policy, CandidateSet, VictimCtx, VictimPolicy};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Random {
    set: CandidateSet,
}

impl Random {
    pub fn boxed(planes: usize, blocks: usize, _upb: u32, _d: u32) -> Box<dyn VictimPolicy> {
        Box::new(Random {
            set: CandidateSet::new(planes, blocks),
        })
    }
}

impl VictimPolicy for Random {
    fn name(&self) -> &'static str {
        "random"
    }
    candidate_set_policy!();
    fn select(&mut self, plane: usize, _ctx: &VictimCtx, rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        let b = self.set.sample(plane, rng)?;
        self.set.remove(plane, b);
        Some(b)
    }
}
