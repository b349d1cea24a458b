//! Keyword-space aggregation of DP text answers (DP-ICL, Wu et al., ICLR 2024, the basis of
//! seed 002): every voter (one patient's records) answers the question in full, each answer is
//! mapped to its head keyword in a public universe of words, and one exponential mechanism over
//! that universe picks the answer's keyword. One draw over about 9,000 words replaces one noisy
//! vote per token over the model's 49,152-token vocabulary; the vote of a voter costs nothing
//! until the draw.
//!
//! # The guarantee
//!
//! The universe ([`KeywordSpace::public`], `src/dp/keywords.txt`) is built by
//! `scripts/dp_keywords.py` from public terminologies only (ICD-10-CM descriptions, MedlinePlus
//! drug names, the project's reviewed lexicon), never from records. A word's score is the
//! number of voters whose head keyword it is; adding, removing or replacing one patient moves
//! every score by at most 1 (each patient is one voter with one keyword). The mechanism draws
//! word u with probability ∝ exp(ε·c_u/2) (McSherry & Talwar 2007: ε-DP for scores of
//! sensitivity 1), words no voter named included, plus one more outcome, *no answer*, whose
//! score is a public constant ([`abstain_weight`]): when voters do not agree, the draw says so
//! instead of naming a word at random. The whole answer is pure ε-DP (δ = 0); the draw is exact
//! (the Gumbel-max form of the exponential mechanism), the words no voter named drawn as one
//! block whose maximum is a Gumbel shifted by the log of their number.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::OnceLock;

use super::Noise;

/// The generated universe (see `scripts/dp_keywords.py`).
const PUBLIC: &str = include_str!("keywords.txt");

/// How much more weight *no answer* has than all the words of the universe together, before
/// any vote: a draw with no agreement among voters names a word at random with probability
/// below 1/(1 + ABSTAIN_RATIO).
pub const ABSTAIN_RATIO: f64 = 20.0;

/// A fixed universe of keywords.
#[derive(Clone, Debug)]
pub struct KeywordSpace {
    words: Vec<String>,
    index: HashSet<String>,
}

impl KeywordSpace {
    /// The universe of `words` (lower-cased, deduplicated).
    pub fn new<I: IntoIterator<Item = String>>(words: I) -> KeywordSpace {
        let set: BTreeSet<String> = words.into_iter().map(|w| w.to_lowercase()).collect();
        let words: Vec<String> = set.into_iter().collect();
        let index = words.iter().cloned().collect();
        KeywordSpace { words, index }
    }

    /// The public universe shipped with the service.
    pub fn public() -> &'static KeywordSpace {
        static SPACE: OnceLock<KeywordSpace> = OnceLock::new();
        SPACE.get_or_init(|| {
            KeywordSpace::new(
                PUBLIC
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string),
            )
        })
    }

    /// Words in the universe.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the universe is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether `word` (lower case) is in the universe.
    pub fn contains(&self, word: &str) -> bool {
        self.index.contains(word)
    }

    /// A voter's keyword: the first word of its answer that is in the universe and not a word
    /// of the question ("Acute viral pharyngitis" to "Which condition…?" gives "viral" only if
    /// "acute" is not a keyword; the universe leaves out such modifiers).
    pub fn head_keyword(&self, answer: &str, question: &str) -> Option<String> {
        let asked: HashSet<String> = crate::text::words(question).into_iter().collect();
        crate::text::words(answer)
            .into_iter()
            .find(|w| self.contains(w) && !asked.contains(w))
    }

    /// Every voter's keyword counted: word to number of voters.
    pub fn tally<'a, I: IntoIterator<Item = &'a str>>(
        &self,
        answers: I,
        question: &str,
    ) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for answer in answers {
            if let Some(word) = self.head_keyword(answer, question) {
                *counts.entry(word).or_insert(0) += 1;
            }
        }
        counts
    }
}

/// The weight of *no answer* in the draw, as a log: ln(ABSTAIN_RATIO · |universe|). Public (a
/// function of the universe's size only), so its score has sensitivity 0. A keyword needs
/// about 2·ln(20·|U|)/ε voters to outweigh it: 5 at ε = 5, 25 at ε = 1.
pub fn abstain_weight(universe: usize) -> f64 {
    (ABSTAIN_RATIO * universe.max(1) as f64).ln()
}

/// One draw of a standard Gumbel variable.
fn gumbel(noise: &mut Noise) -> f64 {
    let u = noise.uniform().max(f64::MIN_POSITIVE);
    -(-u.ln()).ln()
}

/// The exponential mechanism over `space` ∪ {no answer} with scores `counts` (voters per
/// keyword; words outside the universe are ignored), ε-DP. `None` is *no answer*.
pub fn choose(
    space: &KeywordSpace,
    counts: &BTreeMap<String, usize>,
    epsilon: f64,
    noise: &mut Noise,
) -> Option<String> {
    let named: Vec<(&String, usize)> = counts
        .iter()
        .filter(|(w, n)| **n > 0 && space.contains(w))
        .map(|(w, n)| (w, *n))
        .collect();
    let unnamed = space.len() - named.len();
    // (score + Gumbel) for every outcome; the arg max is an exact draw.
    let mut best: (f64, Option<Option<&String>>) =
        (abstain_weight(space.len()) + gumbel(noise), Some(None));
    for (word, n) in &named {
        let draw = epsilon * *n as f64 / 2.0 + gumbel(noise);
        if draw > best.0 {
            best = (draw, Some(Some(word)));
        }
    }
    if unnamed > 0 {
        let draw = (unnamed as f64).ln() + gumbel(noise);
        if draw > best.0 {
            best = (draw, None);
        }
    }
    match best.1 {
        Some(choice) => choice.cloned(),
        // One of the words no voter named, uniformly (rejection: named words are few).
        None => loop {
            let i = ((noise.uniform() * space.len() as f64) as usize).min(space.len() - 1);
            let word = &space.words[i];
            if counts.get(word).is_none_or(|n| *n == 0) {
                return Some(word.clone());
            }
        },
    }
}

/// The aggregate without noise (the evaluation's reference): the keyword most voters named
/// (ties: the first in alphabetical order), `None` when no voter named one.
pub fn most_named(counts: &BTreeMap<String, usize>) -> Option<String> {
    counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(w, _)| w.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> KeywordSpace {
        let mut words: Vec<String> = (0..9000).map(|i| format!("word{i}")).collect();
        words.extend(["pharyngitis", "viral", "influenza", "metformin"].map(String::from));
        KeywordSpace::new(words)
    }

    fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
        pairs.iter().map(|(w, n)| (w.to_string(), *n)).collect()
    }

    #[test]
    fn the_public_universe_is_loaded_and_holds_clinical_words_only() {
        let space = KeywordSpace::public();
        assert!(space.len() > 5000, "{}", space.len());
        for word in ["pharyngitis", "influenza", "metformin", "hypertension"] {
            assert!(space.contains(word), "{word}");
        }
        for word in ["acute", "vaccine", "unspecified", "with"] {
            assert!(!space.contains(word), "{word}");
        }
    }

    #[test]
    fn a_voter_names_its_first_keyword_that_the_question_does_not_hold() {
        let space = space();
        let question = "Which vaccine do patients with influenza receive?";
        assert_eq!(
            space.head_keyword("Acute viral pharyngitis (disorder)", question),
            Some("viral".into())
        );
        assert_eq!(
            space.head_keyword("Influenza, metformin", question),
            Some("metformin".into())
        );
        assert_eq!(space.head_keyword("I do not know.", question), None);
        let tally = space.tally(
            ["Viral pharyngitis", "viral", "none", "Metformin 500"],
            question,
        );
        assert_eq!(tally, counts(&[("metformin", 1), ("viral", 2)]));
    }

    #[test]
    fn agreeing_voters_win_at_epsilon_5_and_a_lone_voter_does_not() {
        let space = space();
        let mut noise = Noise::from_seed([5; 32]);
        let agree = counts(&[("pharyngitis", 12), ("viral", 2), ("metformin", 1)]);
        let lone = counts(&[("metformin", 1)]);
        let (mut won, mut leaked, mut abstained) = (0, 0, 0);
        for _ in 0..1000 {
            won += (choose(&space, &agree, 5.0, &mut noise).as_deref() == Some("pharyngitis"))
                as usize;
            match choose(&space, &lone, 5.0, &mut noise) {
                Some(w) if w == "metformin" => leaked += 1,
                None => abstained += 1,
                Some(_) => {}
            }
        }
        assert!(won > 990, "{won}/1000");
        // exp(2.5) / (20·9004 + 9003 + exp(2.5)) ≈ 6.4e-5 per draw.
        assert!(leaked <= 2, "one voter named its word {leaked}/1000 times");
        assert!(abstained > 930, "{abstained}/1000");
    }

    #[test]
    fn the_draw_follows_the_exponential_mechanism() {
        // Two keywords one vote apart at ε = 2 in a tiny universe: odds e^(ε/2) = e.
        let space = KeywordSpace::new(["alpha", "beta"].map(String::from));
        let scores = counts(&[("alpha", 40), ("beta", 39)]);
        let mut noise = Noise::from_seed([9; 32]);
        let (mut alpha, mut beta) = (0.0, 0.0);
        for _ in 0..20_000 {
            match choose(&space, &scores, 2.0, &mut noise).as_deref() {
                Some("alpha") => alpha += 1.0,
                Some("beta") => beta += 1.0,
                _ => {}
            }
        }
        let odds = alpha / beta;
        assert!(
            (odds / std::f64::consts::E - 1.0).abs() < 0.06,
            "odds {odds}"
        );
    }

    #[test]
    fn words_no_voter_named_are_drawn_uniformly_when_their_block_wins() {
        // Epsilon near zero: the draw is nearly uniform over the outcomes, so the block of
        // unnamed words wins about |U|/(|U|·(1 + ratio)) of the time, each word alike.
        let space = KeywordSpace::new(["a1", "a2", "a3", "a4"].map(String::from));
        let mut noise = Noise::from_seed([2; 32]);
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for _ in 0..42_000 {
            if let Some(w) = choose(&space, &counts(&[("a1", 1)]), 1e-9, &mut noise) {
                *seen.entry(w).or_default() += 1;
            }
        }
        // Weights: no answer 80, each of the 4 words 1: about 500 draws per word.
        for w in ["a1", "a2", "a3", "a4"] {
            let n = seen.get(w).copied().unwrap_or(0);
            assert!((400..=600).contains(&n), "{w}: {n}");
        }
    }

    #[test]
    fn without_noise_the_most_named_keyword_is_the_answer() {
        assert_eq!(
            most_named(&counts(&[("beta", 3), ("alpha", 3), ("gamma", 1)])),
            Some("alpha".into())
        );
        assert_eq!(most_named(&BTreeMap::new()), None);
    }
}
