//! ssdlab-workload: what drives a device. fio-style jobs and fio job files, applications on a
//! file system, the HPC-like generator, and block traces (formats, detection, statistics,
//! conversion, replay). Imports only ssdlab-base: a workload knows nothing of the device.

pub mod trace;
pub mod workload;

// The base's modules under their usual names.
pub use ssdlab_base::*;
