//! ssdlab-base: what every layer of ssdlab uses and that uses nothing of ssdlab: units with
//! their TOML forms, errors naming a file, line and key, positions in source text, host
//! requests, busy timelines, analytic models, sampling, fio's latency bins, the interrupt flag
//! and the point runner.

pub mod analytic;
pub mod defaults;
pub mod error;
pub mod fiohist;
pub mod interrupt;
pub mod memory;
pub mod parallel;
pub mod request;
pub mod sampling;
pub mod skip;
pub mod source;
pub mod timeline;
pub mod units;

pub use error::{Error, Result};
pub use request::{Op, Request, RequestSource};
