//! The built-in device presets: run files embedded from `configs/` at build time.

/// Built-in presets, embedded from `configs/` at build time.
pub const PRESETS: &[(&str, &str)] = &[
    ("tlc-nvme", include_str!("../../../configs/tlc-nvme.toml")),
    ("mlc-sata", include_str!("../../../configs/mlc-sata.toml")),
    ("cosmos-openssd", include_str!("../../../configs/cosmos-openssd.toml")),
    ("qlc-nvme", include_str!("../../../configs/qlc-nvme.toml")),
    ("slc-sata", include_str!("../../../configs/slc-sata.toml")),
    ("femu-bbssd", include_str!("../../../configs/femu-bbssd.toml")),
    ("hotr", include_str!("../../../configs/hotr.toml")),
    ("samsung-830", include_str!("../../../configs/samsung-830.toml")),
    ("samsung-850pro", include_str!("../../../configs/samsung-850pro.toml")),
    ("ocz-vector150", include_str!("../../../configs/ocz-vector150.toml")),
    ("intel-530", include_str!("../../../configs/intel-530.toml")),
    ("intel-750", include_str!("../../../configs/intel-750.toml")),
    ("zn540", include_str!("../../../configs/zn540.toml")),
];

/// The preset used by `ssdlab run` without arguments.
pub const DEFAULT_PRESET: &str = "tlc-nvme";

/// The text of a built-in preset.
pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}
