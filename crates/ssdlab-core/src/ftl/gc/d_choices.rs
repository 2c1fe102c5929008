//! d-choices: the fewest-valid block among `d` uniformly sampled candidates (Van Houdt).
//! d = 1 is random; d → ∞ approaches greedy.
use super::{candidates::candidate_set_policy, CandidateSet, VictimCtx, VictimPolicy};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct DChoices {
    set: CandidateSet,
    d: u32,
}

impl DChoices {
    pub fn boxed(planes: usize, blocks: usize, _upb: u32, d: u32) -> Box<dyn VictimPolicy> {
        Box::new(DChoices {
            set: CandidateSet::new(planes, blocks),
            d: d.max(1),
        })
    }
}

impl VictimPolicy for DChoices {
    fn name(&self) -> &'static str {
        "d-choices"
    }
    candidate_set_policy!();
    fn select(&mut self, plane: usize, ctx: &VictimCtx, rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        let mut best = self.set.sample(plane, rng)?;
        for _ in 1..self.d {
            let b = self.set.sample(plane, rng)?;
            if ctx.valid[b as usize] < ctx.valid[best as usize] {
                best = b;
            }
        }
        self.set.remove(plane, best);
        Some(best)
    }
}
