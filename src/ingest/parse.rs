//! Untrusted bytes to typed FHIR R4 resources, safely.
//!
//! Bundles arrive from outside and a strict typed parser can panic or spin on hostile JSON
//! (fhirbolt 0.4 panics on `"coding": []` and never returns on a DSTU2 `fhir_comments` array, see
//! `shared/data/fhir-r4/invalid-fhir-test-cases/SOURCE.md`). So, in order:
//!
//! 1. the message size is bounded;
//! 2. `serde_json` checks that it is JSON at all (its recursion limit stops deeply nested input);
//! 3. the root must be a `Bundle` or a single resource;
//! 4. each entry whose type we flatten is parsed with fhirbolt on a parser thread, one entry at a
//!    time, with panics caught and a time limit per entry; entries of other types are skipped
//!    without parsing. A bad entry is reported and the others carry on.
//!
//! A parser thread that overruns its time limit cannot be stopped from outside: it is abandoned
//! (and counted, see [`abandoned_parser_threads`]) and a fresh one takes the remaining entries.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use fhirbolt::model::r4::Resource;
use fhirbolt::serde::{DeserializationConfig, DeserializationMode};
use serde_json::Value;

/// Thread name of parser threads; the panic hook in `main` keeps their panic payloads (which may
/// quote input) out of the logs.
pub const PARSER_THREAD_NAME: &str = "fhir-parse";

/// Resource types the flattener turns into sentences; all others are skipped unparsed.
pub const FLATTENED_TYPES: &[&str] = &[
    "Patient",
    "Practitioner",
    "RelatedPerson",
    "Organization",
    "Location",
    "Observation",
    "Procedure",
    "Condition",
    "AllergyIntolerance",
    "MedicationRequest",
    "Immunization",
    "DiagnosticReport",
    "CarePlan",
    "Encounter",
    "Device",
];

/// Resource types parsed in a bundle for what other entries refer to, never stored on their
/// own: a MedicationRequest's `medicationReference` names its drug through a Medication.
pub const LOOKUP_TYPES: &[&str] = &["Medication"];

static ABANDONED: AtomicU64 = AtomicU64::new(0);
/// Abandoned parser threads that have not returned yet (each still burns a core).
static STUCK: AtomicU64 = AtomicU64::new(0);

/// A parser thread's state, shared with the caller that may abandon it.
const RUNNING: u8 = 0;
const ABANDONED_STATE: u8 = 1;
const FINISHED: u8 = 2;

/// How many abandoned parser threads are still running now. The ingest worker exits (for its
/// supervisor to restart it, which is the only way to stop them) when this reaches its
/// `--max-stuck-parsers`.
pub fn stuck_parser_threads() -> u64 {
    STUCK.load(Ordering::Relaxed)
}

/// How many parser threads overran their time limit since the process started. Each still
/// burns CPU; operators should restart a worker whose count keeps growing.
pub fn abandoned_parser_threads() -> u64 {
    ABANDONED.load(Ordering::Relaxed)
}

/// Limits applied to each message.
#[derive(Clone, Copy, Debug)]
pub struct ParseLimits {
    /// Largest accepted message, in bytes.
    pub max_bytes: usize,
    /// Longest time the typed parse of one entry may take.
    pub entry_timeout: Duration,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_bytes: 64 * 1024 * 1024,
            entry_timeout: Duration::from_secs(2),
        }
    }
}

/// Why a whole message was rejected. All of these are permanent: retrying cannot help.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    /// The message is larger than the configured bound.
    #[error("message of {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// Size of the message.
        size: usize,
        /// Configured limit.
        limit: usize,
    },
    /// The message is not valid JSON (or nested too deeply).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not a FHIR resource.
    #[error("not a FHIR resource: {0}")]
    NotFhir(String),
    /// A single resource (not a bundle) that failed the typed parse.
    #[error("invalid {resource_type}: {reason}")]
    InvalidResource {
        /// The declared `resourceType`.
        resource_type: String,
        /// What the parser said.
        reason: String,
    },
}

/// One entry that could not be parsed; the rest of its bundle was kept.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedEntry {
    /// Position of the entry in `Bundle.entry`.
    pub index: usize,
    /// Declared resource type.
    pub resource_type: String,
    /// What went wrong (parser message, "panicked", or "timed out").
    pub reason: String,
}

/// A parsed resource with what is needed to resolve references to it.
#[derive(Debug, Clone)]
pub struct ParsedEntry {
    /// The declared `resourceType`.
    pub resource_type: String,
    /// `Bundle.entry.fullUrl`, when given.
    pub full_url: Option<String>,
    /// The typed resource.
    pub resource: Resource,
}

/// The name a reference gives for what it points to (`"display": "Dr. Ramiro608 Medina"` on a
/// reference to a Practitioner), read from every entry of the message, parsed or not: such
/// names belong in the vault even when the resource they name never arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceDisplay {
    /// The type of the resource referred to.
    pub resource_type: String,
    /// The reference as written (`Practitioner/123`, `urn:uuid:…`), or the display itself.
    pub target: String,
    /// The name.
    pub display: String,
}

/// Resource types whose names references carry.
const NAMED_TYPES: &[&str] = &[
    "Patient",
    "Practitioner",
    "PractitionerRole",
    "RelatedPerson",
    "Organization",
    "Location",
    "HealthcareService",
    "Person",
    "Group",
];

/// Every reference display in `value` that names one of [`NAMED_TYPES`]; `types` maps the
/// message's fullUrls to resource types.
fn collect_displays(
    value: &Value,
    types: &HashMap<String, String>,
    out: &mut Vec<ReferenceDisplay>,
    depth: usize,
) {
    if depth > 64 {
        return;
    }
    match value {
        Value::Object(map) => {
            if let (Some(Value::String(display)), reference) =
                (map.get("display"), map.get("reference"))
            {
                let reference = reference.and_then(Value::as_str);
                let typed = match (reference, map.get("type").and_then(Value::as_str)) {
                    (Some(r), _) if types.contains_key(r) => Some(types[r].clone()),
                    (Some(r), _) => r
                        .split(['?', '#'])
                        .next()
                        .and_then(|r| r.rsplit('/').nth(1).or_else(|| r.split('/').next()))
                        .map(str::to_string),
                    (None, Some(t)) => Some(t.to_string()),
                    (None, None) => None,
                };
                if let Some(resource_type) = typed.filter(|t| NAMED_TYPES.contains(&t.as_str())) {
                    out.push(ReferenceDisplay {
                        resource_type,
                        target: reference.unwrap_or(display).to_string(),
                        display: display.clone(),
                    });
                }
            }
            for v in map.values() {
                collect_displays(v, types, out, depth + 1);
            }
        }
        Value::Array(items) => {
            for v in items {
                collect_displays(v, types, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A resource the message deletes (a transaction or batch entry with `request.method` DELETE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deletion {
    /// Its type.
    pub resource_type: String,
    /// Its logical id.
    pub id: String,
}

/// `Condition/123`, `https://ehr.example/fhir/Condition/123/_history/4` → (Condition, 123). A
/// conditional delete (`Condition?identifier=…`) names no resource: `Err` with the reason.
pub fn deletion_target(url: &str) -> Result<Deletion, String> {
    if url.contains('?') {
        return Err(format!(
            "conditional DELETE ({}) cannot be resolved by this store; send DELETE Type/id",
            url.split('?').next().unwrap_or_default()
        ));
    }
    let mut parts: Vec<&str> = url
        .split('#')
        .next()
        .unwrap_or_default()
        .split('/')
        .collect();
    if let Some(history) = parts.iter().position(|p| *p == "_history") {
        parts.truncate(history);
    }
    let n = parts.len();
    let valid_type = |t: &str| t.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if n >= 2 && valid_type(parts[n - 2]) && !parts[n - 1].is_empty() {
        Ok(Deletion {
            resource_type: parts[n - 2].to_string(),
            id: parts[n - 1].to_string(),
        })
    } else {
        Err("DELETE request.url is not Type/id".into())
    }
}

/// The outcome of parsing one message.
#[derive(Debug, Default)]
pub struct ParsedBundle {
    /// Entries of flattened types that parsed.
    pub entries: Vec<ParsedEntry>,
    /// Names that references carry (practitioners, organizations…), for the vault.
    pub displays: Vec<ReferenceDisplay>,
    /// Entries skipped because we do not flatten their type, by type.
    pub skipped: HashMap<String, usize>,
    /// Entries that failed to parse.
    pub rejected: Vec<RejectedEntry>,
    /// Number of entries in the message (1 for a single resource).
    pub total_entries: usize,
    /// Resources the message deletes.
    pub deletions: Vec<Deletion>,
    /// The source system the message declares (`Bundle.meta.source` without its fragment), if
    /// any.
    pub source: Option<String>,
}

/// Parses one message from the bundle topic. Blocking: call it off the async runtime.
pub fn parse_message(bytes: &[u8], limits: ParseLimits) -> Result<ParsedBundle, ParseError> {
    if bytes.len() > limits.max_bytes {
        return Err(ParseError::TooLarge {
            size: bytes.len(),
            limit: limits.max_bytes,
        });
    }
    let root = read_json(bytes)?;
    let resource_type = declared_type(&root)
        .ok_or_else(|| ParseError::NotFhir("the root has no \"resourceType\" string".into()))?
        .to_string();

    let mut displays = Vec::new();
    if resource_type != "Bundle" {
        collect_displays(&root, &HashMap::new(), &mut displays, 0);
        let source = root.as_object().and_then(declared_source);
        // A single resource: the typed parse also tells a real FHIR type from a made-up one.
        let mut outcome = parse_entries(vec![(0, None, root)], limits);
        outcome.displays = displays;
        outcome.source = source;
        if let Some(rejected) = outcome.rejected.pop() {
            return Err(ParseError::InvalidResource {
                resource_type,
                reason: rejected.reason,
            });
        }
        outcome.total_entries = 1;
        if !FLATTENED_TYPES.contains(&resource_type.as_str()) {
            // Valid FHIR, but nothing we flatten.
            outcome.entries.clear();
            *outcome.skipped.entry(resource_type).or_default() += 1;
        }
        return Ok(outcome);
    }

    let Value::Object(mut bundle) = root else {
        unreachable!("declared_type only succeeds on objects")
    };
    let entries = match bundle.remove("entry") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(entries)) => entries,
        Some(_) => return Err(ParseError::NotFhir("Bundle.entry is not an array".into())),
    };
    let total_entries = entries.len();
    let types: HashMap<String, String> = entries
        .iter()
        .filter_map(|e| {
            let url = e.get("fullUrl")?.as_str()?.to_string();
            let t = declared_type(e.get("resource")?)?.to_string();
            Some((url, t))
        })
        .collect();
    for entry in &entries {
        if let Some(resource) = entry.get("resource") {
            collect_displays(resource, &types, &mut displays, 0);
        }
    }
    let mut skipped: HashMap<String, usize> = HashMap::new();
    let mut rejected = Vec::new();
    let mut to_parse = Vec::new();
    let mut deletions = Vec::new();
    for (index, entry) in entries.into_iter().enumerate() {
        let Value::Object(mut entry) = entry else {
            rejected.push(RejectedEntry {
                index,
                resource_type: "?".into(),
                reason: "entry is not an object".into(),
            });
            continue;
        };
        let full_url = entry
            .get("fullUrl")
            .and_then(Value::as_str)
            .map(str::to_string);
        let method = entry
            .get("request")
            .and_then(|r| r.get("method"))
            .and_then(Value::as_str);
        if method == Some("DELETE") {
            let url = entry
                .get("request")
                .and_then(|r| r.get("url"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            match deletion_target(url) {
                Ok(deletion) => deletions.push(deletion),
                Err(reason) => rejected.push(RejectedEntry {
                    index,
                    resource_type: "DELETE".into(),
                    reason,
                }),
            }
            continue;
        }
        let Some(resource) = entry.remove("resource") else {
            // Entries without a resource (a GET in a batch) carry nothing to flatten.
            *skipped.entry("(no resource)".into()).or_default() += 1;
            continue;
        };
        match declared_type(&resource) {
            None => rejected.push(RejectedEntry {
                index,
                resource_type: "?".into(),
                reason: "resource has no \"resourceType\" string".into(),
            }),
            Some(t) if FLATTENED_TYPES.contains(&t) || LOOKUP_TYPES.contains(&t) => {
                to_parse.push((index, full_url, resource))
            }
            Some(t) => *skipped.entry(t.to_string()).or_default() += 1,
        }
    }
    let mut outcome = parse_entries(to_parse, limits);
    outcome.total_entries = total_entries;
    outcome.deletions = deletions;
    outcome.source = declared_source(&bundle);
    outcome.displays = displays;
    for (t, n) in skipped {
        *outcome.skipped.entry(t).or_default() += n;
    }
    outcome.rejected.extend(rejected);
    outcome.rejected.sort_by_key(|r| r.index);
    Ok(outcome)
}

/// `Bundle.meta.source` up to its `#` (R4 lets a sender append a request id there).
fn declared_source(bundle: &serde_json::Map<String, Value>) -> Option<String> {
    let source = bundle.get("meta")?.get("source")?.as_str()?;
    let system = source.split('#').next().unwrap_or_default().trim();
    (!system.is_empty()).then(|| system.to_string())
}

fn declared_type(value: &Value) -> Option<&str> {
    value.as_object()?.get("resourceType")?.as_str()
}

type Pending = (usize, Option<String>, Value);
type Queue = Arc<Mutex<VecDeque<Pending>>>;

/// Parses entries on a parser thread, one at a time, each under the time limit.
///
/// The thread pulls entries from a queue it shares with the caller and announces the entry it
/// works on; when it overruns the limit, the caller rejects that entry, takes the rest of the
/// queue and starts a fresh thread on it. The stuck thread finds its queue empty if it ever
/// returns.
fn parse_entries(entries: Vec<Pending>, limits: ParseLimits) -> ParsedBundle {
    let mut outcome = ParsedBundle::default();
    let mut queue: VecDeque<Pending> = entries.into();
    while !queue.is_empty() {
        let shared: Queue = Arc::new(Mutex::new(std::mem::take(&mut queue)));
        let current: Arc<Mutex<Option<(usize, String)>>> = Arc::default();
        let state = Arc::new(std::sync::atomic::AtomicU8::new(RUNNING));
        let (sender, receiver) =
            mpsc::channel::<(usize, Option<String>, String, Result<Resource, String>)>();
        let spawned = {
            let shared = Arc::clone(&shared);
            let current = Arc::clone(&current);
            let state = Arc::clone(&state);
            std::thread::Builder::new()
                .name(PARSER_THREAD_NAME.into())
                .spawn(move || loop {
                    let next = lock(&shared).pop_front();
                    let Some((index, full_url, value)) = next else {
                        if state.swap(FINISHED, Ordering::AcqRel) == ABANDONED_STATE {
                            STUCK.fetch_sub(1, Ordering::Relaxed);
                        }
                        return;
                    };
                    let resource_type = declared_type(&value).unwrap_or("?").to_string();
                    *lock(&current) = Some((index, resource_type.clone()));
                    let result = catch_unwind(AssertUnwindSafe(|| typed_parse(value)))
                        .unwrap_or_else(|_| Err("the typed parser panicked".into()));
                    if sender
                        .send((index, full_url, resource_type, result))
                        .is_err()
                    {
                        if state.swap(FINISHED, Ordering::AcqRel) == ABANDONED_STATE {
                            STUCK.fetch_sub(1, Ordering::Relaxed);
                        }
                        return;
                    }
                })
        };
        if let Err(e) = spawned {
            for (index, _, value) in lock(&shared).drain(..) {
                outcome.rejected.push(RejectedEntry {
                    index,
                    resource_type: declared_type(&value).unwrap_or("?").to_string(),
                    reason: format!("could not start a parser thread: {e}"),
                });
            }
            return outcome;
        }
        loop {
            match receiver.recv_timeout(limits.entry_timeout) {
                Ok((_, full_url, resource_type, Ok(resource))) => {
                    outcome.entries.push(ParsedEntry {
                        full_url,
                        resource_type,
                        resource,
                    })
                }
                Ok((index, _, resource_type, Err(reason))) => {
                    outcome.rejected.push(RejectedEntry {
                        index,
                        resource_type,
                        reason,
                    })
                }
                // The thread finished the queue and hung up.
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Take the rest first, so that the stuck thread cannot pick up more.
                    queue = std::mem::take(&mut *lock(&shared));
                    let (index, resource_type) =
                        lock(&current).clone().unwrap_or((usize::MAX, "?".into()));
                    ABANDONED.fetch_add(1, Ordering::Relaxed);
                    if state
                        .compare_exchange(
                            RUNNING,
                            ABANDONED_STATE,
                            Ordering::AcqRel,
                            Ordering::Acquire,
                        )
                        .is_ok()
                    {
                        STUCK.fetch_add(1, Ordering::Relaxed);
                    }
                    tracing::error!(
                        stuck_now = stuck_parser_threads(),
                        entry = index,
                        resource_type = %resource_type,
                        abandoned_total = abandoned_parser_threads(),
                        "typed parse overran its time limit; parser thread abandoned (restart the worker if this repeats)"
                    );
                    outcome.rejected.push(RejectedEntry {
                        index,
                        resource_type,
                        reason: format!(
                            "typed parse did not finish within {:?}",
                            limits.entry_timeout
                        ),
                    });
                    break;
                }
            }
        }
    }
    outcome
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Panics are caught inside the parser thread, so poisoning cannot carry a broken state.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The message as JSON. One invalid UTF-8 byte, or one unpaired surrogate escape (`\ud800`),
/// from a sender's encoding bug must not lose a bundle of valid entries: they become U+FFFD
/// (and a warning), as a lenient reader would; anything else that is not JSON is refused.
fn read_json(bytes: &[u8]) -> Result<Value, ParseError> {
    let error = match serde_json::from_slice(bytes) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    let text = String::from_utf8_lossy(bytes);
    let invalid_utf8 = matches!(text, std::borrow::Cow::Owned(_));
    let (text, surrogates) = replace_lone_surrogates(&text);
    if !invalid_utf8 && surrogates == 0 {
        return Err(ParseError::NotJson(error.to_string()));
    }
    let value = serde_json::from_str(&text).map_err(|e| ParseError::NotJson(e.to_string()))?;
    tracing::warn!(
        invalid_utf8,
        surrogates,
        "message text repaired: invalid bytes and unpaired surrogates became U+FFFD"
    );
    Ok(value)
}

/// Replaces `\uD800`–`\uDFFF` escapes that are not a high surrogate followed by a low one with
/// `\uFFFD`; returns the text and how many were replaced. Backslashes occur only inside JSON
/// strings, so escapes are found by reading backslash pairs from the start.
fn replace_lone_surrogates(text: &str) -> (std::borrow::Cow<'_, str>, usize) {
    fn escape_at(bytes: &[u8], i: usize) -> Option<u32> {
        let hex = bytes.get(i + 2..i + 6)?;
        (bytes.get(i) == Some(&b'\\') && bytes.get(i + 1) == Some(&b'u'))
            .then(|| u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok())
            .flatten()
    }
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let (mut i, mut copied, mut replaced) = (0, 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(code) = escape_at(bytes, i) else {
            i += 2; // `\\`, `\"`, `\n`…: the escaped character is never a backslash opener
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&code)
            && escape_at(bytes, i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&code) {
            let out = out.get_or_insert_with(String::new);
            out.push_str(&text[copied..i]);
            out.push_str("\\uFFFD");
            i += 6;
            copied = i;
            replaced += 1;
        } else {
            i += 6;
        }
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            (std::borrow::Cow::Owned(out), replaced)
        }
        None => (std::borrow::Cow::Borrowed(text), 0),
    }
}

/// Removes control characters (C0 but tab, line feed and carriage return; DEL; C1) from the
/// strings of a resource before it is parsed: a NUL inside a date made the whole resource
/// invalid, and PostgreSQL refuses NUL in any text. Ids and references keep theirs: removing
/// them would make `p<NUL>x` the patient `px`; flatten stores such an id by its digest.
/// Returns how many strings changed.
fn strip_control_characters(value: &mut Value) -> usize {
    let unwanted = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    match value {
        Value::String(text) if text.contains(unwanted) => {
            text.retain(|c| !unwanted(c));
            1
        }
        Value::Array(items) => items.iter_mut().map(strip_control_characters).sum(),
        Value::Object(fields) => fields
            .iter_mut()
            .filter(|(key, _)| !matches!(key.as_str(), "id" | "reference" | "fullUrl"))
            .map(|(_, value)| strip_control_characters(value))
            .sum(),
        _ => 0,
    }
}

fn typed_parse(mut value: Value) -> Result<Resource, String> {
    let cleaned = strip_control_characters(&mut value);
    if cleaned > 0 {
        tracing::debug!(strings = cleaned, "control characters removed");
    }
    let moved = super::upgrade::upgrade(&mut value);
    if !moved.is_empty() {
        tracing::debug!(elements = ?moved, "older FHIR elements moved to their R4 place");
    }
    let config = DeserializationConfig {
        // Unknown elements (extensions from other FHIR versions, vendor fields) do not make a
        // resource useless: keep what the R4 model knows.
        mode: DeserializationMode::Compatibility,
    };
    fhirbolt::json::from_json_value::<Resource>(value, Some(config)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/data/fhir-r4/invalid-fhir-test-cases/cases")
            .join(name);
        std::fs::read(path).unwrap()
    }

    #[test]
    fn the_size_bound_comes_first() {
        let limits = ParseLimits {
            max_bytes: 10,
            ..Default::default()
        };
        assert_eq!(
            parse_message(b"{\"resourceType\":\"Bundle\"}", limits).unwrap_err(),
            ParseError::TooLarge {
                size: 25,
                limit: 10
            }
        );
    }

    #[test]
    fn deep_nesting_is_refused_by_the_json_precheck() {
        let nested = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
        assert!(matches!(
            parse_message(nested.as_bytes(), ParseLimits::default()),
            Err(ParseError::NotJson(_))
        ));
    }

    #[test]
    fn a_parser_panic_rejects_the_entry_only() {
        // fhirbolt 0.4 panics on `"coding": []`; the bundle's other entry survives.
        let panicking: serde_json::Value =
            serde_json::from_slice(&cases("empty-array.json")).unwrap();
        let bundle = serde_json::json!({
            "resourceType": "Bundle",
            "entry": [
                {"resource": {"resourceType": "Observation", "status": "final", "code": {"coding": []}}},
                {"resource": {"resourceType": "Patient", "id": "p1"}},
                {"resource": panicking},
            ]
        });
        let parsed = parse_message(bundle.to_string().as_bytes(), ParseLimits::default()).unwrap();
        assert_eq!(parsed.entries.len(), 1);
        // DocumentReference is not flattened: skipped without parsing.
        assert_eq!(parsed.skipped.get("DocumentReference"), Some(&1));
        assert_eq!(parsed.rejected.len(), 1);
        assert_eq!(parsed.rejected[0].index, 0);
        assert!(
            parsed.rejected[0].reason.contains("panicked"),
            "{:?}",
            parsed.rejected
        );
    }

    #[test]
    fn a_lone_resource_of_an_unknown_type_is_invalid() {
        let err = parse_message(br#"{"resourceType":"Foo"}"#, ParseLimits::default()).unwrap_err();
        assert!(matches!(err, ParseError::InvalidResource { .. }), "{err:?}");
        let ok = parse_message(
            br#"{"resourceType":"Medication","id":"x"}"#,
            ParseLimits::default(),
        )
        .unwrap();
        assert_eq!(ok.skipped.get("Medication"), Some(&1));
    }

    #[test]
    fn encoding_slips_and_control_characters_lose_no_entry() {
        let bundle = |condition_display: &str, onset: &str| {
            format!(
                r#"{{"resourceType": "Bundle", "entry": [
                  {{"resource": {{"resourceType": "Condition", "id": "c1",
                     "subject": {{"reference": "Patient/p1"}}, "onsetDateTime": "{onset}",
                     "code": {{"coding": [{{"display": "{condition_display}"}}]}}}}}},
                  {{"resource": {{"resourceType": "Condition", "id": "c2",
                     "subject": {{"reference": "Patient/p1"}},
                     "code": {{"coding": [{{"display": "Asthma"}}]}}}}}}]}}"#
            )
            .into_bytes()
        };
        let entries = |bytes: &[u8]| {
            let parsed = parse_message(bytes, ParseLimits::default()).unwrap();
            assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
            parsed.entries.len()
        };
        // A NUL inside a date: removed, the Condition kept.
        assert_eq!(entries(&bundle("Sinusitis", r"2020-01-02\u0000")), 2);
        // One byte that is not UTF-8 (Latin-1 é).
        let mut latin1 = bundle("Caf_ lung", "2020-01-02");
        let at = latin1.windows(4).position(|w| w == b"Caf_").unwrap() + 3;
        latin1[at] = 0xE9;
        assert!(std::str::from_utf8(&latin1).is_err());
        assert_eq!(entries(&latin1), 2);
        // Unpaired surrogate escapes, leading and trailing; a real pair and an escaped
        // backslash before a `u` stay as they are.
        assert_eq!(entries(&bundle(r"A\ud800 B\udc00", "2020-01-02")), 2);
        let (text, replaced) = replace_lone_surrogates(r#""\ud83d\ude00 \\ud800 \ud800x \udfff""#);
        assert_eq!(replaced, 2);
        assert_eq!(text, r#""\ud83d\ude00 \\ud800 \uFFFDx \uFFFD""#);
        // What is not JSON at all stays refused.
        assert!(matches!(
            parse_message(b"{\"resourceType\": \xff", ParseLimits::default()),
            Err(ParseError::NotJson(_))
        ));
    }

    #[test]
    fn the_dstu2_comments_case_does_not_hang() {
        // fhirbolt's strict mode never returns on this; compatibility mode and the time bound
        // must both keep the worker moving.
        let started = std::time::Instant::now();
        let limits = ParseLimits {
            entry_timeout: Duration::from_millis(500),
            ..Default::default()
        };
        let _ = parse_message(&cases("json-comments.json"), limits);
        // A hang, not a speed: generous, so that a loaded machine does not fail it.
        assert!(started.elapsed() < Duration::from_secs(60));
    }
}
