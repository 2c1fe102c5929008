//! Cost-benefit (Rosenblum & Ousterhout, LFS): maximise (1 − u)·age / (2u), u = valid share,
//! age = time since the block became full. Scans the plane's candidates.
use super::{candidates::candidate_set_policy, CandidateSet, VictimCtx, VictimPolicy};
use rand_xoshiro::Xoshiro256PlusPlus;

pub struct CostBenefit {
    set: CandidateSet,
}

impl CostBenefit {
    pub fn boxed(planes: usize, blocks: usize, _upb: u32, _d: u32) -> Box<dyn VictimPolicy> {
        Box::new(CostBenefit {
            set: CandidateSet::new(planes, blocks),
        })
    }
}

impl VictimPolicy for CostBenefit {
    fn name(&self) -> &'static str {
        "cost-benefit"
    }
    candidate_set_policy!();
    fn select(&mut self, plane: usize, ctx: &VictimCtx, _rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        let mut best: Option<(f64, u32)> = None;
        for &b in self.set.list(plane) {
            let v = ctx.valid[b as usize];
            let score = if v == 0 {
                f64::INFINITY
            } else {
                let u = v as f64 / ctx.units_per_block as f64;
                let age = (ctx.now - ctx.stamp[b as usize]) as f64 + 1.0;
                (1.0 - u) * age / (2.0 * u)
            };
            // Ties go to the lower block number, so the choice never depends on list order.
            if best.is_none_or(|(s, bb)| score > s || (score == s && b < bb)) {
                best = Some((score, b));
            }
        }
        let (_, b) = best?;
        self.set.remove(plane, b);
        Some(b)
    }
}
