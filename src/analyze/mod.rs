//! `kirin analyze`: game records analysed move by move with kirin's own search, in batch.
//!
//! Each game's positions are searched once ([`engine`]); each move is then judged by the loss
//! in winning probability between the engine's best move and the move played ([`game`],
//! [`score`]). The results go out as JSON ([`json`]), an annotated KIF ([`kif`]), an evaluation
//! graph ([`graph`]) and a terminal table ([`summary`]); [`batch`] runs many games at once.

pub mod batch;
pub mod cli;
pub mod engine;
pub mod game;
pub mod graph;
pub mod input;
pub mod json;
pub mod kif;
pub mod score;
pub mod summary;

pub use score::win_probability;

use std::process::ExitCode;

/// Runs `kirin analyze` with the arguments after the subcommand.
pub fn main(args: &[&str]) -> ExitCode {
    if matches!(args, ["--help" | "-h"]) {
        println!("{}", cli::USAGE);
        return ExitCode::SUCCESS;
    }
    match cli::parse(args) {
        Ok(config) => batch::run(&config),
        Err(e) => {
            eprintln!("kirin analyze: {e}\n{}", cli::USAGE);
            ExitCode::from(2)
        }
    }
}
