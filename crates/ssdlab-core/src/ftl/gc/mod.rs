//! Garbage-collection victim policies. A policy keeps its own index of the GC candidates
//! (full blocks) of each plane and picks a victim; the copying and erasing is the FTL's.
//! Adding a policy = one file here (a `Clone` type implementing [`VictimPolicy`]) plus one
//! line in [`REGISTRY`].

mod candidates;
mod cost_benefit;
mod d_choices;
mod fifo;
mod greedy;
mod random;

pub use candidates::CandidateSet;
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a policy may read about blocks when choosing.
pub struct VictimCtx<'a> {
    /// Valid units per block (global block number).
    pub valid: &'a [u32],
    /// Stamp of the moment each block became full (0 when not full). Larger = younger.
    pub stamp: &'a [u64],
    /// The current stamp clock (for ages).
    pub now: u64,
    pub units_per_block: u32,
}

/// A copy of a policy behind its box (an FTL's state is copied whole, its policy's index
/// with it), and its index as bytes (an FTL's state is saved whole in a snapshot file). Every
/// `Clone + Serialize` policy has it.
pub trait PolicyClone {
    fn clone_box(&self) -> Box<dyn VictimPolicy>;
    /// The policy's state in MessagePack, read back by its registry line's loader.
    fn save(&self) -> Vec<u8>;
}

impl<T: VictimPolicy + Clone + serde::Serialize + 'static> PolicyClone for T {
    fn clone_box(&self) -> Box<dyn VictimPolicy> {
        Box::new(self.clone())
    }
    fn save(&self) -> Vec<u8> {
        rmp_serde::to_vec(self).expect("a policy's state serialises")
    }
}

/// A policy of type `T` read back from [`PolicyClone::save`]'s bytes.
fn load<T: VictimPolicy + serde::de::DeserializeOwned + 'static>(
    bytes: &[u8],
) -> Result<Box<dyn VictimPolicy>, String> {
    rmp_serde::from_slice::<T>(bytes)
        .map(|p| Box::new(p) as Box<dyn VictimPolicy>)
        .map_err(|e| e.to_string())
}

/// Serde for an FTL's boxed policy: its registry name and its saved state.
pub mod boxed {
    use super::{VictimPolicy, REGISTRY};
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};
    use serde_bytes::{ByteBuf, Bytes};

    // Serde's `with` hands over the field as it is: a reference to the box.
    #[allow(clippy::borrowed_box)]
    pub fn serialize<S: Serializer>(p: &Box<dyn VictimPolicy>, s: S) -> Result<S::Ok, S::Error> {
        (p.name(), Bytes::new(&p.save())).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<dyn VictimPolicy>, D::Error> {
        let (name, bytes): (String, ByteBuf) = Deserialize::deserialize(d)?;
        let (_, _, _, load) = REGISTRY
            .iter()
            .find(|r| r.0 == name)
            .ok_or_else(|| D::Error::custom(format!("unknown GC policy '{name}'")))?;
        load(&bytes).map_err(|e| D::Error::custom(format!("GC policy '{name}': {e}")))
    }
}

impl Clone for Box<dyn VictimPolicy> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

pub trait VictimPolicy: Send + PolicyClone {
    fn name(&self) -> &'static str;
    /// `block` of `plane` became full with `valid` valid units: it is now a candidate.
    fn insert(&mut self, plane: usize, block: u32, valid: u32);
    /// A candidate lost one valid unit (it had `old_valid`).
    fn invalidate(&mut self, _plane: usize, _block: u32, _old_valid: u32) {}
    /// Remove a candidate chosen by someone else (wear leveling). `valid` is its count.
    fn remove(&mut self, plane: usize, block: u32, valid: u32);
    /// Choose a victim among the plane's candidates and remove it from the index.
    fn select(&mut self, plane: usize, ctx: &VictimCtx, rng: &mut Xoshiro256PlusPlus) -> Option<u32>;
    /// Number of candidates in a plane (for the invariant checker).
    fn len(&self, plane: usize) -> usize;
    /// Check an index read from a file: its candidates are exactly `full[plane]`'s blocks
    /// (with their valid counts), every block it names is below `blocks`, and nothing in it
    /// makes a later call index out of bounds (`units_per_block` as built).
    fn check(&self, full: &[Vec<(u32, u32)>], blocks: usize, units_per_block: u32) -> Result<(), String>;
}

/// `Err` naming the plane unless `got` (sorted here) holds `full`'s blocks.
pub fn same_candidates(plane: usize, mut got: Vec<u32>, full: &[(u32, u32)]) -> Result<(), String> {
    got.sort_unstable();
    let want: Vec<u32> = full.iter().map(|&(b, _)| b).collect();
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "plane {plane} indexes {} candidates where it has {} full blocks, or other blocks",
            got.len(),
            want.len()
        ))
    }
}

/// Builds a policy for a device: (name, description, constructor(planes, blocks, units_per_block, d)).
type Ctor = fn(usize, usize, u32, u32) -> Box<dyn VictimPolicy>;
/// Reads a policy back from its saved state ([`PolicyClone::save`]).
type Loader = fn(&[u8]) -> Result<Box<dyn VictimPolicy>, String>;

/// The policies: (name, description, constructor, loader).
pub const REGISTRY: &[(&str, &str, Ctor, Loader)] = &[
    (
        "greedy",
        "fewest valid units; O(1) per-valid-count buckets",
        greedy::Greedy::boxed,
        load::<greedy::Greedy>,
    ),
    ("fifo", "oldest full block first", fifo::Fifo::boxed, load::<fifo::Fifo>),
    (
        "random",
        "uniformly random full block",
        random::Random::boxed,
        load::<random::Random>,
    ),
    (
        "cost-benefit",
        "max (1-u)·age/2u over all candidates",
        cost_benefit::CostBenefit::boxed,
        load::<cost_benefit::CostBenefit>,
    ),
    (
        "d-choices",
        "fewest valid among d random candidates (gc_d)",
        d_choices::DChoices::boxed,
        load::<d_choices::DChoices>,
    ),
];

pub fn check_policy_name(name: &str) -> Result<(), String> {
    if REGISTRY.iter().any(|(n, ..)| *n == name) {
        Ok(())
    } else {
        let names: Vec<&str> = REGISTRY.iter().map(|(n, ..)| *n).collect();
        Err(format!(
            "unknown GC policy '{name}'; expected one of {}",
            names.join(", ")
        ))
    }
}

pub fn make_policy(
    name: &str,
    planes: usize,
    blocks: usize,
    units_per_block: u32,
    d: u32,
) -> Option<Box<dyn VictimPolicy>> {
    REGISTRY
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, _, c, _)| c(planes, blocks, units_per_block, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn policy(name: &str, d: u32) -> Box<dyn VictimPolicy> {
        make_policy(name, 2, 16, 8, d).unwrap()
    }

    /// Victims of plane 0 in the order `p` picks them, all blocks 8 units, `valid` per block.
    fn drain(p: &mut dyn VictimPolicy, valid: &[u32], rng: &mut Xoshiro256PlusPlus) -> Vec<u32> {
        let stamp: Vec<u64> = (0..valid.len() as u64).map(|b| b + 1).collect();
        let ctx = VictimCtx {
            valid,
            stamp: &stamp,
            now: 100,
            units_per_block: 8,
        };
        std::iter::from_fn(|| p.select(0, &ctx, rng)).collect()
    }

    #[test]
    fn the_registry_names_its_policies() {
        for (name, ..) in REGISTRY {
            assert_eq!(policy(name, 2).name(), *name);
            assert_eq!(check_policy_name(name), Ok(()));
        }
        assert!(make_policy("oracle", 1, 1, 8, 1).is_none());
        let e = check_policy_name("oracle").unwrap_err();
        assert_eq!(
            e,
            "unknown GC policy 'oracle'; expected one of greedy, fifo, random, cost-benefit, d-choices"
        );
    }

    #[test]
    fn every_policy_gives_each_candidate_of_the_plane_once() {
        let valid = [3, 1, 4, 1, 5, 0, 2, 6, 7, 7, 7, 7, 7, 7, 7, 7];
        for (name, ..) in REGISTRY {
            let mut p = policy(name, 3);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            // Blocks 2..8 in plane 0 (inserted out of order), 8..10 in plane 1.
            for b in [4u32, 2, 7, 3, 6, 5] {
                p.insert(0, b, valid[b as usize]);
            }
            p.insert(1, 8, 7);
            p.insert(1, 9, 7);
            assert_eq!((p.len(0), p.len(1)), (6, 2), "{name}");
            let mut got = drain(p.as_mut(), &valid, &mut rng);
            let order = got.clone();
            got.sort_unstable();
            assert_eq!(got, [2, 3, 4, 5, 6, 7], "{name}: {order:?}");
            assert_eq!((p.len(0), p.len(1)), (0, 2), "{name}");
            match *name {
                // Fewest valid first (ties: any order).
                "greedy" => assert_eq!(order, [5, 3, 6, 2, 4, 7], "{name}"),
                "fifo" => assert_eq!(order, [4, 2, 7, 3, 6, 5], "{name}"),
                // An empty block first, then by (1 - u)·age / 2u with age = 101 - b.
                "cost-benefit" => assert_eq!(order, [5, 3, 6, 2, 4, 7], "{name}"),
                _ => {}
            }
        }
    }

    #[test]
    fn greedy_and_removal_follow_invalidations() {
        let mut valid = vec![8u32; 16];
        let mut p = policy("greedy", 1);
        for b in 0..4 {
            p.insert(0, b, 8);
        }
        // Block 2 loses three units, block 1 one; block 0 is taken by someone else.
        for _ in 0..3 {
            p.invalidate(0, 2, valid[2]);
            valid[2] -= 1;
        }
        p.invalidate(0, 1, valid[1]);
        valid[1] -= 1;
        p.remove(0, 0, valid[0]);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        assert_eq!(drain(p.as_mut(), &valid, &mut rng), [2, 1, 3]);
    }

    /// Share of trials in which `name` picks block 0, the only one with fewest valid units,
    /// among `n` candidates of plane 0.
    fn share_of_best(name: &str, d: u32, n: u32) -> f64 {
        let mut valid = vec![5u32; 16];
        valid[0] = 1;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let trials = 20_000;
        let mut hits = 0;
        for _ in 0..trials {
            let mut p = policy(name, d);
            for b in 0..n {
                p.insert(0, b, valid[b as usize]);
            }
            let stamp = vec![1u64; 16];
            let ctx = VictimCtx {
                valid: &valid,
                stamp: &stamp,
                now: 2,
                units_per_block: 8,
            };
            hits += (p.select(0, &ctx, &mut rng) == Some(0)) as u32;
        }
        hits as f64 / trials as f64
    }

    #[test]
    fn sampling_policies_pick_with_the_expected_odds() {
        // Uniform: 1/n. d choices with replacement: 1 - (1 - 1/n)^d.
        let cases = [
            ("random", 1, 0.25),
            ("d-choices", 1, 0.25),
            ("d-choices", 2, 0.4375),
            ("d-choices", 4, 0.6836),
        ];
        for (name, d, want) in cases {
            let got = share_of_best(name, d, 4);
            assert!((got - want).abs() < 0.015, "{name} d={d}: {got} vs {want}");
        }
        assert_eq!(share_of_best("greedy", 1, 4), 1.0);
    }

    #[test]
    fn a_candidate_removed_by_someone_else_is_never_picked() {
        // As wear leveling takes a block: it leaves the index, whatever its position.
        let valid = [2u32, 3, 1, 4, 0, 5, 6, 7];
        for (name, ..) in REGISTRY {
            let mut p = policy(name, 2);
            for b in 0..6u32 {
                p.insert(0, b, valid[b as usize]);
            }
            p.remove(0, 4, valid[4]);
            p.remove(0, 0, valid[0]);
            assert_eq!(p.len(0), 4, "{name}");
            p.insert(0, 0, valid[0]);
            assert_eq!(p.len(0), 5, "{name}");
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
            let order = drain(p.as_mut(), &valid, &mut rng);
            let mut got = order.clone();
            got.sort_unstable();
            assert_eq!(got, [0, 1, 2, 3, 5], "{name}: {order:?}");
            assert_eq!(p.len(0), 0, "{name}");
            if *name == "fifo" {
                // Block 0 came back last.
                assert_eq!(order, [1, 2, 3, 5, 0]);
            }
        }
    }
}
