//! Block-trace readers, statistics, conversion and replay (see docs/traces.md).
