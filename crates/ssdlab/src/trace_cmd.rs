//! `ssdlab trace ...`: statistics, format conversion and the list of formats.
//!
//! Results go to standard output; progress and information ("guessed format: msr") to
//! standard error.

use clap::{Subcommand, ValueEnum};
use ssdlab_core::output::AtomicFile;
use ssdlab_core::trace::{
    self, stats, Devices, Format, OutputFormat, ReaderOptions, StatsOptions, TraceReader, TraceStats, FORMATS,
};
use ssdlab_core::{Error, Result};
use std::io::{IsTerminal, Write};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsOutput {
    Text,
    Json,
}

#[derive(Subcommand)]
pub enum TraceCmd {
    /// Statistics of a trace: op mix, sizes, footprint, sequentiality, inter-arrival times,
    /// page access classes and read concentration.
    Stats {
        /// Trace file (.gz, .bz2, .xz and .zst are decompressed).
        file: String,
        /// Trace format (see `ssdlab trace formats`); default: guessed from the content.
        #[arg(long, short, default_value = "auto")]
        format: String,
        /// The statistics as text to read, or as JSON.
        #[arg(long, value_enum, default_value = "text")]
        output_format: StatsOutput,
        /// Skip and count malformed lines instead of stopping at the first one.
        #[arg(long)]
        skip_bad_lines: bool,
        /// Only these devices / volumes / LUNs / ASUs (repeat or separate with commas).
        #[arg(long, value_delimiter = ',')]
        device: Vec<u32>,
        /// Most pages and runs of 4 KiB pages with equal counts kept for the footprint, page
        /// classes and read concentration (about 40 bytes each); a trace that needs more is an
        /// error.
        #[arg(long, default_value_t = stats::DEFAULT_MAX_PAGE_RUNS)]
        max_page_runs: usize,
        /// Most volumes counted one by one; requests of further volumes are counted together.
        #[arg(long, default_value_t = stats::DEFAULT_MAX_VOLUMES)]
        max_volumes: usize,
        #[command(flatten)]
        traces: crate::traces_cmd::TracesDir,
    },
    /// Convert a trace to another format.
    Convert {
        /// Trace file.
        file: String,
        /// Output format: native, fio-iolog, mqsim or msr.
        #[arg(long)]
        to: String,
        /// Output file; default standard output (text formats only).
        #[arg(long, short)]
        output: Option<String>,
        /// Input format; default: guessed from the content.
        #[arg(long, short, default_value = "auto")]
        format: String,
        /// Skip and count malformed lines instead of stopping at the first one.
        #[arg(long)]
        skip_bad_lines: bool,
        /// Only these devices / volumes / LUNs / ASUs (repeat or separate with commas).
        #[arg(long, value_delimiter = ',')]
        device: Vec<u32>,
        #[command(flatten)]
        traces: crate::traces_cmd::TracesDir,
    },
    /// List the trace formats.
    Formats,
}

fn open(file: &str, format: &str, skip_bad_lines: bool) -> Result<TraceReader> {
    let format = Format::from_name(format).map_err(|e| Error::Invalid(format!("--format: {e}")))?;
    let reader = TraceReader::open(file, &ReaderOptions { format, skip_bad_lines })?;
    if reader.guessed() {
        eprintln!("guessed format: {}", reader.format());
    }
    Ok(reader)
}

fn report_skipped(reader: &TraceReader) {
    if reader.skipped() > 0 {
        eprintln!(
            "skipped {} malformed line(s); first: {}",
            reader.skipped(),
            reader.first_skipped().unwrap_or("")
        );
    }
}

pub fn run(cmd: TraceCmd) -> Result<()> {
    match cmd {
        TraceCmd::Stats {
            file,
            format,
            output_format,
            skip_bad_lines,
            device,
            max_page_runs,
            max_volumes,
            traces,
        } => {
            traces.apply();
            let mut reader = open(&file, &format, skip_bad_lines)?;
            let opts = StatsOptions {
                devices: Devices::only(device),
                max_page_runs,
                max_volumes,
            };
            let stats = TraceStats::compute(&mut reader, &opts)?;
            report_skipped(&reader);
            let text = match output_format {
                StatsOutput::Text => stats.to_string(),
                StatsOutput::Json => {
                    let mut s = serde_json::to_string_pretty(&stats).map_err(|e| Error::Invalid(e.to_string()))?;
                    s.push('\n');
                    s
                }
            };
            ssdlab_core::output::print(text)
        }
        TraceCmd::Convert {
            file,
            to,
            output,
            format,
            skip_bad_lines,
            device,
            traces,
        } => {
            traces.apply();
            crate::interrupt::install(&match output.as_deref() {
                Some(o) if o != "-" => format!("trace convert stopped; {o} not written"),
                _ => "trace convert stopped; standard output has the records converted so far".into(),
            });
            let to = OutputFormat::from_name(&to).map_err(|e| Error::Invalid(format!("--to: {e}")))?;
            // A file is written into a temporary beside it and appears whole at the end; an
            // error or an interrupt removes the temporary.
            let mut target = None;
            let (out, name): (Box<dyn Write + Send>, String) = match &output {
                Some(path) if path != "-" => {
                    ssdlab_core::output::refuse_input("--output", path, &[&file])?;
                    let f = AtomicFile::create(path).map_err(|e| Error::Invalid(format!("--output: {e}")))?;
                    let handle = f.handle()?;
                    target = Some(f);
                    (
                        Box::new(std::io::BufWriter::with_capacity(1 << 16, handle)),
                        path.clone(),
                    )
                }
                _ => {
                    if to.is_binary() && std::io::stdout().is_terminal() {
                        return Err(Error::Invalid(format!(
                            "--output: the {} format is binary, standard output is a terminal; expected an output file (-o FILE)",
                            to.name()
                        )));
                    }
                    if to.is_binary() && output.is_none() {
                        return Err(Error::Invalid(format!(
                            "--output: the {} format is binary; expected an output file (-o FILE, or -o - for standard output)",
                            to.name()
                        )));
                    }
                    (
                        Box::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout())),
                        "standard output".into(),
                    )
                }
            };
            let mut reader = open(&file, &format, skip_bad_lines)?;
            let mut writer = to.writer(out, &name)?;
            let s = trace::convert(&mut reader, writer.as_mut(), &Devices::only(device)).map_err(|e| match e {
                // The output's write errors (a full disk) say so.
                Error::Io { path, source } if target.is_some() && path == name => {
                    ssdlab_core::output::write_error(std::path::Path::new(&path), source)
                }
                e => e,
            })?;
            drop(writer);
            if let Some(f) = target {
                f.commit()?;
            }
            report_skipped(&reader);
            eprintln!("wrote {} record(s) as {} to {name}", s.written, to.name());
            if s.dropped > 0 {
                eprintln!("dropped {} trim(s): the {} format has no trim", s.dropped, to.name());
            }
            Ok(())
        }
        TraceCmd::Formats => {
            let mut s = String::from("auto             guess from the content (the default)\n");
            for f in FORMATS {
                s.push_str(&format!("{:<16} {}\n", f.name, f.description));
            }
            s.push_str(
                "\nInputs compressed with gzip, bzip2, xz or zstd are decompressed (detected by magic bytes).\n",
            );
            s.push_str("convert --to accepts: native, fio-iolog, mqsim, msr\n");
            ssdlab_core::output::print(s)
        }
    }
}
