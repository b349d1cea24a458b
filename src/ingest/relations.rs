//! Who treats whom, read from the feed: the practitioners a resource links to its patient (an
//! encounter's participants, a care team's members, a prescription's requester, a procedure's or
//! an immunization's performers), and the identifiers a Practitioner resource is also known by.
//! The gateway lets a clinician ask about the patients they have such a link with.

use std::collections::HashMap;

use chrono::NaiveDate;
use fhirbolt::model::r4::resources::CareTeam;
use fhirbolt::model::r4::types::Reference;
use fhirbolt::model::r4::Resource;

use super::parse::ParsedEntry;

/// One link between a patient and a practitioner, carried by one resource.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CareLink {
    /// The patient's logical id.
    pub patient: String,
    /// The resource that carries the link (retracted with it).
    pub resource_type: &'static str,
    /// Its stored id.
    pub resource_id: String,
    /// The practitioner, as [`practitioner_key`] normalizes it.
    pub practitioner: String,
    /// How they are linked: `encounter_participant`, `care_team_member`, `prescriber`,
    /// `performer`.
    pub kind: &'static str,
    /// The day of the link (an encounter's start, a prescription's date, a care team's end);
    /// `None` for an ongoing care team.
    pub day: Option<NaiveDate>,
}

/// A Practitioner resource's identifier as the conditional reference a feed may use for it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PractitionerAlias {
    /// `Practitioner/<id>`.
    pub reference: String,
    /// `Practitioner?identifier=<system>|<value>`.
    pub alias: String,
}

/// The practitioner a reference names, normalized: `Practitioner/<id>` (also from an absolute
/// URL or a versioned reference), `PractitionerRole/<id>`, or the conditional reference
/// `Practitioner?identifier=<system>|<value>`; `None` for anything else. `bundle` maps the
/// fullUrls of the message's own Practitioner entries to their references.
pub fn practitioner_key(reference: &str, bundle: &HashMap<String, String>) -> Option<String> {
    let reference = reference.trim();
    if let Some(known) = bundle.get(reference) {
        return Some(known.clone());
    }
    for kind in ["PractitionerRole", "Practitioner"] {
        let conditional = format!("{kind}?identifier=");
        if let Some(at) = reference.find(&conditional) {
            let at_boundary = at == 0 || reference[..at].ends_with('/');
            let value = &reference[at + conditional.len()..];
            if at_boundary && !value.is_empty() {
                return Some(format!("{conditional}{value}"));
            }
            return None;
        }
        let path = format!("{kind}/");
        let start = if reference.starts_with(&path) {
            Some(0)
        } else {
            reference.rfind(&format!("/{path}")).map(|i| i + 1)
        };
        if let Some(start) = start {
            let id = reference[start + path.len()..].split('/').next()?;
            return super::flatten::is_fhir_id(id).then(|| format!("{kind}/{id}"));
        }
    }
    None
}

/// The fullUrls of the message's Practitioner and PractitionerRole entries, to their
/// references.
pub fn bundle_practitioners(entries: &[ParsedEntry]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for entry in entries {
        let kind = match &entry.resource {
            Resource::Practitioner(_) => "Practitioner",
            Resource::PractitionerRole(_) => "PractitionerRole",
            _ => continue,
        };
        if let (Some(url), Some(id)) = (
            entry.full_url.as_deref(),
            entry.resource.id().and_then(|i| i.value.as_deref()),
        ) {
            out.insert(url.to_string(), format!("{kind}/{id}"));
        }
    }
    out
}

/// The identifiers of the message's Practitioner resources, as aliases of their references.
pub fn practitioner_aliases(entries: &[ParsedEntry]) -> Vec<PractitionerAlias> {
    let mut out = Vec::new();
    for entry in entries {
        let Resource::Practitioner(practitioner) = &entry.resource else {
            continue;
        };
        let Some(id) = practitioner.id.as_ref().and_then(|i| i.value.as_deref()) else {
            continue;
        };
        let reference = format!("Practitioner/{id}");
        if practitioner_key(&reference, &HashMap::new()).as_deref() != Some(&reference) {
            continue;
        }
        for identifier in &practitioner.identifier {
            let system = identifier
                .system
                .as_ref()
                .and_then(|s| s.value.as_deref())
                .unwrap_or("");
            let Some(value) = identifier.value.as_ref().and_then(|v| v.value.as_deref()) else {
                continue;
            };
            // An identifier without its system means nothing across systems: not an alias.
            if system.is_empty()
                || value.is_empty()
                || [system, value]
                    .iter()
                    .any(|s| s.chars().any(char::is_control) || s.len() > 256)
            {
                continue;
            }
            let alias = format!("Practitioner?identifier={system}|{value}");
            out.push(PractitionerAlias {
                reference: reference.clone(),
                alias,
            });
        }
    }
    out
}

/// The practitioners one resource links to its patient, and how: `(reference, kind)`. Only
/// resources that are stored as facts (and a care team) carry links.
pub fn linked_practitioners(resource: &Resource) -> Vec<(&Reference, &'static str)> {
    let mut out: Vec<(&Reference, &'static str)> = Vec::new();
    match resource {
        Resource::Encounter(r) => {
            // A planned or cancelled visit treats nobody.
            let status = r.status.value.as_deref().unwrap_or("");
            if matches!(status, "planned" | "cancelled") {
                return out;
            }
            for p in &r.participant {
                if let Some(individual) = p.individual.as_deref() {
                    out.push((individual, "encounter_participant"));
                }
            }
        }
        Resource::MedicationRequest(r) => {
            if let Some(requester) = r.requester.as_deref() {
                out.push((requester, "prescriber"));
            }
            if let Some(performer) = r.performer.as_deref() {
                out.push((performer, "performer"));
            }
        }
        Resource::Procedure(r) => {
            for p in &r.performer {
                out.push((&p.actor, "performer"));
            }
        }
        Resource::Immunization(r) => {
            for p in &r.performer {
                out.push((&p.actor, "performer"));
            }
        }
        Resource::CareTeam(r) => {
            for p in &r.participant {
                if let Some(member) = p.member.as_deref() {
                    out.push((member, "care_team_member"));
                }
            }
        }
        _ => {}
    }
    out
}

/// The day of a care team's links: its period's end, else its start (an ongoing team counts
/// from its start, inside the window like any other link; it is never a standing pass).
pub fn care_team_day(team: &CareTeam) -> Option<NaiveDate> {
    let period = team.period.as_deref()?;
    period
        .end
        .as_ref()
        .or(period.start.as_ref())
        .and_then(|d| d.value.as_deref())
        .and_then(super::flatten::local_date)
}

/// The links of one resource, deduplicated by practitioner (the latest kind wins).
pub fn links(
    resource: &Resource,
    patient: &str,
    resource_type: &'static str,
    resource_id: &str,
    day: Option<NaiveDate>,
    bundle: &HashMap<String, String>,
) -> Vec<CareLink> {
    let mut by_practitioner: HashMap<String, &'static str> = HashMap::new();
    for (reference, kind) in linked_practitioners(resource) {
        let Some(target) = reference
            .reference
            .as_ref()
            .and_then(|r| r.value.as_deref())
        else {
            continue;
        };
        if let Some(key) = practitioner_key(target, bundle) {
            by_practitioner.insert(key, kind);
        }
    }
    let mut out: Vec<CareLink> = by_practitioner
        .into_iter()
        .map(|(practitioner, kind)| CareLink {
            patient: patient.to_string(),
            resource_type,
            resource_id: resource_id.to_string(),
            practitioner,
            kind,
            day,
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_to_practitioners_are_normalized() {
        let none = HashMap::new();
        let key = |r: &str| practitioner_key(r, &none);
        assert_eq!(key("Practitioner/123").as_deref(), Some("Practitioner/123"));
        assert_eq!(
            key("https://ehr.example.org/fhir/Practitioner/123/_history/4").as_deref(),
            Some("Practitioner/123")
        );
        assert_eq!(
            key("Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|9999999619").as_deref(),
            Some("Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|9999999619")
        );
        assert_eq!(
            key("PractitionerRole/abc").as_deref(),
            Some("PractitionerRole/abc")
        );
        assert_eq!(key("Organization/1"), None);
        assert_eq!(key("Patient/1"), None);
        assert_eq!(key("Practitioner/"), None);
        assert_eq!(key("Practitioner/a b"), None);
        assert_eq!(key("NotPractitioner/1"), None);
        let bundle = HashMap::from([("urn:uuid:42".to_string(), "Practitioner/p42".to_string())]);
        assert_eq!(
            practitioner_key("urn:uuid:42", &bundle).as_deref(),
            Some("Practitioner/p42")
        );
    }
}
