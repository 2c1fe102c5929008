//! ssdlab-lab: the lab on top of the engine. The seed reproductions (`experiment`), the
//! SSD-friendly lint (`lint`) and the Iometer-style characterization of a drive
//! (`characterize`). Imports ssdlab-core (and through it the layers below); nothing of the
//! engine imports the lab.

pub mod characterize;
pub mod experiment;
pub mod lint;

// The engine's modules under their usual names, so that `crate::config` reads the same here.
pub use ssdlab_core::*;
