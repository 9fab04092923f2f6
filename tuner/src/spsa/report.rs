//! The end-of-run table: per parameter its start, last and averaged θ, the value
//! written back, the range it visited, and how far it moved in units of its `c_end`.
//! Printed, and written next to the journal as CSV and JSON.

use anyhow::Result;
use serde::Serialize;

use super::args::Output;
use super::journal::{LeftOut, RunFiles};
use super::server::Server;
use crate::param_files::write_atomically;

#[derive(Serialize)]
pub struct Row {
    pub name: String,
    pub start: f64,
    pub last: f64,
    pub average: f64,
    pub written: i32,
    pub min_seen: f64,
    pub max_seen: f64,
    /// (written − start) / c_end.
    pub change_c_end: f64,
}

impl Row {
    /// The numeric columns, in order: CSV name and decimals in the CSV (`None`: as
    /// written, for the values that are integers).
    const COLUMNS: [(&'static str, Option<usize>); 7] = [
        ("start", None),
        ("last", Some(4)),
        ("average", Some(4)),
        ("written", None),
        ("min_seen", Some(4)),
        ("max_seen", Some(4)),
        ("change_c_end", Some(4)),
    ];

    /// The row's numbers in the order of [`Row::COLUMNS`].
    fn numbers(&self) -> [f64; 7] {
        [
            self.start,
            self.last,
            self.average,
            f64::from(self.written),
            self.min_seen,
            self.max_seen,
            self.change_c_end,
        ]
    }
}

#[derive(Serialize)]
pub struct Table {
    pub pairs: u64,
    pub wdl: [u64; 3],
    pub penta: [u64; 5],
    pub output: String,
    pub rows: Vec<Row>,
    /// Parameters of the files the run did not tune, and why (their values are kept).
    pub left_out: Vec<LeftOut>,
}

impl Table {
    pub fn new(server: &Server, written: &[i32], output: Output) -> Table {
        let s = &server.state;
        let average = server.average();
        let rows = server
            .config
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| Row {
                name: p.name.clone(),
                start: p.start,
                last: s.theta[i],
                average: average[i],
                written: written[i],
                min_seen: s.min_seen[i],
                max_seen: s.max_seen[i],
                change_c_end: p.change_c_end(f64::from(written[i])),
            })
            .collect();
        Table {
            pairs: server.pairs_done(),
            wdl: s.wdl,
            penta: s.penta,
            output: format!("{output:?}").to_lowercase(),
            rows,
            left_out: server.config.left_out.clone(),
        }
    }

    pub fn render(&self) -> String {
        let width = self
            .rows
            .iter()
            .map(|r| r.name.len())
            .max()
            .unwrap_or(4)
            .max(9);
        let mut out = format!(
            "{:width$}  {:>8}  {:>9}  {:>9}  {:>7}  {:>17}  {:>8}\n",
            "parameter", "start", "last", "average", "written", "range seen", "Δ/c_end"
        );
        for r in &self.rows {
            let [start, last, average, written, min_seen, max_seen, change] = r.numbers();
            out.push_str(&format!(
                "{:width$}  {start:>8}  {last:>9.2}  {average:>9.2}  {written:>7}  {min_seen:>8.1}..{max_seen:<7.1}  {change:>+8.2}\n",
                r.name,
            ));
        }
        out.push_str(&format!(
            "{} pairs; θ+ W-D-L {}-{}-{}; pentanomial {:?}; written: {}",
            self.pairs, self.wdl[0], self.wdl[1], self.wdl[2], self.penta, self.output
        ));
        // One line per reason: which parameters the run left out (values unchanged).
        let mut reasons: Vec<&str> = self.left_out.iter().map(|l| l.reason.as_str()).collect();
        reasons.dedup();
        for reason in reasons {
            let names: Vec<&str> = self
                .left_out
                .iter()
                .filter(|l| l.reason == reason)
                .map(|l| l.name.as_str())
                .collect();
            out.push_str(&format!(
                "\nleft out (not tuned, values kept): {} ({reason})",
                names.join(", ")
            ));
        }
        out
    }

    pub fn csv(&self) -> String {
        let mut out = String::from("name");
        for (column, _) in Row::COLUMNS {
            out.push_str(&format!(",{column}"));
        }
        for r in &self.rows {
            out.push_str(&format!("\n{}", r.name));
            for ((_, decimals), v) in Row::COLUMNS.iter().zip(r.numbers()) {
                match decimals {
                    Some(d) => out.push_str(&format!(",{v:.*}", d)),
                    None => out.push_str(&format!(",{v}")),
                }
            }
        }
        out.push('\n');
        out
    }

    /// `<journal stem>.csv` and `<journal stem>.result.json`, each written atomically.
    pub fn write_files(&self, files: &RunFiles, server: &Server) -> Result<()> {
        write_atomically(&files.sibling("csv"), &self.csv())?;
        let gain = server.gain_estimate().map(|(elo, error, pairs)| {
            serde_json::json!({"elo": elo, "error95": error, "pairs": pairs, "penta": server.state.gain.penta})
        });
        let json = serde_json::json!({
            "config": server.config,
            "result": self,
            "gain": gain,
        });
        write_atomically(
            &files.sibling("result.json"),
            &serde_json::to_string_pretty(&json)?,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_csv_show_every_column() {
        let table = Table {
            pairs: 4,
            wdl: [3, 2, 3],
            penta: [0, 1, 2, 1, 0],
            output: "averaged".into(),
            rows: vec![Row {
                name: "test_param".into(),
                start: 100.0,
                last: 101.256,
                average: 100.5,
                written: 101,
                min_seen: 95.04,
                max_seen: 106.0,
                change_c_end: 0.2,
            }],
            left_out: Vec::new(),
        };
        assert_eq!(
            table.csv(),
            "name,start,last,average,written,min_seen,max_seen,change_c_end\n\
             test_param,100,101.2560,100.5000,101,95.0400,106.0000,0.2000\n"
        );
        let text = table.render();
        let row = text.lines().nth(1).unwrap();
        assert_eq!(
            row,
            "test_param       100     101.26     100.50      101      95.0..106.0       +0.20"
        );
    }
}
