//! Who may learn what about whom: the disclosure policy, decided by the requester's role and
//! enforced in code, never by a model.
//!
//! | role | scope | may ask | gets |
//! |---|---|---|---|
//! | care team (`--care-team-roles`, with the patient list the query carries) | the listed patients | about those patients by name, about the list as a whole | the named patient's facts, generalized (months, rounded values, age bands), as "the patient" or "Patient A/B" per answer |
//! | cohort (`--cohort-roles`) | every patient, or the study cohort the gateway resolved and signed (an administrator's registered list, `gateway::studies`; never one the requester chose) | about groups: conditions, medications, readings, counts | counts and medians over at least k patients (`--cohort-min-patients`, default 5); no individual, no pseudonym |
//! | any other role, or a care team without a list | nothing | nothing | `refused` |
//!
//! A question that names or identifies a person the requester may not resolve (a cohort role
//! naming anyone, a care team naming someone outside its list or nobody at all) is answered
//! with the same status, text and synthetic query whether or not that person is a patient
//! here: nothing in the answer depends on the vault outside the requester's scope.

use super::config::AnswerConfig;
use super::contract::{AnswerStatus, Requester};

/// The two ways of disclosing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disclosure {
    /// A care team: its listed patients, by name.
    CareTeam,
    /// A cohort role: groups of at least k patients, never an individual.
    Cohort,
}

impl Disclosure {
    /// The name on the answer's privacy summary.
    pub fn as_str(self) -> &'static str {
        match self {
            Disclosure::CareTeam => "care_team",
            Disclosure::Cohort => "cohort",
        }
    }
}

/// Whether `role` is one of `roles`, whatever its case and surrounding spaces ("Researcher" is a
/// researcher). Every role list is matched through here, so that no spelling of a role escapes
/// a rule (`--dp-roles` included) that another spelling falls under.
pub fn has_role(roles: &[String], role: &str) -> bool {
    let role = role.trim();
    roles.iter().any(|r| r.trim().eq_ignore_ascii_case(role))
}

/// The policy for a requester, or `None` when its role may not ask at all.
pub fn disclosure(config: &AnswerConfig, requester: &Requester) -> Option<Disclosure> {
    let role = requester.role.as_str();
    if has_role(&config.cohort_roles, role) {
        Some(Disclosure::Cohort)
    } else if has_role(&config.care_team_roles, role) && requester.patients.is_some() {
        Some(Disclosure::CareTeam)
    } else {
        None
    }
}

/// A fixed outcome: the same status and text whatever caused it, so that an answer never tells
/// which of the causes it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Status.
    pub status: AnswerStatus,
    /// Answer text.
    pub answer: &'static str,
    /// Synthetic query shown (nothing of the question).
    pub synthetic_query: &'static str,
    /// The reason, for the audit table only.
    pub reason: &'static str,
}

/// A role that may not ask, or a care team without a patient list.
pub const NO_ACCESS: Outcome = Outcome {
    status: AnswerStatus::Refused,
    answer: "This requester's role may not ask about patients here (care-team roles need the \
             list of patients they may see).",
    synthetic_query: "",
    reason: "no_access",
};

/// A cohort role's question names or identifies a person (whoever it is, patient or not).
pub const COHORT_INDIVIDUAL: Outcome = Outcome {
    status: AnswerStatus::Refused,
    answer: "Cohort roles may ask about groups of patients only; questions that name or identify \
             a person are not answered.",
    synthetic_query: "A question about an individual person (not answered to a cohort role).",
    reason: "cohort_individual",
};

/// A care team's question names someone who is not among its patients, or nobody, or gives an
/// identifier: the same answer in every case.
pub const NOT_ACCESSIBLE: Outcome = Outcome {
    status: AnswerStatus::NotFound,
    answer: "No patient matching that description is among the patients you may access.",
    synthetic_query: "A question about a person not among the patients you may access.",
    reason: "unresolved_name_or_identifier",
};

/// A care team's name matches several of its own patients equally.
pub const AMBIGUOUS: Outcome = Outcome {
    status: AnswerStatus::NotFound,
    answer: "The name matches more than one of the patients you may access; please give the \
             full name.",
    synthetic_query: "A question about one of several patients with that name.",
    reason: "ambiguous_name",
};

/// A cohort of fewer than k patients (none included: "none" and "a few" read the same). The
/// text speaks of the group as the question was read: a group the reading missed (a wording the
/// records do not use) may well be large, and "fewer patients match" would then be false.
pub const TOO_FEW: Outcome = Outcome {
    status: AnswerStatus::NotFound,
    answer: "No group of at least the minimum number of patients for a cohort answer matches \
             this question as it was read, so nothing is reported; smaller groups are never \
             reported, so this does not tell whether any patient matches.",
    synthetic_query: "",
    reason: "too_few_patients",
};

/// A cohort that differs from one answered to the same requester recently by at least one and
/// fewer than k patients: the two answers, subtracted, would describe those few patients.
pub const COHORT_OVERLAP: Outcome = Outcome {
    status: AnswerStatus::Refused,
    answer: "This group differs from a group you asked about recently by fewer patients than the \
             minimum for a cohort answer; comparing the two answers would describe those few \
             patients, so nothing is reported. Differentially private answers (mode dp) allow \
             such comparisons.",
    synthetic_query: "A question about a group of patients nearly equal to an earlier one.",
    reason: "cohort_overlap",
};

/// A DP text answer whose noisy count of voters is below `--dp-min-voters`.
pub const DP_TOO_FEW: Outcome = Outcome {
    status: AnswerStatus::NotFound,
    answer: "Too few patients' records match this question for a differentially private \
             answer.",
    synthetic_query: "",
    reason: "dp_too_few_voters",
};

/// A DP answer that the requester's privacy budget for the period cannot pay for.
pub const BUDGET_EXHAUSTED: Outcome = Outcome {
    status: AnswerStatus::BudgetExhausted,
    answer: "This requester's privacy budget for the period is spent; differentially private \
             answers resume in the next period.",
    synthetic_query: "",
    reason: "dp_budget_exhausted",
};

/// A DP query id that was spent before for another request (another question, patient list,
/// mode or ε): a repeated id is a retry of the same request, never a free re-ask.
pub const QUERY_ID_REUSED: Outcome = Outcome {
    status: AnswerStatus::Refused,
    answer: "This query id was already used for another request; send a new query id.",
    synthetic_query: "",
    reason: "query_id_reused",
};

/// A query asking for a larger ε than `--dp-max-epsilon` allows.
pub const EPSILON_TOO_LARGE: Outcome = Outcome {
    status: AnswerStatus::Refused,
    answer: "The privacy loss asked for (options.epsilon) is above this service's maximum.",
    synthetic_query: "",
    reason: "dp_epsilon_too_large",
};

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        answer: AnswerConfig,
    }

    fn requester(role: &str, patients: Option<Vec<String>>) -> Requester {
        Requester {
            id: "u".into(),
            role: role.into(),
            patients,
        }
    }

    #[test]
    fn roles_decide_the_policy() {
        let config = Args::parse_from(["test"]).answer;
        assert_eq!(
            disclosure(&config, &requester("researcher", None)),
            Some(Disclosure::Cohort)
        );
        assert_eq!(
            disclosure(&config, &requester("researcher", Some(vec!["p".into()]))),
            Some(Disclosure::Cohort)
        );
        assert_eq!(
            disclosure(&config, &requester("clinician", Some(vec!["p".into()]))),
            Some(Disclosure::CareTeam)
        );
        assert_eq!(disclosure(&config, &requester("clinician", None)), None);
        assert_eq!(
            disclosure(&config, &requester(" Researcher", None)),
            Some(Disclosure::Cohort)
        );
        assert_eq!(
            disclosure(&config, &requester("CLINICIAN", Some(vec!["p".into()]))),
            Some(Disclosure::CareTeam)
        );
        assert_eq!(disclosure(&config, &requester("researchers", None)), None);
        assert_eq!(
            disclosure(&config, &requester("janitor", Some(vec!["p".into()]))),
            None
        );
    }
}
