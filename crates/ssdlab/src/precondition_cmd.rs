//! `ssdlab precondition`: precondition a run file's device and save the state as a snapshot
//! file, which `ssdlab run --from-snapshot` starts from instead of preconditioning again.

use clap::Args;
use ssdlab_core::snapshot::Snapshot;
use ssdlab_core::{config, Error, Result};

#[derive(Args)]
pub struct PreconditionArgs {
    /// Run config (TOML) or preset name whose device and [precondition] to age (default: the
    /// tlc-nvme preset); its jobs are not run.
    config: Option<String>,
    /// The snapshot file to write (whole or not at all).
    #[arg(long, short, value_name = "FILE")]
    pub output: String,
    /// Set a config key on top of the file or preset, e.g.
    /// `--set precondition.utilisation=0.9` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Seed for preconditioning (as `ssdlab run --seed`; a run from the snapshot gives the same).
    #[arg(long, value_parser = crate::parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Refuse a device whose estimated memory is above this size (default: three quarters of
    /// the machine's physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::parse_size_arg)]
    max_memory: Option<u64>,
}

pub fn run(a: PreconditionArgs) -> Result<()> {
    let name = a.config.as_deref().unwrap_or(config::DEFAULT_PRESET);
    let mut cfg = config::load_config_with(name, &a.set)?;
    if let Some(s) = a.seed {
        cfg.precondition.seed = s;
    }
    if cfg.array.is_some() {
        return Err(Error::Invalid(format!(
            "{name}: [array]: a snapshot holds one device; expected a run file without [array] (a member's device in a run file of its own)"
        )));
    }
    if cfg.precondition.mode == config::PreconditionMode::None || cfg.precondition.utilisation == 0.0 {
        return Err(Error::Invalid(format!(
            "{name}: precondition: it leaves the device fresh, so there is nothing to save; expected mode = \"sequential\" or \"steady\" with a utilisation above 0 (e.g. --set precondition.mode=steady)"
        )));
    }
    if let Some(limit) = a.max_memory.or_else(ssdlab_core::sim::default_memory_limit) {
        ssdlab_core::sim::check_memory(&cfg, limit).map_err(|e| cfg.locate(e))?;
    }
    crate::check_output(&a.output, &cfg.input_files())?;
    let mode = format!("{:?}", cfg.precondition.mode).to_lowercase();
    if !a.quiet {
        eprintln!("ssdlab: preconditioning {} ({mode}) ...", cfg.device.name);
    }
    let mut ui = crate::ProgressUi::new(a.quiet);
    let (device, report) = ssdlab_core::aged::preconditioned(&cfg.device, &cfg.precondition, &mut |done, planned| {
        ui.update(
            done,
            Some(planned),
            &format!("preconditioning: {done} of at most {planned} units written"),
        )
    })?;
    ui.finish();
    let snap = Snapshot {
        device: cfg.device.clone(),
        precondition: cfg.precondition.clone(),
        report,
        ftl: device.ftl,
    };
    let bytes = snap.save(&a.output)?;
    outln!(
        "{}: {} preconditioned {mode} to {:.1} % of its logical capacity in {:.1} s (steady WAF {:.3}{}, {} erases); {}",
        a.output,
        cfg.device.name,
        100.0 * cfg.precondition.utilisation,
        snap.report.wall_time_s,
        snap.report.steady_waf,
        if snap.report.converged { "" } else { ", not converged" },
        snap.report.erases,
        ssdlab_core::units::fmt_size(bytes),
    )?;
    Ok(())
}
