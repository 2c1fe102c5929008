//! The machine's memory: the default limit runs' memory estimates are held to (`--max-memory`
//! when not given), below every module that sizes something by it.

/// Three quarters of the machine's physical memory (from /proc/meminfo), if known: the
/// default limit of a run's memory estimate.
pub fn default_memory_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024 / 4 * 3)
}
