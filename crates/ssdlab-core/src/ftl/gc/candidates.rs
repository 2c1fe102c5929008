//! The candidate set shared by the sampling and scanning policies: per plane, a vector of
//! candidate blocks with O(1) insert, remove and uniform sampling.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

const NONE: u32 = u32::MAX;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct CandidateSet {
    lists: Vec<Vec<u32>>,
    /// Position of each block in its plane's list.
    pos: Vec<u32>,
}

impl CandidateSet {
    pub fn new(planes: usize, blocks: usize) -> Self {
        CandidateSet {
            lists: vec![Vec::new(); planes],
            pos: vec![NONE; blocks],
        }
    }
    pub fn insert(&mut self, plane: usize, block: u32) {
        let l = &mut self.lists[plane];
        self.pos[block as usize] = l.len() as u32;
        l.push(block);
    }
    pub fn remove(&mut self, plane: usize, block: u32) {
        let p = self.pos[block as usize];
        debug_assert!(p != NONE, "block {block} is not a candidate");
        let l = &mut self.lists[plane];
        let last = l.pop().expect("non-empty");
        if last != block {
            l[p as usize] = last;
            self.pos[last as usize] = p;
        }
        self.pos[block as usize] = NONE;
    }
    pub fn list(&self, plane: usize) -> &[u32] {
        &self.lists[plane]
    }
    /// [`super::VictimPolicy::check`] of a set: one list per plane holding its full blocks,
    /// each at the position `pos` gives it, and no other block with a position.
    pub fn check(&self, full: &[Vec<(u32, u32)>], blocks: usize) -> Result<(), String> {
        if self.lists.len() != full.len() || self.pos.len() != blocks {
            return Err(format!(
                "{} lists and {} positions for {} planes and {blocks} blocks",
                self.lists.len(),
                self.pos.len(),
                full.len()
            ));
        }
        for (plane, l) in self.lists.iter().enumerate() {
            for (i, &b) in l.iter().enumerate() {
                if self.pos.get(b as usize) != Some(&(i as u32)) {
                    return Err(format!(
                        "plane {plane}'s candidate {i} (block {b}) is not where its position says"
                    ));
                }
            }
            super::same_candidates(plane, l.clone(), &full[plane])?;
        }
        let placed = self.pos.iter().filter(|&&p| p != NONE).count();
        let listed: usize = self.lists.iter().map(Vec::len).sum();
        if placed != listed {
            return Err(format!("{placed} blocks have a position but the lists hold {listed}"));
        }
        Ok(())
    }

    pub fn sample(&self, plane: usize, rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        let l = &self.lists[plane];
        if l.is_empty() {
            None
        } else {
            Some(l[rng.gen_range(0..l.len())])
        }
    }
}

/// Policies whose whole state is a candidate set implement insert/remove/len through this.
macro_rules! candidate_set_policy {
    () => {
        fn insert(&mut self, plane: usize, block: u32, _valid: u32) {
            self.set.insert(plane, block);
        }
        fn remove(&mut self, plane: usize, block: u32, _valid: u32) {
            self.set.remove(plane, block);
        }
        fn len(&self, plane: usize) -> usize {
            self.set.list(plane).len()
        }
        fn check(&self, full: &[Vec<(u32, u32)>], blocks: usize, _upb: u32) -> Result<(), String> {
            self.set.check(full, blocks)
        }
    };
}
pub(crate) use candidate_set_policy;
