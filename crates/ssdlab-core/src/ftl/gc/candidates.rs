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
    };
}
pub(crate) use candidate_set_policy;
