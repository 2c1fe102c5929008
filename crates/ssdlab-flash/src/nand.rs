//! The `[device.nand]` section: cell type, array timing per page type, channel rate and
//! endurance, with the checks and typical values of each cell type.

use crate::units::{Duration, Rate};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Longest NAND array operation or page transfer accepted (operation times are kept in 32
/// bits of nanoseconds by the flash scheduler).
pub const MAX_NAND_NS: u64 = 1_000_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }

    /// The typical array timing of the cell type, `(read, program, erase)`: what
    /// `[device.nand]` takes for each of `read`, `program` and `erase` it does not set. One
    /// value per cell type (every page type alike), as the HotR paper's Figure 1(a) gives one
    /// read and one write latency per cell type. "White paper" is the vendor white paper row
    /// of the design notes' NAND timing references (DESIGN.md, "NAND timing references":
    /// SLC / MLC / TLC read 25 / 50 / ~75 us, program 200-300 / 600-900 / ~900-1350 us, erase
    /// 1.5-2 / 3 / ~4.5 ms).
    ///
    /// - SLC: read 25 us, program 200 us, erase 1.5 ms: the white paper's figures (the low
    ///   end of its program and erase ranges), which are also the DiskSim SSD extension's SLC
    ///   parameters (Agrawal et al., USENIX ATC'08).
    /// - MLC: read 50 us and erase 3 ms: the white paper's; program 750 us, the middle of its
    ///   600-900 us.
    /// - TLC: read 75 us and erase 4.5 ms: the white paper's; program 1125 us, the middle of
    ///   its ~900-1350 us.
    /// - QLC: read 130 us, 1.75x TLC's 75 us rounded (the middle of the design notes' "reads
    ///   roughly 1.5-2x TLC"); program 2800 us, 2.5x TLC's 1125 us rounded (the middle of
    ///   "programs 2-3x TLC"); erase 4.5 ms, TLC's: no source we cite gives a QLC erase time.
    pub fn typical(self) -> (Duration, Duration, Duration) {
        const US: u64 = 1_000;
        let (read, program, erase) = match self {
            CellType::Slc => (25 * US, 200 * US, 1_500 * US),
            CellType::Mlc => (50 * US, 750 * US, 3_000 * US),
            CellType::Tlc => (75 * US, 1_125 * US, 4_500 * US),
            CellType::Qlc => (130 * US, 2_800 * US, 4_500 * US),
        };
        (Duration(read), Duration(program), Duration(erase))
    }

    /// The name used in config files (`"tlc"`).
    pub fn name(self) -> &'static str {
        match self {
            CellType::Slc => "slc",
            CellType::Mlc => "mlc",
            CellType::Tlc => "tlc",
            CellType::Qlc => "qlc",
        }
    }
}

/// One duration, or one per page type (LSB, CSB, MSB, TSB) for multi-level cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PerPageType {
    One(Duration),
    PerType(Vec<Duration>),
}

impl<'de> Deserialize<'de> for PerPageType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{IntoDeserializer, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PerPageType;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a duration such as \"75us\", or a list of durations, one per page type")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<PerPageType, E> {
                Ok(PerPageType::One(Duration(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<PerPageType, E> {
                Duration::deserialize(v.into_deserializer()).map(PerPageType::One)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<PerPageType, E> {
                Duration::deserialize(v.into_deserializer()).map(PerPageType::One)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<PerPageType, E> {
                Duration::deserialize(v.into_deserializer()).map(PerPageType::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<PerPageType, A::Error> {
                let mut out = Vec::new();
                while let Some(d) = seq.next_element::<Duration>()? {
                    out.push(d);
                }
                Ok(PerPageType::PerType(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl PerPageType {
    pub fn resolve(&self, bits: usize, file: &str, key: &str) -> Result<Vec<u64>> {
        let v: Vec<u64> = match self {
            PerPageType::One(d) => vec![d.0; bits],
            PerPageType::PerType(v) => v.iter().map(|d| d.0).collect(),
        };
        if v.len() != bits {
            return Err(Error::config(
                file,
                key,
                format!(
                    "got {} durations; expected one, or {bits} (one per page type of a {}-bit cell)",
                    v.len(),
                    bits
                ),
            ));
        }
        if v.contains(&0) {
            return Err(Error::config(
                file,
                key,
                "got a zero duration; expected positive durations",
            ));
        }
        if v.iter().any(|&d| d > MAX_NAND_NS) {
            return Err(Error::config(
                file,
                key,
                "got a duration above 1s; expected at most 1s per operation",
            ));
        }
        Ok(v)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NandConfig {
    pub cell: CellType,
    /// Array read time tR, one value or one per page type; unset: the cell type's typical
    /// value ([`CellType::typical`]), which follows `cell` when an override changes it.
    #[serde(default)]
    pub read: Option<PerPageType>,
    /// Program time tPROG, one value or one per page type; unset: as `read`.
    #[serde(default)]
    pub program: Option<PerPageType>,
    /// Block erase time tBERS; unset: as `read`.
    #[serde(default)]
    pub erase: Option<Duration>,
    /// Channel (flash bus) transfer rate.
    pub channel_rate: Rate,
    /// Program/erase cycles before a block is retired.
    pub endurance: u32,
    /// Planes of a die work in parallel (multi-plane operation); otherwise the die is the unit.
    #[serde(default = "yes")]
    pub plane_parallel: bool,
    /// Garbage collection copies pages inside the die (copyback) instead of through the
    /// controller over the channel.
    #[serde(default)]
    pub copyback: bool,
    /// Pseudo-SLC performance mode (`crate::pslc`): host pages are programmed one bit per
    /// cell, and once this share of the logical capacity holds data they are folded into the
    /// cell's own mode as well (0: off).
    #[serde(default)]
    pub pslc_fold: f64,
    /// Where the numbers come from.
    #[serde(default)]
    pub source: String,
}

/// The timing keys of `[device.nand]` that may be left to the cell type.
pub const CELL_TIMING_KEYS: [&str; 3] = ["read", "program", "erase"];

impl NandConfig {
    /// The array timing in force, `(read, program, erase)`: each as written, or, unset, the
    /// cell type's typical value ([`CellType::typical`]). Resolved here, at use, so a value
    /// a file or preset left to the cell follows a `cell` changed by a run file or `--set`,
    /// while one written explicitly stays.
    pub fn timing(&self) -> (PerPageType, PerPageType, Duration) {
        let (read, program, erase) = self.cell.typical();
        (
            self.read.clone().unwrap_or(PerPageType::One(read)),
            self.program.clone().unwrap_or(PerPageType::One(program)),
            self.erase.unwrap_or(erase),
        )
    }

    /// Which of [`CELL_TIMING_KEYS`] are unset and so take the cell type's typical value.
    pub fn typical_keys(&self) -> Vec<&'static str> {
        let unset = [self.read.is_none(), self.program.is_none(), self.erase.is_none()];
        CELL_TIMING_KEYS
            .iter()
            .zip(unset)
            .filter(|(_, u)| *u)
            .map(|(k, _)| *k)
            .collect()
    }
}

fn yes() -> bool {
    true
}
