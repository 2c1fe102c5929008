//! Garbage-collection victim policies. A policy keeps its own index of the GC candidates
//! (full blocks) of each plane and picks a victim; the copying and erasing is the FTL's.
//! Adding a policy = one file here plus one line in [`REGISTRY`].

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

pub trait VictimPolicy: Send {
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
}

/// Builds a policy for a device: (name, description, constructor(planes, blocks, units_per_block, d)).
type Ctor = fn(usize, usize, u32, u32) -> Box<dyn VictimPolicy>;

pub const REGISTRY: &[(&str, &str, Ctor)] = &[
    (
        "greedy",
        "fewest valid units; O(1) per-valid-count buckets",
        greedy::Greedy::boxed,
    ),
    ("fifo", "oldest full block first", fifo::Fifo::boxed),
    ("random", "uniformly random full block", random::Random::boxed),
    (
        "cost-benefit",
        "max (1-u)·age/2u over all candidates",
        cost_benefit::CostBenefit::boxed,
    ),
    (
        "d-choices",
        "fewest valid among d random candidates (gc_d)",
        d_choices::DChoices::boxed,
    ),
];

pub fn check_policy_name(name: &str) -> Result<(), String> {
    if REGISTRY.iter().any(|(n, _, _)| *n == name) {
        Ok(())
    } else {
        let names: Vec<&str> = REGISTRY.iter().map(|(n, _, _)| *n).collect();
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
        .find(|(n, _, _)| *n == name)
        .map(|(_, _, c)| c(planes, blocks, units_per_block, d))
}
