//! ssdlab-lab: the lab on top of the engine. The seed reproductions (`experiment`) and their
//! result folders (`folder`), the SSD-friendly lint (`lint`), the Iometer-style
//! characterization of a drive (`characterize`), and the SVG plots of runs and figures
//! (`plot`), and zone management timed command by command as the ZN540's own measurements
//! were made (`zone_ops`). Imports ssdlab-core (and through it the layers below); nothing of the
//! engine imports the lab.

pub mod characterize;
pub mod experiment;
pub mod folder;
pub mod lint;
pub mod plot;
pub mod zone_ops;

// The engine's modules under their usual names, so that `crate::config` reads the same here.
pub use ssdlab_core::*;
