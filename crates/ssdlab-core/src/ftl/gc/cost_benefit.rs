//! Cost-benefit (Rosenblum & Ousterhout, LFS): maximise (1 − u)·age / (2u), u = valid share,
//! age = time since the block became full. Scans the plane's candidates.
use super::{candidates::candidate_set_policy, CandidateSet, VictimCtx, VictimPolicy};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Victims, in order, of a cost-benefit policy over `blocks` = (valid units, stamp) of
    /// 100-unit blocks at clock `now`, inserted as candidates in reverse order.
    fn order(blocks: &[(u32, u64)], now: u64) -> Vec<u32> {
        let mut p = CostBenefit::boxed(1, blocks.len(), 100, 0);
        for (b, &(v, _)) in blocks.iter().enumerate().rev() {
            p.insert(0, b as u32, v);
        }
        let valid: Vec<u32> = blocks.iter().map(|b| b.0).collect();
        let stamp: Vec<u64> = blocks.iter().map(|b| b.1).collect();
        let ctx = VictimCtx {
            valid: &valid,
            stamp: &stamp,
            now,
            units_per_block: 100,
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        let out = std::iter::from_fn(|| p.select(0, &ctx, &mut rng)).collect();
        assert_eq!(p.len(0), 0);
        out
    }

    #[test]
    fn age_outweighs_a_lower_valid_share() {
        // (1 - u) · (now - stamp + 1) / 2u at now = 100:
        // block 0: u 0.5, age 11 -> 5.5; block 1: u 0.8, age 91 -> 11.375;
        // block 2: u 0.2, age 2 -> 4.0 (the emptiest, but just filled).
        assert_eq!(order(&[(50, 90), (80, 10), (20, 99)], 100), vec![1, 0, 2]);
        // Without ages the emptiest goes first; equal ages, equal shares: lower block first.
        assert_eq!(order(&[(50, 40), (80, 40), (20, 40)], 100), vec![2, 0, 1]);
        assert_eq!(order(&[(30, 7), (30, 7)], 9), vec![0, 1]);
    }

    #[test]
    fn a_block_filled_just_now_still_has_age_one() {
        // Both ages are 0 + 1: u 0.1 scores 4.5, u 0.9 scores 0.056; an empty block first.
        assert_eq!(order(&[(90, 50), (10, 50), (0, 50)], 50), vec![2, 1, 0]);
    }

    #[test]
    fn victims_go_by_the_lfs_score() {
        // Random blocks; the expected order sorts by (1 - u)·(age + 1) / 2u, highest first,
        // computed here in exact rational arithmetic: (100 - v)·(age + 1) / 2v.
        use rand::Rng;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let blocks: Vec<(u32, u64)> = (0..40)
            .map(|_| (rng.gen_range(1..100), rng.gen_range(0..1000)))
            .collect();
        let now = 1000u64;
        let mut want: Vec<u32> = (0..40).collect();
        let score = |b: u32| {
            let (v, s) = blocks[b as usize];
            ((100 - v) as u128 * (now - s + 1) as u128, 2 * v as u128)
        };
        want.sort_by(|&a, &b| {
            let ((na, da), (nb, db)) = (score(a), score(b));
            (nb * da).cmp(&(na * db)).then(a.cmp(&b))
        });
        assert_eq!(order(&blocks, now), want);
    }
}
