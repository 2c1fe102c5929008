//! Inline compression of host writes (`device.ftl.compression`), as SandForce controllers do
//! it (DuraWrite; REFERENCES §1.4: the Intel 530's SF-2281 compresses in real time, and its
//! sequential write speed depends on how compressible the data are).
//!
//! The key is the flash bytes per host byte, from above 0 to 1 (1: off). Model: each host
//! page program, and each host flash read, costs that share of its array time and of its
//! channel transfer (the flash work of `ratio` pages per page of host data, spread evenly:
//! compressed data fill fewer pages, both to write and to read back). The FTL still maps
//! uncompressed units, so the space compression saves (more effective spare area, lower
//! write amplification) is not modelled, nor are GC copies made cheaper.

use crate::device_config::DeviceConfig;

/// `(array ns, transfer bytes)` of a host flash operation of `array_ns` and `bytes` under
/// `ratio` (each rounded up, at least 1).
#[inline]
pub fn scale(ratio: f64, array_ns: u64, bytes: u64) -> (u64, u64) {
    let s = |x: u64| ((x as f64 * ratio).ceil() as u64).max(1);
    (s(array_ns), s(bytes))
}

/// Check `compression` (above 0, at most 1).
pub fn validate(cfg: &DeviceConfig, file: &str) -> crate::Result<()> {
    let r = cfg.ftl.compression;
    if !(r > 0.0 && r <= 1.0) {
        return Err(crate::Error::config(
            file,
            "device.ftl.compression",
            format!("got {r}; expected flash bytes per host byte, above 0 and at most 1 (1: off)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_ratio_scales_time_and_transfer() {
        assert_eq!(super::scale(1.0, 750_000, 8192), (750_000, 8192));
        assert_eq!(super::scale(0.5, 750_000, 8192), (375_000, 4096));
        assert_eq!(super::scale(0.3, 1, 1), (1, 1));
    }
}
