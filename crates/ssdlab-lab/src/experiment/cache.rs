//! Finished points kept on disk, so an interrupted experiment resumes where it stopped.
//!
//! A point's outcome is stored as `KEY.bin` in the cache folder (`ssdlab experiment`'s
//! `--out DIR/points`), where KEY is a SHA-256 of the engine's build
//! ([`crate::output::BUILD_ID`]) and the lab's ([`LAB_HASH`]), the experiment, the point's id and everything it simulates
//! (its full resolved config, seeds included). A file is a header, its own key, the SHA-256
//! of the payload and the payload ([`Outcome::to_bytes`]); one that is truncated, altered,
//! from another format, or another point's (copied over this one's name) is run again. A
//! point file that is not a regular file (a FIFO, a device, a directory, or a link to one) is
//! refused with one line rather than read (a FIFO would block). Outcomes read back are equal to the ones stored, so a
//! resumed experiment's result is the uninterrupted one's, wall-clock fields aside.

use super::{Experiment, Outcome, Point};
use crate::Result;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The lab's build (a hash of its source, computed by `build.rs`): with the engine's
/// [`crate::output::BUILD_ID`], the build a point's outcome belongs to.
pub const LAB_HASH: &str = env!("SSDLAB_LAB_HASH");

/// The first bytes of a point file.
const MAGIC: &[u8] = b"ssdlab point 2\n";

/// A run's hold on its points folder ([`PointCache::lock`]); released when dropped.
pub struct FolderLock(#[allow(dead_code)] std::fs::File);

/// A folder of finished points, and what this run did with it.
pub struct PointCache {
    dir: PathBuf,
    /// Ignore the points already there (they are overwritten as points finish).
    fresh: bool,
    reused: AtomicUsize,
    stored: AtomicUsize,
    damaged: AtomicUsize,
}

impl PointCache {
    /// The cache in `dir` (created when the first point is stored); `fresh` ignores what is
    /// there.
    pub fn new(dir: impl Into<PathBuf>, fresh: bool) -> PointCache {
        PointCache {
            dir: dir.into(),
            fresh,
            reused: AtomicUsize::new(0),
            stored: AtomicUsize::new(0),
            damaged: AtomicUsize::new(0),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of point `p` of `exp` under this build.
    pub fn key(exp: &dyn Experiment, p: &Point) -> String {
        let mut h = Sha256::new();
        for part in [crate::output::BUILD_ID, LAB_HASH, exp.name(), &p.id] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        // The labels and the work in full: configs, jobs, seeds, sweeps.
        h.update(format!("{:?}\0{:?}", p.labels, p.work).as_bytes());
        hex::encode(h.finalize())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.bin"))
    }

    /// A point file that is there but not a regular file, refused.
    fn check_regular(&self, key: &str) -> Result<()> {
        crate::output::check_regular(
            self.path(key),
            "a point file that `ssdlab experiment` wrote (remove it to run the point again)",
        )
    }

    /// The stored outcome of `key`, if there is a whole one of that key (and not `fresh`).
    pub fn load(&self, key: &str) -> Result<Option<Outcome>> {
        if self.fresh {
            return Ok(None);
        }
        self.check_regular(key)?;
        let Ok(bytes) = std::fs::read(self.path(key)) else {
            return Ok(None);
        };
        let outcome = bytes
            .strip_prefix(MAGIC)
            // Its own key: another point's file copied over this one's name is not this point.
            .and_then(|rest| rest.strip_prefix(key.as_bytes()))
            .filter(|rest| rest.len() >= 32)
            .map(|rest| rest.split_at(32))
            .filter(|(sum, payload)| Sha256::digest(payload).as_slice() == *sum)
            .and_then(|(_, payload)| Outcome::from_bytes(payload).ok());
        match &outcome {
            Some(_) => self.reused.fetch_add(1, Ordering::Relaxed),
            None => self.damaged.fetch_add(1, Ordering::Relaxed),
        };
        Ok(outcome)
    }

    /// Keep `outcome` as `key`, written whole or not at all.
    pub fn store(&self, key: &str, outcome: &Outcome) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| crate::Error::io(self.dir.display().to_string(), e))?;
        self.check_regular(key)?;
        let payload = outcome.to_bytes();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(key.as_bytes());
        bytes.extend_from_slice(Sha256::digest(&payload).as_slice());
        bytes.extend_from_slice(&payload);
        crate::output::write(self.path(key), bytes)?;
        self.stored.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Hold the folder for this run: one run writes a folder's points at a time, so two runs
    /// into one `--out` never mix their files. The hold is an exclusive lock on the points
    /// folder itself (created if missing; no file is added to it), released when the returned
    /// value is dropped or the process ends, however it ends. Held by another run: an error
    /// naming the folder, or, with `wait`, waiting for it.
    pub fn lock(&self, wait: bool) -> Result<FolderLock> {
        use rustix::fs::{flock, FlockOperation};
        let io = |e: std::io::Error| crate::Error::io(self.dir.display().to_string(), e);
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let dir = std::fs::File::open(&self.dir).map_err(io)?;
        let op = if wait {
            FlockOperation::LockExclusive
        } else {
            FlockOperation::NonBlockingLockExclusive
        };
        loop {
            match flock(&dir, op) {
                Ok(()) => return Ok(FolderLock(dir)),
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    return Err(crate::Error::Invalid(format!(
                        "--out: {} is being written by another run (it holds {}); expected a folder no other run is writing",
                        self.dir.parent().unwrap_or(&self.dir).display(),
                        self.dir.display()
                    )))
                }
                Err(e) => return Err(io(e.into())),
            }
        }
    }

    /// Points taken from the folder whole.
    pub fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }
    /// Points run and stored by this run.
    pub fn stored(&self) -> usize {
        self.stored.load(Ordering::Relaxed)
    }
    /// Point files found damaged (truncated, altered), run again.
    pub fn damaged(&self) -> usize {
        self.damaged.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{find, run_point, Scale, Work};

    fn flip(b: &[u8], i: usize) -> Vec<u8> {
        let mut b = b.to_vec();
        b[i] ^= 1;
        b
    }

    #[test]
    fn a_key_follows_what_the_point_simulates_and_a_damaged_file_is_run_again() {
        let exp = find("openssd").unwrap();
        let points = exp.points(Scale::Quick).unwrap();
        let p = points.iter().find(|p| matches!(p.work, Work::Ssd(_))).unwrap();
        let k = PointCache::key(exp, p);
        assert_eq!(k, PointCache::key(exp, p));
        assert_eq!(k.len(), 64);
        // Another seed, another job, another id: another key.
        let mut q = p.clone();
        let Work::Ssd(c) = &mut q.work else { unreachable!() };
        c.precondition.seed += 1;
        assert_ne!(k, PointCache::key(exp, &q));
        let mut q = p.clone();
        let Work::Ssd(c) = &mut q.work else { unreachable!() };
        c.job[0].iodepth += 1;
        assert_ne!(k, PointCache::key(exp, &q));
        let mut q = p.clone();
        q.id.push('x');
        assert_ne!(k, PointCache::key(exp, &q));

        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("points");
        let cache = PointCache::new(&dir, false);
        assert!(cache.load(&k).unwrap().is_none());
        assert_eq!(cache.damaged(), 0, "a missing point is not a damaged one");
        let o = run_point(exp, p).unwrap();
        cache.store(&k, &o).unwrap();
        assert_eq!(cache.load(&k).unwrap().unwrap().to_bytes(), o.to_bytes());
        let file = dir.join(format!("{k}.bin"));
        let good = std::fs::read(&file).unwrap();
        let damaged = [
            good[..good.len() - 1].to_vec(),
            good[..MAGIC.len() + 10].to_vec(),
            flip(&good, good.len() - 1),
            flip(&good, MAGIC.len()),
            flip(&good, 0),
        ];
        for bad in &damaged {
            std::fs::write(&file, bad).unwrap();
            assert!(cache.load(&k).unwrap().is_none());
        }
        assert_eq!(cache.damaged(), damaged.len());
        std::fs::write(&file, &good).unwrap();
        assert!(
            PointCache::new(&dir, true).load(&k).unwrap().is_none(),
            "--fresh reads nothing"
        );
        assert!(cache.load(&k).unwrap().is_some());
        assert_eq!((cache.reused(), cache.stored()), (2, 1));
        // Another point's file copied over this one's name is not taken for it.
        let mut q = p.clone();
        q.id.push('x');
        let kq = PointCache::key(exp, &q);
        let oq = run_point(exp, &q).unwrap();
        cache.store(&kq, &oq).unwrap();
        std::fs::copy(dir.join(format!("{kq}.bin")), &file).unwrap();
        assert!(cache.load(&k).unwrap().is_none(), "another point's file reused");
        assert!(cache.load(&kq).unwrap().is_some());
        // A FIFO (or a link to one) where a point file goes is refused, neither read nor
        // written (either would block).
        std::fs::remove_file(&file).unwrap();
        let fifo = d.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        std::os::unix::fs::symlink(&fifo, &file).unwrap();
        for e in [cache.load(&k).err(), cache.store(&k, &o).err()] {
            let e = e.expect("refused").to_string();
            assert!(
                e.starts_with(&format!(
                    "{}: it is a FIFO (named pipe), not a regular file; expected a point file",
                    file.display()
                )),
                "{e}"
            );
            assert!(!e.contains('\n'));
        }
    }
}
