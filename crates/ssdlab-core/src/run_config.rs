//! A run file's tables: one device, its preconditioning, the jobs that drive it, and an
//! optional array of devices; and where each key was written, to name it in errors. The
//! loader ([`crate::config`]) reads and checks them.

use crate::array::config::ArrayConfig;
use crate::device_config::DeviceConfig;
use crate::precondition::PreconditionConfig;
use crate::workload::job::JobConfig;
use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A whole run: one device, its preconditioning, and the jobs that drive it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub device: DeviceConfig,
    #[serde(default)]
    pub precondition: PreconditionConfig,
    #[serde(default)]
    pub job: Vec<JobConfig>,
    /// A volume over several devices (absent: the device alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<ArrayConfig>,
    /// Directory that relative paths in the config (traces) are resolved against.
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// Name of the file the config came from, for error messages.
    #[serde(skip)]
    pub file: String,
    /// Where each key was written, for error messages.
    #[serde(skip)]
    pub origins: KeyOrigins,
}

/// Where the keys of a run config came from: the file, its preset, `--set`, or a fio job
/// file that replaced the jobs.
#[derive(Clone, Debug, Default)]
pub struct KeyOrigins {
    pub(crate) file: String,
    pub(crate) text: String,
    pub(crate) preset: Option<(String, &'static str)>,
    /// Canonical keys set with `--set`, with their `KEY=VALUE` text.
    pub(crate) overrides: Vec<(String, String)>,
    /// A fio job file (name, text) whose jobs replaced the config's.
    pub(crate) jobs_file: Option<(String, String)>,
    /// The files the fio job file's `include` lines read.
    pub(crate) included: Vec<PathBuf>,
}

impl KeyOrigins {
    /// Add the position of a key error's key: `--set` when the command line set it, else
    /// its line in the file (or the fio job file, for jobs), else its line in the preset,
    /// else the line of its nearest enclosing table in the file.
    pub fn locate(&self, e: Error) -> Error {
        e.locate(|key| {
            // The key itself, or an element or field inside a value the command line set
            // (`device.host.dma[1]` of `--set device.host.dma=[...]`).
            let within = |k: &str| {
                key == k
                    || key
                        .strip_prefix(k)
                        .is_some_and(|r| r.starts_with('[') || r.starts_with('.'))
            };
            if let Some((_, o)) = self.overrides.iter().rev().find(|(k, _)| within(k)) {
                return Some((format!("--set {o}"), None, 0));
            }
            if let Some((name, text)) = &self.jobs_file {
                if key.starts_with("job[") {
                    let p = crate::workload::fio::position(text, key);
                    return Some((name.clone(), p, 1));
                }
            }
            let in_file = crate::toml_position::toml_position(&self.text, key);
            if let Ok(p) = in_file {
                return Some((self.file.clone(), Some(p), 1));
            }
            if let Some((name, ptext)) = &self.preset {
                if let Ok(p) = crate::toml_position::toml_position(ptext, key) {
                    return Some((format!("preset {name}"), Some(p), 2));
                }
            }
            Some((self.file.clone(), in_file.err().flatten(), 3))
        })
    }
}

impl KeyOrigins {
    /// Whether the user's file or `--set` wrote `key` (canonical); a preset's do not count
    /// (its jobs, for one, apply only when the file gives none).
    pub fn written_here(&self, key: &str) -> bool {
        self.overrides.iter().any(|(k, _)| k == key) || crate::toml_position::toml_position(&self.text, key).is_ok()
    }

    /// Whether the user's file, its preset or `--set` wrote `key` (canonical), rather than
    /// it taking its default.
    pub fn written(&self, key: &str) -> bool {
        self.overrides.iter().any(|(k, _)| k == key)
            || crate::toml_position::toml_position(&self.text, key).is_ok()
            || self
                .preset
                .as_ref()
                .is_some_and(|(_, t)| crate::toml_position::toml_position(t, key).is_ok())
    }
}

impl Config {
    /// The files this config reads: itself, the fio job file that gave its jobs, the traces
    /// its jobs replay, its array members' configs and profiles. An output of the command
    /// that reads them must not be one of them ([`crate::output::refuse_input`]).
    pub fn input_files(&self) -> Vec<PathBuf> {
        let mut v = vec![PathBuf::from(&self.file)];
        v.extend(self.origins.jobs_file.iter().map(|(name, _)| PathBuf::from(name)));
        v.extend(self.origins.included.iter().cloned());
        v.extend(
            self.job
                .iter()
                .filter_map(|j| crate::trace::catalogue::resolve(&self.base_dir, &j.trace.as_ref()?.file).ok()),
        );
        for m in self.array.iter().flat_map(|a| &a.member) {
            v.extend(m.config.iter().chain(&m.profile).map(|p| self.base_dir.join(p)));
        }
        v
    }

    /// Add where an error's key was written (see [`KeyOrigins::locate`]).
    pub fn locate(&self, e: Error) -> Error {
        self.origins.locate(e)
    }
}
