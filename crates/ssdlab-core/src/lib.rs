//! ssdlab-core: the simulation engine behind the `ssdlab` command.
//!
//! Build a device from a [`config::Config`], feed it requests from workloads (synthetic fio-style
//! jobs or trace replays), run it, read the [`metrics::RunResult`]. The library does no printing
//! and never exits the process: every failure is an [`Error`] whose text names the file, line or
//! key at fault.

pub mod analytic;
pub mod array;
pub mod blockdata;
pub mod compression;
pub mod config;
pub mod controller;
pub mod device;
pub mod device_config;
pub mod error;
pub mod experiment;
pub mod fiohist;
pub mod fiolog;
pub mod firmware;
pub mod ftl;
pub mod geometry;
pub mod hdd;
pub mod host;
pub mod interrupt;
pub mod lifetime;
pub mod lint;
pub mod live;
pub mod mechanisms;
pub mod metrics;
pub mod nand;
pub mod output;
pub mod parallel;
pub mod placement;
pub mod precondition;
pub mod presets;
pub mod pslc;
pub mod redundancy;
pub mod request;
pub mod run_config;
pub mod sampling;
pub mod scheduler;
pub mod sim;
pub mod source;
pub mod timeline;
pub mod trace;
pub mod units;
pub mod workload;

pub use config::{load_config, parse_config, Config};
pub use device::Device;
pub use error::{Error, Result};
pub use metrics::RunResult;
pub use request::{Op, Request, RequestSource};
pub use sim::{run_config, Simulation};
