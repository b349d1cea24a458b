//! The one retry policy of both workers: what to do when handling a message fails.
//!
//! [`Disposition::Unavailable`] (the database cannot be reached) is retried without limit while
//! the offset is held: dead-lettering every message of an outage would empty the stream into
//! the dead-letter topic. [`Disposition::Transient`] (deadlock, serialization failure, too many
//! connections, a model out of memory) is retried `max_attempts` times with capped exponential
//! backoff, then the message is dead-lettered. [`Disposition::Permanent`] is dead-lettered at
//! once; [`Disposition::Fatal`] stops the worker.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

use crate::store::Disposition;

/// Retry settings shared by the workers.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct RetryPolicy {
    /// Attempts at a transient failure (deadlock, serialization failure, too many connections,
    /// a model out of memory) before the message is dead-lettered. An unreachable database is
    /// retried without limit.
    #[arg(long, env = "FHIR_RAG_RETRY_MAX_ATTEMPTS", default_value_t = 8)]
    pub retry_max_attempts: u32,
    /// Longest pause between retries, in milliseconds.
    #[arg(long, env = "FHIR_RAG_RETRY_MAX_BACKOFF_MS", default_value_t = 30_000)]
    pub retry_max_backoff_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retry_max_attempts: 8,
            retry_max_backoff_ms: 30_000,
        }
    }
}

/// How an operation under the policy ended.
#[derive(Debug)]
pub enum Retried<T, E> {
    /// It succeeded.
    Done(T),
    /// It can never succeed on this message (a permanent error): dead-letter it (or the part
    /// of it that fails).
    Refused(E),
    /// A transient failure outlasted the attempts: not the data's fault; dead-letter the
    /// message whole, for a replay.
    GaveUp(E),
    /// The process cannot go on.
    Fatal(E),
    /// Shutdown was requested while waiting to retry: leave the offset uncommitted.
    Interrupted,
}

impl RetryPolicy {
    /// Runs `op` until it succeeds or the policy gives up; `retries` counts the retries.
    pub async fn run<T, E, F, Fut>(
        &self,
        shutdown: &mut watch::Receiver<bool>,
        retries: &mut u64,
        classify: impl Fn(&E) -> Disposition,
        mut op: F,
    ) -> Retried<T, E>
    where
        E: std::fmt::Display,
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut backoff = Duration::from_millis(200);
        let max_backoff = Duration::from_millis(self.retry_max_backoff_ms.max(1));
        let mut transient_failures = 0u32;
        loop {
            let error = match op().await {
                Ok(value) => {
                    crate::metrics::database_reachable(true);
                    return Retried::Done(value);
                }
                Err(e) => e,
            };
            let class = classify(&error);
            crate::metrics::database_reachable(class != Disposition::Unavailable);
            match class {
                Disposition::Fatal => return Retried::Fatal(error),
                Disposition::Permanent => return Retried::Refused(error),
                Disposition::Transient => {
                    transient_failures += 1;
                    if transient_failures >= self.retry_max_attempts.max(1) {
                        tracing::warn!(error = %error, attempts = transient_failures,
                            "transient failure persisted; giving up on this message");
                        return Retried::GaveUp(error);
                    }
                }
                Disposition::Unavailable => {}
            }
            *retries += 1;
            crate::metrics::count(
                "fhir_rag_retries_total",
                "Retries of failures, by class (unavailable: database unreachable).",
                &[(
                    "class",
                    if class == Disposition::Unavailable {
                        "unavailable"
                    } else {
                        "transient"
                    },
                )],
                1.0,
            );
            tracing::warn!(error = %error, retry_in_ms = backoff.as_millis() as u64, "retrying");
            tokio::select! {
                _ = tokio::time::sleep(backoff) => {}
                _ = shutdown.changed() => return Retried::Interrupted,
            }
            backoff = (backoff * 2).min(max_backoff);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run_with(
        policy: RetryPolicy,
        failures: Vec<Disposition>,
    ) -> (Retried<u32, String>, u64, usize) {
        let (_tx, mut rx) = watch::channel(false);
        let mut retries = 0;
        let calls = std::sync::Arc::new(std::sync::Mutex::new(0usize));
        let plan = failures.clone();
        let outcome = policy
            .run(
                &mut rx,
                &mut retries,
                |e: &String| match e.as_str() {
                    "unavailable" => Disposition::Unavailable,
                    "transient" => Disposition::Transient,
                    "fatal" => Disposition::Fatal,
                    _ => Disposition::Permanent,
                },
                || {
                    let calls = calls.clone();
                    let plan = plan.clone();
                    async move {
                        let mut n = calls.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        match plan.get(i) {
                            None => Ok(i as u32),
                            Some(Disposition::Unavailable) => Err("unavailable".to_string()),
                            Some(Disposition::Transient) => Err("transient".to_string()),
                            Some(Disposition::Fatal) => Err("fatal".to_string()),
                            Some(Disposition::Permanent) => Err("permanent".to_string()),
                        }
                    }
                },
            )
            .await;
        let n = *calls.lock().unwrap();
        (outcome, retries, n)
    }

    fn fast(attempts: u32) -> RetryPolicy {
        RetryPolicy {
            retry_max_attempts: attempts,
            retry_max_backoff_ms: 1,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn each_class_gets_its_own_treatment() {
        use Disposition::*;
        // Permanent: one attempt, refused.
        let (outcome, retries, calls) = run_with(fast(5), vec![Permanent]).await;
        assert!(matches!(outcome, Retried::Refused(_)));
        assert_eq!((retries, calls), (0, 1));
        // Transient: bounded.
        let (outcome, retries, calls) = run_with(fast(3), vec![Transient; 10]).await;
        assert!(matches!(outcome, Retried::GaveUp(_)));
        assert_eq!((retries, calls), (2, 3));
        // Transient that clears in time.
        let (outcome, _, _) = run_with(fast(3), vec![Transient, Transient]).await;
        assert!(matches!(outcome, Retried::Done(2)));
        // Unavailable: not bounded by the attempts.
        let (outcome, retries, _) = run_with(fast(2), vec![Unavailable; 20]).await;
        assert!(matches!(outcome, Retried::Done(20)));
        assert_eq!(retries, 20);
        // Fatal: stop.
        let (outcome, _, _) = run_with(fast(5), vec![Transient, Fatal]).await;
        assert!(matches!(outcome, Retried::Fatal(_)));
    }

    #[test]
    fn only_known_sqlstates_are_retried() {
        use crate::store::sqlstate_disposition as d;
        assert_eq!(d("08006"), Disposition::Unavailable);
        assert_eq!(d("57P01"), Disposition::Unavailable);
        assert_eq!(d("40001"), Disposition::Transient);
        assert_eq!(d("40P01"), Disposition::Transient);
        assert_eq!(d("53300"), Disposition::Transient);
        // string_data_right_truncation, program_limit_exceeded (tsvector too long),
        // character_not_in_repertoire (NUL), undefined_table, internal_error.
        for code in ["22001", "54000", "22021", "23514", "0A000", ""] {
            assert_eq!(d(code), Disposition::Permanent, "{code}");
        }
        // The schema or the server, not the data: stop rather than dead-letter the stream.
        for code in ["42P01", "42501", "XX000"] {
            assert_eq!(d(code), Disposition::Fatal, "{code}");
        }
        assert_eq!(d("58030"), Disposition::Unavailable);
    }
}
