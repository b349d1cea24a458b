//! Older FHIR shapes (STU3 and DSTU2, as older Synthea exports and many EHR feeds still write
//! them) rewritten into their R4 form before the typed parse.
//!
//! The typed parser reads R4 in compatibility mode: an element it does not know is dropped
//! without a word. For the elements below that would lose data silently (an Immunization without
//! its date is invalid R4 and is rejected whole; a Condition whose `clinicalStatus` is a plain
//! code loses its status), so they are moved to where R4 keeps them. Only shapes that cannot be
//! R4 are touched: a resource already in R4 form passes through unchanged.

use serde_json::{json, Map, Value};

/// Code systems R4 requires on the status concepts that STU3 wrote as plain codes.
const CONDITION_CLINICAL: &str = "http://terminology.hl7.org/CodeSystem/condition-clinical";
const CONDITION_VERIFICATION: &str = "http://terminology.hl7.org/CodeSystem/condition-ver-status";
const ALLERGY_CLINICAL: &str = "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical";
const ALLERGY_VERIFICATION: &str =
    "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification";

/// Rewrites `resource` in place; returns the names of the elements it moved (for logs and
/// tests), empty when the resource was already R4.
pub fn upgrade(resource: &mut Value) -> Vec<&'static str> {
    let mut moved = Vec::new();
    let Some(map) = resource.as_object_mut() else {
        return moved;
    };
    match map.get("resourceType").and_then(Value::as_str) {
        Some("Immunization") => immunization(map, &mut moved),
        Some("Condition") => {
            status_code(map, "clinicalStatus", CONDITION_CLINICAL, &mut moved);
            status_code(
                map,
                "verificationStatus",
                CONDITION_VERIFICATION,
                &mut moved,
            );
            // STU3 `assertedDate`, DSTU2 `dateRecorded`: R4 `recordedDate`.
            rename(map, "assertedDate", "recordedDate", &mut moved);
            rename(map, "dateRecorded", "recordedDate", &mut moved);
            // DSTU2 wrote the subject as `patient`.
            rename(map, "patient", "subject", &mut moved);
        }
        Some("AllergyIntolerance") => {
            // DSTU2 `status` (active, resolved, entered-in-error…) held both statuses.
            if let Some(Value::String(status)) = map.get("status").cloned() {
                if !map.contains_key("clinicalStatus") && !map.contains_key("verificationStatus") {
                    map.remove("status");
                    let field = match status.as_str() {
                        "entered-in-error" | "refuted" | "confirmed" | "unconfirmed" => {
                            "verificationStatus"
                        }
                        _ => "clinicalStatus",
                    };
                    map.insert(field.into(), Value::String(status));
                    moved.push("status");
                }
            }
            status_code(map, "clinicalStatus", ALLERGY_CLINICAL, &mut moved);
            status_code(map, "verificationStatus", ALLERGY_VERIFICATION, &mut moved);
            rename(map, "assertedDate", "recordedDate", &mut moved);
        }
        Some("Procedure") => {
            // STU3 `notDone: true`: R4 status `not-done`.
            if let Some(flag) = map.remove("notDone") {
                if flag == Value::Bool(true) {
                    map.insert("status".into(), json!("not-done"));
                }
                moved.push("notDone");
            }
        }
        _ => {}
    }
    moved
}

fn immunization(map: &mut Map<String, Value>, moved: &mut Vec<&'static str>) {
    let has_occurrence =
        map.contains_key("occurrenceDateTime") || map.contains_key("occurrenceString");
    if !has_occurrence {
        if let Some(date) = map.remove("date") {
            map.insert("occurrenceDateTime".into(), date);
            moved.push("date");
        }
    }
    // STU3 `notGiven`, DSTU2 `wasNotGiven`: R4 status `not-done`.
    for flag in ["notGiven", "wasNotGiven"] {
        if let Some(value) = map.remove(flag) {
            if value == Value::Bool(true) {
                map.insert("status".into(), json!("not-done"));
            }
            moved.push(if flag == "notGiven" {
                "notGiven"
            } else {
                "wasNotGiven"
            });
        }
    }
    // R4 requires a status; some DSTU2 exports have none. Only for an old-shaped resource:
    // an R4 one without a status stays invalid.
    if !moved.is_empty() {
        map.entry("status").or_insert_with(|| json!("completed"));
    }
    // DSTU2 `reported: false` and STU3 `primarySource` are the same idea; R4 keeps the latter.
    if let Some(Value::Bool(reported)) = map.remove("reported") {
        map.entry("primarySource").or_insert(Value::Bool(!reported));
        moved.push("reported");
    }
}

/// A status that is a plain code string (`"clinicalStatus": "active"`) becomes the concept R4
/// expects.
fn status_code(
    map: &mut Map<String, Value>,
    field: &'static str,
    system: &str,
    moved: &mut Vec<&'static str>,
) {
    if let Some(Value::String(code)) = map.get(field) {
        let concept = json!({ "coding": [{ "system": system, "code": code }] });
        map.insert(field.into(), concept);
        moved.push(field);
    }
}

fn rename(
    map: &mut Map<String, Value>,
    old: &'static str,
    new: &'static str,
    moved: &mut Vec<&'static str>,
) {
    if map.contains_key(new) {
        return;
    }
    if let Some(value) = map.remove(old) {
        map.insert(new.into(), value);
        moved.push(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_stu3_immunization_keeps_its_date() {
        let mut r = json!({
            "resourceType": "Immunization", "id": "i1", "status": "completed", "notGiven": false,
            "vaccineCode": {"coding": [{"code": "140", "display": "Influenza"}]},
            "patient": {"reference": "urn:uuid:p1"}, "date": "2014-05-04T10:00:00-04:00",
            "primarySource": true
        });
        assert_eq!(upgrade(&mut r), vec!["date", "notGiven"]);
        assert_eq!(r["occurrenceDateTime"], "2014-05-04T10:00:00-04:00");
        assert_eq!(r["status"], "completed");
        assert!(r.get("date").is_none());
    }

    #[test]
    fn an_immunization_not_given_is_not_done() {
        let mut r = json!({"resourceType": "Immunization", "wasNotGiven": true, "date": "2014"});
        upgrade(&mut r);
        assert_eq!(r["status"], "not-done");
    }

    #[test]
    fn plain_status_codes_become_concepts() {
        let mut r = json!({
            "resourceType": "Condition", "clinicalStatus": "resolved",
            "verificationStatus": "confirmed", "assertedDate": "2010-01-01"
        });
        upgrade(&mut r);
        assert_eq!(r["clinicalStatus"]["coding"][0]["code"], "resolved");
        assert_eq!(
            r["clinicalStatus"]["coding"][0]["system"],
            CONDITION_CLINICAL
        );
        assert_eq!(r["verificationStatus"]["coding"][0]["code"], "confirmed");
        assert_eq!(r["recordedDate"], "2010-01-01");

        let mut a = json!({"resourceType": "AllergyIntolerance", "status": "entered-in-error"});
        upgrade(&mut a);
        assert_eq!(
            a["verificationStatus"]["coding"][0]["code"],
            "entered-in-error"
        );
        assert_eq!(
            a["verificationStatus"]["coding"][0]["system"],
            ALLERGY_VERIFICATION
        );
    }

    #[test]
    fn r4_resources_pass_unchanged() {
        let mut r = json!({
            "resourceType": "Condition",
            "clinicalStatus": {"coding": [{"system": CONDITION_CLINICAL, "code": "active"}]},
            "recordedDate": "2010-01-01", "subject": {"reference": "Patient/1"}
        });
        let before = r.clone();
        assert!(upgrade(&mut r).is_empty());
        assert_eq!(r, before);
        let mut i = json!({"resourceType": "Immunization", "status": "completed",
            "occurrenceDateTime": "2014", "patient": {"reference": "Patient/1"}});
        let before = i.clone();
        assert!(upgrade(&mut i).is_empty());
        assert_eq!(i, before);
    }
}
