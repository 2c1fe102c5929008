//! ssdlab-core: the simulation engine behind the `ssdlab` command.
//!
//! Build a device from a [`config::Config`], feed it requests from workloads (synthetic fio-style
//! jobs or trace replays), run it, read the [`metrics::RunResult`]. The library does no printing
//! and never exits the process: every failure is an [`Error`] whose text names the file, line or
//! key at fault.

pub mod error;
pub mod request;
pub mod trace;
pub mod units;

pub use error::{Error, Result};
pub use request::{Op, Request, RequestSource};
