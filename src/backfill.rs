//! Backfill: reads a Synthea archive or a FHIR bulk export and publishes it to the bundle topic,
//! one message per bundle, keyed by patient.
//!
//! Accepted sources: a file or a folder (searched recursively) of `.json` bundles, plain or
//! compressed (`.gz`, `.bz2`, `.zst`); `.tar.gz`/`.tgz`/`.tar` archives of those; and bulk-export NDJSON
//! (`.ndjson`, optionally compressed; one resource per line), whose resources are grouped per
//! patient into `collection` bundles. Reading and decompressing run on a reader thread; the
//! producer compresses with zstd. A bundle larger than the message limit is not dropped: a dead
//! letter saying so goes to the dead-letter topic, and the run ends with an error count.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::stream::{FuturesUnordered, StreamExt};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The 120-patient Synthea archive of `../shared/data`: the default input of `generate` and of
/// the harness's evaluations and benchmarks.
pub const ARCHIVE: &str = "../shared/data/synthea/blaze-synthea-2.7.0-120p";

use crate::bus::{publish_dead_letter, BusConfig, BusError, DeadLetter};
use crate::ingest::flatten::patient_id_from_reference;

/// Settings of a backfill run.
#[derive(Clone, Debug, clap::Args)]
pub struct BackfillConfig {
    /// A bundle file, a folder of bundles, a .tar.gz archive, or a folder of bulk-export NDJSON.
    pub path: PathBuf,
    /// Topic to publish to.
    #[arg(long, env = "FHIR_RAG_BUNDLE_TOPIC", default_value = "fhir.bundles")]
    pub bundle_topic: String,
    /// Dead-letter topic (for bundles over the message limit).
    #[arg(long, env = "FHIR_RAG_DLQ_TOPIC", default_value = "fhir.bundles.dlq")]
    pub dlq_topic: String,
    /// Publish at most this many bundles (default: all).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Messages in flight at once.
    #[arg(long, env = "FHIR_RAG_BACKFILL_IN_FLIGHT", default_value_t = 16)]
    pub in_flight: usize,
    /// No progress bar (logs only).
    #[arg(long)]
    pub no_progress: bool,
}

/// What a backfill did.
#[derive(Debug, Default, Clone, Serialize, PartialEq, Eq)]
pub struct BackfillSummary {
    /// Files read.
    pub files: u64,
    /// Bundles published.
    pub published: u64,
    /// Uncompressed bytes published.
    pub bytes: u64,
    /// Bundles over the message limit (dead-lettered, not published).
    pub too_large: u64,
    /// Files that could not be read or decompressed.
    pub unreadable: u64,
    /// Files of the source folder that are not read (their names and reasons are logged).
    pub skipped_files: u64,
    /// Bulk-export resources that reference no patient (practitioners, organizations…),
    /// published in keyless bundles of up to 500 so that their names reach the vault.
    pub without_patient: u64,
    /// Keys used (patients), in publication order; for tests.
    #[serde(skip)]
    pub keys: Vec<String>,
}

/// Errors of a backfill.
#[derive(Debug, thiserror::Error)]
pub enum BackfillError {
    /// The source could not be listed.
    #[error("cannot read {path}: {reason}")]
    Source {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// Kafka failed.
    #[error(transparent)]
    Bus(#[from] BusError),
}

/// One bundle ready to publish.
#[derive(Debug)]
pub struct Item {
    /// The patient's logical id, when one was found.
    pub key: Option<String>,
    /// The bundle's bytes.
    pub bytes: Vec<u8>,
    /// Where it came from, for error messages.
    pub origin: String,
}

/// What the reader thread hands the publisher.
enum SourceItem {
    Item(Item),
    Unreadable(String),
    /// Bulk-export resources about no patient, published in keyless bundles.
    WithoutPatient(u64),
}

/// Compressions read: none, gzip, bzip2, zstd.
const COMPRESSIONS: [&str; 4] = ["", ".gz", ".bz2", ".zst"];

/// Whether `name` is `<anything><stem><compression>`.
fn has_suffix(name: &str, stem: &str) -> bool {
    COMPRESSIONS
        .iter()
        .any(|c| name.ends_with(&format!("{stem}{c}")))
}

fn is_ndjson(name: &str) -> bool {
    has_suffix(name, ".ndjson")
}

fn is_json(name: &str) -> bool {
    has_suffix(name, ".json")
}

/// A bulk export's own log (`log.ndjson`, as Synthea writes) or error file
/// (`OperationOutcome*.ndjson`, the `error` array of a FHIR bulk export): about the export, not
/// about patients; read as data it made a false `partial` dead letter.
fn is_export_log(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    is_ndjson(base) && (base.starts_with("log.") || base.starts_with("OperationOutcome"))
}

/// Why a file of a source folder is not read, or `None` when it is.
pub fn skip_reason(name: &str) -> Option<&'static str> {
    if is_export_log(name) {
        Some("a bulk export's log or error file (OperationOutcome), not patient data")
    } else if is_json(name) || is_ndjson(name) || is_tar(name) {
        None
    } else if name.starts_with('.') {
        Some("hidden file")
    } else {
        Some(
            "not a bundle (.json), bulk export (.ndjson) or archive (.tar, .tar.gz, .tgz) name; \
             .gz, .bz2 and .zst compression are read",
        )
    }
}

fn is_tar(name: &str) -> bool {
    [".tar.gz", ".tgz", ".tar"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// How a file is named in logs, summaries and dead-letter reasons: Synthea (and many exports)
/// name a file after its patient, so never by its name. A digest of the path, with the file's
/// extension for the reader: `file 3fa2c1d0e9ab.json.bz2`. An operator finds the file with
/// `printf %s PATH | sha256sum` (the first 12 hex digits).
pub fn file_label(path: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(&Sha256::digest(path.as_bytes())[..6]);
    let base = path.rsplit(['/', ':']).next().unwrap_or(path);
    let extension = [
        "tar.gz",
        "json.bz2",
        "json.gz",
        "json.zst",
        "ndjson.gz",
        "ndjson.bz2",
        "ndjson.zst",
        "ndjson",
        "json",
        "tgz",
        "tar",
        "bz2",
        "gz",
        "zst",
    ]
    .iter()
    .find(|e| base.ends_with(&format!(".{e}")))
    .map(|e| format!(".{e}"))
    .unwrap_or_default();
    format!("file {digest}{extension}")
}

/// Lists the files of a source, sorted, recursively for folders.
pub fn list_files(path: &Path) -> Result<Vec<PathBuf>, BackfillError> {
    Ok(list_source(path)?.0)
}

/// The files of a source that are read, sorted, and those that are not, with the reason.
pub fn list_source(path: &Path) -> Result<SourceFiles, BackfillError> {
    let fail = |reason: String| BackfillError::Source {
        path: path.display().to_string(),
        reason,
    };
    if path.is_file() {
        return Ok((vec![path.to_path_buf()], Vec::new()));
    }
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut pending = vec![path.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| fail(e.to_string()))? {
            let entry = entry.map_err(|e| fail(e.to_string()))?;
            let p = entry.path();
            if p.is_dir() {
                pending.push(p);
            } else {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                match skip_reason(name) {
                    None => out.push(p),
                    Some(reason) => skipped.push((file_label(&p.display().to_string()), reason)),
                }
            }
        }
    }
    out.sort();
    skipped.sort();
    Ok((out, skipped))
}

/// Files read, and files skipped with the reason.
pub type SourceFiles = (Vec<PathBuf>, Vec<(String, &'static str)>);

/// A reader of the decompressed content of `name` (by its suffix).
fn decoder<'a>(name: &str, reader: impl Read + 'a) -> std::io::Result<Box<dyn Read + 'a>> {
    Ok(if name.ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(reader))
    } else if name.ends_with(".bz2") {
        Box::new(bzip2::read::MultiBzDecoder::new(reader))
    } else if name.ends_with(".zst") {
        Box::new(zstd::stream::read::Decoder::new(reader)?)
    } else {
        Box::new(reader)
    })
}

/// A whole file's bytes, decompressed by its name's suffix (`.gz`, `.bz2`, `.zst`).
pub fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    decompress(name, std::io::BufReader::new(std::fs::File::open(path)?))
}

fn decompress(name: &str, reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    decoder(name, reader)?.read_to_end(&mut out)?;
    Ok(out)
}

#[derive(Deserialize)]
struct Head {
    #[serde(rename = "resourceType")]
    resource_type: Option<String>,
    id: Option<String>,
    #[serde(default)]
    entry: Vec<EntryHead>,
}

#[derive(Deserialize)]
struct EntryHead {
    resource: Option<ResourceHead>,
}

#[derive(Deserialize)]
struct ResourceHead {
    #[serde(rename = "resourceType")]
    resource_type: Option<String>,
    id: Option<String>,
}

/// The patient a bundle is about: the first Patient entry's id (or the resource's own id for a
/// lone Patient). Unparseable input gives `None`; the ingest worker will judge it.
pub fn bundle_key(bytes: &[u8]) -> Option<String> {
    let head: Head = serde_json::from_slice(bytes).ok()?;
    if head.resource_type.as_deref() == Some("Patient") {
        return head.id;
    }
    head.entry.into_iter().find_map(|e| {
        let r = e.resource?;
        (r.resource_type.as_deref() == Some("Patient"))
            .then_some(r.id)
            .flatten()
    })
}

/// Groups bulk-export resources by the patient they concern into collection bundles, without
/// holding the export in memory: each line is appended, as it is read, to one of [`BUCKETS`]
/// temporary files chosen by a hash of its patient id (resources about no patient go to one more
/// file); the buckets are then read back one at a time and grouped per patient. Memory holds
/// about one bucket, a 64th of the export.
struct NdjsonGroups {
    dir: Option<tempfile::TempDir>,
    /// `BUCKETS` patient buckets, then the bucket of resources about no patient.
    writers: Vec<std::io::BufWriter<std::fs::File>>,
    without_patient: u64,
}

/// Patient buckets of the bulk-export spill.
const BUCKETS: usize = 64;

/// Most resources in one keyless bundle of bulk-export resources without a patient.
const OTHERS_PER_BUNDLE: usize = 500;

/// A collection bundle of `resources`, each with a `Type/id` fullUrl.
fn collection(resources: Vec<Value>) -> Vec<u8> {
    let entries: Vec<Value> = resources
        .into_iter()
        .map(|resource| {
            let url = match (resource["resourceType"].as_str(), resource["id"].as_str()) {
                (Some(t), Some(id)) => Value::String(format!("{t}/{id}")),
                _ => Value::Null,
            };
            serde_json::json!({ "fullUrl": url, "resource": resource })
        })
        .collect();
    let bundle =
        serde_json::json!({ "resourceType": "Bundle", "type": "collection", "entry": entries });
    serde_json::to_vec(&bundle).expect("a JSON value serializes")
}

/// Where bulk exports spill (plaintext PHI until the backfill ends): one folder per user under the
/// temporary directory, mode 700 and checked to be this user's, holding one folder per running
/// backfill (`<pid>-…`), removed when it ends. Folders that a crashed backfill left (their process
/// is gone) are removed here, before anything is spilled again.
fn spill_root() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let root = std::env::temp_dir().join(format!("fhir-rag-spill-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&root) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(&root)?;
    if !meta.is_dir() || meta.uid() != uid {
        return Err(std::io::Error::other(format!(
            "{} is not a folder of this user: refusing to spill PHI there",
            root.display()
        )));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700))?;
    }
    for entry in std::fs::read_dir(&root)?.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<i32>().ok());
        let Some(pid) = pid else { continue };
        // SAFETY: signal 0 only checks that the process exists.
        let alive = pid == std::process::id() as i32
            || unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if !alive {
            tracing::warn!(pid, "removing the spill a crashed backfill left behind");
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    Ok(root)
}

impl NdjsonGroups {
    fn new() -> Self {
        NdjsonGroups {
            dir: None,
            writers: Vec::new(),
            without_patient: 0,
        }
    }

    fn writer(&mut self, bucket: usize) -> std::io::Result<&mut std::io::BufWriter<std::fs::File>> {
        if self.dir.is_none() {
            let dir = tempfile::Builder::new()
                .prefix(&format!("{}-", std::process::id()))
                .tempdir_in(spill_root()?)?;
            for b in 0..=BUCKETS {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(dir.path().join(format!("{b}.spill")))?;
                self.writers.push(std::io::BufWriter::new(file));
            }
            self.dir = Some(dir);
        }
        Ok(&mut self.writers[bucket])
    }

    /// Reads NDJSON lines from `reader` into the spill.
    fn add_lines(&mut self, mut reader: impl std::io::BufRead) -> Result<(), String> {
        use std::hash::{Hash, Hasher};
        use std::io::Write;
        let mut line = Vec::new();
        let mut number = 0usize;
        loop {
            line.clear();
            let read = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| e.to_string())?;
            if read == 0 {
                return Ok(());
            }
            number += 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let resource: Value =
                serde_json::from_slice(&line).map_err(|e| format!("line {number}: {e}"))?;
            let (bucket, patient) = match resource_patient(&resource) {
                Some(patient) => {
                    let mut hasher = std::hash::DefaultHasher::new();
                    patient.hash(&mut hasher);
                    ((hasher.finish() % BUCKETS as u64) as usize, patient)
                }
                None => {
                    self.without_patient += 1;
                    (BUCKETS, String::new())
                }
            };
            // One spill record per line: `[patient, resource]` as compact JSON (no raw newline
            // can occur in it, whatever the patient id holds).
            let record = serde_json::to_vec(&(patient, resource)).map_err(|e| e.to_string())?;
            let writer = self.writer(bucket).map_err(|e| format!("spill: {e}"))?;
            writer
                .write_all(&record)
                .and_then(|_| writer.write_all(b"\n"))
                .map_err(|e| format!("spill: {e}"))?;
        }
    }

    /// The bundles, one bucket at a time: per patient (sorted within a bucket), then the
    /// resources about no patient in keyless bundles.
    fn into_items(mut self) -> impl Iterator<Item = Result<Item, String>> {
        let flushed: std::io::Result<()> = self.writers.iter_mut().try_for_each(|w| {
            use std::io::Write;
            w.flush()
        });
        let dir = self.dir.take();
        let failed = flushed.err().map(|e| Err(format!("spill: {e}")));
        let paths: Vec<PathBuf> = match &dir {
            Some(d) => (0..=BUCKETS)
                .map(|b| d.path().join(format!("{b}.spill")))
                .collect(),
            None => Vec::new(),
        };
        failed
            .into_iter()
            .chain(paths.into_iter().enumerate().flat_map(move |(b, path)| {
                // The directory lives as long as the iterator reads from it.
                let _keep = &dir;
                read_bucket(&path, b == BUCKETS)
            }))
    }
}

/// The bundles of one spill bucket.
fn read_bucket(path: &Path, others: bool) -> Vec<Result<Item, String>> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) => return vec![Err(format!("spill: {e}"))],
    };
    let mut by_patient: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    // Records were written by this process; one that does not read back is reported and
    // skipped, not the bucket.
    let mut errors = Vec::new();
    for record in text.split(|b| *b == b'\n').filter(|r| !r.is_empty()) {
        match serde_json::from_slice::<(String, Value)>(record) {
            Ok((patient, resource)) => by_patient.entry(patient).or_default().push(resource),
            Err(e) => errors.push(Err(format!("spill record: {e}"))),
        }
    }
    if others {
        let mut resources = by_patient.remove("").unwrap_or_default();
        let mut items = Vec::new();
        while !resources.is_empty() {
            let rest = resources.split_off(resources.len().min(OTHERS_PER_BUNDLE));
            items.push(Ok(Item {
                key: None,
                bytes: collection(std::mem::replace(&mut resources, rest)),
                origin: "bulk export (resources without a patient)".into(),
            }));
        }
        items.extend(errors);
        return items;
    }
    let mut items: Vec<Result<Item, String>> = by_patient
        .into_iter()
        .map(|(patient, resources)| {
            Ok(Item {
                key: Some(patient),
                bytes: collection(resources),
                origin: "bulk export".into(),
            })
        })
        .collect();
    items.extend(errors);
    items
}

fn resource_patient(resource: &Value) -> Option<String> {
    if resource["resourceType"].as_str() == Some("Patient") {
        return resource["id"].as_str().map(str::to_string);
    }
    ["subject", "patient", "beneficiary"]
        .iter()
        .find_map(|field| {
            resource[field]["reference"]
                .as_str()
                .and_then(patient_id_from_reference)
        })
}

/// Reads every bundle of `files`, in order, handing each to `emit` (NDJSON bundles come last,
/// once every NDJSON file has been read). Blocking.
fn read_all(files: &[PathBuf], mut emit: impl FnMut(SourceItem) -> bool) {
    let mut ndjson = NdjsonGroups::new();
    let emit_bytes =
        |name: &str, bytes: Vec<u8>, emit: &mut dyn FnMut(SourceItem) -> bool| -> bool {
            emit(SourceItem::Item(Item {
                key: bundle_key(&bytes),
                bytes,
                origin: name.to_string(),
            }))
        };
    for file in files {
        let name = file.display().to_string();
        let label = file_label(&name);
        let opened = match std::fs::File::open(file) {
            Ok(f) => std::io::BufReader::new(f),
            Err(e) => {
                if !emit(SourceItem::Unreadable(format!("{label}: {e}"))) {
                    return;
                }
                continue;
            }
        };
        if is_tar(&name) {
            let reader: Box<dyn Read> = if name.ends_with(".tar") {
                Box::new(opened)
            } else {
                Box::new(flate2::read::MultiGzDecoder::new(opened))
            };
            let mut archive = tar::Archive::new(reader);
            let entries = match archive.entries() {
                Ok(entries) => entries,
                Err(e) => {
                    if !emit(SourceItem::Unreadable(format!("{label}: {e}"))) {
                        return;
                    }
                    continue;
                }
            };
            for entry in entries {
                let result = entry.and_then(|mut entry| {
                    let inner = entry.path()?.display().to_string();
                    if is_export_log(&inner) {
                        tracing::info!(file = %file_label(&inner), "a bulk export's log or error file, skipped");
                        return Ok((inner, None, None));
                    }
                    if is_ndjson(&inner) {
                        // Streamed into the spill, line by line.
                        let added =
                            ndjson.add_lines(std::io::BufReader::new(decoder(&inner, &mut entry)?));
                        return Ok((inner, None, Some(added)));
                    }
                    let bytes = if is_json(&inner) {
                        Some(decompress(&inner, &mut entry)?)
                    } else {
                        None
                    };
                    Ok((inner, bytes, None))
                });
                let keep_going = match result {
                    Ok((_, None, None)) | Ok((_, _, Some(Ok(())))) => true,
                    Ok((inner, _, Some(Err(e)))) => emit(SourceItem::Unreadable(format!(
                        "{label}:{}: {e}",
                        file_label(&inner)
                    ))),
                    Ok((inner, Some(bytes), None)) => {
                        emit_bytes(&format!("{label}:{}", file_label(&inner)), bytes, &mut emit)
                    }
                    Err(e) => emit(SourceItem::Unreadable(format!("{label}: {e}"))),
                };
                if !keep_going {
                    return;
                }
            }
            continue;
        }
        if is_ndjson(&name) {
            let added = decoder(&name, opened)
                .map_err(|e| e.to_string())
                .and_then(|reader| ndjson.add_lines(std::io::BufReader::new(reader)));
            if let Err(e) = added {
                if !emit(SourceItem::Unreadable(format!("{label}: {e}"))) {
                    return;
                }
            }
            continue;
        }
        let keep_going = match decompress(&name, opened) {
            Ok(bytes) => emit_bytes(&label, bytes, &mut emit),
            Err(e) => emit(SourceItem::Unreadable(format!("{label}: {e}"))),
        };
        if !keep_going {
            return;
        }
    }
    if ndjson.without_patient > 0 && !emit(SourceItem::WithoutPatient(ndjson.without_patient)) {
        return;
    }
    for item in ndjson.into_items() {
        let read = match item {
            Ok(item) => SourceItem::Item(item),
            Err(e) => SourceItem::Unreadable(format!("bulk export: {e}")),
        };
        if !emit(read) {
            return;
        }
    }
}

/// Publishes a source to the bundle topic.
pub async fn run(
    config: &BackfillConfig,
    bus: &BusConfig,
) -> Result<BackfillSummary, BackfillError> {
    let (files, skipped) = list_source(&config.path)?;
    for (path, reason) in &skipped {
        tracing::warn!(%path, reason, "file skipped");
    }
    if files.is_empty() {
        return Err(BackfillError::Source {
            path: config.path.display().to_string(),
            reason: format!(
                "nothing to read: {} files skipped{}",
                skipped.len(),
                skipped
                    .first()
                    .map(|(p, r)| format!(" (e.g. {p}: {r})"))
                    .unwrap_or_default()
            ),
        });
    }
    let producer: FutureProducer = bus
        .producer()
        .create()
        .map_err(|e| BusError::Client(e.to_string()))?;
    let progress = if config.no_progress {
        indicatif::ProgressBar::hidden()
    } else {
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} files, {msg}",
            )
            .expect("a valid template"),
        );
        bar
    };

    let mut summary = BackfillSummary {
        files: files.len() as u64,
        skipped_files: skipped.len() as u64,
        ..Default::default()
    };
    let (sender, mut receiver) = tokio::sync::mpsc::channel::<SourceItem>(4);
    let reader = std::thread::Builder::new()
        .name("backfill-reader".into())
        .spawn(move || read_all(&files, |item| sender.blocking_send(item).is_ok()))
        .map_err(|e| BackfillError::Source {
            path: config.path.display().to_string(),
            reason: e.to_string(),
        })?;

    let started = Instant::now();
    let mut in_flight = FuturesUnordered::new();
    let mut delivery_error = None;
    let mut taken = 0usize;
    while let Some(read) = receiver.recv().await {
        let item = match read {
            SourceItem::Unreadable(reason) => {
                summary.unreadable += 1;
                tracing::warn!(%reason, "unreadable file skipped");
                continue;
            }
            SourceItem::WithoutPatient(resources) => {
                summary.without_patient += resources;
                tracing::info!(
                    resources,
                    "bulk-export resources without a patient go in keyless bundles"
                );
                continue;
            }
            SourceItem::Item(item) => item,
        };
        if config.limit.is_some_and(|l| taken >= l) {
            break;
        }
        taken += 1;
        progress.inc(1);
        if item.bytes.len() > bus.max_message_bytes {
            summary.too_large += 1;
            tracing::error!(origin = %item.origin, bytes = item.bytes.len(), limit = bus.max_message_bytes,
                "bundle exceeds the message limit; dead letter sent instead (raise --max-message-bytes and the topic's max.message.bytes)");
            let letter = DeadLetter {
                error_kind: "too_large",
                disposition: "rejected",
                reason: format!(
                    "backfill: bundle from {} is {} bytes, over the message limit of {} bytes; not published",
                    item.origin,
                    item.bytes.len(),
                    bus.max_message_bytes
                ),
                source: None,
            };
            publish_dead_letter(
                &producer,
                &config.dlq_topic,
                item.key.as_deref().map(str::as_bytes),
                b"",
                &letter,
            )
            .await?;
            continue;
        }
        summary.bytes += item.bytes.len() as u64;
        if let Some(key) = &item.key {
            summary.keys.push(key.clone());
        }
        let producer = &producer;
        let topic = config.bundle_topic.as_str();
        in_flight.push(async move {
            let mut record = FutureRecord::to(topic).payload(&item.bytes);
            if let Some(key) = &item.key {
                record = record.key(key.as_bytes());
            }
            producer
                .send(record, Duration::from_secs(120))
                .await
                .map_err(|(e, _)| BusError::Delivery {
                    topic: topic.to_string(),
                    reason: e.to_string(),
                })
        });
        while in_flight.len() >= config.in_flight.max(1) {
            match in_flight.next().await {
                Some(Ok(_)) => summary.published += 1,
                Some(Err(e)) => delivery_error = Some(e),
                None => break,
            }
        }
        if delivery_error.is_some() {
            break;
        }
        progress.set_message(format!("{} MB", summary.bytes / 1_000_000));
    }
    drop(receiver);
    while let Some(result) = in_flight.next().await {
        match result {
            Ok(_) => summary.published += 1,
            Err(e) => delivery_error = Some(e),
        }
    }
    let _ = reader.join();
    producer
        .flush(Duration::from_secs(60))
        .map_err(|e| BusError::Delivery {
            topic: config.bundle_topic.clone(),
            reason: e.to_string(),
        })?;
    progress.finish_and_clear();
    if let Some(e) = delivery_error {
        return Err(e.into());
    }
    tracing::info!(
        published = summary.published,
        megabytes = summary.bytes / 1_000_000,
        elapsed_s = started.elapsed().as_secs_f64(),
        "backfill finished"
    );
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_the_first_patient() {
        let bundle = br#"{"resourceType":"Bundle","entry":[
            {"resource":{"resourceType":"Organization","id":"o1"}},
            {"resource":{"resourceType":"Patient","id":"p1"}}]}"#;
        assert_eq!(bundle_key(bundle).as_deref(), Some("p1"));
        assert_eq!(
            bundle_key(br#"{"resourceType":"Patient","id":"p2"}"#).as_deref(),
            Some("p2")
        );
        assert_eq!(bundle_key(b"not json"), None);
    }

    #[test]
    fn bulk_export_resources_are_grouped_per_patient() {
        let mut groups = NdjsonGroups::new();
        groups
            .add_lines(
                &br#"{"resourceType":"Patient","id":"a"}
{"resourceType":"Observation","id":"o1","subject":{"reference":"Patient/a"}}

{"resourceType":"Observation","id":"o2","subject":{"reference":"Patient/b"}}
{"resourceType":"Practitioner","id":"x"}"#[..],
            )
            .unwrap();
        // A second file (bulk exports are one file per type) adds to the same patients.
        groups
            .add_lines(&br#"{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/a"}}"#[..])
            .unwrap();
        assert_eq!(groups.without_patient, 1);
        let items: Vec<Item> = groups.into_items().map(Result::unwrap).collect();
        assert_eq!(items.len(), 3);
        // The practitioner is published too, without a key, after the patients.
        assert_eq!(items[2].key, None);
        let others: Value = serde_json::from_slice(&items[2].bytes).unwrap();
        assert_eq!(others["entry"][0]["fullUrl"], "Practitioner/x");
        let a = items
            .iter()
            .find(|i| i.key.as_deref() == Some("a"))
            .unwrap();
        let a: Value = serde_json::from_slice(&a.bytes).unwrap();
        assert_eq!(a["entry"].as_array().unwrap().len(), 3);
        assert_eq!(a["entry"][1]["fullUrl"], "Observation/o1");
        assert_eq!(a["entry"][2]["fullUrl"], "Condition/c1");
    }

    #[test]
    fn reads_bundles_from_a_tar_gz_with_compressed_members() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("export.tar.gz");
        {
            let gz = flate2::write::GzEncoder::new(
                std::fs::File::create(&archive).unwrap(),
                Default::default(),
            );
            let mut tar = tar::Builder::new(gz);
            let plain = br#"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient","id":"a"}}]}"#;
            let mut header = tar::Header::new_gnu();
            header.set_size(plain.len() as u64);
            header.set_cksum();
            tar.append_data(&mut header, "fhir/a.json", &plain[..])
                .unwrap();
            let mut bz = Vec::new();
            {
                use std::io::Write;
                let mut encoder = bzip2::write::BzEncoder::new(&mut bz, bzip2::Compression::fast());
                encoder
                    .write_all(br#"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient","id":"b"}}]}"#)
                    .unwrap();
                encoder.finish().unwrap();
            }
            let mut header = tar::Header::new_gnu();
            header.set_size(bz.len() as u64);
            header.set_cksum();
            tar.append_data(&mut header, "fhir/b.json.bz2", &bz[..])
                .unwrap();
            let mut header = tar::Header::new_gnu();
            header.set_size(5);
            header.set_cksum();
            tar.append_data(&mut header, "fhir/README.txt", &b"hello"[..])
                .unwrap();
            tar.into_inner().unwrap().finish().unwrap();
        }
        let files = list_files(dir.path()).unwrap();
        assert_eq!(files, vec![archive]);
        let keys = keys_read(&files);
        assert_eq!(keys, vec![Some("a".to_string()), Some("b".to_string())]);
    }

    /// The keys of every item read from `files`, in order.
    fn keys_read(files: &[PathBuf]) -> Vec<Option<String>> {
        let mut keys = Vec::new();
        read_all(files, |read| {
            match read {
                SourceItem::Item(item) => keys.push(item.key),
                SourceItem::Unreadable(reason) => panic!("{reason}"),
                SourceItem::WithoutPatient(_) => {}
            }
            true
        });
        keys
    }

    #[test]
    fn spills_live_in_a_private_folder_and_a_crashed_backfills_spill_is_removed() {
        use std::os::unix::fs::PermissionsExt;
        // A process that has ended: its pid names a spill nobody owns any more.
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let pid = gone.id();
        gone.wait().unwrap();
        let root = spill_root().unwrap();
        let left = root.join(format!("{pid}-crashed"));
        std::fs::create_dir_all(&left).unwrap();
        std::fs::write(left.join("0.spill"), b"[\"patient\", {}]").unwrap();
        let mine = root.join(format!("{}-running", std::process::id()));
        std::fs::create_dir_all(&mine).unwrap();
        assert_eq!(spill_root().unwrap(), root);
        assert!(!left.exists(), "the crashed backfill's spill is removed");
        assert!(mine.exists(), "a running backfill's spill is kept");
        std::fs::remove_dir_all(&mine).unwrap();
        let mode = std::fs::metadata(&root).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // A spill made by the grouping: a mode-600 file in a folder under the root.
        let mut groups = NdjsonGroups::new();
        groups.writer(0).unwrap();
        let spill = groups.dir.as_ref().unwrap().path().to_path_buf();
        assert!(spill.starts_with(&root));
        let file_mode = std::fs::metadata(spill.join("0.spill"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(file_mode & 0o777, 0o600);
        drop(groups);
        assert!(!spill.exists(), "removed when the backfill ends");
    }

    #[test]
    fn zstd_files_are_read_and_other_files_are_named_as_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let bundle = br#"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient","id":"z"}}]}"#;
        std::fs::write(
            dir.path().join("z.json.zst"),
            zstd::encode_all(&bundle[..], 3).unwrap(),
        )
        .unwrap();
        let ndjson = b"{\"resourceType\":\"Patient\",\"id\":\"n\"}\n";
        std::fs::write(
            dir.path().join("Patient.ndjson.zst"),
            zstd::encode_all(&ndjson[..], 3).unwrap(),
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"hello").unwrap();
        std::fs::write(dir.path().join("b.json.xz"), b"?").unwrap();
        // A bulk export's log and error files are about the export, not patients.
        std::fs::write(
            dir.path().join("log.ndjson"),
            b"{\"eventType\":\"export\"}\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("OperationOutcome.ndjson.gz"), b"not read").unwrap();
        let (files, skipped) = list_source(dir.path()).unwrap();
        assert_eq!(files.len(), 2);
        // Named by a digest of their path, never by their name (Synthea names files after
        // patients).
        let skipped: Vec<&str> = skipped.iter().map(|(p, _)| p.as_str()).collect();
        let mut expected: Vec<String> = [
            "OperationOutcome.ndjson.gz",
            "b.json.xz",
            "log.ndjson",
            "notes.txt",
        ]
        .iter()
        .map(|n| file_label(&dir.path().join(n).display().to_string()))
        .collect();
        expected.sort();
        assert_eq!(skipped, expected);
        for label in &skipped {
            assert!(label.starts_with("file "), "{label}");
            for name in ["OperationOutcome", "notes", "log."] {
                assert!(!label.contains(name), "{label}");
            }
        }
        assert!(is_export_log("export/log.ndjson.bz2") && !is_export_log("Patient.ndjson"));
        let mut keys = keys_read(&files);
        keys.sort();
        assert_eq!(keys, vec![Some("n".to_string()), Some("z".to_string())]);
    }

    #[test]
    fn a_bad_ndjson_line_is_reported_with_its_number() {
        let mut groups = NdjsonGroups::new();
        let err = groups
            .add_lines(&b"{\"resourceType\":\"Patient\",\"id\":\"a\"}\n{oops"[..])
            .unwrap_err();
        assert!(err.starts_with("line 2"), "{err}");
    }
}
