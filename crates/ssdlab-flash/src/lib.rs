//! ssdlab-flash: the flash back end. Geometry and addressing, NAND cell timing, the host
//! interface's link and DMA, the flash scheduler (per-unit queues, suspension) and the
//! controller's CPUs. Each section's configuration type and checks live with its code. Imports
//! only ssdlab-base.

pub mod controller;
pub mod geometry;
pub mod host;
pub mod nand;
pub mod scheduler;

// The base's modules under their usual names, so that `crate::units` reads the same in every
// layer.
pub use ssdlab_base::*;
