//! The synthetic document: the de-identified, generalized lines an answer is written from. Made
//! by the Synthesis agent and the cohort aggregates, checked by the Review agent, read by the
//! answering step; it lives apart so that none of them depends on another for it.

/// A synthetic document: de-identified, generalized lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SyntheticDocument {
    /// Lines, each "Pseudonym, period: sentence".
    pub lines: Vec<String>,
    /// Documents the lines came from.
    pub document_ids: Vec<i64>,
}

impl SyntheticDocument {
    /// The document as one text.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }
}
