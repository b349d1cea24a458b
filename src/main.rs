//! The `fhir-rag` binary: parses the command line and wires the roles together.

use anyhow::Context;
use clap::Parser;
use fhir_rag::bus::topics;
use fhir_rag::config::{BenchCommand, Cli, Command, TopicsAction};
use fhir_rag::ingest::worker;
use fhir_rag::store::Store;
use fhir_rag::{backfill, bench, telemetry};
use tokio::sync::watch;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    telemetry::init_logging(cli.log_format);
    telemetry::install_panic_hook();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    runtime.block_on(run(cli.command))
}

/// A watch that turns true on SIGTERM or Ctrl-C.
fn shutdown_signal() -> watch::Receiver<bool> {
    let (sender, receiver) = watch::channel(false);
    tokio::spawn(async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("install the SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        tracing::info!("shutdown requested: finishing the message in hand");
        let _ = sender.send(true);
    });
    receiver
}

async fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Topics {
            action:
                TopicsAction::Apply {
                    bus,
                    topics_dir,
                    replication_factor,
                },
        } => {
            let contracts = topics::load_contracts(&topics_dir)?;
            for (topic, applied) in
                topics::apply(&bus, &contracts, replication_factor, str::to_string).await?
            {
                println!("{topic}: {applied:?}");
            }
        }
        Command::Migrate { store, model } => {
            let store = Store::connect(&store).await?;
            store.migrate().await?;
            let info = fhir_rag::embed::read_model_info(&model.model_dir, model.pooling)?;
            store.ensure_embedding_model(&info).await?;
            println!(
                "migrations applied; embeddings: {} ({}-d)",
                info.name, info.dimension
            );
        }
        Command::Backfill { bus, backfill } => {
            let summary = backfill::run(&backfill, &bus).await?;
            println!("{}", serde_json::to_string_pretty(&summary)?);
            if summary.too_large > 0 || summary.unreadable > 0 {
                anyhow::bail!(
                    "{} bundle(s) over the message limit (dead-lettered) and {} unreadable file(s)",
                    summary.too_large,
                    summary.unreadable
                );
            }
        }
        Command::Ingest {
            bus,
            store,
            model,
            ingest,
        } => {
            let store = Store::connect(&store).await?;
            store.migrate().await?;
            let embedder = model.start()?;
            store.ensure_embedding_model(embedder.info()).await?;
            let shutdown = shutdown_signal();
            let report = worker::run(&ingest, &bus, &store, &embedder, shutdown).await?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            let counts = store.counts().await?;
            println!("{}", serde_json::to_string_pretty(&counts)?);
        }
        Command::Status { store } => {
            let store = Store::connect(&store).await?;
            println!("{}", serde_json::to_string_pretty(&store.counts().await?)?);
        }
        Command::Bench {
            which: BenchCommand::Ingest(config),
        } => {
            let result = bench::ingest(&config).await?;
            println!("{}", serde_json::to_string_pretty(&result)?);
            println!("written to {}", config.output.display());
        }
    }
    Ok(())
}
