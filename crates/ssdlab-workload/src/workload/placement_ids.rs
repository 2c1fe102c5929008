//! fio's data placement options: which placement identifier each write of a job carries.
//!
//! fio (HOWTO, "dataplacement", "plids", "plid_select"; `dataplacement.c`): with
//! `dataplacement=fdp` (or `fdp=1`) every write carries an FDP placement identifier, an index
//! into the namespace's list of placement handles, chosen from `plids` (alias `fdp_pli`: a
//! list of indices and ranges, `0,2-4`; by default every handle the device has) round robin
//! (`plid_select=roundrobin`, alias `fdp_pli_select`, the default) or uniformly at random
//! (`random`); reads carry none. With `dataplacement=streams` the list holds stream ids and is
//! required. On the simulated device a request's stream id carries the choice: an FDP index
//! `i` as stream `i + 1` (stream 0: no directive), a stream id as itself.

use rand::Rng;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// fio's `FIO_MAX_DP_IDS`: the most placement identifiers a job uses.
pub const MAX_IDS: usize = 128;

/// The data placement directive a job's writes carry (fio's `dataplacement`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directive {
    None,
    Fdp,
    Streams,
}

impl Directive {
    /// fio's `dataplacement` value (`fdp=1` is `fdp`).
    pub fn parse(v: &str) -> Option<Directive> {
        match v {
            "none" => Some(Directive::None),
            "fdp" => Some(Directive::Fdp),
            "streams" => Some(Directive::Streams),
            _ => None,
        }
    }
}

/// How the next identifier is chosen (fio's `plid_select`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Select {
    RoundRobin,
    Random,
}

impl Select {
    pub fn parse(v: &str) -> Option<Select> {
        match v {
            "roundrobin" => Some(Select::RoundRobin),
            "random" => Some(Select::Random),
            _ => None,
        }
    }
}

/// fio's `plids` list: comma-separated values and ranges (`1,2-4,5`), in the order given
/// (a range low to high), at most [`MAX_IDS`] identifiers.
pub fn parse_ids(v: &str) -> std::result::Result<Vec<u32>, String> {
    let mut ids = Vec::new();
    for part in v.split(',') {
        let part = part.trim();
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{s}' in '{v}' is not a whole number; expected values or ranges such as 0,2-4"))
        };
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if lo > hi {
            return Err(format!("range {part} in '{v}' runs backwards; expected LOW-HIGH"));
        }
        if (hi - lo) as usize >= MAX_IDS || ids.len() + (hi - lo) as usize >= MAX_IDS {
            return Err(format!(
                "'{v}' lists more than {MAX_IDS} identifiers; expected at most {MAX_IDS} (fio's limit)"
            ));
        }
        ids.extend(lo..=hi);
    }
    Ok(ids)
}

/// The identifiers a job's clone puts on its writes, one per write in issue order.
#[derive(Clone, Debug)]
pub struct Chooser {
    directive: Directive,
    ids: Vec<u32>,
    select: Select,
    next: usize,
    rng: Xoshiro256PlusPlus,
}

impl Chooser {
    /// A chooser over `ids` (already checked against the device); `seed` drives `random`.
    pub fn new(directive: Directive, ids: Vec<u32>, select: Select, seed: u64) -> Chooser {
        Chooser {
            directive,
            ids,
            select,
            next: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6664_705f_706c_6964),
        }
    }

    /// The chooser of a job clone with fio's `dataplacement`, `plids` and `plid_select` on a
    /// device with `handles` FDP handles (None without a directive); the keys are valid
    /// (`JobConfig::validate_fio` checked them).
    pub fn for_job(
        dataplacement: &str,
        plids: Option<&str>,
        plid_select: &str,
        handles: u32,
        seed: u64,
    ) -> Option<Chooser> {
        let directive = Directive::parse(dataplacement)?;
        if directive == Directive::None {
            return None;
        }
        let ids = match plids {
            Some(v) => parse_ids(v).ok()?,
            // fio: every placement identifier the device reports, at most MAX_IDS.
            None => (0..handles.min(MAX_IDS as u32)).collect(),
        };
        let select = Select::parse(plid_select)?;
        Some(Chooser::new(directive, ids, select, seed))
    }

    /// The stream id of the next write: an FDP index `i` as `i + 1`, a stream id as itself,
    /// 0 without a directive.
    pub fn next_stream(&mut self) -> u32 {
        if self.directive == Directive::None || self.ids.is_empty() {
            return 0;
        }
        let k = match self.select {
            Select::RoundRobin => {
                if self.next >= self.ids.len() {
                    self.next = 0;
                }
                self.next += 1;
                self.next - 1
            }
            Select::Random => self.rng.gen_range(0..self.ids.len()),
        };
        match self.directive {
            Directive::Fdp => self.ids[k] + 1,
            _ => self.ids[k],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_fio_reads_them() {
        assert_eq!(parse_ids("1,2-4,5,6-8").unwrap(), vec![1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(parse_ids("0, 2 ,5").unwrap(), vec![0, 2, 5]);
        assert_eq!(parse_ids("3-3").unwrap(), vec![3]);
        assert!(parse_ids("4-2").unwrap_err().contains("runs backwards"));
        assert!(parse_ids("a").unwrap_err().contains("'a' in 'a' is not a whole number"));
        assert!(parse_ids("1,,2").is_err());
        assert!(parse_ids("0-127").is_ok());
        assert!(parse_ids("0-128").unwrap_err().contains("more than 128"));
        assert!(parse_ids("0-100,101-128").unwrap_err().contains("more than 128"));
    }

    #[test]
    fn round_robin_cycles_the_list_and_random_draws_from_it() {
        let mut rr = Chooser::new(Directive::Fdp, vec![0, 2, 5], Select::RoundRobin, 1);
        let got: Vec<u32> = (0..7).map(|_| rr.next_stream()).collect();
        assert_eq!(got, [1, 3, 6, 1, 3, 6, 1], "FDP index i is stream i + 1");
        let mut st = Chooser::new(Directive::Streams, vec![4, 9], Select::RoundRobin, 1);
        assert_eq!((0..3).map(|_| st.next_stream()).collect::<Vec<_>>(), [4, 9, 4]);
        assert_eq!(
            Chooser::new(Directive::None, vec![1], Select::RoundRobin, 1).next_stream(),
            0
        );
        // Random: every listed id, uniformly, and the same sequence from the same seed.
        let draw = |seed| {
            let mut r = Chooser::new(Directive::Fdp, vec![0, 1, 2, 3], Select::Random, seed);
            (0..4000).map(|_| r.next_stream()).collect::<Vec<_>>()
        };
        let a = draw(7);
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        for s in 1..=4 {
            let n = a.iter().filter(|&&x| x == s).count();
            assert!((900..1100).contains(&n), "stream {s}: {n} of 4000");
        }
    }
}
