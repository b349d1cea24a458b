//! A synthetic population grown from a template archive (`fhir-rag generate`, `bench scale`).
//!
//! Patient `k` is a copy of template `k mod templates`, made a new person: every resource id of
//! its bundle (and every reference to it) is a new UUID; names, identifiers, telecom, addresses
//! and the extensions that carry them (mother's maiden name, birth place) are generated; every
//! date is shifted by the same number of days (so intervals and ages at events stay those of a
//! plausible life); measured values are jittered by up to ±5 %; narratives are dropped. The
//! template's names are also replaced wherever they appear in other resources (displays).
//! Bundles without a patient (the hospital's organizations and practitioners) are shared: the
//! new patients see the same clinicians, so treatment relationships grow as a hospital's would.
//! Everything is seeded: the same seed gives the same population.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// How far back each patient's dates may be shifted, in days (up to five years earlier, never
/// later: no record lands in the future).
const MAX_SHIFT_DAYS: i64 = 5 * 365;

/// The templates and the shared bundles of an archive.
pub struct Population {
    templates: Vec<Value>,
    shared: Vec<Vec<u8>>,
    seed: u64,
}

impl Population {
    /// Reads every bundle of `archive` (files as the backfill reads them): those with a Patient
    /// are templates, the others are shared.
    pub fn from_archive(archive: &Path, seed: u64) -> anyhow::Result<Self> {
        let mut templates = Vec::new();
        let mut shared = Vec::new();
        for path in crate::backfill::list_files(archive)? {
            let bytes = crate::backfill::read_file(&path)?;
            let bundle: Value = serde_json::from_slice(&bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            if patient_of(&bundle).is_some() {
                templates.push(bundle);
            } else {
                shared.push(bytes);
            }
        }
        anyhow::ensure!(
            !templates.is_empty(),
            "{}: no bundle with a Patient to grow a population from",
            archive.display()
        );
        Ok(Population {
            templates,
            shared,
            seed,
        })
    }

    /// The bundles every patient shares (organizations, practitioners): ingest them first.
    pub fn shared(&self) -> &[Vec<u8>] {
        &self.shared
    }

    /// Template bundles.
    pub fn templates(&self) -> usize {
        self.templates.len()
    }

    /// Patient `k`'s bundle.
    pub fn patient(&self, k: u64) -> Value {
        let template = &self.templates[(k % self.templates.len() as u64) as usize];
        let mut bundle = template.clone();
        Person::new(self.seed, k, template).rewrite(&mut bundle);
        bundle
    }

    /// Writes the shared bundles and patients `0..patients` as JSON files into `out`.
    pub fn write(&self, out: &Path, patients: u64) -> anyhow::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(out)?;
        let mut written = Vec::new();
        for (i, bytes) in self.shared.iter().enumerate() {
            let path = out.join(format!("0-shared-{i}.json"));
            std::fs::write(&path, bytes)?;
            written.push(path);
        }
        for k in 0..patients {
            let path = out.join(format!("patient-{k:07}.json"));
            std::fs::write(&path, serde_json::to_vec(&self.patient(k))?)?;
            written.push(path);
        }
        Ok(written)
    }
}

/// The Patient resource of a bundle, if it has one.
fn patient_of(bundle: &Value) -> Option<&Value> {
    bundle["entry"]
        .as_array()?
        .iter()
        .map(|e| &e["resource"])
        .find(|r| r["resourceType"] == "Patient")
}

/// One new person: the random source, the id map, the name map and the date shift.
struct Person {
    rng: ChaCha8Rng,
    ids: HashMap<String, String>,
    names: Vec<(String, String)>,
    shift_days: i64,
}

impl Person {
    fn new(seed: u64, k: u64, template: &Value) -> Self {
        let digest = Sha256::digest(format!("{seed}/{k}"));
        let mut rng = ChaCha8Rng::from_seed(digest.into());
        let mut ids = HashMap::new();
        for entry in template["entry"].as_array().into_iter().flatten() {
            if let Some(id) = entry["resource"]["id"].as_str() {
                ids.insert(id.to_string(), new_uuid(&mut rng));
            }
            if let Some(url) = entry["fullUrl"].as_str() {
                if let Some(id) = url.strip_prefix("urn:uuid:") {
                    ids.entry(id.to_string())
                        .or_insert_with(|| new_uuid(&mut rng));
                }
            }
        }
        let shift_days = -rng.random_range(0..=MAX_SHIFT_DAYS);
        let mut names = Vec::new();
        if let Some(patient) = patient_of(template) {
            for name in patient["name"].as_array().into_iter().flatten() {
                let words = name["given"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .chain(std::iter::once(&name["family"]))
                    .filter_map(Value::as_str);
                for word in words {
                    if word.chars().count() >= 2 && !names.iter().any(|(old, _)| old == word) {
                        names.push((word.to_string(), new_name(&mut rng)));
                    }
                }
            }
        }
        // Longer names first, so that a name inside another is not replaced in part.
        names.sort_by_key(|(old, _)| std::cmp::Reverse(old.len()));
        Person {
            rng,
            ids,
            names,
            shift_days,
        }
    }

    fn rewrite(&mut self, bundle: &mut Value) {
        if let Some(entries) = bundle["entry"].as_array_mut() {
            for entry in entries {
                let resource = &mut entry["resource"];
                if let Some(map) = resource.as_object_mut() {
                    map.remove("text");
                }
                if resource["resourceType"] == "Patient" {
                    self.new_identity(resource);
                }
            }
        }
        if let Some(id) = bundle["id"].as_str() {
            let id = self
                .ids
                .get(id)
                .cloned()
                .unwrap_or_else(|| new_uuid(&mut self.rng));
            bundle["id"] = Value::String(id);
        }
        self.walk(bundle);
    }

    /// An identifier's value: the new id where it is an id of this bundle (Synthea's record
    /// numbers), else random characters of the same shape.
    fn new_identifier(&mut self, identifier: &mut Value) {
        let Some(value) = identifier["value"].as_str() else {
            return;
        };
        let new = match self.ids.get(value) {
            Some(id) => id.clone(),
            None => same_shape(&mut self.rng, value),
        };
        identifier["value"] = Value::String(new);
    }

    /// The Patient's identifying fields, generated.
    fn new_identity(&mut self, patient: &mut Value) {
        for telecom in patient["telecom"].as_array_mut().into_iter().flatten() {
            if telecom["value"].is_string() {
                let number = format!(
                    "555-{:03}-{:04}",
                    self.rng.random_range(100..1000),
                    self.rng.random_range(0..10_000)
                );
                telecom["value"] = Value::String(number);
            }
        }
        for address in patient["address"].as_array_mut().into_iter().flatten() {
            self.new_address(address);
        }
        for extension in patient["extension"].as_array_mut().into_iter().flatten() {
            let Some(map) = extension.as_object_mut() else {
                continue;
            };
            // Quality- and disability-adjusted life years, to many digits: a template's
            // fingerprint.
            if let Some(x) = map.get("valueDecimal").and_then(Value::as_f64) {
                let jittered = x * (1.0 + self.rng.random_range(-0.05..=0.05));
                map.insert(
                    "valueDecimal".into(),
                    Value::from((jittered * 1e3).round() / 1e3),
                );
            }
            if map.contains_key("valueString") {
                map.insert("valueString".into(), Value::String(new_name(&mut self.rng)));
            }
            if let Some(address) = map.get_mut("valueAddress") {
                self.new_address(address);
            }
        }
    }

    fn new_address(&mut self, address: &mut Value) {
        let Some(map) = address.as_object_mut() else {
            return;
        };
        // Geolocation extensions and the like: exact coordinates of a home.
        map.remove("extension");
        if map.contains_key("line") {
            let street = format!(
                "{} {} {}",
                self.rng.random_range(1..999),
                new_word(&mut self.rng, 2),
                ["Street", "Avenue", "Lane", "Road"][self.rng.random_range(0..4)]
            );
            map.insert("line".into(), Value::Array(vec![Value::String(street)]));
        }
        if map.contains_key("city") {
            map.insert("city".into(), Value::String(new_word(&mut self.rng, 3)));
        }
        if map.contains_key("postalCode") {
            let code = format!("{:05}", self.rng.random_range(0..100_000));
            map.insert("postalCode".into(), Value::String(code));
        }
    }

    /// Every string: ids mapped, dates shifted, the template's names replaced; every measured
    /// value jittered.
    fn walk(&mut self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Some(new) = self.rewrite_string(s) {
                    *s = new;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.walk(v)),
            Value::Object(map) => {
                // An attachment's content (base64 notes and reports) repeats the template's
                // name and its unshifted dates; the ingest path never reads it.
                if map.contains_key("contentType") {
                    map.remove("data");
                }
                for (key, v) in map.iter_mut() {
                    if key == "valueQuantity" {
                        self.jitter(v);
                    }
                    if SCRAMBLED.contains(&key.as_str()) {
                        if let Value::String(s) = v {
                            *s = same_shape(&mut self.rng, s);
                        }
                        continue;
                    }
                    if key == "identifier" {
                        // A resource's own identifiers (an array; a Reference's single
                        // identifier names a shared practitioner and is kept).
                        for identifier in v.as_array_mut().into_iter().flatten() {
                            self.new_identifier(identifier);
                        }
                    }
                    if key != "resourceType" && key != "system" && key != "code" {
                        self.walk(v);
                    }
                }
            }
            _ => {}
        }
    }

    fn rewrite_string(&self, s: &str) -> Option<String> {
        if let Some(shifted) = shift_date(s, self.shift_days) {
            return Some(shifted);
        }
        match self.map_ids(s) {
            Some(mapped) => Some(self.replace_names(&mapped).unwrap_or(mapped)),
            None => self.replace_names(s),
        }
    }

    /// Every id of this bundle inside `s` (`urn:uuid:…`, `Patient/…`, a bare id), mapped.
    fn map_ids(&self, s: &str) -> Option<String> {
        let id = s
            .strip_prefix("urn:uuid:")
            .or_else(|| s.split_once('/').map(|(_, id)| id))
            .unwrap_or(s);
        let new = self.ids.get(id)?;
        Some(format!("{}{new}", &s[..s.len() - id.len()]))
    }

    fn replace_names(&self, s: &str) -> Option<String> {
        let mut out = None::<String>;
        for (old, new) in &self.names {
            let text = out.as_deref().unwrap_or(s);
            if text.contains(old.as_str()) {
                out = Some(text.replace(old.as_str(), new));
            }
        }
        out
    }

    fn jitter(&mut self, quantity: &mut Value) {
        let Some(x) = quantity["value"].as_f64() else {
            return;
        };
        let factor = 1.0 + self.rng.random_range(-0.05..=0.05);
        let jittered = x * factor;
        quantity["value"] = if quantity["value"].is_i64() || quantity["value"].is_u64() {
            Value::from(jittered.round() as i64)
        } else {
            serde_json::Number::from_f64((jittered * 100.0).round() / 100.0)
                .map(Value::Number)
                .unwrap_or(Value::from(x))
        };
    }
}

/// `s` shifted by `days` when it is a FHIR date or dateTime (`YYYY-MM-DD`, then optionally a
/// time and zone, kept as they are: whole days do not move the time of day).
fn shift_date(s: &str, days: i64) -> Option<String> {
    let bytes = s.as_bytes();
    if bytes.len() < 10
        || bytes[4] != b'-'
        || bytes[7] != b'-'
        || (bytes.len() > 10 && bytes[10] != b'T')
    {
        return None;
    }
    let date = chrono::NaiveDate::parse_from_str(&s[..10], "%Y-%m-%d").ok()?;
    let shifted = date.checked_add_signed(chrono::Duration::days(days))?;
    Some(format!("{}{}", shifted.format("%Y-%m-%d"), &s[10..]))
}

/// A random version-4 UUID from the person's seeded source.
fn new_uuid(rng: &mut ChaCha8Rng) -> String {
    let mut b: [u8; 16] = rng.random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

const SYLLABLES: [&str; 24] = [
    "ka", "lo", "mi", "ra", "ten", "vor", "sel", "dan", "bri", "to", "ne", "mar", "ul", "shi",
    "den", "ko", "fa", "gri", "ha", "jon", "pe", "qui", "sa", "wen",
];

/// Fields whose values identify a device, a study or a specimen (and carry dates: an imaging
/// uid ends in the study's time in milliseconds): random characters of the same shape.
const SCRAMBLED: [&str; 6] = [
    "uid",
    "serialNumber",
    "lotNumber",
    "distinctIdentifier",
    "deviceIdentifier",
    "carrierHRF",
];

/// A pronounceable made-up word of `syllables` syllables, capitalized.
fn new_word(rng: &mut ChaCha8Rng, syllables: usize) -> String {
    let word: String = (0..syllables)
        .map(|_| SYLLABLES[rng.random_range(0..SYLLABLES.len())])
        .collect();
    crate::text::capitalized(&word)
}

/// A made-up name in Synthea's style (a word and three digits), unlike any real person's.
fn new_name(rng: &mut ChaCha8Rng) -> String {
    let syllables = rng.random_range(2..=3);
    format!(
        "{}{}",
        new_word(rng, syllables),
        rng.random_range(100..1000)
    )
}

/// `value` with each digit replaced by a random digit and each letter by a random letter of
/// the same case; other characters kept (an SSN stays `ddd-dd-dddd`).
fn same_shape(rng: &mut ChaCha8Rng, value: &str) -> String {
    // Synthea's SSNs and licence numbers start with 999 / S999, a range never issued: kept, so
    // that a generated number cannot be a real person's.
    let kept = ["S999", "999"]
        .iter()
        .find(|p| value.starts_with(**p))
        .map_or(0, |p| p.len());
    let (head, tail) = value.split_at(kept);
    head.to_string()
        + &tail
            .chars()
            .map(|c| {
                if c.is_ascii_digit() {
                    char::from(b'0' + rng.random_range(0..10u8))
                } else if c.is_ascii_lowercase() {
                    char::from(b'a' + rng.random_range(0..26u8))
                } else if c.is_ascii_uppercase() {
                    char::from(b'A' + rng.random_range(0..26u8))
                } else {
                    c
                }
            })
            .collect::<String>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(crate::backfill::ARCHIVE)
    }

    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            Value::Object(m) => m.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }

    #[test]
    fn dates_shift_by_whole_days_and_keep_their_time() {
        assert_eq!(shift_date("2020-03-01", -1).as_deref(), Some("2020-02-29"));
        assert_eq!(
            shift_date("2019-01-10T08:15:00-05:00", -10).as_deref(),
            Some("2018-12-31T08:15:00-05:00")
        );
        assert_eq!(shift_date("2019-13-10", -1), None);
        assert_eq!(shift_date("123-45-6789", -1), None);
        assert_eq!(shift_date("2019-01-10x", -1), None);
    }

    #[test]
    fn a_grown_patient_shares_no_identity_with_its_template_and_still_parses() {
        let population = Population::from_archive(&archive(), 7).unwrap();
        let n = population.templates() as u64;
        let template = &population.templates[1];
        let grown = population.patient(n + 1);
        let old = patient_of(template).unwrap();
        let new = patient_of(&grown).unwrap();
        // Identifying strings of the template: names, identifiers, telecom, address, id.
        let mut identifying: Vec<String> = vec![old["id"].as_str().unwrap().to_string()];
        let values = |field: &str, key: &str| -> Vec<String> {
            let mut found = Vec::new();
            for item in old[field].as_array().into_iter().flatten() {
                strings(&item[key], &mut found);
            }
            found
        };
        identifying.extend(values("name", "given"));
        identifying.extend(values("name", "family"));
        identifying.extend(values("identifier", "value"));
        identifying.extend(values("telecom", "value"));
        identifying.extend(values("address", "line"));
        identifying.extend(values("address", "postalCode"));
        assert!(identifying.len() >= 5, "{identifying:?}");
        let text = grown.to_string();
        assert!(!text.contains("\"data\""), "attachment content is dropped");
        for s in &identifying {
            assert!(
                !text.contains(s.as_str()),
                "{s} is still in the grown bundle"
            );
        }
        assert_ne!(old["birthDate"], new["birthDate"]);
        assert_eq!(old["gender"], new["gender"]);
        // Every internal reference points at a resource of the new bundle.
        let ids: Vec<&str> = grown["entry"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["resource"]["id"].as_str())
            .collect();
        let mut all = Vec::new();
        strings(&grown, &mut all);
        let references = all
            .iter()
            .filter_map(|s| s.strip_prefix("urn:uuid:"))
            .collect::<Vec<_>>();
        assert!(!references.is_empty());
        assert!(references.iter().all(|r| ids.contains(r)));
        // The same seed gives the same person; another patient number another one.
        assert_eq!(grown, population.patient(n + 1));
        assert_ne!(
            patient_of(&population.patient(n + 2)).unwrap()["id"],
            new["id"]
        );
        // And the ingest path takes it as it takes the template.
        let bytes = serde_json::to_vec(&grown).unwrap();
        let parsed = crate::ingest::parse::parse_message(&bytes, Default::default()).unwrap();
        let template_parsed = crate::ingest::parse::parse_message(
            &serde_json::to_vec(template).unwrap(),
            Default::default(),
        )
        .unwrap();
        assert_eq!(parsed.entries.len(), template_parsed.entries.len());
        assert!(parsed.rejected.is_empty());
    }
}
