//! Metrics of the thesis's tables: hit@k and MRR for retrieval (Tables 4.1, 4.2; seed 004 for
//! MRR), BLEU and ROUGE for text overlap (Table 4.3, 4.6). SemScore (Table 4.4) is the cosine of
//! two embeddings and lives with the embedder ([`fhir_rag::embed::cosine`]).
//!
//! Tokenization follows `rouge_score`'s default: lower-case, every run of letters and digits is a
//! token, everything else separates.

use std::collections::HashMap;

/// Lower-cased alphanumeric tokens.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// 1 when `relevant` is among the first `k` of `ranked`, else 0.
pub fn hit_at(ranked: &[i64], relevant: i64, k: usize) -> f64 {
    if ranked.iter().take(k).any(|d| *d == relevant) {
        1.0
    } else {
        0.0
    }
}

/// 1 / rank of `relevant` in `ranked` (0 when absent).
pub fn reciprocal_rank(ranked: &[i64], relevant: i64) -> f64 {
    ranked
        .iter()
        .position(|d| *d == relevant)
        .map(|p| 1.0 / (p as f64 + 1.0))
        .unwrap_or(0.0)
}

fn ngrams(tokens: &[String], n: usize) -> HashMap<&[String], usize> {
    let mut counts = HashMap::new();
    if tokens.len() >= n {
        for gram in tokens.windows(n) {
            *counts.entry(gram).or_insert(0) += 1;
        }
    }
    counts
}

/// Sentence BLEU-4 of `candidate` against one `reference`: geometric mean of the clipped n-gram
/// precisions (n = 1..4) times the brevity penalty. A precision with no match is smoothed to
/// 0.1 / total (NLTK's `method1`), so short texts do not all score 0.
pub fn bleu(candidate: &str, reference: &str) -> f64 {
    let c = tokens(candidate);
    let r = tokens(reference);
    if c.is_empty() || r.is_empty() {
        return 0.0;
    }
    let mut log_sum = 0.0;
    for n in 1..=4 {
        let cand = ngrams(&c, n);
        let refs = ngrams(&r, n);
        let total: usize = cand.values().sum();
        if total == 0 {
            // Candidate shorter than n: as NLTK, the score is 0.
            return 0.0;
        }
        let matched: usize = cand
            .iter()
            .map(|(g, count)| (*count).min(refs.get(g).copied().unwrap_or(0)))
            .sum();
        let precision = if matched == 0 {
            0.1 / total as f64
        } else {
            matched as f64 / total as f64
        };
        log_sum += precision.ln() / 4.0;
    }
    let brevity = if c.len() >= r.len() {
        1.0
    } else {
        (1.0 - r.len() as f64 / c.len() as f64).exp()
    };
    brevity * log_sum.exp()
}

/// ROUGE-N F1 of `candidate` against `reference`.
pub fn rouge_n(candidate: &str, reference: &str, n: usize) -> f64 {
    let cand = tokens(candidate);
    let refs = tokens(reference);
    let c = ngrams(&cand, n);
    let r = ngrams(&refs, n);
    let overlap: usize = c
        .iter()
        .map(|(g, count)| (*count).min(r.get(g).copied().unwrap_or(0)))
        .sum();
    f1(
        overlap as f64,
        c.values().sum::<usize>() as f64,
        r.values().sum::<usize>() as f64,
    )
}

/// ROUGE-L F1: longest common subsequence of tokens.
pub fn rouge_l(candidate: &str, reference: &str) -> f64 {
    let c = tokens(candidate);
    let r = tokens(reference);
    if c.is_empty() || r.is_empty() {
        return 0.0;
    }
    let mut previous = vec![0usize; r.len() + 1];
    let mut current = vec![0usize; r.len() + 1];
    for ct in &c {
        for (j, rt) in r.iter().enumerate() {
            current[j + 1] = if ct == rt {
                previous[j] + 1
            } else {
                current[j].max(previous[j + 1])
            };
        }
        std::mem::swap(&mut previous, &mut current);
    }
    f1(previous[r.len()] as f64, c.len() as f64, r.len() as f64)
}

fn f1(overlap: f64, candidate_total: f64, reference_total: f64) -> f64 {
    if overlap == 0.0 || candidate_total == 0.0 || reference_total == 0.0 {
        return 0.0;
    }
    let precision = overlap / candidate_total;
    let recall = overlap / reference_total;
    2.0 * precision * recall / (precision + recall)
}

/// The mean of a list (0 for none).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn hits_and_reciprocal_ranks() {
        let ranked = [7, 3, 9, 1, 4];
        assert_eq!(hit_at(&ranked, 9, 1), 0.0);
        assert_eq!(hit_at(&ranked, 9, 3), 1.0);
        assert_eq!(hit_at(&ranked, 4, 4), 0.0);
        assert_eq!(hit_at(&ranked, 4, 5), 1.0);
        assert!(close(reciprocal_rank(&ranked, 7), 1.0));
        assert!(close(reciprocal_rank(&ranked, 9), 1.0 / 3.0));
        assert_eq!(reciprocal_rank(&ranked, 42), 0.0);
        // MRR of three queries hit at ranks 1, 3 and never: (1 + 1/3 + 0) / 3.
        let mrr = mean(&[
            reciprocal_rank(&ranked, 7),
            reciprocal_rank(&ranked, 9),
            reciprocal_rank(&ranked, 42),
        ]);
        assert!(close(mrr, 4.0 / 9.0));
    }

    #[test]
    fn rouge_by_hand() {
        // candidate: the cat was found under the bed (7 tokens)
        // reference: the cat was under the bed (6 tokens)
        let c = "The cat was found under the bed";
        let r = "the cat was under the bed";
        // unigrams: overlap 6 (the×2, cat, was, under, bed); P = 6/7, R = 6/6.
        assert!(close(
            rouge_n(c, r, 1),
            2.0 * (6.0 / 7.0) / (6.0 / 7.0 + 1.0)
        ));
        // bigrams: cand {the cat, cat was, was found, found under, under the, the bed} (6),
        // ref {the cat, cat was, was under, under the, the bed} (5); overlap 4.
        let (p, rr) = (4.0 / 6.0, 4.0 / 5.0);
        assert!(close(rouge_n(c, r, 2), 2.0 * p * rr / (p + rr)));
        // LCS = 6 (the cat was under the bed).
        assert!(close(rouge_l(c, r), 2.0 * (6.0 / 7.0) / (6.0 / 7.0 + 1.0)));
        assert_eq!(rouge_l("", r), 0.0);
        assert!(close(rouge_l(r, r), 1.0));
    }

    #[test]
    fn bleu_by_hand() {
        assert!(close(
            bleu("the cat sat on the mat", "the cat sat on the mat"),
            1.0
        ));
        // candidate: "the cat sat on the mat" vs reference "the cat is on the mat"
        // p1 = 5/6, p2 = 3/5 (the cat, on the, the mat), p3 = 1/4 (on the mat), p4 = 0 → 0.1/3.
        let expected =
            ((5.0f64 / 6.0).ln() + (3.0f64 / 5.0).ln() + (1.0f64 / 4.0).ln() + (0.1f64 / 3.0).ln())
                / 4.0;
        assert!(close(
            bleu("the cat sat on the mat", "the cat is on the mat"),
            expected.exp()
        ));
        // Brevity: a 4-token candidate of an 8-token reference, all n-grams matching.
        let short = bleu("a b c d", "a b c d e f g h");
        assert!(close(short, (1.0f64 - 2.0).exp()));
        assert_eq!(bleu("a b", "a b c d"), 0.0);
    }
}
