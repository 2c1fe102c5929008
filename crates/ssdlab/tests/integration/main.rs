//! The command's tests, one module per area, in one test binary (one link instead of one per
//! file): `cargo test -p ssdlab --test integration docs::` runs one area's.

mod bad_input;
mod characterize_cli;
mod cli;
mod common;
mod docs;
mod experiment;
mod fio_compat;
mod fio_examples;
mod lifetime;
mod lint_cli;
mod nothing_lost;
mod outputs;
mod profile;
mod serve;
mod snapshot_cli;
mod trace_cli;
mod traces_fetch;
mod zns_jobs;
