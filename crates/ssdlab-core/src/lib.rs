//! ssdlab-core: the simulation engine behind the `ssdlab` command.
//!
//! Build a device from a [`config::Config`], feed it requests from workloads (synthetic fio-style
//! jobs or trace replays), run it, read the [`metrics::RunResult`]. The library does no printing
//! and never exits the process: every failure is an [`Error`] whose text names the file, line or
//! key at fault.

pub mod aged;
pub mod array;
pub mod blockdata;
pub mod compression;
pub mod config;
pub mod contract;
pub mod device;
pub mod device_config;
pub mod fiolog;
pub mod firmware;
pub mod ftl;
pub mod hdd;
pub mod lifetime;
pub mod live;
pub mod mechanisms;
pub mod metrics;
pub mod output;
pub mod placement;
pub mod precondition;
pub mod presets;
pub mod pslc;
pub mod redundancy;
pub mod run_config;
pub mod sim;
pub mod snapshot;
pub mod toml_position;
pub mod zones;

// The layers below under their usual names: `crate::units`, `crate::geometry` and
// `crate::workload` read the same in every layer, and users of the engine find them here.
pub use ssdlab_base::{
    analytic, defaults, error, fiohist, interrupt, memory, parallel, request, sampling, skip, source, timeline, units,
};
pub use ssdlab_flash::{controller, geometry, host, nand, scheduler};
pub use ssdlab_workload::{trace, workload};

pub use config::{load_config, parse_config, Config};
pub use device::Device;
pub use error::{Error, Result};
pub use metrics::RunResult;
pub use request::{Op, Request, RequestSource};
pub use sim::{run_config, Simulation};
