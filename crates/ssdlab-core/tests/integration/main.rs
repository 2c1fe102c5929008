//! The engine's integration tests, one module per area, in one test binary (one link instead of
//! one per file): `cargo test -p ssdlab-core --test integration device::` runs one area's.
//! Three areas stay binaries of their own because they change what is process-wide:
//! `interrupt` (the interrupt flag), `memory` (a counting global allocator) and `snapshot`
//! (sharing of preconditioned states, whose copies it counts).

mod array;
mod common;
mod controller;
mod counters;
mod device;
mod fdp;
mod fill_runs;
mod fio_vocabulary;
mod fs_workloads;
mod gc_progress;
mod horizon;
mod hpc;
mod live;
mod metrics;
mod options;
mod output_paths;
mod placement;
mod redundancy;
mod scheduling;
mod schema;
mod separation;
mod streams;
mod traces;
mod validation;
mod zn540;
