//! The care-team path: a clinician's (or a patient app's) question about patients of its own
//! list. Names resolved against the list, the record's own facts retrieved, ages as bands,
//! deaths by month, trends and extremes over the list's patients.

use super::*;

/// Whether a name the question writes in full ("Jane Smith") is not the whole name of one
/// listed patient, though one of its words matches one ("Mary Smith" on the list): then it names
/// somebody else (a patient outside the list, or nobody), and answering with the listed
/// patient's record would be about the wrong person. Words the records use ("Smith fracture")
/// are not names, except right before a matched name ("Camila Ankunding": Camila is also a
/// drug the records name, and here a first name). A run none of whose words matched is left to
/// the other checks.
pub(super) fn names_someone_else(
    runs: &[Vec<String>],
    resolution: &search::NameResolution,
    known: &BTreeSet<String>,
) -> bool {
    let matched = |w: &String, words: &BTreeSet<String>| {
        words.contains(w) || words.contains(&crate::text::strip_digits(w))
    };
    runs.iter().any(|run| {
        let names: Vec<&String> = run
            .iter()
            .enumerate()
            .filter(|(i, w)| {
                !known.contains(*w)
                    || run.get(i + 1).is_some_and(|next| {
                        !known.contains(next) && matched(next, &resolution.name_words)
                    })
            })
            .map(|(_, w)| w)
            .collect();
        let touches = names.iter().any(|w| matched(w, &resolution.name_words));
        touches
            && !resolution
                .words_of
                .values()
                .any(|words| names.iter().all(|w| matched(w, words)))
    })
}

/// Whether every place `question` writes `word` (folded) writes it in capitals ("ICU") or with a
/// capital inside ("EpiPen"): an abbreviation or a brand, as cohort questions name concepts.
pub(super) fn written_as_an_abbreviation(question: &str, word: &str) -> bool {
    let mut seen = false;
    for token in question.split(|c: char| !c.is_alphanumeric()) {
        if token.to_lowercase() != word {
            continue;
        }
        seen = true;
        let letters: Vec<char> = token.chars().filter(|c| c.is_alphabetic()).collect();
        let capitals = letters.iter().filter(|c| c.is_uppercase()).count();
        let all_capitals = letters.len() >= 2 && capitals == letters.len();
        let capital_inside = letters.iter().skip(1).any(|c| c.is_uppercase())
            && letters.iter().any(|c| c.is_lowercase())
            && letters.len() >= 4;
        if !(all_capitals || capital_inside) {
            return false;
        }
    }
    seen
}

impl AnswerEngine {
    /// A care team's question about its patients (`first`: the question as first read).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn care_team(
        &self,
        query: &Query,
        scope: &Scope,
        first: &QuestionAnalysis,
        resolution: search::NameResolution,
        known: &BTreeSet<String>,
        search_started: Instant,
        work: &mut Work,
    ) -> Result<Reply, AnswerError> {
        // The patient named, or the care team's only patient ("How old is the patient?").
        let only = match (resolution.patients.as_slice(), scope) {
            ([one], _) => Some(*one),
            ([], Scope::Patients(keys)) if keys.len() == 1 => Some(keys[0]),
            _ => None,
        };
        if let (Some(patient), true) = (only, first.asks_age) {
            work.patients.insert(patient);
            work.timings.search_ms = search_started.elapsed().as_millis() as u64;
            return self.age(patient, work).await;
        }
        if let (Some(patient), true) = (only, first.asks_death) {
            work.patients.insert(patient);
            work.timings.search_ms = search_started.elapsed().as_millis() as u64;
            return self.death(patient, work).await;
        }
        if resolution.patients.is_empty() {
            if let Some(extreme) = first.extreme {
                if let Some(reply) = self.extreme(first, scope, known, extreme, work).await? {
                    work.timings.search_ms = search_started.elapsed().as_millis() as u64;
                    return Ok(reply);
                }
            }
        }
        let k = query
            .options
            .k
            .unwrap_or(self.config.k)
            .min(self.config.max_k) as usize;
        let plan = SearchPlan {
            condition_patients: self.config.condition_patients,
            known: Some(known.clone()),
            ..SearchPlan::default()
        };
        let Found {
            resolution,
            analysis,
            documents,
        } = find_documents_resolved(
            self.store.pool(),
            &self.embedder,
            &query.question,
            scope,
            &plan,
            k,
            resolution,
        )
        .await?;
        // A care team of one patient asks about that patient when it names none ("strep throat
        // in 2015 - treated with?"), as for age and death above.
        let mut resolution = resolution;
        if let (true, Some(patient)) = (resolution.patients.is_empty(), only) {
            resolution.patients.push(patient);
        }
        work.timings.search_ms = search_started.elapsed().as_millis() as u64;
        if let [patient] = resolution.patients.as_slice() {
            if let Some(reply) = self.no_admission(*patient, &analysis).await? {
                work.patients.insert(*patient);
                return Ok(reply);
            }
        }
        if let ([patient], true) = (resolution.patients.as_slice(), analysis.asks_stay) {
            if let Some(reply) = self.stay(*patient, &analysis, work).await? {
                work.patients.insert(*patient);
                return Ok(reply);
            }
        }
        if let ([patient], Some(asked)) = (resolution.patients.as_slice(), first.trend) {
            if let Some(reply) = self.trend(*patient, &analysis, asked, work).await? {
                work.patients.insert(*patient);
                return Ok(reply);
            }
        }
        if let ([patient], Some(extreme)) = (resolution.patients.as_slice(), first.extreme) {
            if let Some(reply) = self.peak(*patient, &analysis, extreme, work).await? {
                work.patients.insert(*patient);
                return Ok(reply);
            }
        }
        if let ([patient], Some(asked)) = (
            resolution.patients.as_slice(),
            crate::answer::reason::ForReason::read(&analysis),
        ) {
            let synthetic = render_query("the patient", &analysis.terms, known, &analysis.months);
            if let Some(reply) = self
                .for_reason(*patient, &analysis, &asked, &synthetic, work)
                .await?
            {
                work.patients.insert(*patient);
                return Ok(reply);
            }
        }
        if let ([patient], Some(wanted)) = (resolution.patients.as_slice(), asks_result(&analysis))
        {
            if let Some(reply) = self.result(*patient, &analysis, wanted, work).await? {
                work.patients.insert(*patient);
                return Ok(reply);
            }
        }
        let mut events = None;
        if let (crate::answer::question::AnswerForm::Count, [patient]) =
            (analysis.form, resolution.patients.as_slice())
        {
            // The facts that name every concept asked ("how many contraceptive implants put
            // in": insertions of one), or when none does, the first concept ("how many
            // dialysis sessions in the ICU": the sessions). Never for a class or alternatives:
            // each member would count something else, and a number said of one would be false.
            let concepts = crate::answer::question::named_concepts(&analysis.yes_support(), known);
            // "How many depo injections?": a prescription is not an injection, and its count
            // ("prescribed 2 times") is no count of doses given.
            let administered = analysis
                .terms
                .iter()
                .any(|t| matches!(t.as_str(), "injection" | "dose" | "infusion"));
            let mut tried: Vec<Vec<String>> = Vec::new();
            if concepts.len() > 1 {
                tried.push(concepts.iter().flatten().cloned().collect());
            }
            // Of injections, doses and infusions, a concept only prescriptions name ("depo") is
            // passed over for the next ("IM injections"), which may be counted.
            tried.extend(
                concepts
                    .into_iter()
                    .take(if administered { usize::MAX } else { 1 }),
            );
            if !analysis.classes.is_empty() || analysis.alternatives {
                tried.clear();
            }
            'concepts: for concept in &tried {
                // "How many ear infections": the episodes (conditions), not also the visits and
                // prescriptions that give one as their reason; "how many dialysis sessions":
                // the procedures. The first kind of fact that names the concept is counted.
                const KINDS: &[&[&str]] = &[
                    &["Condition"],
                    &["Procedure"],
                    &["Immunization"],
                    &["MedicationRequest"],
                    &["Encounter"],
                    &[],
                ];
                for kinds in KINDS {
                    if administered && matches!(kinds, [] | ["MedicationRequest"]) {
                        continue;
                    }
                    let filter = crate::answer::cohort::ConceptFilter {
                        terms: concept,
                        kinds,
                        months: &analysis.months,
                        since: analysis.since,
                        before: analysis.before,
                        active: false,
                    };
                    let n =
                        crate::answer::cohort::concept_events(self.store.pool(), *patient, &filter)
                            .await?;
                    if n > 0 {
                        events = Some(n);
                        break 'concepts;
                    }
                }
            }
        }
        work.trace.retrieved = documents.iter().map(|d| d.text.clone()).collect();
        work.trace.analysis = format!("{analysis:?}");
        work.patients.extend(resolution.patients.iter().copied());
        let subject = match resolution.patients.len() {
            0 => "the patients",
            1 => "the patient",
            _ => "the named patients",
        };
        let synthetic = render_query(subject, &analysis.terms, known, &analysis.months);
        // "Lane's active meds?", "what is she allergic to?" of a patient whose record holds no
        // fact of that kind at all: that is the answer, not other facts the search brought.
        if let ([patient], Some((kind, resource_type))) = (
            resolution.patients.as_slice(),
            crate::answer::question::asked_kind_only(&analysis),
        ) {
            if !search::holds_kind(self.store.pool(), *patient, resource_type).await? {
                work.patients.insert(*patient);
                return Ok(
                    Reply::not_found(format!("No {kind} is on record for the patient."))
                        .asking(synthetic),
                );
            }
        }
        // For one named patient of the requester's own, "not found" says what is missing, but
        // only after the whole record was searched for it: a concept on record that the
        // retrieved documents did not answer is "could not answer", never "nothing on record".
        // A yes/no question asks about its items, not the reason or the occasion it gives ("was
        // he on metformin for the diabetes?": whether metformin is on record).
        let asked = if analysis.form == crate::answer::question::AnswerForm::YesNo {
            analysis.yes_support()
        } else {
            analysis.clone()
        };
        let missing = match (
            resolution.patients.as_slice(),
            crate::answer::question::not_on_record(&asked, known),
        ) {
            ([patient], Some(absent)) => {
                let concepts = crate::answer::question::named_concepts(&asked, known);
                let mut on_record = false;
                for concept in &concepts {
                    if !search::by_day(self.store.pool(), &[*patient], concept, true, 1)
                        .await?
                        .is_empty()
                    {
                        on_record = true;
                        break;
                    }
                }
                // No fact holds a whole concept; "nothing about mmr doses" is still said only
                // when no fact holds any of its words either: a record that speaks of "MMR"
                // (or "brain" for "traumatic brain injury") may answer in words the question
                // did not use, and a confident "nothing" would then be false.
                let mut partly = Vec::new();
                if !on_record {
                    for term in concepts.iter().flatten() {
                        if !partly.contains(term)
                            && !search::by_day(
                                self.store.pool(),
                                &[*patient],
                                std::slice::from_ref(term),
                                true,
                                1,
                            )
                            .await?
                            .is_empty()
                        {
                            partly.push(term.clone());
                        }
                    }
                }
                // A word of the concept the records never use ("clot" of "a clot on the
                // lung") leaves it unread: the search looked for less than was asked.
                let unread = crate::answer::question::unread_words(&asked, known);
                Some(if on_record {
                    Reply::not_found(crate::answer::question::on_record_but_unanswered(
                        &asked, known,
                    ))
                } else if !partly.is_empty() {
                    Reply::not_found(crate::answer::question::on_record_in_part(
                        &asked, known, &partly,
                    ))
                } else if !unread.is_empty() {
                    Reply::not_found(crate::answer::question::not_read(&asked, known, &unread))
                } else if analysis.form == crate::answer::question::AnswerForm::YesNo {
                    // "Is she on warfarin?" of a record searched whole without finding it:
                    // "No" answers the question asked.
                    Reply::answered(format!("No. {absent}"))
                } else {
                    Reply::not_found(absent)
                })
            }
            _ => None,
        };
        if documents.is_empty() {
            let reply = missing.unwrap_or_else(|| Reply::not_found(NOT_FOUND_ANSWER));
            return Ok(reply.asking(synthetic));
        }
        work.patients
            .extend(documents.iter().map(|d| d.patient_key));
        // Per-answer labels, in order of relevance.
        let labels = labels(documents.iter().map(|d| d.patient_key));

        // Incremental mode: one document at a time until one answers.
        let batches: Vec<&[RetrievedDocument]> = match query.options.mode {
            // DP is for cohort roles; a care team's answer is about its own patients.
            Mode::Synthetic | Mode::Dp => vec![&documents[..]],
            Mode::Incremental => documents.chunks(1).collect(),
        };
        let mut reply: Option<Reply> = None;
        for batch in batches {
            let mut page = self
                .synthesize_and_answer(batch, &labels, &analysis, &synthetic, events, work)
                .await?;
            // A page that showed the answering step nothing keeps what an earlier page showed
            // it (its query and documents stay in the audit).
            if let (true, Some(earlier)) = (page.synthetic_query.is_empty(), reply) {
                page.synthetic_query = earlier.synthetic_query;
                page.documents = earlier.documents;
            }
            let found = page.status != AnswerStatus::NotFound;
            reply = Some(page);
            if found {
                break;
            }
        }
        let mut reply = reply
            .unwrap_or_else(Reply::nothing_found)
            .or_asking(synthetic);
        if let (true, Some(missing)) = (reply.is_nothing_found(), missing) {
            reply.status = missing.status;
            reply.answer = missing.answer;
        }
        Ok(reply)
    }

    /// "Any positive drug screens?", "urine drug screen - positive?": the results of the test
    /// named, and whether any says what was asked (`wanted`: "positive" or "negative"), read
    /// from each result's value, never from the test's presence. `None`, with nothing settled,
    /// when no test result on the patient's record names the concept.
    pub(super) async fn result(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
        wanted: &'static str,
        work: &mut Work,
    ) -> Result<Option<Reply>, AnswerError> {
        let mut items = analysis.clone();
        for phrase in &mut items.phrases {
            phrase.retain(|t| !RESULT_WORDS.contains(&t.as_str()));
        }
        items.phrases.retain(|p| !p.is_empty());
        items.terms.retain(|t| !RESULT_WORDS.contains(&t.as_str()));
        if !crate::answer::question::asks_concept(&items) {
            return Ok(None);
        }
        let facts: Vec<search::RetrievedDocument> =
            search::dated_facts(self.store.pool(), patient, &["Observation"])
                .await?
                .into_iter()
                .filter(|f| {
                    f.text.contains("Value is ")
                        && crate::answer::question::names_concept(
                            &items,
                            &crate::answer::question::line_terms(&f.text),
                        )
                })
                .filter(|f| f.day.is_some_and(|d| analysis.in_period(d)))
                .collect();
        let values: Vec<String> = facts.iter().filter_map(|f| result_value(&f.text)).collect();
        if values.is_empty() || values.len() != facts.len() {
            return Ok(None);
        }
        let Some(lead) = result_lead(&values, wanted) else {
            return Ok(None);
        };
        let labels = labels([patient]);
        let candidates = crate::answer::synthesis::candidates(&facts, &labels);
        let all: Vec<usize> = (0..candidates.len()).collect();
        let document = crate::answer::synthesis::assemble(&candidates, &all);
        work.trace.retrieved = facts.iter().map(|d| d.text.clone()).collect();
        let synthetic = render_query(
            "the patient",
            &items.terms,
            &BTreeSet::new(),
            &analysis.months,
        );
        let reply = self
            .answer_document(document, analysis, &synthetic, Some(&lead), None, work)
            .await?;
        Ok(Some(reply))
    }

    /// "Hospitalised with his covid?", "any inpatient stays?", "how long was he in with the
    /// pneumonia?" of a record with no inpatient encounter (in the period asked): there was no
    /// admission, whatever else the question names, and the reply says so instead of listing
    /// the other concept's facts. `None` when the question names no admission, or names another
    /// place of care beside it ("admitted to the ER"), or the record holds one.
    pub(super) async fn no_admission(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
    ) -> Result<Option<Reply>, AnswerError> {
        use crate::answer::question::AnswerForm;
        if !asks_admission(analysis) {
            return Ok(None);
        }
        let terms = ["inpatient".to_string()];
        let filter = crate::answer::cohort::ConceptFilter {
            terms: &terms,
            kinds: &["Encounter"],
            months: &analysis.months,
            since: analysis.since,
            before: analysis.before,
            active: false,
        };
        let period = if analysis.months.is_empty()
            && analysis.since.is_none()
            && analysis.before.is_none()
        {
            ""
        } else {
            " in the period asked"
        };
        let absent = if crate::answer::cohort::concept_events(self.store.pool(), patient, &filter)
            .await?
            > 0
        {
            match self.admission_not_for(patient, analysis, period).await? {
                Some(absent) => absent,
                None => return Ok(None),
            }
        } else {
            format!(
                "No hospital admission (inpatient encounter) is on record for the patient{period}."
            )
        };
        let synthetic = "Was the patient admitted to hospital?".to_string();
        Ok(Some(
            match analysis.form {
                AnswerForm::YesNo => Reply::answered(format!("No. {absent}")),
                _ => Reply::not_found(absent),
            }
            .asking(synthetic),
        ))
    }

    /// "Hospitalised with covid?" of a record whose admissions (in the period asked) are all for
    /// something else: what the reply says. `None` unless the question names a concept beside
    /// the admission, the record names it, and no admission is for it: one that names it as its
    /// reason, or one in a month when a fact names it (an admission whose reason the record words
    /// otherwise, "respiratory failure" for covid, is then not denied).
    async fn admission_not_for(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
        period: &str,
    ) -> Result<Option<String>, AnswerError> {
        use crate::answer::question::names_something;
        let concept: Vec<&String> = analysis
            .terms
            .iter()
            .filter(|t| t.as_str() != "inpatient" && names_something(t))
            .collect();
        if concept.is_empty() || !analysis.classes.is_empty() || analysis.alternatives {
            return Ok(None);
        }
        let facts = search::dated_facts(
            self.store.pool(),
            patient,
            &["Encounter", "Condition", "Procedure"],
        )
        .await?;
        let dated: Vec<(chrono::NaiveDate, &str)> = facts
            .iter()
            .filter_map(|f| Some((f.day?, f.text.as_str())))
            .collect();
        let Some(n) = admissions_not_for(&dated, &concept, |day| analysis.in_period(day)) else {
            return Ok(None);
        };
        let written: Vec<&str> = concept
            .iter()
            .map(|t| analysis.written.get(*t).map_or(t.as_str(), String::as_str))
            .collect();
        Ok(Some(format!(
            "No hospital admission for {} is on record for the patient: the record holds {n} \
             hospital admission{}{}, none for it or in a month when it is recorded.",
            written.join(" "),
            if n == 1 { "" } else { "s" },
            period,
        )))
    }

    /// "How many nights was he in with covid?", "how long was she in ICU?": the stays of the
    /// patient's record that name what the question names (any stay when it names nothing but
    /// the stay), in its period, each with its length ([`crate::answer::stay`]). `None`, with
    /// nothing settled, when no stay with a length answers (a store ingested before lengths
    /// were kept, a stay named by something else than its wards and reasons).
    pub(super) async fn stay(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
        work: &mut Work,
    ) -> Result<Option<Reply>, AnswerError> {
        use crate::answer::question::{
            asks_concept, holds_term, is_concept, is_stay_word, line_terms, names_concept,
        };
        let mut items = analysis.clone();
        for phrase in &mut items.phrases {
            phrase.retain(|t| !is_stay_word(t));
        }
        items.phrases.retain(|p| !p.is_empty());
        items.terms.retain(|t| !is_stay_word(t));
        let named = asks_concept(&items);
        let facts = search::dated_facts(self.store.pool(), patient, &["Encounter"]).await?;
        // Every concept named, each held by the stay ("in ICU with covid": the intensive-care
        // part, not the isolation ward before it, though both give covid as their reason).
        let parts = crate::answer::stay::parts(&facts, |sentences| {
            let words = line_terms(sentences);
            !named
                || (names_concept(&items, &words)
                    && items.phrases.iter().all(|phrase| {
                        phrase
                            .iter()
                            .filter(|t| is_concept(t))
                            .all(|t| holds_term(&words, t))
                    }))
        });
        let stays: Vec<Vec<crate::answer::stay::Part>> = crate::answer::stay::stays(&parts)
            .into_iter()
            .filter(|stay| stay.iter().any(|p| analysis.in_period(p.day)))
            .collect();
        let said = crate::answer::stay::sentence(&stays);
        if said.is_empty() {
            return Ok(None);
        }
        work.trace.retrieved = facts
            .iter()
            .filter(|f| crate::answer::stay::length(&f.text).is_some())
            .map(|f| f.text.clone())
            .collect();
        let line = format!("The patient, overall record: {said}");
        let synthetic = "How long did the patient's hospital stay last?".to_string();
        let template = format!("From the de-identified record (dates by month): {said}.");
        Ok(Some(
            self.answer_line(line, synthetic, template, work).await?,
        ))
    }

    /// "What is she on for her osteoporosis?", "procedures for her breast cancer": the facts
    /// of the kind asked whose recorded reason is the condition the question gives, and those
    /// with no reason recorded the day it was diagnosed or seen for (the reply says so). When
    /// the condition is on record and no such fact is, a list question is told exactly that.
    /// `false`, with nothing settled, when the condition is not on the patient's record or
    /// the question is one the other steps answer better (a yes/no, a drug named).
    pub(super) async fn for_reason(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
        asked: &crate::answer::reason::ForReason,
        synthetic: &str,
        work: &mut Work,
    ) -> Result<Option<Reply>, AnswerError> {
        use crate::answer::question::AnswerForm;
        if !matches!(analysis.form, AnswerForm::Facts | AnswerForm::YesNo) {
            return Ok(None);
        }
        let facts = search::dated_facts(
            self.store.pool(),
            patient,
            &[
                "Condition",
                "MedicationRequest",
                "Procedure",
                "Immunization",
                "Encounter",
            ],
        )
        .await?;
        let conditions: Vec<usize> = (0..facts.len())
            .filter(|i| asked.names_condition(&facts[*i].text))
            .collect();
        let (chosen, by_day) = asked.select(&facts, analysis.now);
        if chosen.is_empty() {
            // Absence is said of a list asked for ("what is she on for …"), never as a "no"
            // to a yes/no question nor of a class asked for: a procedure may name the
            // condition in its own words ("removal of ectopic pregnancy"), and the other steps
            // read those.
            if asked.items.is_some() || analysis.form != AnswerForm::Facts {
                return Ok(None);
            }
            let Some(since) = crate::answer::reason::first_day(&facts, &conditions) else {
                return Ok(None);
            };
            let reason = analysis
                .reasons
                .first()
                .map(|r| analysis.as_written(r.iter()))
                .unwrap_or_default();
            let kind = asked.kind_name();
            let answer = format!(
                "No {kind} on record gives {reason} as its reason, and none without a \
                 reason was recorded the day {reason} was diagnosed or seen for ({reason} is on \
                 record since {}); ask for the list to see them all.",
                crate::text::dates::month_year(since)
            );
            return Ok(Some(Reply::not_found(answer).asking(synthetic)));
        }
        let documents: Vec<search::RetrievedDocument> =
            chosen.into_iter().map(|i| facts[i].clone()).collect();
        let labels = labels([patient]);
        let candidates = crate::answer::synthesis::candidates(&documents, &labels);
        let all: Vec<usize> = (0..candidates.len()).collect();
        let document = crate::answer::synthesis::assemble(&candidates, &all);
        work.trace.retrieved = documents.iter().map(|d| d.text.clone()).collect();
        let mut reply = self
            .answer_document(document, analysis, synthetic, None, None, work)
            .await?;
        // Which link each fact stands on is the reader's to know.
        if by_day && reply.status == AnswerStatus::Answered {
            reply.answer.push_str(
                " (Facts with no recorded reason are included when recorded the day the \
                 condition was diagnosed or seen for.)",
            );
        }
        Ok(Some(reply))
    }

    /// The reading of `patient`'s record the question names (the code whose name holds the most
    /// of its terms, then the one read most often), with its dated values: what a trend or a
    /// highest value is read from. `None` when no reading of one value holds a term.
    async fn named_reading(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
    ) -> Result<Option<NamedReading>, AnswerError> {
        use crate::privacy::generalize::Reading;
        let facts =
            crate::answer::cohort::facts_of(self.store.pool(), &[patient], "Observation").await?;
        // code → (the reading's wording, its dated values)
        let mut codes: std::collections::BTreeMap<
            String,
            (Reading, Vec<(chrono::NaiveDate, f64)>),
        > = std::collections::BTreeMap::new();
        for (_, day, sentences) in &facts {
            let Some(day) = day else { continue };
            // Any reading that holds a word of the question ("losing", "past" hold none); the
            // code naming the most of them is chosen below.
            let words = crate::answer::question::line_terms(sentences);
            if !analysis.terms.iter().any(|t| words.contains(t)) {
                continue;
            }
            let Some(at) = sentences.find("Code is ") else {
                continue;
            };
            let rest = &sentences[at + "Code is ".len()..];
            let end = rest.find(". ").unwrap_or(rest.len());
            let code = rest[..end].trim_end_matches('.').to_string();
            let reading = Reading::parse(rest[end..].trim_start_matches(['.', ' ']));
            if reading.values.len() != 1 {
                continue;
            }
            let entry = codes
                .entry(code)
                .or_insert_with(|| (reading.clone(), Vec::new()));
            if entry.0.template == reading.template {
                entry.1.push((*day, reading.values[0]));
            }
        }
        let matched = |code: &str| {
            let words = crate::answer::question::line_terms(code);
            analysis.terms.iter().filter(|t| words.contains(*t)).count()
        };
        let best = codes.keys().map(|c| matched(c)).max().unwrap_or(0);
        if best == 0 {
            return Ok(None);
        }
        Ok(codes
            .into_iter()
            .max_by_key(|(code, (_, values))| (matched(code), values.len()))
            .map(|(code, (reading, values))| NamedReading {
                code,
                reading,
                values,
            }))
    }

    /// "Is she losing weight?": the reading the question names, the last value of each year over
    /// the last years of the record (or since the year asked), and which way it went. `false`,
    /// with nothing settled, when no reading of two years or more answers.
    pub(super) async fn trend(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
        asked: crate::answer::trend::Asked,
        work: &mut Work,
    ) -> Result<Option<Reply>, AnswerError> {
        let Some(NamedReading {
            code,
            reading,
            values,
        }) = self.named_reading(patient, analysis).await?
        else {
            return Ok(None);
        };
        let since = analysis.since.map(|d| chrono::Datelike::year(&d));
        let series = crate::answer::trend::window(&crate::answer::trend::yearly(&values), since);
        let answer = crate::answer::trend::sentence(&code, &reading, &series, asked);
        if answer.is_empty() {
            return Ok(None);
        }
        let line = format!("The patient, overall record: {answer}");
        let synthetic = format!("How has the patient's {code} changed over the years?");
        let template = format!("From the de-identified record (values rounded): {answer}");
        Ok(Some(
            self.answer_line(line, synthetic, template, work).await?,
        ))
    }

    /// "Highest LDL he's ever had?", "her lowest haemoglobin in 2019?": the highest (lowest)
    /// value of the reading the question names over the patient's record (in the period
    /// asked), with its month. `None`, with nothing settled, when no reading answers.
    pub(super) async fn peak(
        &self,
        patient: i64,
        analysis: &QuestionAnalysis,
        extreme: crate::answer::question::Extreme,
        work: &mut Work,
    ) -> Result<Option<Reply>, AnswerError> {
        use crate::answer::question::Extreme;
        let Some(NamedReading {
            code,
            reading,
            values,
        }) = self.named_reading(patient, analysis).await?
        else {
            return Ok(None);
        };
        let asked: Vec<&(chrono::NaiveDate, f64)> = values
            .iter()
            .filter(|(day, _)| analysis.in_period(*day))
            .collect();
        let peak = match extreme {
            Extreme::Highest => asked.iter().max_by(|a, b| a.1.total_cmp(&b.1)),
            Extreme::Lowest => asked.iter().min_by(|a, b| a.1.total_cmp(&b.1)),
        };
        let Some((day, value)) = peak else {
            return Ok(None);
        };
        let shown = reading.render(&[crate::privacy::generalize::format_value(*value)]);
        let shown = shown.trim().trim_end_matches('.');
        let shown = shown.strip_prefix("Value is ").unwrap_or(shown);
        let which = match extreme {
            Extreme::Highest => "Highest",
            Extreme::Lowest => "Lowest",
        };
        let answer = format!(
            "{which} {code} on record: {shown} ({}; {} readings)",
            crate::text::dates::month_year(*day),
            asked.len()
        );
        let line = format!("The patient, overall record: {answer}.");
        let synthetic = format!("What was the patient's {} {code}?", which.to_lowercase());
        let template = format!("From the de-identified record (values rounded): {answer}.");
        Ok(Some(
            self.answer_line(line, synthetic, template, work).await?,
        ))
    }

    /// "Which of my patients has the highest BMI?": the highest (lowest) of each patient's
    /// latest reading over the patients the requester may see (those with the question's
    /// condition, when it names one). Which patient it is is never said (the audit records
    /// it). `false`, with nothing settled, when no reading answers: the question then takes
    /// the ordinary path ("the highest dose of lisinopril").
    pub(super) async fn extreme(
        &self,
        first: &QuestionAnalysis,
        scope: &Scope,
        known: &BTreeSet<String>,
        extreme: crate::answer::question::Extreme,
        work: &mut Work,
    ) -> Result<Option<Reply>, AnswerError> {
        let mut analysis = first.clone();
        // "Which patient has the highest BMI": what follows "has" is the reading, not a
        // condition.
        if analysis
            .condition
            .as_deref()
            .is_some_and(|c| crate::answer::question::extreme(c).is_some())
        {
            analysis.condition = None;
        }
        // The care team's own patients' condition names, any one of them.
        let names = self.condition_names(scope, 1).await?;
        let analysis = read_cohort(analysis, known, Some(&names));
        let pool = self.store.pool();
        let (condition, synthetic, unknown) = cohort_subject(&analysis, known);
        if unknown {
            return Ok(None);
        }
        let patients = crate::answer::cohort::cohort(pool, scope, condition.as_deref()).await?;
        let facts = crate::answer::cohort::observations_naming(pool, &patients, &analysis).await?;
        let Some((line, patient)) =
            crate::answer::cohort::extreme_reading(&facts, &analysis, extreme)
        else {
            return Ok(None);
        };
        work.patients.insert(patient);
        let template = format!(
            "{line} Answers never say which patient a value is; ask about a patient by name \
             for their record."
        );
        Ok(Some(
            self.answer_line(line, synthetic, template, work).await?,
        ))
    }

    /// "How old is …": the ten-year age band (90 and over as one), from the vault's birth date
    /// and, for a patient who died, the day of death the record gives. The birth date itself
    /// never leaves; a band is what HIPAA's Safe Harbor lets an age be.
    pub(super) async fn age(&self, patient: i64, work: &mut Work) -> Result<Reply, AnswerError> {
        let pool = self.store.pool();
        // The vault computes the decade (at death, or today); the birth date never leaves it.
        let decade = search::age_decade(pool, patient).await?;
        let synthetic = "What does the record of the patient say about age?".to_string();
        let Some(decade) = decade else {
            return Ok(Reply::nothing_found().asking(synthetic));
        };
        let death = search::death(pool, patient).await?.day.map(|_| ());
        let band = crate::privacy::generalize::age_band(decade.max(0) as u32);
        // "90 or older" is open-ended: "90 years or older", never "90 or older years old".
        let open = band.ends_with("or older");
        let band = if open {
            band.replace(" or older", " years or older")
        } else {
            format!("{band} years")
        };
        let (line, template) = match death {
            Some(_) => (
                format!("The patient, overall record: Age at death is {band}"),
                format!("The patient died aged {band}."),
            ),
            None => (
                format!("The patient, overall record: Age is {band}"),
                if open {
                    format!("The patient is {band}.")
                } else {
                    format!("The patient is {band} old.")
                },
            ),
        };
        self.answer_line(line, synthetic, template, work).await
    }

    /// "When did he pass away?", "What did she die of?": the month of death the Patient record
    /// gives and the cause of death on its certificate, when recorded. A record that says no
    /// death is answered so (the whole Patient record was read).
    pub(super) async fn death(&self, patient: i64, work: &mut Work) -> Result<Reply, AnswerError> {
        let pool = self.store.pool();
        let synthetic = "What does the record of the patient say about death?".to_string();
        let death = search::death(pool, patient).await?;
        if !death.deceased {
            let line = "The patient, overall record: No death is recorded".to_string();
            let template = "No death is recorded for the patient.".to_string();
            return self.answer_line(line, synthetic, template, work).await;
        }
        let (died, cause) = (death.day, death.cause);
        let when = died
            .as_deref()
            .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
            .map(crate::text::dates::month_year);
        let mut said = match &when {
            Some(when) => format!("The patient died in {when}"),
            None => "The patient is deceased".to_string(),
        };
        if let Some(cause) = &cause {
            said.push_str(&format!(
                "; the cause of death recorded is {}",
                cause.trim()
            ));
        }
        let line = format!("The patient, overall record: {said}");
        let template = format!("From the de-identified record (dates by month): {said}.");
        self.answer_line(line, synthetic, template, work).await
    }
}

/// Words that ask what a test found, not which test.
/// How many hospital admissions (inpatient encounters) of `facts` fall in the period asked,
/// when none of them is for `concept`: `None` when one names it, when one falls in a month
/// when any fact names it (its reason may be worded otherwise), or when no fact names it.
fn admissions_not_for(
    facts: &[(chrono::NaiveDate, &str)],
    concept: &[&String],
    in_period: impl Fn(chrono::NaiveDate) -> bool,
) -> Option<usize> {
    use crate::answer::question::line_terms;
    let month = |day: chrono::NaiveDate| chrono::Datelike::with_day(&day, 1);
    let mut admissions = Vec::new();
    let mut named = std::collections::BTreeSet::new();
    for (day, text) in facts {
        let terms = line_terms(text);
        let names = concept.iter().all(|t| terms.contains(*t));
        if names {
            named.insert(month(*day));
        }
        if text.starts_with("Encounter is ") && terms.contains("inpatient") && in_period(*day) {
            if names {
                return None;
            }
            admissions.push(month(*day));
        }
    }
    if named.is_empty() || admissions.iter().any(|m| named.contains(m)) {
        return None;
    }
    Some(admissions.len())
}

/// A reading of one patient's record ([`AnswerEngine::named_reading`]): its code, its wording (the
/// value replaced by `{}`), and its dated values.
struct NamedReading {
    code: String,
    reading: crate::privacy::generalize::Reading,
    values: Vec<(chrono::NaiveDate, f64)>,
}

const RESULT_WORDS: &[&str] = &["positive", "negative"];

/// Whether a question names a hospital admission ("hospitalised", "admitted", "inpatient stays")
/// and no other place of care beside it ("admitted to the ER", "admitted to ICU").
fn asks_admission(analysis: &QuestionAnalysis) -> bool {
    const OTHER_PLACES: &[&str] = &[
        "emergency",
        "urgent",
        "intensive",
        "icu",
        "ambulatory",
        "outpatient",
        "wellness",
    ];
    let has = |term: &str| analysis.terms.iter().any(|t| t == term);
    has("inpatient") && !OTHER_PLACES.iter().any(|t| has(t))
}

/// What a question asks a test to have found: "positive" or "negative", when it names one of
/// them and something else to look for ("any positive drug screens?").
fn asks_result(analysis: &QuestionAnalysis) -> Option<&'static str> {
    let says = |w: &str| analysis.terms.iter().any(|t| t == w);
    match (says("positive"), says("negative")) {
        (true, false) => Some("positive"),
        (false, true) => Some("negative"),
        _ => None,
    }
}

/// A test result's qualitative value, lower case ("negative (qualifier value)"), when it has
/// one; `None` for a number.
fn result_value(sentences: &str) -> Option<String> {
    let value = sentences.split("Value is ").nth(1)?;
    let value = value.split(". ").next()?.trim_end_matches('.');
    value
        .chars()
        .next()
        .is_some_and(char::is_alphabetic)
        .then(|| value.to_lowercase())
}

/// "Yes." when a result says what was asked, "No." when every result says otherwise, with the
/// results' count: the results follow, so the reader sees what the lead stands on. `None` when
/// a value says neither ("cloudy urine") and none says what was asked.
fn result_lead(values: &[String], wanted: &str) -> Option<String> {
    let reads = |v: &String| -> Option<&'static str> {
        if v.contains("not detected") || v.contains("negative") {
            Some("negative")
        } else if v.contains("detected") || v.contains("positive") {
            Some("positive")
        } else {
            None
        }
    };
    let read: Vec<Option<&str>> = values.iter().map(reads).collect();
    let n = values.len();
    let results = if n == 1 { "result" } else { "results" };
    let matching = read.iter().filter(|r| **r == Some(wanted)).count();
    if matching > 0 {
        let verb = if matching == 1 { "is" } else { "are" };
        Some(format!(
            "Yes: {matching} of {n} {results} on record {verb} {wanted}. "
        ))
    } else if read.iter().all(Option::is_some) {
        let other = if wanted == "positive" {
            "negative"
        } else {
            "positive"
        };
        Some(match n {
            1 => format!("No: the result on record is {other}. "),
            _ => format!("No: all {n} results on record are {other}. "),
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_death_that_dates_another_question_is_not_asked_about() {
        for asked in [
            "when did she die?",
            "what did he die of?",
            "cause of death?",
            "is she deceased",
            "when she died, what was the cause?",
        ] {
            assert!(crate::answer::question::asks_death(asked), "{asked}");
        }
        for dating in [
            "her last flu jab before she died - when was it?",
            "was astemizole still on her active list when she died?",
            "was his LDL climbing in the years before he died?",
            "dementia meds Ginny was on when she died?",
            "weight at her death?",
        ] {
            assert!(!crate::answer::question::asks_death(dating), "{dating}");
        }
    }

    #[test]
    fn a_full_name_must_be_one_listed_patients_whole_name() {
        let set = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<BTreeSet<_>>();
        // Mary Smith (1) and Jane Doe (2) are listed.
        let resolution = |words_of: &[(i64, &[&str])]| search::NameResolution {
            patients: words_of.iter().map(|(k, _)| *k).collect(),
            name_words: words_of.iter().flat_map(|(_, w)| set(w)).collect(),
            words_of: words_of.iter().map(|(k, w)| (*k, set(w))).collect(),
            ambiguous: false,
        };
        let runs = |q: &str| analyze(q, &BTreeSet::new()).name_runs;
        let known = set(&["fracture"]);
        // "Jane Smith": Smith matched Mary Smith, Jane is nobody's first name there.
        assert!(names_someone_else(
            &runs("What is Jane Smith's latest weight?"),
            &resolution(&[(1, &["smith"])]),
            &known
        ));
        // Each word matched a different listed patient: still nobody's whole name.
        assert!(names_someone_else(
            &runs("Does Jane Smith have asthma?"),
            &resolution(&[(1, &["smith"]), (2, &["jane"])]),
            &known
        ));
        // The listed patient's own full name, a surname alone, a record word beside it.
        assert!(!names_someone_else(
            &runs("What is Mary Smith's latest weight?"),
            &resolution(&[(1, &["mary", "smith"])]),
            &known
        ));
        assert!(!names_someone_else(
            &runs("Has Mrs. Smith had a flu shot?"),
            &resolution(&[(1, &["smith"])]),
            &known
        ));
        // A record word written as the first name before a listed surname is a first name.
        assert!(names_someone_else(
            &runs("Camila Smith - sepsis back in the 40s?"),
            &resolution(&[(1, &["smith"])]),
            &set(&["camila", "sepsis"])
        ));
        assert!(!names_someone_else(
            &runs("Camila Smith - sepsis back in the 40s?"),
            &resolution(&[(1, &["camila", "smith"])]),
            &set(&["camila", "sepsis"])
        ));
        assert!(!names_someone_else(
            &runs("Did Smith Fracture heal for Mary Smith?"),
            &resolution(&[(1, &["mary", "smith"])]),
            &known
        ));
    }

    #[test]
    fn an_admission_is_asked_alone_or_not_at_all() {
        let none = BTreeSet::new();
        for asked in [
            "ernesto - hospitalised with his covid?",
            "any hospital admission for him, covid or otherwise?",
            "ka - any inpatient stays?",
        ] {
            assert!(
                asks_admission(&crate::answer::question::analyze(asked, &none)),
                "{asked}"
            );
        }
        for asked in [
            "was he admitted to the ER in 2019?",
            "Britteny in ICU with covid - was she tubed?",
            "covid - any fever?",
        ] {
            assert!(
                !asks_admission(&crate::answer::question::analyze(asked, &none)),
                "{asked}"
            );
        }
    }

    #[test]
    fn an_admission_is_denied_only_when_none_can_be_for_the_concept() {
        let day = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d).expect("a date");
        let covid = "covid".to_string();
        let concept = [&covid];
        let appendix = "Encounter is Emergency hospital admission. Class is inpatient. Reason is Appendicitis.";
        let isolation = "Encounter is Hospital admission for isolation. Class is inpatient. Reason is COVID-19.";
        let failure = "Encounter is Hospital admission. Class is inpatient. Reason is Acute respiratory failure.";
        let condition = "Condition is COVID-19. Clinical status is resolved.";
        let any = |_| true;
        // Covid at home in 2020, the only admission in 1977: none is for it.
        let home = [(day(1977, 5, 2), appendix), (day(2020, 3, 4), condition)];
        assert_eq!(admissions_not_for(&home, &concept, any), Some(1));
        // An admission that names it, or one in the month it is recorded, is not denied.
        let named = [(day(2020, 3, 4), condition), (day(2020, 3, 5), isolation)];
        assert_eq!(admissions_not_for(&named, &concept, any), None);
        let worded_otherwise = [(day(2020, 3, 4), condition), (day(2020, 3, 20), failure)];
        assert_eq!(admissions_not_for(&worded_otherwise, &concept, any), None);
        // A concept the record never names is not denied either (the question is read otherwise).
        assert_eq!(
            admissions_not_for(&[(day(1977, 5, 2), appendix)], &concept, any),
            None
        );
        // Only the admissions of the period asked are counted.
        let in_2020 = |d: chrono::NaiveDate| chrono::Datelike::year(&d) == 2020;
        assert_eq!(admissions_not_for(&home, &concept, in_2020), Some(0));
    }

    #[test]
    fn a_result_question_is_answered_by_the_values() {
        let v = |values: &[&str]| values.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            result_value("Category is laboratory. Code is Drugs of abuse 5 panel - Urine by Screen method. Value is Negative (qualifier value)."),
            Some("negative (qualifier value)".into())
        );
        assert_eq!(result_value("Code is Glucose. Value is 94 mg/dL."), None);
        let negative = v(&[
            "negative (qualifier value)",
            "not detected (qualifier value)",
        ]);
        assert_eq!(
            result_lead(&negative, "positive").as_deref(),
            Some("No: all 2 results on record are negative. ")
        );
        let one_positive = v(&["positive (qualifier value)", "negative (qualifier value)"]);
        assert_eq!(
            result_lead(&one_positive, "positive").as_deref(),
            Some("Yes: 1 of 2 results on record is positive. ")
        );
        // "Not detected" is no detection; a value that says neither answers neither way.
        assert_eq!(
            result_lead(&v(&["detected (qualifier value)"]), "negative").as_deref(),
            Some("No: the result on record is positive. ")
        );
        assert_eq!(
            result_lead(&v(&["cloudy urine (finding)"]), "positive"),
            None
        );
    }
}
