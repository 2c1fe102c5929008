//! The `[device.host]` section: the host interface (SATA, NVMe, PCIe), its link bandwidth,
//! per-command overhead and DMA curve, and the time data takes to cross it.

use crate::units::{Duration, Rate, Size};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interface {
    #[serde(rename = "sata3")]
    Sata3,
    #[serde(rename = "nvme-gen3x4")]
    NvmeGen3x4,
    #[serde(rename = "nvme-gen4x4")]
    NvmeGen4x4,
    #[serde(rename = "pcie-gen2x8")]
    PcieGen2x8,
}

impl Interface {
    /// Usable link bandwidth in bytes/s (after line encoding).
    pub fn bandwidth(self) -> u64 {
        match self {
            Interface::Sata3 => 600_000_000,
            Interface::NvmeGen3x4 => 3_938_000_000,
            Interface::NvmeGen4x4 => 7_877_000_000,
            Interface::PcieGen2x8 => 4_000_000_000,
        }
    }
    pub fn full_duplex(self) -> bool {
        !matches!(self, Interface::Sata3)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub interface: Interface,
    /// Overrides the interface's bandwidth.
    #[serde(default)]
    pub bandwidth: Option<Rate>,
    /// Link time taken by each command besides its data.
    pub command_overhead: Duration,
    /// Time each command takes that holds none of the drive's resources: the protocol's round
    /// trips (the doorbell, the command's fetch, the completion's post and its polling by the
    /// host), added to every command's completion. The link's bandwidth and the controller's
    /// time are `command_overhead`, `dma` and `[device.controller]`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub command_latency: Duration,
    /// Host DMA speed by transfer size, as `[size, rate]` points in increasing size: a
    /// transfer's rate is interpolated linearly in size between the two points around it
    /// (the first or last point's rate outside them). Empty: the link's bandwidth for every
    /// size.
    #[serde(default)]
    pub dma: Vec<(Size, Rate)>,
    /// Device-to-host DMA speed by transfer size (reads' data), as `dma`. Empty: `dma` for
    /// both directions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_dma: Vec<(Size, Rate)>,
    /// A request's data crosses the link piece by piece: a read's per flash page as each
    /// reaches the controller, a write's in order with each page programmable once its own
    /// data is in (false: a request's data crosses whole, after a read's last page and before
    /// a write's first program).
    #[serde(default)]
    pub streaming: bool,
}

fn is_zero(d: &Duration) -> bool {
    d.0 == 0
}

impl HostConfig {
    /// The link's bandwidth in bytes/s: `bandwidth` when set, else the interface's.
    pub fn link_bandwidth(&self) -> u64 {
        self.bandwidth
            .map(|r| r.0)
            .unwrap_or_else(|| self.interface.bandwidth())
    }
}

/// ceil(bytes / rate) in ns.
#[inline]
pub fn xfer_ns(bytes: u64, rate: u64) -> u64 {
    ((bytes as u128 * 1_000_000_000).div_ceil(rate as u128)) as u64
}
