//! The cohort path: counts and medians over groups of at least k patients, for cohort roles,
//! with the overlap control that keeps two answers from describing the few patients between
//! them.

use super::*;

/// The condition of a cohort question as the records word it (unknown words, which could be
/// names, left out), and the synthetic query rendered from the analysed question.
///
/// Also whether the question names a condition with a naming word the records of k patients
/// never use ("cystic fibrosis" where nobody has it, "asthma and diabetes" where asthma is
/// rarer): that cohort is empty or smaller than k, and it must read like any cohort under k,
/// never like the whole population or a wider condition.
pub(super) fn cohort_subject(
    analysis: &QuestionAnalysis,
    known: &BTreeSet<String>,
) -> (Option<String>, String, bool) {
    // The condition as the records word it (unknown words, which could be names, left out).
    // Known as written or in the canonical form the analysis looked up ("sinusitis" is looked
    // up as "sinusiti").
    let is_known = |w: &String| {
        known.contains(w) || {
            let terms = crate::answer::question::line_terms(w);
            !terms.is_empty() && terms.iter().all(|t| known.contains(t))
        }
    };
    let condition: Option<String> = analysis.condition.as_ref().and_then(|c| {
        let words: Vec<String> = crate::text::words(c)
            .into_iter()
            .filter(|w| is_known(w) && !crate::answer::question::is_not_condition(w))
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    });
    // A naming word the records (of k patients) never use: no patient holds that condition
    // ("cystic fibrosis"; "asthma and diabetes" where asthma is rarer is not "diabetes").
    let unknown = analysis.condition.as_deref().is_some_and(|c| {
        crate::text::words(c)
            .iter()
            .any(|w| !is_known(w) && crate::answer::question::names_something(w))
    });
    let subject = match &condition {
        Some(c) => format!("patients with {c}"),
        None => "the patients".to_string(),
    };
    // The condition is the subject already, not a topic.
    let condition_terms =
        crate::answer::question::line_terms(analysis.condition.as_deref().unwrap_or(""));
    let topic: Vec<String> = analysis
        .terms
        .iter()
        .filter(|t| !condition_terms.contains(*t))
        .cloned()
        .collect();
    let synthetic = render_query(&subject, &topic, known, &[]);
    (condition, synthetic, unknown)
}

/// Whether a cohort question asks for a count or a number (DP aggregates), not a text.
pub(super) fn asks_for_figures(question: &str) -> bool {
    let words = crate::text::words(question);
    let has = |w: &str| words.iter().any(|x| x == w);
    (has("how") && (has("many") || has("much")))
        || [
            "number",
            "count",
            "median",
            "average",
            "mean",
            "percentage",
            "percent",
            "proportion",
            "share",
        ]
        .iter()
        .any(|w| has(w))
}

/// Whether `patient` has a day that every group of `days` holds (each group: patient to the
/// days of its facts).
fn shares_a_day(
    days: &[&std::collections::BTreeMap<i64, BTreeSet<chrono::NaiveDate>>],
    patient: i64,
) -> bool {
    let Some((first, rest)) = days.split_first() else {
        return true;
    };
    first.get(&patient).is_some_and(|own| {
        own.iter().any(|day| {
            rest.iter()
                .all(|group| group.get(&patient).is_some_and(|d| d.contains(day)))
        })
    })
}

/// The condition of a cohort question as the records word it (what [`dp_voters`] takes).
pub async fn cohort_condition(
    pool: &sqlx::PgPool,
    question: &str,
    min_patients: usize,
) -> Result<Option<String>, AnswerError> {
    let analysis = analyze(question, &BTreeSet::new());
    let mut vocabulary: Vec<String> = analysis.terms.clone();
    if let Some(condition) = &analysis.condition {
        vocabulary.extend(crate::text::words(condition));
    }
    let known = search::known_words(pool, &vocabulary, min_patients, None).await?;
    // DP answers: the cohort follows the question's grammar alone (see `cohort_analysis`).
    let analysis = read_cohort(analysis, &known, None);
    Ok(cohort_subject(&analysis, &known).0)
}

/// The concepts a question names, less the words of where and how patients are counted, and
/// less those whose terms another holds all of ("throat swabs (throat culture)", "viral sore
/// throat (pharyngitis)"): they ask nothing the other does not.
fn distinct_concepts(concepts: Vec<Vec<String>>) -> Vec<Vec<String>> {
    // Where the patients are and how they are counted ("in our hospital", "distinct") name
    // no concept.
    let concepts: Vec<Vec<String>> = concepts
        .into_iter()
        .map(|concept| {
            concept
                .into_iter()
                .filter(|t| !crate::answer::cohort::COUNT_WORDS.contains(&t.as_str()))
                .collect::<Vec<String>>()
        })
        .filter(|concept| !concept.is_empty())
        .collect();
    let held = |concept: &Vec<String>, other: &Vec<String>| {
        other.len() > concept.len() && concept.iter().all(|t| other.contains(t))
    };
    concepts
        .iter()
        .filter(|concept| !concepts.iter().any(|other| held(concept, other)))
        .cloned()
        .collect()
}

/// A cohort question as the cohort path reads it: the context words the records never use
/// dropped, and its condition matched against `names` when given.
pub(super) fn read_cohort(
    mut analysis: QuestionAnalysis,
    known: &BTreeSet<String>,
    names: Option<&ConditionNames>,
) -> QuestionAnalysis {
    analysis.keep_known(known);
    if let Some(condition) = names.and_then(|names| named_condition(&analysis, names)) {
        // "Median BMI among living patients aged 40 and over": a statistic of the only concept
        // the question names is a reading's, not a condition's ("Body mass index 30+ -
        // obesity"), unless the grammar makes it the group ("patients with obesity").
        let condition_terms = crate::answer::question::line_terms(&condition);
        let statistic = analysis
            .terms
            .iter()
            .any(|t| matches!(t.as_str(), "median" | "average" | "mean" | "typical"));
        let only_concept = !analysis.terms.iter().any(|t| {
            crate::answer::question::is_concept(t)
                && !crate::answer::cohort::COUNT_WORDS.contains(&t.as_str())
                && !condition_terms.contains(t)
        });
        if !(statistic && only_concept && analysis.condition.is_none()) {
            analysis.condition = Some(condition);
        }
    }
    analysis
}

impl AnswerEngine {
    /// The condition names the patients of `scope` hold, a run of words read as one only when
    /// at least `min_patients` of them hold it: never a rarer condition, nor one outside the
    /// scope, so that which condition a question is read as tells nothing a count would not. The whole store's are cached for
    /// [`CONDITION_NAMES_TTL`]; a list of patients' are read each time.
    pub(super) async fn condition_names(
        &self,
        scope: &Scope,
        min_patients: usize,
    ) -> Result<Arc<ConditionNames>, AnswerError> {
        let read = || async {
            Ok::<_, AnswerError>(Arc::new(ConditionNames::new(
                search::condition_names(self.store.pool(), scope).await?,
                min_patients,
            )))
        };
        if !matches!(scope, Scope::All) {
            return read().await;
        }
        let mut cached = self.condition_names.lock().await;
        if let Some((at, min, names)) = cached.as_ref() {
            if *min == min_patients && at.elapsed() < CONDITION_NAMES_TTL {
                return Ok(names.clone());
            }
        }
        let names = read().await?;
        *cached = Some((Instant::now(), min_patients, names.clone()));
        Ok(names)
    }

    /// [`read_cohort`] with the condition names at least k patients of the scope hold. A DP
    /// answer keeps to the question's grammar: which cohort it counts must not hang on an
    /// un-noised count of the store.
    pub(super) async fn cohort_analysis(
        &self,
        analysis: QuestionAnalysis,
        known: &BTreeSet<String>,
        scope: &Scope,
        dp: bool,
    ) -> Result<QuestionAnalysis, AnswerError> {
        if dp {
            return Ok(read_cohort(analysis, known, None));
        }
        let names = self
            .condition_names(scope, self.config.cohort_min_patients.max(1))
            .await?;
        Ok(read_cohort(analysis, known, Some(&names)))
    }

    /// A cohort role's question: aggregates over at least k patients, never an individual.
    pub(super) async fn cohort(
        &self,
        requester: &str,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        population: &Population,
        known: &BTreeSet<String>,
        work: &mut Work,
    ) -> Result<Reply, AnswerError> {
        let k = self.config.cohort_min_patients;
        let days = self.config.cohort_overlap_days;
        let pool = self.store.pool();
        // "How many … in 2019 / since 2018 / currently": the condition reading counts over all
        // time, so a count bound in time is taken by the concepts, dated, first.
        let timed = analysis.now
            || !analysis.months.is_empty()
            || analysis.since.is_some()
            || analysis.before.is_some();
        let (condition, synthetic, unknown) = cohort_subject(analysis, known);
        // "How many patients were prescribed tramadol?": no condition to group by, a drug to
        // count; the whole store's medication list would answer another question. (Allergies
        // and vaccines are listed with their counts, which answer.)
        let concept_only = condition.is_none()
            && crate::answer::question::asks_concept(analysis)
            && analysis.terms.iter().any(|t| t == "medication");
        // "Prediabetics who are also anaemic - count", "CHD patients with an active clopidogrel
        // script - how many?": an intersection of concepts, which the condition reading (the
        // profile of one condition's patients) does not count.
        let several = distinct_concepts(crate::answer::question::named_concepts(analysis, known))
            .len()
            + analysis.classes.len()
            >= 2;
        // "Pts with 2 varicella doses on record?": a number of doses per patient asks how
        // many patients have them, "how many" or not.
        let counts = analysis.form == crate::answer::question::AnswerForm::Count
            || analysis.at_least.is_some();
        // "Patients with no allergy recorded": those without it, counted.
        let negation = !analysis.negated.is_empty();
        if counts && (timed || concept_only || several || negation || analysis.at_least.is_some()) {
            if let Some(reply) = self
                .concept_count(requester, scope, analysis, population, known)
                .await?
            {
                return Ok(reply);
            }
            // "Aspirin - how many pts have it prescribed?" where fewer than k patients' records
            // name aspirin: the group is under k, as any such group reads; never the
            // profile of everyone.
            if concept_only
                && analysis.classes.is_empty()
                && crate::answer::question::named_concepts(analysis, known).is_empty()
                && !crate::answer::question::unread_words(analysis, known).is_empty()
            {
                return Ok(Reply::from(policy::TOO_FEW).asking(synthetic));
            }
        }
        let mut patients = if unknown {
            Vec::new()
        } else {
            crate::answer::cohort::cohort(pool, scope, condition.as_deref()).await?
        };
        patients.sort_unstable();
        patients.dedup();
        let patients = crate::answer::population::filter(pool, &patients, population).await?;
        // The cohort as the overlap control remembers it: its condition and its population.
        let mut remembered = match (condition.as_deref(), population.is_everyone()) {
            (c, true) => c.unwrap_or("").to_string(),
            (c, false) => format!("{} {}", population.describe("patients"), c.unwrap_or("")),
        };
        // "Right now" counts only active items of the same patients: remembered apart, so that
        // the same group's all-time and active counts are never both answered (their
        // difference per item may be under k).
        if analysis.now {
            remembered.push_str(" [active]");
        }
        if patients.len() >= k.max(1) {
            let asked = crate::answer::cohort::AskedCohort {
                requester: requester.to_string(),
                list: scope.keys(),
                condition: &remembered,
                patients: &patients,
            };
            if self.record && crate::answer::cohort::overlap(pool, &asked, k, days).await? {
                return Ok(Reply::from(policy::COHORT_OVERLAP).asking(synthetic));
            }
        }
        let document = crate::answer::cohort::aggregate(
            pool,
            &patients,
            analysis,
            condition.as_deref(),
            population,
            k,
        )
        .await?;
        // No cohort by the condition reading: a "how many" may still name another concept.
        if document.as_ref().is_none_or(|d| d.lines.is_empty()) && counts {
            if let Some(reply) = self
                .concept_count(requester, scope, analysis, population, known)
                .await?
            {
                return Ok(reply);
            }
        }
        let Some(document) = document else {
            return Ok(Reply::from(policy::TOO_FEW).asking(synthetic));
        };
        if document.lines.is_empty() {
            return Ok(Reply::nothing_found().asking(synthetic));
        }
        let (document, query) = match self.review(document, synthetic, work).await? {
            Ok(passed) => passed,
            Err(refused) => return Ok(refused),
        };
        work.trace.synthetic_document = document.get().text();
        let template = cohort_answer(document.get(), k);
        let reply = self.respond(&document, &query, template, work).await;
        Ok(reply.asking(query.get().clone()))
    }

    /// "How many patients had a colonoscopy since 2018?", "…both hypertension and
    /// hyperlipidemia?", "…a flu shot in 2019?": the patients with a fact of any kind holding
    /// each concept the question names (every one of them: an intersection; alternatives are
    /// not counted), in the months or from the year it names, active when it asks about now. Tried
    /// when the condition reading found no cohort. Every concept word must be one the records
    /// of k patients use (otherwise false: the question is not understood, and the caller's
    /// reply stands); a group under k gets the same reply as any group under k, and a group
    /// of k or more passes the overlap control like any cohort. Returns its reply when it
    /// answered.
    pub(super) async fn concept_count(
        &self,
        requester: &str,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        population: &Population,
        known: &BTreeSet<String>,
    ) -> Result<Option<Reply>, AnswerError> {
        let k = self.config.cohort_min_patients.max(1);
        // A ranking ("the most common reason for inpatient admission, by number of patients")
        // is answered by the list of counts, never by one count of what it names.
        // ("Frequent ED attenders - pts with 3 or more visits" is a count.)
        if !analysis.at_least_events
            && analysis.terms.iter().any(|t| {
                matches!(
                    t.as_str(),
                    "common" | "commonest" | "commonly" | "frequent" | "frequently" | "top"
                )
            })
        {
            return Ok(None);
        }
        let concepts = distinct_concepts(crate::answer::question::named_concepts(analysis, known));
        // A class's members the records of k patients never use are simply not among its
        // alternatives ("terfenadine" for an antihistamine).
        let in_class = |t: &String| analysis.is_class_member(t);
        let every_word_known = analysis
            .phrases
            .iter()
            .flatten()
            .filter(|t| {
                crate::answer::question::is_concept(t)
                    && !in_class(t)
                    && !crate::answer::cohort::COUNT_WORDS.contains(&t.as_str())
            })
            .all(|t| known.contains(t));
        // Alternatives ("A or B") are not counted: |A|, |B| and |A or B|, each of k or more and
        // each pair differing by k or more, give |A and B| by inclusion-exclusion, which may be
        // one patient; the overlap control compares answers in pairs only.
        let pool = self.store.pool();
        // "Patients with no allergy recorded": a kind of fact named alone, and negated: the
        // patients of the scope with no fact of that kind.
        if let ([phrase], true) = (
            analysis.negated.as_slice(),
            concepts.is_empty() && analysis.classes.is_empty(),
        ) {
            let written = analysis.as_written(phrase.iter());
            if let Some((kind, opening)) = crate::answer::question::kind_named_alone(&written) {
                let mut patients: BTreeSet<i64> = crate::answer::cohort::cohort(pool, scope, None)
                    .await?
                    .into_iter()
                    .collect();
                for patient in search::kind_patients(pool, kind, opening, scope).await? {
                    patients.remove(&patient);
                }
                let described = format!("no {written}");
                let said = format!("no {written} on record");
                return self
                    .count_reply(
                        requester, scope, analysis, population, patients, &described, &said,
                    )
                    .await;
            }
        }
        if (concepts.is_empty() && analysis.classes.is_empty())
            || !every_word_known
            || analysis.alternatives
        {
            return Ok(None);
        }
        // The concepts grouped: a class's members (every one the lexicon lists, whether or not
        // k patients' records use it: the requester did not choose them) are alternatives of
        // one group ("on an antihistamine": any of them), every other concept a group of its
        // own.
        let mut grouped: Vec<(String, Vec<Vec<String>>)> = concepts
            .iter()
            .filter(|concept| !concept.iter().all(in_class))
            .map(|concept| (analysis.as_written(concept.iter()), vec![concept.clone()]))
            .collect();
        grouped.extend(
            analysis
                .classes
                .iter()
                .map(|class| (class.written.clone(), class.members.clone())),
        );
        // "vaccine", "prescribed", "procedure", "allergic", "diagnosed": the one kind of fact
        // named is where to look ("a flu vaccine in 2020" is no influenza test of 2020;
        // "allergic to both mould and dust mites" no IgE test). Never for a condition, below
        // ("allergic rhinitis").
        let kinds: Vec<&str> = [
            ("immunization", "Immunization"),
            ("medication", "MedicationRequest"),
            ("procedure", "Procedure"),
            ("allergy", "AllergyIntolerance"),
            ("condition", "Condition"),
        ]
        .into_iter()
        .filter(|(term, _)| analysis.terms.iter().any(|t| t == term))
        // "Allergic rhinitis": "allergic" in a concept's own phrase names it, not a kind.
        .filter(|(term, _)| {
            *term != "allergy"
                || analysis.phrases.iter().any(|phrase| {
                    phrase.iter().any(|t| t == term)
                        && !phrase
                            .iter()
                            .any(|t| t != term && crate::answer::question::is_concept(t))
                })
        })
        // "Diagnosed" of one concept: its diagnosis ("hypertension diagnosed during the
        // 1980s"); of several, the conditions among them are found as conditions below and
        // the others are no diagnosis ("CHD patients with amlodipine still active").
        .filter(|(term, _)| *term != "condition" || grouped.len() == 1)
        .map(|(_, kind)| kind)
        .collect();
        let kinds: &[&str] = if kinds.len() == 1 { &kinds } else { &[] };
        // Of several concepts, a condition is looked for among conditions, whatever kind the
        // question names for another ("CHD patients with an active clopidogrel script": the
        // prescription is clopidogrel's; "prediabetics who are also anaemic": a diagnosis, not
        // an encounter whose reason was anaemia). A condition is a concept a condition name of
        // k patients holds whole: which concepts are conditions hangs on no rarer record.
        // "3 or more episodes of viral sinusitis": a condition's episodes are its conditions.
        let names = if grouped.len() < 2 && kinds.is_empty() && !analysis.at_least_events {
            None
        } else {
            Some(self.condition_names(scope, k).await?)
        };
        let is_condition: Vec<bool> = grouped
            .iter()
            .map(|(_, members)| {
                names
                    .as_ref()
                    .is_some_and(|names| members.len() == 1 && names.names_condition(&members[0]))
            })
            .collect();
        // "Allergic rhinitis pts who still have an epipen on their list": what is active is
        // what is not a condition, when there is one; and "allergic" was the condition's word.
        let active_conditions = is_condition.iter().all(|c| *c);
        let kinds = if kinds == ["AllergyIntolerance"] && is_condition.iter().any(|c| *c) {
            &[][..]
        } else {
            kinds
        };
        // "Pts with 2 varicella doses", "MenACWY booster (2nd dose)": patients with at least
        // that many events of what is not a condition (every member of a class counted
        // together: a PCV13 and a PPSV23 are two pneumococcal doses).
        // An ordinal within a period ("a second MMR dose in 2015") is no count within it.
        let period =
            !analysis.months.is_empty() || analysis.since.is_some() || analysis.before.is_some();
        let at_least = analysis
            .at_least
            .or(analysis.nth.filter(|_| !period))
            .filter(|n| *n >= 2);
        // "Lacerations given acetaminophen the same day": the groups' facts must share a day.
        let same_day = analysis.same_day && grouped.len() >= 2;
        let mut groups = Vec::new();
        let mut group_days = Vec::new();
        for ((_, members), is_condition) in grouped.iter().zip(&is_condition) {
            // Doses are given, not diagnosed ("both zoster doses": no shingles episode).
            // "3 or more emergency visits": visits are encounters.
            let visits = members.iter().flatten().any(|t| {
                matches!(
                    t.as_str(),
                    "encounter" | "emergency" | "inpatient" | "urgent" | "visit"
                )
            });
            let kinds = if *is_condition {
                &["Condition"][..]
            } else if at_least.is_some() && kinds.is_empty() && visits {
                &["Encounter"][..]
            } else if at_least.is_some() && kinds.is_empty() {
                &["Immunization", "MedicationRequest"][..]
            } else {
                kinds
            };
            let mut events: std::collections::BTreeMap<i64, i64> = Default::default();
            let mut days: std::collections::BTreeMap<i64, BTreeSet<chrono::NaiveDate>> =
                Default::default();
            for member in members {
                let filter = crate::answer::cohort::ConceptFilter {
                    terms: member,
                    kinds,
                    months: &analysis.months,
                    since: analysis.since,
                    before: analysis.before,
                    active: analysis.now && (active_conditions || !is_condition),
                };
                for (patient, n) in
                    crate::answer::cohort::concept_patient_events(pool, scope, &filter).await?
                {
                    *events.entry(patient).or_default() += n;
                }
                if same_day {
                    for (patient, dated) in
                        crate::answer::cohort::concept_patient_days(pool, scope, &filter).await?
                    {
                        days.entry(patient).or_default().extend(dated);
                    }
                }
            }
            group_days.push(days);
            let least = match at_least {
                Some(n) if !is_condition || analysis.at_least_events => n as i64,
                _ => 1,
            };
            groups.push(
                events
                    .into_iter()
                    .filter(|(_, n)| *n >= least)
                    .map(|(patient, _)| patient)
                    .collect::<Vec<i64>>(),
            );
        }
        // "Hypertensives who have never had lisinopril": the patients of every other group
        // who are in none of the groups said never had; a count of those alone is not asked.
        // A member is negated when a phrase said never had holds all of it ("never had an ER
        // visit": the member "emergency" of the phrase "emergency encounter").
        let negated: Vec<bool> = grouped
            .iter()
            .map(|(_, members)| {
                members.iter().all(|m| {
                    analysis
                        .negated
                        .iter()
                        .any(|n| m.iter().all(|t| n.contains(t)))
                })
            })
            .collect();
        // A question that says "never" of something no group stands for is not counted at
        // all: counting the others would answer its opposite.
        if !analysis.negated.is_empty() && !negated.iter().any(|n| *n) {
            return Ok(Some(Reply::from(policy::TOO_FEW).asking(
                "How many patients never had what the question names?".to_string(),
            )));
        }
        // "Patients with no allergy recorded": every patient of the scope is the group the
        // negated ones are taken from.
        let mut patients: Option<BTreeSet<i64>> = if negated.iter().all(|n| *n) {
            Some(
                crate::answer::cohort::cohort(pool, scope, None)
                    .await?
                    .into_iter()
                    .collect(),
            )
        } else {
            None
        };
        for (group, _) in groups.iter().zip(&negated).filter(|(_, n)| !**n) {
            let group: BTreeSet<i64> = group.iter().copied().collect();
            patients = Some(match patients {
                None => group,
                Some(so_far) => so_far.intersection(&group).copied().collect(),
            });
        }
        let mut patients = patients.unwrap_or_default();
        if same_day {
            let kept: Vec<_> = group_days
                .iter()
                .zip(&negated)
                .filter(|(_, n)| !**n)
                .map(|(days, _)| days)
                .collect();
            patients.retain(|patient| shares_a_day(&kept, *patient));
        }
        for (group, _) in groups.iter().zip(&negated).filter(|(_, n)| **n) {
            for patient in group {
                patients.remove(patient);
            }
        }
        // "Pts with no ER visit": "no record of emergency", not "a record of never emergency".
        let all_negated = negated.iter().all(|n| *n);
        let mut described: Vec<String> = Vec::new();
        for ((written, _), negated) in grouped.iter().zip(&negated) {
            let written = if *negated && !all_negated {
                format!("never {written}")
            } else {
                written.clone()
            };
            if !described.contains(&written) {
                described.push(written);
            }
        }
        let described = match at_least {
            Some(n) => format!("{n} or more entries of {}", described.join(" and ")),
            None => described.join(" and "),
        };
        let described = if same_day {
            format!("{described} on the same day")
        } else {
            described
        };
        let (described, said) = if all_negated {
            (
                format!("no {described}"),
                format!("no record of {described}"),
            )
        } else {
            (described.clone(), format!("a record of {described}"))
        };
        self.count_reply(
            requester, scope, analysis, population, patients, &described, &said,
        )
        .await
    }

    /// The count of `patients` (of the scope, before the population's filter) of what is
    /// `described`, said as having `said` ("a record of …") in the question's period: under k
    /// refused, an overlap with an earlier answer refused.
    #[allow(clippy::too_many_arguments)]
    async fn count_reply(
        &self,
        requester: &str,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        population: &Population,
        patients: BTreeSet<i64>,
        described: &str,
        said: &str,
    ) -> Result<Option<Reply>, AnswerError> {
        let k = self.config.cohort_min_patients.max(1);
        let pool = self.store.pool();
        let patients: Vec<i64> = patients.into_iter().collect();
        let patients = crate::answer::population::filter(pool, &patients, population).await?;
        let who = population.describe("patients");
        let mut when = String::new();
        if let (Some(first), Some(last)) = (analysis.months.first(), analysis.months.last()) {
            when = if first == last {
                format!(" in {}", crate::text::dates::month_year(*first))
            } else {
                format!(
                    " from {} to {}",
                    crate::text::dates::month_year(*first),
                    crate::text::dates::month_year(*last)
                )
            };
        }
        if let Some(since) = analysis.since {
            when.push_str(&format!(" since {}", since.format("%Y")));
        }
        if let Some(before) = analysis.before {
            when.push_str(&format!(" before {}", before.format("%Y")));
        }
        let synthetic = format!("How many {who} have {said}{when}?");
        if patients.len() < k {
            return Ok(Some(Reply::from(policy::TOO_FEW).asking(synthetic)));
        }
        let asked = crate::answer::cohort::AskedCohort {
            requester: requester.to_string(),
            list: scope.keys(),
            condition: &format!("concept:{described}{when}"),
            patients: &patients,
        };
        if self.record
            && crate::answer::cohort::overlap(pool, &asked, k, self.config.cohort_overlap_days)
                .await?
        {
            return Ok(Some(Reply::from(policy::COHORT_OVERLAP).asking(synthetic)));
        }
        let answer = format!(
            "From the de-identified records (counts of patients; groups of fewer than {k} \
             patients are not reported): {} {who} have {said}{when}{}.",
            patients.len(),
            if analysis.now { " (active now)" } else { "" }
        );
        Ok(Some(Reply::answered(answer).asking(synthetic)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn groups_share_a_day_only_when_every_group_holds_it() {
        let day = |d: u32| chrono::NaiveDate::from_ymd_opt(2019, 1, d).expect("a day");
        let group = |entries: &[(i64, &[u32])]| -> BTreeMap<i64, BTreeSet<chrono::NaiveDate>> {
            entries
                .iter()
                .map(|(p, days)| (*p, days.iter().map(|d| day(*d)).collect()))
                .collect()
        };
        // Patient 1: a laceration on the 3rd, acetaminophen on the 3rd. Patient 2: on other
        // days. Patient 3: no acetaminophen at all.
        let lacerations = group(&[(1, &[3, 20]), (2, &[4]), (3, &[5])]);
        let acetaminophen = group(&[(1, &[3]), (2, &[9])]);
        let kept = [&lacerations, &acetaminophen];
        assert!(shares_a_day(&kept, 1));
        assert!(!shares_a_day(&kept, 2));
        assert!(!shares_a_day(&kept, 3));
        assert!(shares_a_day(&[], 3));
    }
}
