//! Zoned namespaces (NVMe ZNS): the zones' state machine, without time or flash.
//!
//! A namespace of `count` zones of `size` logical blocks, of which the first `capacity` are
//! writable. Each zone has a write pointer and one of NVMe's zone states (ZNS command set
//! 1.1, section 2.1.1): empty (ZSE), implicitly opened (ZSIO), explicitly opened (ZSEO),
//! closed (ZSC), full (ZSF), read only (ZSRO), offline (ZSO). Opened zones hold an open
//! resource and an active one, closed zones an active one; `max_open` and `max_active`
//! bound them (0: no limit).
//!
//! What the state machine does, command by command (the spec's transitions; where the spec
//! leaves the controller a choice, the choice is the one Linux's null_blk and FEMU make,
//! stated at each):
//! - **write** at the write pointer of a zone in ZSE, ZSIO, ZSEO or ZSC: a zone in ZSE or ZSC
//!   is implicitly opened first; with every open resource taken, the implicitly opened zone
//!   opened longest ago is closed to free one (the spec's "may"), and if none is implicitly
//!   opened the write fails (too many open zones); a zone in ZSE needs an active resource too
//!   (too many active zones). A write that fills the zone to its capacity makes it full and
//!   frees its resources. Errors: not at the write pointer (invalid write), past the zone's
//!   capacity (boundary), into a full, read-only or offline zone.
//! - **append**: as a write at the zone's write pointer, which the device picks and returns.
//! - **open** (explicit): ZSE and ZSC take the resources they lack, ZSIO becomes ZSEO,
//!   ZSEO is left as it is; any other state is an invalid transition.
//! - **close**: ZSIO and ZSEO become ZSC, or ZSE when nothing was written (null_blk's
//!   choice); ZSC is left; any other state is an invalid transition.
//! - **finish**: ZSE, ZSIO, ZSEO and ZSC become full (the write pointer moves to the end);
//!   ZSE needs an active resource for the moment it takes (null_blk); ZSF is left.
//! - **reset**: every state but ZSRO and ZSO becomes empty with the write pointer at the
//!   zone's start.
//! - **all** (Select All): open takes every closed zone, close every opened one, finish
//!   every opened and closed one, reset every opened, closed and full one.
//!
//! Each command returns what it did to the zones ([`Effect`]) so the design can charge the
//! flash work: the zones it finished with how much they held, the zones it reset with how
//! much they held and whether they were opened, the zone it implicitly closed.

use serde::Serialize;

/// A zone's state (NVMe ZNS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum State {
    Empty,
    ImplicitlyOpened,
    ExplicitlyOpened,
    Closed,
    Full,
    ReadOnly,
    Offline,
}

impl State {
    /// The spec's abbreviation (ZSE, ZSIO, ...), as report zones shows it.
    pub fn short(self) -> &'static str {
        match self {
            State::Empty => "ZSE",
            State::ImplicitlyOpened => "ZSIO",
            State::ExplicitlyOpened => "ZSEO",
            State::Closed => "ZSC",
            State::Full => "ZSF",
            State::ReadOnly => "ZSRO",
            State::Offline => "ZSO",
        }
    }
    fn open(self) -> bool {
        matches!(self, State::ImplicitlyOpened | State::ExplicitlyOpened)
    }
    fn active(self) -> bool {
        self.open() || self == State::Closed
    }
}

pub use crate::request::ZoneAction as Action;

/// Why a command failed: NVMe's status codes for zoned namespaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneError {
    /// A write not at the zone's write pointer (Zone Invalid Write).
    InvalidWrite { zone: u32, lba: u64, wp: u64 },
    /// A write past the zone's writable capacity (Zone Boundary Error).
    Boundary { zone: u32, end: u64, cap_end: u64 },
    /// A write or append into a full zone (Zone Is Full).
    Full { zone: u32 },
    /// Zone Is Read Only.
    ReadOnly { zone: u32 },
    /// Zone Is Offline.
    Offline { zone: u32 },
    /// Too Many Open Zones.
    TooManyOpen { zone: u32, limit: u32 },
    /// Too Many Active Zones.
    TooManyActive { zone: u32, limit: u32 },
    /// Zone Invalid State Transition.
    Transition { zone: u32, from: State, action: Action },
    /// An append whose LBA is not a zone's start (Invalid Field).
    AppendNotAtStart { lba: u64 },
    /// An LBA past the namespace (LBA Out of Range).
    OutOfRange { lba: u64 },
}

impl std::fmt::Display for ZoneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ZoneError::InvalidWrite { zone, lba, wp } => write!(
                f,
                "zone {zone}: write at LBA {lba} is not at the write pointer {wp} (Zone Invalid Write)"
            ),
            ZoneError::Boundary { zone, end, cap_end } => write!(
                f,
                "zone {zone}: write ending at LBA {end} crosses the zone's writable end {cap_end} (Zone Boundary Error)"
            ),
            ZoneError::Full { zone } => write!(f, "zone {zone}: write into a full zone (Zone Is Full)"),
            ZoneError::ReadOnly { zone } => write!(f, "zone {zone}: write into a read-only zone (Zone Is Read Only)"),
            ZoneError::Offline { zone } => write!(f, "zone {zone}: the zone is offline (Zone Is Offline)"),
            ZoneError::TooManyOpen { zone, limit } => write!(
                f,
                "zone {zone}: opening it would exceed the {limit} open zones (Too Many Open Zones)"
            ),
            ZoneError::TooManyActive { zone, limit } => write!(
                f,
                "zone {zone}: activating it would exceed the {limit} active zones (Too Many Active Zones)"
            ),
            ZoneError::Transition { zone, from, action } => write!(
                f,
                "zone {zone}: {} of a zone in state {} (Zone Invalid State Transition)",
                action.name(),
                from.short()
            ),
            ZoneError::AppendNotAtStart { lba } => {
                write!(
                    f,
                    "zone append at LBA {lba}, which is not a zone's start (Invalid Field)"
                )
            }
            ZoneError::OutOfRange { lba } => write!(f, "LBA {lba} is past the namespace (LBA Out of Range)"),
        }
    }
}

/// One zone, as report zones shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Zone {
    pub state: State,
    /// The write pointer, an LBA of the namespace.
    pub wp: u64,
    /// LBAs written since the last reset (a finished zone keeps the count it had: finish
    /// moves the write pointer, not the data).
    pub written: u64,
    /// Order of its last implicit open (which implicitly opened zone to close first).
    opened_at: u64,
}

/// What a command did, for the design to charge its flash work.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effect {
    /// Zones implicitly closed to free an open resource.
    pub closed: Vec<u32>,
    /// Zones finished: (zone, LBAs written in it when it was finished).
    pub finished: Vec<(u32, u64)>,
    /// Zones reset: (zone, LBAs written in it, whether it was opened or closed rather than full).
    pub reset: Vec<(u32, u64, bool)>,
    /// Zones opened (explicitly, or implicitly by the write).
    pub opened: Vec<u32>,
    /// Zones that the write or append filled.
    pub filled: Vec<u32>,
}

/// The zones of a namespace.
#[derive(Clone, Debug)]
pub struct Zones {
    /// Zone size and capacity, in LBAs.
    pub size: u64,
    pub capacity: u64,
    pub max_open: u32,
    pub max_active: u32,
    zones: Vec<Zone>,
    open: u32,
    active: u32,
    clock: u64,
}

impl Zones {
    /// `count` zones of `size` LBAs holding `capacity` each; `max_open` and `max_active` 0
    /// for no limit.
    pub fn new(count: u32, size: u64, capacity: u64, max_open: u32, max_active: u32) -> Zones {
        assert!(capacity > 0 && capacity <= size, "zone capacity within the zone size");
        Zones {
            size,
            capacity,
            max_open,
            max_active,
            zones: (0..count as u64)
                .map(|z| Zone {
                    state: State::Empty,
                    wp: z * size,
                    written: 0,
                    opened_at: 0,
                })
                .collect(),
            open: 0,
            active: 0,
            clock: 0,
        }
    }

    pub fn count(&self) -> u32 {
        self.zones.len() as u32
    }
    /// Zone `z` (report zones).
    pub fn zone(&self, z: u32) -> &Zone {
        &self.zones[z as usize]
    }
    /// The zones (report zones of the whole namespace).
    pub fn report(&self) -> &[Zone] {
        &self.zones
    }
    /// Open and active zones now.
    pub fn open_count(&self) -> u32 {
        self.open
    }
    pub fn active_count(&self) -> u32 {
        self.active
    }
    /// The zone holding `lba`.
    pub fn zone_of(&self, lba: u64) -> Result<u32, ZoneError> {
        let z = lba / self.size;
        if z >= self.zones.len() as u64 {
            return Err(ZoneError::OutOfRange { lba });
        }
        Ok(z as u32)
    }
    /// The first LBA of zone `z`.
    pub fn start(&self, z: u32) -> u64 {
        z as u64 * self.size
    }

    /// Put zone `z` in `state` by the drive's own doing (a zone gone read only or offline);
    /// its resources are released.
    pub fn set_state(&mut self, z: u32, state: State) {
        self.leave(z);
        self.zones[z as usize].state = state;
        self.enter(z);
    }

    fn leave(&mut self, z: u32) {
        let s = self.zones[z as usize].state;
        self.open -= s.open() as u32;
        self.active -= s.active() as u32;
    }
    fn enter(&mut self, z: u32) {
        let s = self.zones[z as usize].state;
        self.open += s.open() as u32;
        self.active += s.active() as u32;
    }
    fn go(&mut self, z: u32, state: State) {
        self.leave(z);
        self.zones[z as usize].state = state;
        self.enter(z);
    }

    /// Open zone `z` (from ZSE or ZSC), implicitly or explicitly, taking the resources it
    /// lacks; an implicit open may close the implicitly opened zone opened longest ago.
    fn take_open(&mut self, z: u32, explicit: bool, e: &mut Effect) -> Result<(), ZoneError> {
        let s = self.zones[z as usize].state;
        if s == State::Empty && self.max_active > 0 && self.active >= self.max_active {
            return Err(ZoneError::TooManyActive {
                zone: z,
                limit: self.max_active,
            });
        }
        if self.max_open > 0 && self.open >= self.max_open {
            let victim = if explicit {
                None
            } else {
                self.zones
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.state == State::ImplicitlyOpened)
                    .min_by_key(|(i, x)| (x.opened_at, *i))
                    .map(|(i, _)| i as u32)
            };
            match victim {
                Some(v) => {
                    self.go(v, State::Closed);
                    e.closed.push(v);
                }
                None => {
                    return Err(ZoneError::TooManyOpen {
                        zone: z,
                        limit: self.max_open,
                    })
                }
            }
        }
        self.clock += 1;
        self.zones[z as usize].opened_at = self.clock;
        let to = if explicit {
            State::ExplicitlyOpened
        } else {
            State::ImplicitlyOpened
        };
        self.go(z, to);
        e.opened.push(z);
        Ok(())
    }

    fn writable(&self, z: u32) -> Result<(), ZoneError> {
        match self.zones[z as usize].state {
            State::Full => Err(ZoneError::Full { zone: z }),
            State::ReadOnly => Err(ZoneError::ReadOnly { zone: z }),
            State::Offline => Err(ZoneError::Offline { zone: z }),
            _ => Ok(()),
        }
    }

    /// Write `len` LBAs at `lba`.
    pub fn write(&mut self, lba: u64, len: u64) -> Result<Effect, ZoneError> {
        let z = self.zone_of(lba)?;
        self.put(z, lba, len)
    }

    /// Append `len` LBAs to the zone starting at `zslba`: returns the LBA the data went to.
    pub fn append(&mut self, zslba: u64, len: u64) -> Result<(u64, Effect), ZoneError> {
        let z = self.zone_of(zslba)?;
        if zslba != self.start(z) {
            return Err(ZoneError::AppendNotAtStart { lba: zslba });
        }
        let wp = self.zones[z as usize].wp;
        self.writable(z)?;
        self.put(z, wp, len).map(|e| (wp, e))
    }

    fn put(&mut self, z: u32, lba: u64, len: u64) -> Result<Effect, ZoneError> {
        self.writable(z)?;
        let zone = self.zones[z as usize];
        if lba != zone.wp {
            return Err(ZoneError::InvalidWrite {
                zone: z,
                lba,
                wp: zone.wp,
            });
        }
        let cap_end = self.start(z) + self.capacity;
        if lba + len > cap_end {
            return Err(ZoneError::Boundary {
                zone: z,
                end: lba + len,
                cap_end,
            });
        }
        let mut e = Effect::default();
        if matches!(zone.state, State::Empty | State::Closed) {
            self.take_open(z, false, &mut e)?;
        }
        let zone = &mut self.zones[z as usize];
        zone.wp += len;
        zone.written += len;
        if zone.wp == cap_end {
            self.go(z, State::Full);
            e.filled.push(z);
        }
        Ok(e)
    }

    /// Zone Management Send: `action` on zone `z`, or with `all` on every zone it selects.
    pub fn send(&mut self, action: Action, z: u32, all: bool) -> Result<Effect, ZoneError> {
        let mut e = Effect::default();
        if !all {
            if z as usize >= self.zones.len() {
                return Err(ZoneError::OutOfRange {
                    lba: z as u64 * self.size,
                });
            }
            self.one(action, z, &mut e)?;
            return Ok(e);
        }
        for i in 0..self.count() {
            let s = self.zones[i as usize].state;
            let selected = match action {
                Action::Open => s == State::Closed,
                Action::Close => s.open(),
                Action::Finish => s.active(),
                Action::Reset => s.active() || s == State::Full,
            };
            if selected {
                self.one(action, i, &mut e)?;
            }
        }
        Ok(e)
    }

    fn one(&mut self, action: Action, z: u32, e: &mut Effect) -> Result<(), ZoneError> {
        let zone = self.zones[z as usize];
        let bad = || ZoneError::Transition {
            zone: z,
            from: zone.state,
            action,
        };
        match (action, zone.state) {
            (_, State::Offline) => return Err(ZoneError::Offline { zone: z }),
            (Action::Open, State::Empty | State::Closed) => self.take_open(z, true, e)?,
            (Action::Open, State::ImplicitlyOpened) => self.go(z, State::ExplicitlyOpened),
            (Action::Open, State::ExplicitlyOpened) => {}
            (Action::Close, State::ImplicitlyOpened | State::ExplicitlyOpened) => {
                let to = if zone.written == 0 { State::Empty } else { State::Closed };
                self.go(z, to);
            }
            (Action::Close, State::Closed) => {}
            (Action::Finish, State::Empty) => {
                if self.max_active > 0 && self.active >= self.max_active {
                    return Err(ZoneError::TooManyActive {
                        zone: z,
                        limit: self.max_active,
                    });
                }
                self.finish(z, e);
            }
            (Action::Finish, State::ImplicitlyOpened | State::ExplicitlyOpened | State::Closed) => self.finish(z, e),
            (Action::Finish, State::Full) => {}
            (Action::Reset, State::ReadOnly) => return Err(ZoneError::ReadOnly { zone: z }),
            (Action::Reset, State::Empty) => {}
            (Action::Reset, _) => {
                e.reset.push((z, zone.written, zone.state.active()));
                self.go(z, State::Empty);
                let zone = &mut self.zones[z as usize];
                zone.wp = z as u64 * self.size;
                zone.written = 0;
            }
            _ => return Err(bad()),
        }
        Ok(())
    }

    fn finish(&mut self, z: u32, e: &mut Effect) {
        e.finished.push((z, self.zones[z as usize].written));
        self.go(z, State::Full);
        self.zones[z as usize].wp = self.start(z) + self.capacity;
    }

    /// The resource counts against the zones' states (the invariant every command keeps).
    pub fn check(&self) -> Result<(), String> {
        let open = self.zones.iter().filter(|z| z.state.open()).count() as u32;
        let active = self.zones.iter().filter(|z| z.state.active()).count() as u32;
        if (open, active) != (self.open, self.active) {
            return Err(format!(
                "zones: {} open and {} active counted, {open} and {active} in the states",
                self.open, self.active
            ));
        }
        if (self.max_open > 0 && open > self.max_open) || (self.max_active > 0 && active > self.max_active) {
            return Err(format!(
                "zones: {open} open and {active} active, past the limits {} and {}",
                self.max_open, self.max_active
            ));
        }
        for (i, z) in self.zones.iter().enumerate() {
            let start = i as u64 * self.size;
            if z.wp < start || z.wp > start + self.capacity || z.written > z.wp - start {
                return Err(format!("zone {i}: write pointer {} and {} written", z.wp, z.written));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones() -> Zones {
        // 8 zones of 100 LBAs, 60 writable, 2 open and 3 active at most.
        Zones::new(8, 100, 60, 2, 3)
    }

    #[test]
    fn a_write_opens_fills_and_frees_its_zone() {
        let mut z = zones();
        let e = z.write(0, 10).unwrap();
        assert_eq!(e.opened, vec![0]);
        assert_eq!(z.zone(0).state, State::ImplicitlyOpened);
        assert_eq!((z.zone(0).wp, z.open_count(), z.active_count()), (10, 1, 1));
        let e = z.write(10, 50).unwrap();
        assert_eq!(e.filled, vec![0]);
        assert!(e.opened.is_empty());
        assert_eq!((z.zone(0).state, z.zone(0).wp), (State::Full, 60));
        assert_eq!((z.open_count(), z.active_count()), (0, 0));
        assert_eq!(z.write(60, 1), Err(ZoneError::Full { zone: 0 }));
        z.check().unwrap();
    }

    #[test]
    fn writes_off_the_pointer_and_past_the_capacity_fail() {
        let mut z = zones();
        assert_eq!(
            z.write(105, 1),
            Err(ZoneError::InvalidWrite {
                zone: 1,
                lba: 105,
                wp: 100
            })
        );
        assert_eq!(
            z.write(100, 61),
            Err(ZoneError::Boundary {
                zone: 1,
                end: 161,
                cap_end: 160
            })
        );
        // A failed write changes nothing.
        assert_eq!((z.zone(1).state, z.open_count()), (State::Empty, 0));
        assert_eq!(z.write(800, 1), Err(ZoneError::OutOfRange { lba: 800 }));
    }

    #[test]
    fn the_open_limit_closes_the_oldest_implicit_open_and_the_active_limit_refuses() {
        let mut z = zones();
        z.write(0, 1).unwrap();
        z.write(100, 1).unwrap();
        // A third implicit open: zone 0, opened first, is closed for it.
        let e = z.write(200, 1).unwrap();
        assert_eq!(e.closed, vec![0]);
        assert_eq!(z.zone(0).state, State::Closed);
        assert_eq!((z.open_count(), z.active_count()), (2, 3));
        // A fourth zone would be a fourth active one.
        assert_eq!(z.write(300, 1), Err(ZoneError::TooManyActive { zone: 3, limit: 3 }));
        // Writing the closed zone reopens it, closing zone 1 (now the oldest open).
        let e = z.write(1, 1).unwrap();
        assert_eq!((e.opened.clone(), e.closed.clone()), (vec![0], vec![1]));
        z.check().unwrap();
    }

    #[test]
    fn explicit_opens_are_never_closed_for_an_implicit_one() {
        let mut z = zones();
        z.send(Action::Open, 0, false).unwrap();
        z.send(Action::Open, 1, false).unwrap();
        assert_eq!(z.zone(0).state, State::ExplicitlyOpened);
        assert_eq!(z.write(200, 1), Err(ZoneError::TooManyOpen { zone: 2, limit: 2 }));
        assert_eq!(
            z.send(Action::Open, 2, false),
            Err(ZoneError::TooManyOpen { zone: 2, limit: 2 })
        );
        // Writes into an explicitly opened zone keep it explicitly opened.
        z.write(0, 5).unwrap();
        assert_eq!(z.zone(0).state, State::ExplicitlyOpened);
    }

    #[test]
    fn append_returns_the_write_pointer() {
        let mut z = zones();
        assert_eq!(z.append(100, 4).unwrap().0, 100);
        assert_eq!(z.append(100, 4).unwrap().0, 104);
        assert_eq!(z.zone(1).wp, 108);
        assert_eq!(z.append(104, 1), Err(ZoneError::AppendNotAtStart { lba: 104 }));
        assert_eq!(
            z.append(100, 53),
            Err(ZoneError::Boundary {
                zone: 1,
                end: 161,
                cap_end: 160
            })
        );
        assert_eq!(z.append(100, 52).unwrap().1.filled, vec![1]);
        assert_eq!(z.append(100, 1), Err(ZoneError::Full { zone: 1 }));
    }

    #[test]
    fn close_finish_and_reset_follow_the_spec() {
        let mut z = zones();
        // Close of an opened zone with nothing written empties it; with data, closes it.
        z.send(Action::Open, 0, false).unwrap();
        z.send(Action::Close, 0, false).unwrap();
        assert_eq!((z.zone(0).state, z.active_count()), (State::Empty, 0));
        z.write(0, 7).unwrap();
        z.send(Action::Close, 0, false).unwrap();
        assert_eq!(
            (z.zone(0).state, z.open_count(), z.active_count()),
            (State::Closed, 0, 1)
        );
        assert_eq!(
            z.send(Action::Close, 1, false),
            Err(ZoneError::Transition {
                zone: 1,
                from: State::Empty,
                action: Action::Close
            })
        );
        // Finish keeps the count written, moves the pointer to the capacity's end.
        let e = z.send(Action::Finish, 0, false).unwrap();
        assert_eq!(e.finished, vec![(0, 7)]);
        assert_eq!((z.zone(0).state, z.zone(0).wp, z.zone(0).written), (State::Full, 60, 7));
        assert_eq!(z.active_count(), 0);
        // Finish of an empty zone.
        assert_eq!(z.send(Action::Finish, 1, false).unwrap().finished, vec![(1, 0)]);
        // Reset reports what the zone held and whether it was active.
        z.write(200, 3).unwrap();
        let e = z.send(Action::Reset, 0, false).unwrap();
        assert_eq!(e.reset, vec![(0, 7, false)]);
        let e = z.send(Action::Reset, 2, false).unwrap();
        assert_eq!(e.reset, vec![(2, 3, true)]);
        assert_eq!(
            (z.zone(2).state, z.zone(2).wp, z.zone(2).written),
            (State::Empty, 200, 0)
        );
        // Reset of an empty zone does nothing.
        assert!(z.send(Action::Reset, 2, false).unwrap().reset.is_empty());
        z.check().unwrap();
    }

    #[test]
    fn select_all_takes_the_zones_the_spec_names() {
        let mut z = Zones::new(6, 100, 60, 0, 0);
        z.write(0, 60).unwrap(); // full
        z.write(100, 5).unwrap(); // opened
        z.write(200, 5).unwrap();
        z.send(Action::Close, 2, false).unwrap(); // closed
        let e = z.send(Action::Finish, 0, true).unwrap();
        assert_eq!(e.finished, vec![(1, 5), (2, 5)]);
        let e = z.send(Action::Reset, 0, true).unwrap();
        assert_eq!(e.reset, vec![(0, 60, false), (1, 5, false), (2, 5, false)]);
        assert!(z.report().iter().all(|x| x.state == State::Empty));
        z.write(300, 1).unwrap();
        z.send(Action::Close, 3, false).unwrap();
        z.send(Action::Open, 0, true).unwrap();
        assert_eq!(z.zone(3).state, State::ExplicitlyOpened);
        z.send(Action::Close, 0, true).unwrap();
        assert_eq!(z.zone(3).state, State::Closed);
        z.check().unwrap();
    }

    #[test]
    fn read_only_and_offline_zones_refuse_writes_and_resets() {
        let mut z = zones();
        z.write(0, 5).unwrap();
        z.set_state(0, State::ReadOnly);
        assert_eq!(z.open_count(), 0);
        assert_eq!(z.write(5, 1), Err(ZoneError::ReadOnly { zone: 0 }));
        assert_eq!(z.send(Action::Reset, 0, false), Err(ZoneError::ReadOnly { zone: 0 }));
        z.set_state(1, State::Offline);
        assert_eq!(z.write(100, 1), Err(ZoneError::Offline { zone: 1 }));
        assert_eq!(z.send(Action::Finish, 1, false), Err(ZoneError::Offline { zone: 1 }));
        z.check().unwrap();
    }
}
