//! An experiment's result folder: `result.json`, `table.md`, `table.csv` and one SVG per
//! figure, as `ssdlab experiment --out DIR` and Python's `Experiment.write` write it. Each
//! file is written whole or not at all (`output::write`).

use crate::experiment::{self, ExperimentResult};
use crate::plot::{bars, chart_full, cumulative, Line};
use crate::{Error, Result};
use std::path::Path;

/// `result.json`'s text (without its final newline).
pub fn result_json(res: &ExperimentResult) -> String {
    serde_json::to_string_pretty(res).expect("serialisable")
}

/// `result.json`, `table.md`, `table.csv` and one SVG per figure into `dir`.
pub fn write_folder(res: &ExperimentResult, dir: &str) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = |name: &str| Path::new(dir).join(name).to_string_lossy().into_owned();
    let write = |name: &str, text: String| crate::output::write(path(name), text);
    write("result.json", result_json(res) + "\n")?;
    write("table.md", experiment::table_md(res))?;
    write("table.csv", experiment::table_csv(&res.runs))?;
    // The figures last: one that fails leaves the result and tables in place.
    write_figures(res, dir)
        .map_err(|e| Error::Invalid(format!("{e} (result.json and the tables were written to {dir})")))
}

/// One SVG per figure into `dir`.
fn write_figures(res: &ExperimentResult, dir: &str) -> Result<()> {
    draw_figures(&res.figures, dir)
}

/// The figures of an experiment's `result.json` (or its record in docs/experiments/record/),
/// drawn again into `dir`, one SVG each, without running anything: `ssdlab experiment NAME
/// --redraw FILE`. Returns how many.
pub fn redraw(json: &str, file: &str, name: &str, dir: &str) -> Result<usize> {
    #[derive(serde::Deserialize)]
    struct Figures {
        experiment: String,
        figures: Vec<crate::experiment::Figure>,
    }
    let f: Figures = serde_json::from_str(json).map_err(|e| {
        Error::Invalid(format!(
            "{file}:{}:{}: {e}; expected an experiment's result.json (its \"figures\")",
            e.line(),
            e.column()
        ))
    })?;
    if f.experiment != name {
        return Err(Error::Invalid(format!(
            "{file}: experiment {}'s result; expected {name}'s",
            f.experiment
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    draw_figures(&f.figures, dir)?;
    Ok(f.figures.len())
}

/// One SVG per figure into `dir`.
fn draw_figures(figures: &[crate::experiment::Figure], dir: &str) -> Result<()> {
    let path = |name: &str| Path::new(dir).join(name).to_string_lossy().into_owned();
    for f in figures {
        let lines: Vec<Line> = f
            .series
            .iter()
            .map(|s| Line {
                label: s.name.clone(),
                points: s.points.clone(),
            })
            .collect();
        let file = path(&format!("{}.svg", f.id));
        if f.categories.is_empty() {
            let shares = cumulative(&lines);
            chart_full(&file, &f.title, (&f.x_label, f.log_x), &f.y_label, &lines, true, shares)?;
        } else {
            bars(&file, &f.title, &f.categories, (&f.x_label, &f.y_label), &lines)?;
        }
    }
    Ok(())
}
