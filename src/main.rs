//! The `fhir-rag` binary: parses the command line and wires the roles together.

use anyhow::Context;
use clap::Parser;
use fhir_rag::answer::engine::{AnswerConfig, AnswerEngine};
use fhir_rag::answer::worker as answer_worker;
use fhir_rag::bus::topics;
use fhir_rag::config::{AuditAction, Cli, Command, ModelConfig, TopicsAction};
use fhir_rag::embed::batcher::EmbeddingService;
use fhir_rag::ingest::worker;
use fhir_rag::llm::LlmConfig;
use fhir_rag::store::{Store, StoreConfig};
use fhir_rag::{backfill, telemetry};
use tokio::sync::watch;

/// mimalloc rather than glibc's malloc: the embedder allocates a tensor of 1 to 100 MB per
/// operation, which glibc maps fresh from the kernel and unmaps on every free (zeroed pages,
/// faulted in again: 15 % of the embedder's time here); mimalloc reuses them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    telemetry::init_logging(cli.log_format);
    telemetry::install_panic_hook();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    if let Some(addr) = cli.metrics_addr {
        runtime.spawn(async move {
            if let Err(e) = fhir_rag::metrics::serve(addr).await {
                tracing::error!(%addr, error = %e, "the metrics endpoint failed");
            }
        });
    }
    runtime.block_on(run(cli.command))
}

/// A watch that turns true on SIGTERM or Ctrl-C.
fn shutdown_signal() -> watch::Receiver<bool> {
    shutdown_switch().1
}

/// A watch that turns true on SIGTERM or Ctrl-C, or when the returned sender says so.
fn shutdown_switch() -> (std::sync::Arc<watch::Sender<bool>>, watch::Receiver<bool>) {
    let (sender, receiver) = watch::channel(false);
    let sender = std::sync::Arc::new(sender);
    let on_signal = sender.clone();
    tokio::spawn(async move {
        let sender = on_signal;
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("install the SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        tracing::info!("shutdown requested: finishing the message in hand");
        let _ = sender.send(true);
    });
    (sender, receiver)
}

/// Connects and migrates the store, starts the embedding model and opens the answer engine.
async fn open_answer_path(
    store: &StoreConfig,
    model: &ModelConfig,
    llm: &LlmConfig,
    answer: AnswerConfig,
) -> anyhow::Result<(Store, EmbeddingService, AnswerEngine)> {
    let store = Store::connect(store).await?;
    store.check_schema().await?;
    let embedder = model.start()?;
    store.check_embedding_model(embedder.info()).await?;
    let backend = llm.open()?;
    let engine = AnswerEngine::new(store.clone(), embedder.clone(), backend, answer, llm).await?;
    Ok((store, embedder, engine))
}

async fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Topics {
            action:
                TopicsAction::Apply {
                    bus,
                    topics_dir,
                    replication_factor,
                    name_suffix,
                },
        } => {
            let contracts = topics::load_contracts(&topics_dir)?;
            for (topic, applied) in topics::apply(&bus, &contracts, replication_factor, |name| {
                format!("{name}{name_suffix}")
            })
            .await?
            {
                println!("{topic}: {applied:?}");
            }
        }
        Command::Migrate { store, model } => {
            let store = Store::connect(&store).await?;
            store.migrate().await?;
            let info = model.info()?;
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
            store.check_schema().await?;
            let embedder = model.start()?;
            store.check_embedding_model(embedder.info()).await?;
            let shutdown = shutdown_signal();
            let report = worker::run(&ingest, &bus, &store, &embedder, shutdown).await?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            let counts = store.counts().await?;
            println!("{}", serde_json::to_string_pretty(&counts)?);
        }
        Command::Answer {
            bus,
            store,
            model,
            llm,
            answer,
            envelopes,
        } => {
            let auth = envelopes.open()?;
            let (_, _, engine) = open_answer_path(&store, &model, &llm, answer).await?;
            let report = answer_worker::run(&engine, &bus, &auth, shutdown_signal()).await?;
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
        Command::Ask { ask } => {
            let answer = answer_worker::ask(&ask).await?;
            println!("{}", serde_json::to_string_pretty(&answer)?);
        }
        Command::Gateway {
            bus,
            store,
            gateway,
            tokens,
        } => {
            let store = Store::connect(&store).await?;
            store.check_schema().await?;
            fhir_rag::gateway::run(
                gateway,
                tokens,
                &bus,
                store.pool().clone(),
                shutdown_signal(),
            )
            .await?;
        }
        Command::Keygen { out, jwks } => {
            let key = fhir_rag::auth::keys::SigningKey::generate();
            key.write(&out)?;
            if let Some(jwks) = jwks {
                let mut set = if jwks.exists() {
                    fhir_rag::auth::keys::read_jwks(&jwks)?
                } else {
                    jsonwebtoken::jwk::JwkSet { keys: Vec::new() }
                };
                set.keys.push(key.public_jwk());
                std::fs::write(&jwks, serde_json::to_string_pretty(&set)?)
                    .with_context(|| format!("write {}", jwks.display()))?;
            }
            println!("{}", key.kid());
        }
        Command::DevIdp(config) => fhir_rag::auth::dev_idp::run(config).await?,
        Command::Token {
            key,
            issuer,
            request,
        } => {
            let key = fhir_rag::auth::keys::SigningKey::read(&key)?;
            println!("{}", fhir_rag::auth::dev_idp::mint(&key, &issuer, &request));
        }
        Command::Serve {
            bus,
            store,
            model,
            ingest,
            llm,
            answer,
            envelopes,
        } => {
            let auth = envelopes.open()?;
            let (store, embedder, engine) = open_answer_path(&store, &model, &llm, answer).await?;
            // When either worker dies, the other one is stopped too and the process exits
            // non-zero: a supervisor restarts both rather than running half a service.
            let (stop, shutdown) = shutdown_switch();
            let (ingested, answered) = tokio::join!(
                async {
                    let result =
                        worker::run(&ingest, &bus, &store, &embedder, shutdown.clone()).await;
                    if let Err(e) = &result {
                        tracing::error!(error = %e, "the ingest worker died; stopping the answer worker");
                        let _ = stop.send(true);
                    }
                    result
                },
                async {
                    let result = answer_worker::run(&engine, &bus, &auth, shutdown.clone()).await;
                    if let Err(e) = &result {
                        tracing::error!(error = %e, "the answer worker died; stopping the ingest worker");
                        let _ = stop.send(true);
                    }
                    result
                },
            );
            if let Ok(report) = &ingested {
                println!("{}", serde_json::to_string_pretty(report)?);
            }
            if let Ok(report) = &answered {
                println!("{}", serde_json::to_string_pretty(report)?);
            }
            ingested?;
            answered?;
        }
        Command::Prune { store, retention } => {
            let store = Store::connect(&store).await?;
            store.check_schema().await?;
            let pruned = fhir_rag::store::retention::prune(store.pool(), &retention).await?;
            println!("{}", serde_json::to_string_pretty(&pruned)?);
        }
        Command::Audit {
            action: AuditAction::Verify { store },
        } => {
            let store = Store::connect(&store).await?;
            store.check_schema().await?;
            let check = fhir_rag::store::retention::verify_audit(store.pool()).await?;
            println!("{}", serde_json::to_string_pretty(&check)?);
            if !check.intact() {
                anyhow::bail!(
                    "the answer audit's hash chain is broken at {} row(s)",
                    check.broken.len()
                );
            }
        }
        Command::Study { store, action } => {
            let store = Store::connect(&store).await?;
            store.check_schema().await?;
            let done = fhir_rag::gateway::studies::run(store.pool(), &action).await?;
            println!("{}", serde_json::to_string_pretty(&done)?);
        }
        Command::Status { store } => {
            let store = Store::connect(&store).await?;
            println!("{}", serde_json::to_string_pretty(&store.counts().await?)?);
        }
        Command::Generate {
            data,
            patients,
            seed,
            out,
        } => {
            let population = fhir_rag::generate::Population::from_archive(&data, seed)?;
            let written = population.write(&out, patients)?;
            println!(
                "{} bundles written to {} ({} patients grown from {} templates, {} shared bundles)",
                written.len(),
                out.display(),
                patients,
                population.templates(),
                population.shared().len()
            );
        }
    }
    Ok(())
}
