//! The lab's integration tests, one module per area, in one test binary (one link instead of
//! one per file): `cargo test -p ssdlab-lab --test integration lint::` runs one area's.

mod experiment_split;
mod lint;
mod rodi_presets;
