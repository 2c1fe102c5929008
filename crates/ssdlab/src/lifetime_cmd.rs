//! `ssdlab lifetime`: how long the flash lasts, from flags with units or from a run's result.

use clap::Args;
use serde_json::json;
use ssdlab_core::lifetime::{self, LifetimeInputs, RUN_KEYS};
use ssdlab_core::units::{fmt_size, parse_rate, parse_size};
use ssdlab_core::{Error, Result};

#[derive(Args)]
pub struct LifetimeArgs {
    /// Capacity whose cells wear, e.g. `1TB` (10^12 bytes) or `1TiB` (2^40).
    #[arg(long, value_name = "SIZE", value_parser = parse_capacity)]
    capacity: Option<u64>,
    /// Program/erase cycles a block takes, e.g. `3000`.
    #[arg(long, value_name = "CYCLES", value_parser = parse_positive, allow_negative_numbers = true)]
    pe: Option<f64>,
    /// Host write rate, e.g. `100MB/s`.
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    write_rate: Option<u64>,
    /// Write amplification: flash bytes programmed per host byte written, e.g. `4`.
    #[arg(long, value_parser = parse_positive, allow_negative_numbers = true)]
    waf: Option<f64>,
    /// A run's JSON result (`ssdlab run --output-format json`): its device's physical capacity
    /// and endurance, its WAF and host write rate; flags given as well override its values.
    #[arg(long, value_name = "RESULT.json")]
    from: Option<String>,
    /// The lifetime as text to read, or as JSON.
    #[arg(long, value_enum, default_value = "text")]
    output_format: crate::TextOrJson,
}

/// A capacity with units (`1TB`), not zero: clap has no parser for sizes with units.
fn parse_capacity(s: &str) -> std::result::Result<u64, String> {
    match parse_size(s)? {
        0 => Err(format!("'{s}': got zero; expected a positive size such as 1TB")),
        v => Ok(v),
    }
}

/// A positive number (P/E cycles, WAF): parsed here, as clap's ranged value parsers are for
/// integers only and a WAF is a fraction.
fn parse_positive(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("got '{s}'; expected a positive number")),
    }
}

/// One input: its value and where it came from.
struct Given {
    value: f64,
    source: String,
}

/// The flag's value if given, else the run's, else an error asking for one of them.
fn pick(flag: Option<f64>, name: &str, run: Option<(&str, f64, &str)>) -> Result<Given> {
    match (flag, run) {
        (Some(v), _) => Ok(Given {
            value: v,
            source: name.to_string(),
        }),
        (None, Some((file, v, key))) => Ok(Given {
            value: v,
            source: format!("{file} ({key})"),
        }),
        (None, None) => Err(Error::Config(format!(
            "{name}: missing; expected {name} with a value, or --from RESULT.json"
        ))),
    }
}

pub fn run(a: LifetimeArgs) -> Result<()> {
    let from = match &a.from {
        Some(path) => {
            ssdlab_core::output::check_regular(path, "a run's JSON result (`ssdlab run --output-format json`)")?;
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                let why = e.to_string();
                let why = why.split(" at line ").next().unwrap_or_default().to_string();
                Error::Config(format!(
                    "{path}:{}:{}: not JSON ({why}); expected the output of ssdlab run --output-format json",
                    e.line(),
                    e.column().max(1)
                ))
            })?;
            let inputs = lifetime::from_run_json(&v).map_err(|e| Error::Config(format!("{path}: {e}")))?;
            Some((path.as_str(), inputs))
        }
        None => None,
    };
    let run = |f: fn(&LifetimeInputs) -> f64, key: &'static str| from.as_ref().map(|(p, i)| (*p, f(i), key));
    let capacity = pick(
        a.capacity.map(|v| v as f64),
        "--capacity",
        run(|i| i.capacity_bytes, RUN_KEYS.capacity_bytes),
    )?;
    let pe = pick(a.pe, "--pe", run(|i| i.pe_cycles, RUN_KEYS.pe_cycles))?;
    let rate = pick(
        a.write_rate.map(|v| v as f64),
        "--write-rate",
        run(|i| i.host_write_bytes_per_s, RUN_KEYS.host_write_bytes_per_s),
    )?;
    let waf = pick(a.waf, "--waf", run(|i| i.waf, RUN_KEYS.waf))?;
    let seconds = lifetime::lifetime_seconds(capacity.value, pe.value, rate.value, waf.value);
    let human = lifetime::human_duration(seconds);
    let out = match a.output_format {
        crate::TextOrJson::Json => {
            let input = |g: &Given| json!({"value": g.value, "source": g.source});
            let v = json!({
                "seconds": if seconds.is_finite() { json!(seconds) } else { json!(null) },
                "infinite": seconds.is_infinite(),
                "human": human,
                "formula": "capacity_bytes * pe_cycles / (host_write_bytes_per_s * waf)",
                "inputs": {
                    "capacity_bytes": input(&capacity),
                    "pe_cycles": input(&pe),
                    "host_write_bytes_per_s": input(&rate),
                    "waf": input(&waf),
                },
            });
            serde_json::to_string_pretty(&v).expect("serialisable") + "\n"
        }
        crate::TextOrJson::Text => {
            let mut s = if seconds.is_finite() {
                format!("lifetime: {seconds:.0} s ({seconds:.2e} s, {human})\n")
            } else {
                "lifetime: forever: the host writes nothing, so the flash does not wear\n".to_string()
            };
            let row = |name: &str, shown: String, g: &Given| format!("  {name:<12}{shown:<36}from {}\n", g.source);
            s += &row(
                "capacity",
                format!("{} bytes ({})", capacity.value, decimal_size(capacity.value)),
                &capacity,
            );
            s += &row("P/E cycles", format!("{}", pe.value), &pe);
            s += &row(
                "write rate",
                format!("{} bytes/s ({}/s)", rate.value, decimal_size(rate.value)),
                &rate,
            );
            s += &row("WAF", format!("{}", waf.value), &waf);
            s += "  formula     capacity x P/E cycles / (write rate x WAF)\n";
            s
        }
    };
    out!("{out}")?;
    Ok(())
}

/// Bytes in decimal units (`1TB`, `100MB`), as drive makers state capacities and rates, with
/// the binary form when it is shorter.
fn decimal_size(b: f64) -> String {
    const U: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut v = b;
    let mut i = 0;
    while v >= 1000.0 && i < U.len() - 1 {
        v /= 1000.0;
        i += 1;
    }
    let dec = if (v - v.round()).abs() < 1e-9 {
        format!("{}{}", v.round(), U[i])
    } else {
        format!("{v:.2}{}", U[i])
    };
    let bin = fmt_size(b as u64);
    if b.fract() == 0.0 && bin.len() < dec.len() {
        bin
    } else {
        dec
    }
}
