//! `tuner plot`: draws the θ trajectories recorded in an SPSA journal, one small chart
//! per parameter in a grid, to an SVG file. Each chart marks the start value and, once
//! the averaging window has begun, the running average the run would write (none for a
//! run of fishtest's rules, which writes the last θ); its axes
//! say pairs and the parameter's unit, or (`--scale c-end`) the distance from the start
//! in units of the parameter's `c_end`, which puts every parameter on one scale.
//!
//! A command: may use every layer below. It reads the journal through `spsa::journal`
//! (a command of its own layer), and uses the tuned parameters (`tuned`), the parameter
//! files (`param_files`) and `run_files`.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Result, bail};
use plotters::prelude::*;

use crate::run_files::{self, WriteLocks};
use crate::spsa::journal::{RunConfig, trajectories};
use crate::tuned::params::{TunedParam, by_movement};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The parameter's own values, in its unit.
    Value,
    /// (θ − start) / c_end: a move of 1 is one perturbation at the end of the run.
    CEnd,
}

#[derive(clap::Args)]
pub struct Args {
    /// The run's journal (e.g. runs/search.spsa.jsonl).
    #[arg(value_name = "JOURNAL")]
    pub journal: PathBuf,
    /// Output SVG [default: the journal with extension .svg].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Charts per row.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=12))]
    pub columns: u32,
    /// Draw only the N parameters that moved most (|last θ − start| in units of their
    /// `c_end`), biggest first [default: every parameter, in the run's order].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub top: Option<u32>,
    /// The vertical axis of every chart.
    #[arg(long, value_enum, default_value_t = Scale::Value)]
    pub scale: Scale,
}

pub fn run(args: Args) -> Result<()> {
    let (config, thetas) = trajectories(&args.journal)?;
    if thetas.is_empty() {
        bail!(
            "{} holds no finished pairs yet: nothing to plot",
            args.journal.display()
        );
    }
    let output = match args.output {
        Some(output) => {
            run_files::refuse_params_folder(&output, "--output")?;
            output
        }
        None => args.journal.with_extension("svg"),
    };
    let _lock = WriteLocks::acquire(&[&output])?;
    // The charts to draw: indices into the run's parameters.
    let shown: Vec<usize> = match args.top {
        Some(top) => {
            let last = thetas.last().expect("checked non-empty above");
            let mut order = by_movement(&config.params, last);
            order.truncate(top as usize);
            order
        }
        None => (0..config.params.len()).collect(),
    };
    let n = shown.len();
    let columns = (args.columns as usize).min(n).max(1);
    let rows = n.div_ceil(columns);
    let (cell_w, cell_h) = (320u32, 200u32);
    // The weight of θ after each pair in the result. A run of fishtest's rules writes
    // the last θ: it has no average to draw.
    let averaging = config.averaging();
    let weight = |seq: u64| match config.rules.baseline() {
        None => averaging.weight(seq, config.hyper.pairs),
        Some(_) => 0.0,
    };
    let averaged = match averaging.power {
        0.0 => format!(
            "average over pairs {}..{}",
            config.averaging_window_start() + 1,
            config.hyper.pairs
        ),
        p => format!("average of every θ, the one after pair k weighted by k^{p},"),
    };
    let units = units_of(&config);
    {
        let size = (cell_w * columns as u32, cell_h * rows as u32 + 24);
        let root = SVGBackend::new(&output, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let key = match config.rules.baseline() {
            None => format!("θ (blue), start (grey), {averaged} as written (orange)"),
            Some(baseline) => format!(
                "θ (blue), the last one written ({}), start (grey)",
                baseline.title
            ),
        };
        let root = root.titled(&key, ("sans-serif", 13)).map_err(draw_error)?;
        let cells = root.split_evenly((rows, columns));
        for (&i, cell) in shown.iter().zip(cells.iter()) {
            let param = &config.params[i];
            let series = Series::new(param, &thetas, i, &weight, args.scale);
            let unit = match args.scale {
                Scale::Value => units.get(&param.name).map_or("value", String::as_str),
                Scale::CEnd => "(θ − start) / c_end",
            };
            draw_chart(cell, param, &series, (unit, args.scale), cell_w)?;
        }
        root.present().map_err(draw_error)?;
    }
    println!(
        "{}: {} of {} parameters over {} pairs",
        output.display(),
        n,
        config.params.len(),
        thetas.len()
    );
    Ok(())
}

/// The unit of each parameter, from the run's files when they are Occam parameter
/// files (an external engine's list has none).
fn units_of(config: &RunConfig) -> HashMap<String, String> {
    let Ok(files) = crate::param_files::load_all(&config.files) else {
        return HashMap::new();
    };
    files
        .into_iter()
        .flat_map(|f| f.entries)
        .map(|e| (e.name, e.unit))
        .collect()
}

/// One parameter's lines, in chart coordinates (pairs, value on the chosen scale).
struct Series {
    /// θ after each pair, from the start at pair 0.
    theta: Vec<(f64, f64)>,
    /// The running average as the run writes it, from the first pair it weighs.
    average: Vec<(f64, f64)>,
    start: f64,
    pairs: f64,
}

impl Series {
    fn new(
        param: &TunedParam,
        thetas: &[Vec<f64>],
        i: usize,
        weight: &dyn Fn(u64) -> f64,
        scale: Scale,
    ) -> Series {
        let y = |v: f64| match scale {
            Scale::Value => v,
            Scale::CEnd => param.change_c_end(v),
        };
        let theta = std::iter::once((0.0, y(param.start)))
            .chain(
                thetas
                    .iter()
                    .enumerate()
                    .map(|(k, t)| ((k + 1) as f64, y(t[i]))),
            )
            .collect();
        let (mut sum, mut total) = (0.0, 0.0);
        let average = thetas
            .iter()
            .enumerate()
            .filter_map(|(k, t)| {
                let w = weight(k as u64 + 1);
                sum += w * t[i];
                total += w;
                (total > 0.0).then(|| ((k + 1) as f64, y(sum / total)))
            })
            .collect();
        Series {
            theta,
            average,
            start: y(param.start),
            pairs: thetas.len() as f64,
        }
    }

    /// The vertical range: every point, padded by at least one `c_end` (in the chosen
    /// scale) so that a parameter that barely moved is not a flat line stretched over
    /// the whole height.
    fn range(&self, param: &TunedParam, scale: Scale) -> (f64, f64) {
        let (lo, hi) = self
            .theta
            .iter()
            .chain(&self.average)
            .fold((f64::MAX, f64::MIN), |(lo, hi), &(_, v)| {
                (lo.min(v), hi.max(v))
            });
        let (c, min, max) = match scale {
            Scale::Value => (param.c_end, f64::from(param.min), f64::from(param.max)),
            Scale::CEnd => (
                1.0,
                param.change_c_end(f64::from(param.min)),
                param.change_c_end(f64::from(param.max)),
            ),
        };
        let pad = ((hi - lo) * 0.1).max(c);
        let (lo, hi) = ((lo - pad).max(min), (hi + pad).min(max));
        (lo, hi.max(lo + c))
    }
}

/// One parameter's chart: the start as a grey line, θ in blue, the window average in
/// orange; at most two points per pixel are drawn (a long run would bloat the SVG).
fn draw_chart(
    cell: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    param: &TunedParam,
    series: &Series,
    (unit, scale): (&str, Scale),
    width: u32,
) -> Result<()> {
    let (lo, hi) = series.range(param, scale);
    let mut chart = ChartBuilder::on(cell)
        .caption(&param.name, ("sans-serif", 14))
        .margin(6)
        .x_label_area_size(30)
        .y_label_area_size(52)
        .build_cartesian_2d(0.0..series.pairs.max(1.0), lo..hi)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_labels(4)
        .y_labels(5)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("pairs")
        .y_desc(unit)
        .label_style(("sans-serif", 10))
        .axis_desc_style(("sans-serif", 10))
        .draw()
        .map_err(draw_error)?;
    let start = [(0.0, series.start), (series.pairs, series.start)];
    chart
        .draw_series(LineSeries::new(start, &BLACK.mix(0.3)))
        .map_err(draw_error)?;
    let stride = series.theta.len().div_ceil(2 * width as usize).max(1);
    let thinned = |points: &[(f64, f64)]| -> Vec<(f64, f64)> {
        let last = points.len().saturating_sub(1);
        points
            .iter()
            .enumerate()
            .filter(|&(k, _)| k % stride == 0 || k == last)
            .map(|(_, &p)| p)
            .collect()
    };
    chart
        .draw_series(LineSeries::new(thinned(&series.theta), &BLUE))
        .map_err(draw_error)?;
    chart
        .draw_series(LineSeries::new(
            thinned(&series.average),
            &RGBColor(230, 120, 0),
        ))
        .map_err(draw_error)?;
    Ok(())
}

fn draw_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> anyhow::Error {
    anyhow::Error::new(e).context("cannot draw the chart")
}
