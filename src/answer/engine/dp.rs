//! The DP path (mode `dp`, or a role of `--dp-roles`): noisy counts and medians, and DP-RAG
//! text answers by keyword-space aggregation ([`crate::dp::keywords`]), charged to the
//! requester's budget.

use super::*;

/// How one cohort question is answered privately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DpKind {
    Aggregate,
    Text,
}

impl DpKind {
    fn as_str(self) -> &'static str {
        match self {
            DpKind::Aggregate => "aggregate",
            DpKind::Text => "text",
        }
    }
}

/// ε as written in answers: "5", "0.5".
pub(super) fn format_epsilon(epsilon: f64) -> String {
    let rounded = (epsilon * 100.0).round() / 100.0;
    format!("{rounded}")
}

/// The deterministic answer to a DP cohort question.
pub(super) fn dp_cohort_answer(document: &SyntheticDocument, epsilon: f64) -> String {
    format!(
        "From the de-identified records, with differential privacy (ε = {}; every count and \
         median carries calibrated noise, and items few patients share are not named): {}",
        format_epsilon(epsilon),
        document.lines.join(" ")
    )
}

/// The voters of a DP text answer: the patients of the question's cohort (its condition, or
/// the whole scope) with a document at least `--dp-similarity` similar to the question, each
/// reading first its documents that hold the kind of fact the question asks for.
pub async fn dp_voters(
    pool: &sqlx::PgPool,
    embedder: &EmbeddingService,
    question: &str,
    condition: Option<&str>,
    scope: &Scope,
    settings: &DpConfig,
) -> Result<Vec<search::Voter>, AnswerError> {
    let patients = crate::answer::cohort::cohort(pool, scope, condition).await?;
    let text = retrieval_text(question, &BTreeSet::new(), &[], 500);
    let vector = embedder.embed(vec![text]).await?.pop().unwrap_or_default();
    // "Immunization:" → the documents' "Immunization is ".
    let prefer = asked_kind(question).map(|kind| format!("{} is ", kind.trim_end_matches(':')));
    Ok(search::threshold_voters(
        pool,
        &vector,
        &patients,
        settings.dp_similarity,
        settings.dp_documents_per_voter,
        prefer.as_deref(),
    )
    .await?)
}

/// Keeps a uniformly random `most` of the voters (drawn from the answer's noise).
pub fn subsample(voters: &mut Vec<search::Voter>, most: usize, noise: &mut Noise) {
    let keep = noise.choose_front(voters, most);
    voters.truncate(keep);
}

/// Each voter's context: its documents, one short line per fact (see [`compact_fact`]), the
/// facts of the kind the question asks about first (so that the cut at `--dp-context-tokens`
/// keeps them), dates generalized to months. The order depends on the question's words only.
pub fn voter_contexts(voters: &[search::Voter], question: &str) -> Vec<String> {
    let asked = asked_kind(question);
    voters
        .iter()
        .map(|v| {
            let mut lines: Vec<String> = v
                .texts
                .iter()
                .flat_map(|t| t.lines())
                .filter_map(compact_fact)
                .collect();
            if let Some(kind) = asked {
                lines.sort_by_key(|l| !l.starts_with(kind));
            }
            crate::text::dates::generalize_to_months(&lines.join("\n"))
        })
        .collect()
}

/// One fact line of a document as a voter reads it: what the fact is and its value, without
/// the statuses and categories that fill most of a document's tokens ("Condition is
/// Hypertension. Clinical status is active. …" → "Condition: Hypertension"; "Category is
/// vital-signs. Code is Body Weight. Value is 67.6 kg." → "Body Weight: 67.6 kg"). A voter's
/// context is cut at `--dp-context-tokens`; this lets it hold several times more facts, and
/// a small model copies an item name from a short line far more reliably than from a long one.
/// Lines that are empty after that are dropped.
pub fn compact_fact(line: &str) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with("Summary of ") {
        return None;
    }
    let sentences: Vec<&str> = line
        .split(". ")
        .map(|s| s.trim().trim_end_matches('.'))
        .filter(|s| !s.is_empty())
        .collect();
    fn field(s: &str) -> Option<(&str, &str)> {
        s.split_once(" is ").map(|(k, v)| (k.trim(), v.trim()))
    }
    let compact = match sentences.first().and_then(|s| field(s)) {
        Some(("Category", _)) => {
            // An observation: "Code is X. Value is Y." or its components "X is Y".
            let rest: Vec<String> = sentences[1..]
                .iter()
                .filter_map(|s| field(s))
                .filter(|(k, _)| *k != "Status" && *k != "Interpretation")
                .map(|(k, v)| match k {
                    "Code" | "Value" => v.to_string(),
                    _ => format!("{k} {v}"),
                })
                .collect();
            rest.join(": ")
        }
        Some((kind, value)) => format!("{kind}: {value}"),
        None => sentences.first().copied().unwrap_or_default().to_string(),
    };
    (!compact.is_empty()).then_some(compact)
}

/// What a question asks for, from its words: the answer's lead and the record lines of that
/// kind (as [`compact_fact`] writes them).
pub(super) const ASKED: [(&[&str], &str, &str); 6] = [
    (
        &[
            "medication",
            "medications",
            "medicine",
            "drug",
            "drugs",
            "prescribed",
            "take",
            "takes",
        ],
        "Medication:",
        "Medication:",
    ),
    (
        &[
            "vaccine",
            "vaccines",
            "vaccination",
            "immunization",
            "immunizations",
            "immunized",
        ],
        "Vaccine:",
        "Immunization:",
    ),
    (
        &[
            "procedure",
            "procedures",
            "surgery",
            "operation",
            "undergo",
            "undergoes",
        ],
        "Procedure:",
        "Procedure:",
    ),
    (
        &["allergy", "allergies", "allergic"],
        "Allergy:",
        "Allergy:",
    ),
    (
        &[
            "condition",
            "conditions",
            "diagnosis",
            "diagnoses",
            "disease",
            "diseases",
        ],
        "Condition:",
        "Condition:",
    ),
    (&["plan", "plans", "careplan"], "Care plan:", "Care plan:"),
];

pub(super) fn asked(
    question: &str,
) -> Option<&'static (&'static [&'static str], &'static str, &'static str)> {
    let words = crate::text::words(question);
    ASKED
        .iter()
        .find(|(keys, _, _)| words.iter().any(|w| keys.contains(&w.as_str())))
}

pub(super) fn asked_kind(question: &str) -> Option<&'static str> {
    asked(question).map(|(_, _, kind)| *kind)
}

/// The public start of every voter's answer, from the question's words alone (so it costs no
/// privacy): "Medication:" for a question about medications, and so on; "Answer:" otherwise.
/// A small model that must continue "Medication:" names one, where left alone it spends its
/// few charged tokens on "The patient with …".
pub fn answer_lead(question: &str) -> &'static str {
    asked(question)
        .map(|(_, lead, _)| *lead)
        .unwrap_or("Answer:")
}

/// A DP text answer whose draw said *no answer* (or whose vote produced nothing): the same
/// words whether the group is small, absent or in disagreement.
pub(super) const DP_NO_AGREEMENT: &str =
    "No answer stood out among the records of the patients this \
    question concerns (a differentially private answer names an item only where many records \
    agree).";

/// What the voters of a DP text answer are told.
pub const DP_VOTER_SYSTEM: &str = "You read one patient's record and answer the question about \
    it in a few words. Name the item only.";

impl AnswerEngine {
    /// A cohort question answered with differential privacy: spend from the requester's budget
    /// (nothing when exhausted), then DP aggregates for counts and numbers, or a text by noisy
    /// votes of the patients whose records match (a local GGUF model is needed; without one the
    /// question gets DP aggregates).
    pub(super) async fn dp_cohort(
        &self,
        query: &Query,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        population: &Population,
        known: &BTreeSet<String>,
        work: &mut Work,
    ) -> Result<Reply, AnswerError> {
        let settings = &self.config.dp;
        let epsilon = query.options.epsilon.unwrap_or(settings.dp_epsilon);
        if epsilon > settings.dp_max_epsilon {
            return Ok(Reply::from(policy::EPSILON_TOO_LARGE));
        }
        let cost = PrivacyCost {
            epsilon,
            delta: settings.dp_delta,
        };
        let (condition, synthetic, unknown) = cohort_subject(analysis, known);
        // A condition the records of k patients never name: an empty cohort, answered (and
        // charged) like any other, so that whether a word is known never shows un-noised.
        let empty = Scope::Patients(Vec::new());
        // The population narrows the scope: a per-patient predicate, so the noise needed is
        // the same.
        let narrowed = if population.is_everyone() {
            None
        } else {
            let pool = self.store.pool();
            let everyone = crate::answer::cohort::cohort(pool, scope, None).await?;
            Some(Scope::Patients(
                crate::answer::population::filter(pool, &everyone, population).await?,
            ))
        };
        let scope = narrowed.as_ref().unwrap_or(scope);
        let (scope, condition) = if unknown {
            (&empty, None)
        } else {
            (scope, condition)
        };
        let votes = matches!(&self.backend, Backend::Model(m) if m.supports_votes());
        let kind = if asks_for_figures(&query.question) || !votes {
            DpKind::Aggregate
        } else {
            DpKind::Text
        };
        let requester = &query.requester.key();
        let digest = self.request_digest(query);
        let spend = self
            .budget
            .spend(requester, &query.query_id, &digest, cost)
            .await?;
        match spend {
            Spend::Exhausted { epsilon_left } => {
                work.dp = Some(DpSpent {
                    epsilon: 0.0,
                    delta: 0.0,
                    epsilon_left,
                });
                return Ok(Reply::from(policy::BUDGET_EXHAUSTED));
            }
            Spend::Conflict => return Ok(Reply::from(policy::QUERY_ID_REUSED)),
            Spend::Replay { published } => {
                // The answer as first published, unchanged: it tells nothing new and costs
                // nothing. (Recomputing it would draw fresh noise, or need a stored seed.)
                let published: Answer = serde_json::from_value(published)
                    .map_err(|e| AnswerError::from(sqlx::Error::Decode(Box::new(e))))?;
                work.dp_audit = Some(serde_json::json!({"replay": true, "charged_epsilon": 0.0}));
                work.dp = Some(DpSpent {
                    epsilon: 0.0,
                    delta: 0.0,
                    epsilon_left: self.budget.epsilon_left(requester).await?,
                });
                return Ok(Reply::new(published.status, published.answer)
                    .asking(published.synthetic_query));
            }
            Spend::Granted => work.dp_charged = true,
        }
        let mut noise = Noise::from_seed(Noise::fresh_seed());
        let mut audit = serde_json::json!({
            "kind": kind.as_str(),
            "epsilon": epsilon,
            "delta": cost.delta,
            "replay": false,
        });
        let (reply, refund) = match kind {
            DpKind::Aggregate => {
                self.dp_aggregate(
                    scope,
                    analysis,
                    condition.as_deref(),
                    &synthetic,
                    cost,
                    &mut noise,
                    work,
                )
                .await?
            }
            DpKind::Text => {
                self.dp_text(
                    query,
                    condition.as_deref(),
                    scope,
                    cost,
                    &mut noise,
                    &mut audit,
                    work,
                )
                .await?
            }
        };
        let mut charged = epsilon;
        if refund > 0.0 {
            self.budget
                .refund(requester, &query.query_id, refund)
                .await?;
            charged -= refund;
        }
        audit["charged_epsilon"] = serde_json::json!(charged);
        work.dp_audit = Some(audit);
        work.dp = Some(DpSpent {
            epsilon: charged,
            delta: cost.delta,
            epsilon_left: self.budget.epsilon_left(requester).await?,
        });
        Ok(reply.or_asking(synthetic))
    }

    /// DP counts and medians, and the ε to give back (a cohort whose noisy size is below the
    /// minimum used only the size's share).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn dp_aggregate(
        &self,
        scope: &Scope,
        analysis: &QuestionAnalysis,
        condition: Option<&str>,
        synthetic: &str,
        cost: PrivacyCost,
        noise: &mut Noise,
        work: &mut Work,
    ) -> Result<(Reply, f64), AnswerError> {
        let half = PrivacyCost {
            epsilon: cost.epsilon,
            delta: cost.delta / 2.0,
        };
        let settings = crate::answer::cohort::DpSettings {
            rho: half.rho(),
            delta: cost.delta,
            max_items: self.config.dp.dp_max_items,
            min_patients: self.config.cohort_min_patients,
        };
        let Some(document) = crate::answer::cohort::dp_aggregate(
            self.store.pool(),
            scope,
            analysis,
            condition,
            settings,
            noise,
        )
        .await?
        else {
            let used = crate::dp::epsilon_of(0.2 * settings.rho, half.delta);
            return Ok((Reply::from(policy::TOO_FEW), (cost.epsilon - used).max(0.0)));
        };
        // The noisy cohort size alone is an answer too ("about 12 patients"; no item named).
        if document.lines.is_empty() {
            return Ok((Reply::nothing_found(), 0.0));
        }
        let (document, query) = match self.review(document, synthetic.to_string(), work).await? {
            Ok(passed) => passed,
            Err(refused) => return Ok((refused, 0.0)),
        };
        work.trace.synthetic_document = document.get().text();
        // The template, not a model's rephrasing: a model drops "about" and the noise notice.
        let answer = dp_cohort_answer(document.get(), cost.epsilon);
        Ok((Reply::answered(answer).asking(query.get().clone()), 0.0))
    }

    /// DP-RAG: the patients with a document above the similarity threshold are the voters
    /// (see [`crate::dp`]); by default each answers in full and the exponential mechanism over a
    /// public keyword universe draws the answer ([`crate::dp::keywords`], pure ε-DP), or, with
    /// `--dp-text tokens`, they vote on every token. Returns the reply and the ε to give back
    /// (token votes refused on the noisy voter count used only the count's share).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn dp_text(
        &self,
        query: &Query,
        condition: Option<&str>,
        scope: &Scope,
        cost: PrivacyCost,
        noise: &mut Noise,
        audit: &mut serde_json::Value,
        work: &mut Work,
    ) -> Result<(Reply, f64), AnswerError> {
        let settings = &self.config.dp;
        let Backend::Model(model) = &self.backend else {
            return Err(AnswerError::Config("DP text answers need a model".into()));
        };
        let search_started = Instant::now();
        let mut voters = dp_voters(
            self.store.pool(),
            &self.embedder,
            &query.question,
            condition,
            scope,
            settings,
        )
        .await?;
        work.timings.search_ms += search_started.elapsed().as_millis() as u64;
        audit["voters"] = serde_json::json!(voters.len());
        audit["mechanism"] = serde_json::json!(settings.dp_text.as_str());
        let plan = TextPlan::new(cost, settings.dp_max_tokens);
        let mut noisy_voters = None;
        if settings.dp_text == DpText::Tokens {
            let noisy = voters.len() as f64 + noise.gaussian(plan.count_sigma);
            if noisy < settings.dp_min_voters as f64 {
                let used = crate::dp::epsilon_of(crate::dp::COUNT_SHARE * cost.rho(), cost.delta);
                return Ok((
                    Reply::from(policy::DP_TOO_FEW),
                    (cost.epsilon - used).max(0.0),
                ));
            }
            noisy_voters = Some(noisy.round().max(0.0));
        }
        // More voters than the model can afford: a random subset (drawn from the answer's
        // noise, independent of who the voters are).
        subsample(&mut voters, settings.dp_max_voters, noise);
        work.patients.extend(voters.iter().map(|v| v.patient_key));
        let contexts = voter_contexts(&voters, &query.question);
        // One forward pass per voter for the prompts, and one per voter for each token: a DP
        // text answer is charged as that many model calls against the worker's limit.
        if !self
            .take_llm_calls(voters.len() * (1 + settings.dp_max_tokens))
            .await
        {
            return Ok((Reply::busy(), 0.0));
        }
        let answer_started = Instant::now();
        let mut request = VoteRequest {
            system: DP_VOTER_SYSTEM.into(),
            question: query.question.clone(),
            contexts,
            max_context_tokens: settings.dp_context_tokens,
            lead: answer_lead(&query.question).into(),
            max_tokens: settings.dp_max_tokens,
            choosers: Vec::new(),
        };
        let output = match settings.dp_text {
            DpText::Keywords if voters.is_empty() => Ok(Vec::new()),
            DpText::Keywords => model.each(request).await,
            DpText::Tokens => {
                request.choosers.push(Box::new(VoteChooser::new(
                    settings.dp_vote_temperature,
                    plan.token_sigma,
                    Noise::from_seed(noise.seed()),
                )));
                model.vote(request).await
            }
        };
        work.timings.answer_ms += answer_started.elapsed().as_millis() as u64;
        let outputs = match output {
            Ok(outputs) => outputs,
            Err(e) => {
                // The budget stays spent: this refusal is what the same query id gets back
                // from the ledger; asking again takes a new query id, and pays again.
                tracing::warn!(error = %e, "DP generation failed");
                let mut refused = Reply::new(
                    AnswerStatus::Refused,
                    "The private answer could not be generated; please ask again.",
                );
                refused.reason = Some("dp_model_error".into());
                return Ok((refused, 0.0));
            }
        };
        let passes: u32 = outputs.iter().map(|o| o.passes).sum();
        audit["passes"] = serde_json::json!(passes);
        work.llm_calls += passes;
        let lead = answer_lead(&query.question);
        let epsilon = format_epsilon(cost.epsilon);
        let answer = match noisy_voters {
            None => {
                let space = crate::dp::keywords::KeywordSpace::public();
                let counts = space.tally(outputs.iter().map(|o| o.text.as_str()), &query.question);
                crate::dp::keywords::choose(space, &counts, cost.epsilon, noise).map(|word| {
                    format!(
                        "Private answer (differential privacy, ε = {epsilon}: the keyword the \
                         records of the question's patients named most, drawn with noise from \
                         a public list of clinical words; it may be wrong where few records \
                         agree): {lead} {word}"
                    )
                })
            }
            Some(noisy) => {
                let output = outputs.into_iter().next().unwrap_or_default();
                audit["tokens"] = serde_json::json!(output.tokens);
                let text = crate::text::strip_control_sequences(&output.text);
                (!(text.trim().is_empty() || says_not_found(&text))).then(|| {
                    format!(
                        "Private answer (differential privacy, ε = {epsilon}; voted by the \
                         records of about {noisy} patients): {lead} {}",
                        text.trim()
                    )
                })
            }
        };
        let reply = match answer {
            Some(answer) => Reply::answered(answer),
            None => Reply::not_found(DP_NO_AGREEMENT),
        };
        Ok((reply, 0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voters_read_one_short_line_per_fact() {
        let compact = |l| compact_fact(l);
        assert_eq!(
            compact(
                "Condition is Essential hypertension (disorder). Clinical status is active. \
                 Verification status is confirmed. Onset on 2015-11-18."
            )
            .as_deref(),
            Some("Condition: Essential hypertension (disorder)")
        );
        assert_eq!(
            compact("Category is vital-signs. Code is Body Weight. Value is 67.6 kg.").as_deref(),
            Some("Body Weight: 67.6 kg")
        );
        assert_eq!(
            compact(
                "Category is vital-signs. Code is Blood Pressure. Diastolic Blood Pressure is 79 \
                 mm[Hg]. Systolic Blood Pressure is 129 mm[Hg]."
            )
            .as_deref(),
            Some("Blood Pressure: Diastolic Blood Pressure 79 mm[Hg]: Systolic Blood Pressure 129 mm[Hg]")
        );
        assert_eq!(
            compact("Medication is Amlodipine 2.5 MG Oral Tablet. Status is active.").as_deref(),
            Some("Medication: Amlodipine 2.5 MG Oral Tablet")
        );
        assert_eq!(
            compact("Record of 2012-07-04.").as_deref(),
            Some("Record of 2012-07-04")
        );
        assert_eq!(compact("Summary of the patient's record."), None);
        assert_eq!(compact("   "), None);
    }

    #[test]
    fn the_answer_lead_comes_from_the_question_alone() {
        assert_eq!(
            answer_lead("What medication do patients with hypertension take?"),
            "Medication:"
        );
        assert_eq!(
            answer_lead("Which vaccine do patients with asthma receive?"),
            "Vaccine:"
        );
        assert_eq!(
            answer_lead("What procedure do patients with covid-19 undergo?"),
            "Procedure:"
        );
        assert_eq!(
            answer_lead("What other condition do patients with fever have?"),
            "Condition:"
        );
        assert_eq!(answer_lead("How are patients with gout doing?"), "Answer:");
    }
}
