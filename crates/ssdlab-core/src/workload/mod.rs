//! Workloads: fio-style synthetic jobs, fio job files, and (through `crate::trace`) trace replay.
pub mod fio;
pub mod job;
