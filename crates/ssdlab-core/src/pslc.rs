//! Pseudo-SLC "performance mode" with folding (`device.nand.pslc_fold`), as OCZ's firmware
//! of the Everest 2 and Barefoot 3 era does it (REFERENCES §1.3: Tom's Hardware's Vertex 450
//! review, the Vertex 4 firmware 1.4 article, hardwareluxx's Vertex 460 test): a fresh drive
//! programs its MLC cells as one bit per cell, fast; once more than a share of the logical
//! capacity holds data, host data still lands in SLC mode first but must then be folded into
//! MLC, and sequential write throughput drops sharply.
//!
//! Model: the array time of each host page program is
//! - below the threshold: the SLC program time ([`crate::config::CellType::typical`] for
//!   `slc`), the page being written one bit per cell;
//! - above it: the SLC program, the SLC read that folding does, and the cell's own program
//!   (the page is written twice, read once in between, on the same die: folding is modelled
//!   on-die, with no extra channel transfer).
//!
//! What holds data is the FTL's valid units over the logical units, recounted every
//! [`RECOUNT`] host programs (the count is a scan of every block). Not modelled: the space
//! the SLC-mode pages take (half a page's capacity each), the fold running in the background
//! while the drive is idle, GC copies (they keep the cell's timing).

use crate::device_config::DeviceConfig;
use crate::ftl::Ftl;
use crate::nand::CellType;

/// Host programs between two recounts of the data held.
pub const RECOUNT: u32 = 1024;

pub struct Pslc {
    threshold: f64,
    logical_units: u64,
    slc_program_ns: u64,
    slc_read_ns: u64,
    folding: bool,
    countdown: u32,
}

impl Pslc {
    /// The mode of `cfg` (None: `pslc_fold` = 0, off) on a device of `logical_units`.
    pub fn from_config(cfg: &DeviceConfig, logical_units: u64) -> Option<Pslc> {
        let t = cfg.nand.pslc_fold;
        if t <= 0.0 {
            return None;
        }
        let (read, program, _) = CellType::Slc.typical();
        Some(Pslc {
            threshold: t,
            logical_units: logical_units.max(1),
            slc_program_ns: program.0,
            slc_read_ns: read.0,
            folding: false,
            countdown: 0,
        })
    }

    /// Whether host writes fold (the data held is above the threshold), as last counted.
    pub fn folding(&self) -> bool {
        self.folding
    }

    /// The array time of a host page program whose cell program time is `cell_ns`.
    #[inline]
    pub fn program_ns(&mut self, ftl: &Ftl, cell_ns: u64) -> u64 {
        if self.countdown == 0 {
            self.countdown = RECOUNT;
            self.folding = ftl.valid_units() as f64 > self.threshold * self.logical_units as f64;
        }
        self.countdown -= 1;
        if self.folding {
            self.slc_program_ns + self.slc_read_ns + cell_ns
        } else {
            self.slc_program_ns
        }
    }
}

/// Check `pslc_fold` (a share from 0 to below 1; on an SLC device it must be 0).
pub fn validate(cfg: &DeviceConfig, file: &str) -> crate::Result<()> {
    let t = cfg.nand.pslc_fold;
    if !(0.0..1.0).contains(&t) {
        return Err(crate::Error::config(
            file,
            "device.nand.pslc_fold",
            format!("got {t}; expected a share of the logical capacity from 0 (off) to below 1"),
        ));
    }
    if t > 0.0 && cfg.nand.cell == CellType::Slc {
        return Err(crate::Error::config(
            file,
            "device.nand.pslc_fold",
            "got a pseudo-SLC mode on SLC cells; expected 0 with cell = \"slc\"",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::{load_config_with, parse_config};

    #[test]
    fn the_key_is_a_share_below_one_and_not_on_slc() {
        let set = |v: &str| load_config_with("ocz-vector150", &[format!("device.nand.pslc_fold={v}")]);
        assert!(set("0").is_ok() && set("0.5").is_ok());
        for bad in ["1", "-0.1", "1.5"] {
            let e = set(bad).unwrap_err().to_string();
            assert!(e.contains("device.nand.pslc_fold") && e.contains("expected"), "{e}");
        }
        let text = "[device]\npreset = \"ocz-vector150\"\n[device.nand]\ncell = \"slc\"\n";
        let e = parse_config(text, "t.toml", std::path::Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(e.contains("pslc_fold") && e.contains("SLC"), "{e}");
    }

    #[test]
    fn programs_fold_only_past_the_threshold() {
        // A device of 1,000 logical units, half a threshold: programs are SLC-fast while
        // 500 or fewer hold data, and SLC program + SLC read + the cell's program past it.
        let set = ["device.geometry.blocks_per_plane=64", "job.0.size=1GiB"].map(String::from);
        let cfg = load_config_with("ocz-vector150", &set).unwrap();
        let mut m = super::Pslc::from_config(&cfg.device, 1000).unwrap();
        let dev = crate::Device::new(&cfg.device, 1).unwrap();
        assert_eq!(m.program_ns(&dev.ftl, 750_000), 200_000);
        assert!(!m.folding());
        let mut off = cfg.device.clone();
        off.nand.pslc_fold = 0.0;
        assert!(super::Pslc::from_config(&off, 1000).is_none());
        // Counted as folding from the start: the next recount happens after RECOUNT programs.
        let mut m = super::Pslc::from_config(&cfg.device, 1000).unwrap();
        m.folding = true;
        m.countdown = 2;
        assert_eq!(m.program_ns(&dev.ftl, 750_000), 200_000 + 25_000 + 750_000);
    }
}
