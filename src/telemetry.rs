//! Logging set-up and the panic hook.
//!
//! Log-level policy: ERROR means data loss or operator action (a parser thread abandoned, a
//! bundle too large to publish); WARN a message dead-lettered or a retried failure; INFO one line
//! per bundle and per start/stop; DEBUG details. No level ever carries a payload or a PHI value.

use tracing_subscriber::EnvFilter;

/// Output format of the logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

/// Installs the global subscriber (level from `RUST_LOG`, default `info`) writing to stderr.
pub fn init_logging(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// Panics on parser threads are expected (hostile input) and caught; their payloads may quote
/// the input, so only the location is logged. Other panics are logged in full.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("unnamed");
        if name == crate::ingest::parse::PARSER_THREAD_NAME {
            tracing::debug!(%location, "the typed parser panicked on an entry (caught)");
        } else {
            let payload = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(thread = name, %location, %payload, "panic");
            eprintln!("thread '{name}' panicked at {location}: {payload}");
        }
    }));
}

/// Peak resident memory of this process in MiB (Linux `VmHWM`), if known.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
