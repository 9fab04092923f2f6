//! `tuner plot`: draws the θ trajectories recorded in an SPSA journal, one small chart
//! per parameter in a grid, to an SVG file.

use std::path::PathBuf;

use anyhow::{Result, bail};
use plotters::prelude::*;

use crate::run_files::{self, WriteLocks};
use crate::spsa::server::{by_movement, trajectories};

#[derive(clap::Args)]
pub struct Args {
    /// The run's journal (e.g. params/search.spsa.jsonl).
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
    // A chart is ~270 pixels wide: more than two points per pixel only bloat the SVG
    // (a 4000-pair run drew 0.5 MB for 12 charts).
    let stride = thetas.len().div_ceil(2 * cell_w as usize).max(1);
    let size = (cell_w * columns as u32, cell_h * rows as u32);
    {
        let root = SVGBackend::new(&output, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let cells = root.split_evenly((rows, columns));
        for (&i, cell) in shown.iter().zip(cells.iter()) {
            let param = &config.params[i];
            let series: Vec<(f64, f64)> = std::iter::once((0.0, param.start))
                .chain(
                    thetas
                        .iter()
                        .enumerate()
                        .filter(|&(k, _)| k % stride == 0 || k + 1 == thetas.len())
                        .map(|(k, t)| ((k + 1) as f64, t[i])),
                )
                .collect();
            let (lo, hi) = series
                .iter()
                .fold((f64::MAX, f64::MIN), |(lo, hi), &(_, v)| {
                    (lo.min(v), hi.max(v))
                });
            // Pad by at least c_end so a parameter that barely moved is not a flat line
            // stretched over the whole height.
            let pad = ((hi - lo) * 0.1).max(param.c_end);
            let (lo, hi) = (
                (lo - pad).max(f64::from(param.min)),
                (hi + pad).min(f64::from(param.max)),
            );
            let mut chart = ChartBuilder::on(cell)
                .caption(&param.name, ("sans-serif", 14))
                .margin(6)
                .x_label_area_size(22)
                .y_label_area_size(44)
                .build_cartesian_2d(0.0..thetas.len().max(1) as f64, lo..hi.max(lo + 1.0))
                .map_err(draw_error)?;
            chart
                .configure_mesh()
                .x_labels(4)
                .y_labels(5)
                .label_style(("sans-serif", 10))
                .draw()
                .map_err(draw_error)?;
            chart
                .draw_series(LineSeries::new(
                    [(0.0, param.start), (thetas.len() as f64, param.start)],
                    &BLACK.mix(0.3),
                ))
                .map_err(draw_error)?;
            chart
                .draw_series(LineSeries::new(series, &BLUE))
                .map_err(draw_error)?;
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

fn draw_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> anyhow::Error {
    anyhow::Error::new(e).context("cannot draw the chart")
}
