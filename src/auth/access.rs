//! What a verified token lets its bearer ask, from its SMART scopes and claims. The patient list
//! never comes from the client: it is the token's launch patient, or the clinician's treatment
//! relationships in the store.
//!
//! | token | access | role on the query | patients |
//! |---|---|---|---|
//! | `user/*.read` (or `.rs`) with `fhirUser` = `Practitioner/…` or `PractitionerRole/…` | clinician | `clinician` | those with a treatment relationship in the window (and one break-the-glass patient) |
//! | `patient/*.read` (or `.rs`) with a `patient` claim | patient-context app | `patient` | that one patient |
//! | `system/*.read` (or `.rs`) from a client in `--cohort-clients`, or a role in `--roles-claim` listed in `--cohort-role-values` | cohort | `researcher` | none: groups of at least k over the whole store |
//!
//! Scopes for single resource types (`patient/Observation.read`) or with query restrictions
//! (`user/Observation.rs?category=…`) do not grant a question: answers draw on every resource
//! type, so only the wildcard does. Anything else is `insufficient_scope`.

use std::collections::HashMap;

use super::token::{TokenClaims, TokenConfig};
use crate::ingest::relations::practitioner_key;

/// Role names the gateway puts on queries (the answer workers' defaults know them).
pub const CLINICIAN_ROLE: &str = "clinician";
/// Role of a patient-context app.
pub const PATIENT_ROLE: &str = "patient";
/// Role of a cohort requester.
pub const COHORT_ROLE: &str = "researcher";

/// What a requester may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// A patient-context app: that patient only.
    Patient {
        /// The launch patient's id.
        patient: String,
    },
    /// A clinician: the patients they treat.
    Clinician {
        /// Their normalized `Practitioner/…` or `PractitionerRole/…` reference.
        practitioner: String,
    },
    /// A cohort requester: aggregates only.
    Cohort,
}

impl Access {
    /// The name in the gateway's records and metrics.
    pub fn as_str(&self) -> &'static str {
        match self {
            Access::Patient { .. } => "patient",
            Access::Clinician { .. } => "clinician",
            Access::Cohort => "cohort",
        }
    }

    /// The role the query carries.
    pub fn role(&self) -> &'static str {
        match self {
            Access::Patient { .. } => PATIENT_ROLE,
            Access::Clinician { .. } => CLINICIAN_ROLE,
            Access::Cohort => COHORT_ROLE,
        }
    }
}

/// A verified requester.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The token's subject: keys quotas, budgets, the overlap control and the audit.
    pub subject: String,
    /// The OAuth2 client, when the token names it.
    pub client: Option<String>,
    /// What they may see.
    pub access: Access,
}

impl Principal {
    /// The one key of this principal (the crate's text fold of the subject): what quotas, the
    /// DP budget, the overlap control and the audit are keyed on. Who may read an answer is
    /// decided on the exact subject instead ([`Principal::subject`]): two subjects that fold
    /// alike share limits, never answers.
    pub fn key(&self) -> String {
        crate::answer::contract::requester_key(&self.subject)
    }
}

/// A `fhirUser` as a reference of the FHIR server the tokens speak of: relative
/// (`Practitioner/123`), or absolute under `base`; `None` for another server's.
fn own_reference(user: &str, base: Option<&str>) -> Option<String> {
    let user = user.trim();
    let relative = if user.contains("://") {
        let base = base?.trim_end_matches('/');
        let rest = user.strip_prefix(base)?.strip_prefix('/')?;
        rest.to_string()
    } else {
        user.to_string()
    };
    // Exactly `Type/id` (a version suffix dropped), nothing before it.
    let mut parts = relative.split('/');
    let (kind, id) = (parts.next()?, parts.next()?);
    match (parts.next(), parts.next()) {
        (None, None) | (Some("_history"), Some(_)) => {}
        _ => return None,
    }
    crate::ingest::flatten::is_fhir_id(id).then(|| format!("{kind}/{id}"))
}

/// Why a verified token may not ask.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("insufficient scope: {0}")]
pub struct InsufficientScope(pub String);

/// Which levels (`patient`, `user`, `system`) the scopes grant wildcard read at.
fn read_levels(scopes: &[String]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for scope in scopes {
        let Some((level, rest)) = scope.split_once('/') else {
            continue;
        };
        let level = match level {
            "patient" => "patient",
            "user" => "user",
            "system" => "system",
            _ => continue,
        };
        let Some((resource, permission)) = rest.split_once('.') else {
            continue;
        };
        if resource != "*" || permission.contains('?') {
            continue;
        }
        // SMART v1 (`read`, `*`) or v2 (a subset of `cruds` in that order, with `r`).
        let v1 = permission == "read" || permission == "*";
        let v2 = !permission.is_empty()
            && permission.contains('r')
            && is_ordered_subset(permission, "cruds");
        if v1 || v2 {
            out.push(level);
        }
    }
    out
}

fn is_ordered_subset(permission: &str, all: &str) -> bool {
    let mut rest = all.chars();
    permission.chars().all(|c| rest.any(|a| a == c))
}

/// The roles a token's `--roles-claim` holds (a list, or a space-separated string).
fn roles(claims: &TokenClaims, claim: &str) -> Vec<String> {
    let value = claims.other.get(claim);
    match value {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(serde_json::Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

/// What a verified token may ask.
pub fn principal(
    claims: &TokenClaims,
    config: &TokenConfig,
) -> Result<Principal, InsufficientScope> {
    let scopes = claims.scopes();
    let levels = read_levels(&scopes);
    let client = claims.client().map(str::to_string);
    let subject = claims.sub.trim().to_string();
    let make = |access| Principal {
        subject: subject.clone(),
        client: client.clone(),
        access,
    };
    // A role claim makes a cohort requester only with a read scope beyond one patient.
    let broad_read = levels.contains(&"user") || levels.contains(&"system");
    let cohort_by_role = broad_read
        && config.roles_claim.as_deref().is_some_and(|claim| {
            roles(claims, claim).iter().any(|r| {
                config
                    .cohort_role_values
                    .iter()
                    .any(|v| v.trim().eq_ignore_ascii_case(r.trim()))
            })
        });
    let cohort_client = levels.contains(&"system")
        && client
            .as_deref()
            .is_some_and(|c| config.cohort_clients.iter().any(|k| k.trim() == c));
    if cohort_by_role || cohort_client {
        return Ok(make(Access::Cohort));
    }
    let user = claims
        .fhir_user
        .as_deref()
        .map(|u| own_reference(u, config.fhir_base_url.as_deref()));
    if let Some(None) = user {
        return Err(InsufficientScope(
            "fhirUser is not a resource of the configured FHIR server (--fhir-base-url)".into(),
        ));
    }
    let user = user.flatten();
    let practitioner = user
        .as_deref()
        .and_then(|u| practitioner_key(u, &HashMap::new()))
        .filter(|p| !p.contains('?'));
    if levels.contains(&"user") {
        if let Some(practitioner) = practitioner.clone() {
            return Ok(make(Access::Clinician { practitioner }));
        }
    }
    if levels.contains(&"patient") {
        // A practitioner who launched an app for a patient of their choosing is still a
        // practitioner: their relationships decide, not the launch.
        if practitioner.is_some() {
            return Err(InsufficientScope(
                "a practitioner's patient-level token: ask with user-level scopes".into(),
            ));
        }
        if let Some(patient) = claims.patient.as_deref().map(str::trim) {
            let id = crate::ingest::flatten::patient_id_from_reference(patient)
                .unwrap_or_else(|| patient.to_string());
            let valid = crate::ingest::flatten::is_fhir_id(&id);
            // The user, when named, is that patient (or someone acting for them).
            let same_person = match user.as_deref() {
                None => true,
                Some(u) => u == format!("Patient/{id}") || u.starts_with("RelatedPerson/"),
            };
            if valid && same_person {
                return Ok(make(Access::Patient { patient: id }));
            }
        }
        return Err(InsufficientScope(
            "a patient-level scope needs a patient claim".into(),
        ));
    }
    Err(InsufficientScope(format!(
        "no scope grants a question (granted: {})",
        if scopes.is_empty() {
            "none".to_string()
        } else {
            scopes.join(" ")
        }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> TokenConfig {
        TokenConfig {
            token_algorithms: vec!["RS256".into()],
            cohort_clients: vec!["research-app".into()],
            roles_claim: Some("roles".into()),
            fhir_base_url: Some("https://ehr.example/fhir".into()),
            cohort_role_values: vec!["researcher".into()],
            ..TokenConfig::with_jwks_file("https://idp.example", "https://gw.example", None)
        }
    }

    fn claims(scope: &str) -> TokenClaims {
        TokenClaims {
            sub: "u1".into(),
            scope: Some(scope.into()),
            ..TokenClaims::default()
        }
    }

    #[test]
    fn scopes_and_claims_decide_the_access() {
        let config = config();
        let mut clinician = claims("openid fhirUser user/*.read");
        clinician.fhir_user = Some("https://ehr.example/fhir/Practitioner/77".into());
        assert_eq!(
            principal(&clinician, &config).unwrap().access,
            Access::Clinician {
                practitioner: "Practitioner/77".into()
            }
        );
        // SMART v2 permissions.
        clinician.scope = Some("user/*.rs".into());
        assert!(principal(&clinician, &config).is_ok());
        // A user scope for one resource type does not grant a question.
        clinician.scope = Some("user/Observation.read".into());
        assert!(principal(&clinician, &config).is_err());
        // Write-only.
        clinician.scope = Some("user/*.cu".into());
        assert!(principal(&clinician, &config).is_err());
        // A fhirUser that is not a practitioner.
        let mut related = claims("user/*.read");
        related.fhir_user = Some("RelatedPerson/3".into());
        assert!(principal(&related, &config).is_err());

        let mut app = claims("launch/patient patient/*.read");
        app.patient = Some("abc-123".into());
        assert_eq!(
            principal(&app, &config).unwrap().access,
            Access::Patient {
                patient: "abc-123".into()
            }
        );
        app.patient = None;
        assert!(principal(&app, &config).is_err());

        let mut system = claims("system/*.read");
        system.client_id = Some("research-app".into());
        assert_eq!(principal(&system, &config).unwrap().access, Access::Cohort);
        system.client_id = Some("billing-app".into());
        assert!(principal(&system, &config).is_err());

        let mut by_role = claims("openid");
        by_role
            .other
            .insert("roles".into(), serde_json::json!(["staff", "Researcher"]));
        assert!(
            principal(&by_role, &config).is_err(),
            "a role without a read scope"
        );
        by_role.scope = Some("user/*.read".into());
        assert_eq!(principal(&by_role, &config).unwrap().access, Access::Cohort);

        // Another server's practitioner, or a path that only ends like one.
        let mut elsewhere = claims("user/*.read");
        elsewhere.fhir_user = Some("https://evil.example/fhir/Practitioner/77".into());
        assert!(principal(&elsewhere, &config).is_err());
        elsewhere.fhir_user = Some("https://ehr.example/fhir/x/Practitioner/77".into());
        assert!(principal(&elsewhere, &config).is_err());

        // A practitioner's patient launch is not patient access.
        let mut launched = claims("launch/patient patient/*.read");
        launched.patient = Some("abc-123".into());
        launched.fhir_user = Some("Practitioner/77".into());
        assert!(principal(&launched, &config).is_err());
        launched.fhir_user = Some("Patient/abc-123".into());
        assert!(principal(&launched, &config).is_ok());
        launched.fhir_user = Some("Patient/someone-else".into());
        assert!(principal(&launched, &config).is_err());
    }
}
