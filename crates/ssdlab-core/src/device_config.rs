//! The `[device]` table: the sections of every layer a device is built from, each defined
//! with the code it configures (geometry, NAND, host interface, FTL, scheduler, controller,
//! placement, redundancy). The loader ([`crate::config`]) reads it from TOML and checks it;
//! the layers above (designs, schemes, the device) are built from it.

use crate::controller::ControllerConfig;
use crate::ftl::config::FtlConfig;
use crate::geometry::GeometryConfig;
use crate::host::HostConfig;
use crate::nand::NandConfig;
use crate::placement::config::PlacementConfig;
use crate::redundancy::config::RedundancyConfig;
use crate::scheduler::SchedulerConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub geometry: GeometryConfig,
    pub nand: NandConfig,
    pub host: HostConfig,
    #[serde(default)]
    pub ftl: FtlConfig,
    #[serde(default)]
    pub scheduler: SchedulerConfig,
    #[serde(default)]
    pub controller: ControllerConfig,
    #[serde(default)]
    pub placement: PlacementConfig,
    #[serde(default)]
    pub redundancy: RedundancyConfig,
}

impl DeviceConfig {
    /// Read times per page type (ns), as written or the cell type's typical value.
    pub fn read_ns(&self) -> Vec<u64> {
        self.nand
            .timing()
            .0
            .resolve(self.nand.cell.bits(), "", "")
            .unwrap_or_default()
    }
    /// Program times per page type (ns), as written or the cell type's typical value.
    pub fn program_ns(&self) -> Vec<u64> {
        self.nand
            .timing()
            .1
            .resolve(self.nand.cell.bits(), "", "")
            .unwrap_or_default()
    }
    /// Block erase time (ns), as written or the cell type's typical value.
    pub fn erase_ns(&self) -> u64 {
        self.nand.timing().2 .0
    }
    pub fn link_bandwidth(&self) -> u64 {
        self.host.link_bandwidth()
    }
}
