//! Flash geometry and addressing.
//!
//! Planes are numbered so that consecutive plane numbers spread over channels first, then
//! ways, dies and planes within a die: plane `s` sits on channel `s % channels` and die
//! `s % dies`. Round-robin allocation over plane numbers therefore stripes over channels.
//! A physical unit number (PUN, `u32`) is `(block * pages_per_block + page) * units_per_page + slot`
//! with global block number `plane * blocks_per_plane + block_in_plane`.

use crate::units::Size;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Geometry {
    pub channels: usize,
    pub ways: usize,
    pub dies_per_chip: usize,
    pub planes_per_die: usize,
    /// Dies in the device (channels × ways × dies per chip).
    pub dies: usize,
    /// Planes in the device.
    pub planes: usize,
    pub blocks_per_plane: usize,
    pub pages_per_block: usize,
    pub page_size: u64,
    /// Mapping unit in bytes.
    pub unit_size: u64,
    pub units_per_page: usize,
    pub units_per_block: usize,
    /// Blocks in the device.
    pub blocks: usize,
    pub physical_units: u64,
    /// Logical units the FTL maps: the host's, plus a redundancy scheme's own (mirror copies,
    /// parity).
    pub logical_units: u64,
    /// Logical units the host sees (`logical_units` without a redundancy scheme).
    pub host_units: u64,
}

/// Largest number of physical units: unit numbers are `u32` with `u32::MAX` reserved.
pub const MAX_UNITS: u64 = u32::MAX as u64 - 1;

impl Geometry {
    /// The geometry `[device.geometry]` describes (`file` names it in errors), with
    /// `extra_channels` more channels of the same chips and `host_units` the host's share
    /// of the units the FTL maps: what whoever builds the device adds for the chips and
    /// capacity of a redundancy scheme (`crate::redundancy::geometry_of`); 0 and the identity
    /// without one.
    pub fn new(
        g: &GeometryConfig,
        extra_channels: u32,
        host_units: impl Fn(u64) -> u64,
        file: &str,
    ) -> Result<Geometry> {
        let channels = g.channels.saturating_add(extra_channels);
        let k = |key: &str| format!("device.geometry.{key}");
        for (key, v) in [
            ("channels", g.channels),
            ("ways", g.ways),
            ("dies_per_chip", g.dies_per_chip),
            ("planes_per_die", g.planes_per_die),
            ("blocks_per_plane", g.blocks_per_plane),
            ("pages_per_block", g.pages_per_block),
        ] {
            if v == 0 {
                return Err(Error::config(file, &k(key), "got 0; expected at least 1"));
            }
        }
        if g.pages_per_block > 65536 {
            return Err(Error::config(
                file,
                &k("pages_per_block"),
                format!("got {}; expected at most 65536 pages per block", g.pages_per_block),
            ));
        }
        let page = g.page_size.0;
        let unit = g.mapping_unit.0;
        if page < 512 || !page.is_multiple_of(512) {
            return Err(Error::config(
                file,
                &k("page_size"),
                format!("got {page}; expected a multiple of 512 bytes"),
            ));
        }
        if unit < 512 || !unit.is_multiple_of(512) || !page.is_multiple_of(unit) {
            // Reported at whichever of the two the user wrote.
            return Err(Error::config_keys(
                file,
                &[&k("mapping_unit"), &k("page_size")],
                format!(
                    "a mapping unit of {unit} bytes with pages of {page}; expected a mapping unit that is a \
                     multiple of 512 bytes and divides the page size"
                ),
            ));
        }
        let op = g.overprovisioning;
        if !(op > 0.0 && op <= 4.0) {
            return Err(Error::config(
                file,
                &k("overprovisioning"),
                format!("got {op}; expected a share above 0 and at most 4 (e.g. 0.07)"),
            ));
        }
        let units_per_page = (page / unit) as usize;
        if units_per_page > 64 {
            return Err(Error::config(
                file,
                &k("mapping_unit"),
                format!("got {units_per_page} mapping units per page; expected at most 64"),
            ));
        }
        // Every product checked: in u128 nothing below overflows (six factors below 2^32
        // and one below 2^7), and the result is compared before it is narrowed.
        let product = |xs: &[u32]| xs.iter().fold(1u128, |a, &x| a * x as u128);
        let units128 = product(&[
            channels,
            g.ways,
            g.dies_per_chip,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
            units_per_page as u32,
        ]);
        if units128 > MAX_UNITS as u128 {
            return Err(Error::config_keys(
                file,
                &[
                    "device.geometry",
                    "device.geometry.blocks_per_plane",
                    "device.geometry.mapping_unit",
                ],
                format!("{units128} mapping units do not fit 32-bit unit numbers; expected at most {MAX_UNITS} (a larger mapping_unit or fewer blocks)"),
            ));
        }
        // All below fit: their product does.
        let dies = (channels as u64) * (g.ways as u64) * (g.dies_per_chip as u64);
        let planes = dies * g.planes_per_die as u64;
        let blocks = planes * g.blocks_per_plane as u64;
        let units_per_block = g.pages_per_block as u64 * units_per_page as u64;
        let physical_units = blocks * units_per_block;
        if planes > 1 << 20 {
            return Err(Error::config(
                file,
                "device.geometry",
                format!("got {planes} planes; expected at most 2^20"),
            ));
        }
        let logical_units = (physical_units as f64 / (1.0 + op)).floor() as u64;
        if logical_units == 0 {
            return Err(Error::config(
                file,
                "device.geometry.overprovisioning",
                "leaves no logical capacity; expected a smaller share",
            ));
        }
        let host_units = host_units(logical_units);
        Ok(Geometry {
            channels: channels as usize,
            ways: g.ways as usize,
            dies_per_chip: g.dies_per_chip as usize,
            planes_per_die: g.planes_per_die as usize,
            dies: dies as usize,
            planes: planes as usize,
            blocks_per_plane: g.blocks_per_plane as usize,
            pages_per_block: g.pages_per_block as usize,
            page_size: page,
            unit_size: unit,
            units_per_page,
            units_per_block: units_per_block as usize,
            blocks: blocks as usize,
            physical_units,
            logical_units,
            host_units,
        })
    }

    /// The host-visible capacity.
    pub fn logical_bytes(&self) -> u64 {
        self.host_units * self.unit_size
    }
    pub fn physical_bytes(&self) -> u64 {
        self.physical_units * self.unit_size
    }
    /// α = physical / logical.
    pub fn alpha(&self) -> f64 {
        self.physical_units as f64 / self.logical_units as f64
    }
    #[inline]
    pub fn plane_of_block(&self, block: usize) -> usize {
        block / self.blocks_per_plane
    }
    #[inline]
    pub fn block_of_unit(&self, pun: u32) -> usize {
        pun as usize / self.units_per_block
    }
    #[inline]
    pub fn channel_of_plane(&self, plane: usize) -> usize {
        plane % self.channels
    }
    #[inline]
    pub fn die_of_plane(&self, plane: usize) -> usize {
        plane % self.dies
    }
    /// Page index within its block of a physical unit.
    #[inline]
    pub fn page_in_block(&self, pun: u32) -> usize {
        (pun as usize % self.units_per_block) / self.units_per_page
    }
    /// Global page number of a physical unit.
    #[inline]
    pub fn page_of_unit(&self, pun: u32) -> u64 {
        pun as u64 / self.units_per_page as u64
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    pub channels: u32,
    /// Chips (ways) per channel.
    pub ways: u32,
    #[serde(default = "one")]
    pub dies_per_chip: u32,
    #[serde(default = "one")]
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: Size,
    /// Mapping unit of the FTL (sub-page mapping when smaller than the page).
    #[serde(default = "default_unit")]
    pub mapping_unit: Size,
    /// Over-provisioning: (physical − logical) / logical. α = 1 + overprovisioning.
    pub overprovisioning: f64,
}

fn one() -> u32 {
    1
}

fn default_unit() -> Size {
    Size(4096)
}
