//! Who a cohort question counts, apart from what they have: the living or the dead, women or
//! men, an age band, a birth or death year ("How many living women are 65 or older?", "Median
//! age at death of the deceased?", "How many patients died in 2020 or 2021?").
//!
//! Read from the question by patterns of its own ([`read`]), taken out of the text the concept
//! reading sees (so that "living" or "women" is never looked for as a condition), and applied to
//! a cohort's patients by what the store holds: the Patient fact's gender and death date, and
//! the age and birth year that `vault.ages` gives (ages of 90 and over as 90, their birth years
//! withheld, as HIPAA's Safe Harbor requires). Nothing here reads a name or a full birth date.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use chrono::Datelike;
use regex::Regex;
use sqlx::{PgPool, Row};

use crate::store::StoreError;

/// Alive or dead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vital {
    Living,
    Deceased,
}

/// The population restrictions a cohort question makes. Age bounds are in whole years: `min_age`
/// inclusive, `max_age` exclusive; year bounds inclusive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Population {
    pub vital: Option<Vital>,
    /// "female" or "male", as FHIR's administrative gender writes them.
    pub sex: Option<&'static str>,
    pub min_age: Option<u32>,
    pub max_age: Option<u32>,
    pub born_from: Option<i32>,
    pub born_to: Option<i32>,
    pub died_from: Option<i32>,
    pub died_to: Option<i32>,
    /// "Sex breakdown", "how many female and how many male": counts per sex.
    pub by_sex: bool,
}

/// One patient as the filter sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Person {
    pub sex: Option<String>,
    /// Whether the record says the patient died, and the year when it says when.
    pub deceased: bool,
    pub death_year: Option<i32>,
    /// Age now, or at death (90 for 90 and over).
    pub age: Option<u32>,
    /// `None` when unknown or withheld (90 and over).
    pub birth_year: Option<i32>,
    /// The latest year a patient whose birth year is withheld (90 and over) can have been born
    /// in: 90 years before this year (a death at 90 or over came before today). What "born
    /// before 1940" may still count without the year.
    pub born_by: Option<i32>,
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid population regex")
}

static LIVING: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:still\s+alive|(?:living|alive)(?:\s+(?:today|now|at\s+present))?|not\s+deceased)\b",
    )
});
/// "Living or dead", "alive or deceased", "dead or alive": every patient, whatever their vital
/// status.
static EITHER_VITAL: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:(?:living|alive)\s+(?:or|and)\s+(?:dead|deceased)|(?:dead|deceased)\s+(?:or|and)\s+(?:living|alive))\b",
    )
});
static DECEASED: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:deceased|dead|passed\s+away|(?:have|has)\s+died)\b"));
/// "died in 2010 or later", "deaths in 2020 or 2021", "died since 2015", "died before 2000",
/// "deaths from 2010 through 2019".
static DIED_IN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:died|deaths?|passed\s+away)\s+(in|during|since|after|before|from|between)\s+((?:19|20)\d{2})(?:\s+(or\s+later|or\s+after|and\s+later|or\s+earlier|or\s+before)|(?:\s*[-–]\s*|\s+(?:or|and|to|through|thru|until|till)\s+)((?:19|20)\d{2}))?",
    )
});
/// "born in the 1990s", "deaths in the 2010s", "born in the fifties": a decade, as its first
/// and last years (a decade in words is of the 1900s).
static DECADE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(born|died|deaths?|passed\s+away)\s+(?:in|during)\s+the\s+(?:((?:19|20)\d)0['’]?s|(twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties))\b",
    )
});

/// The first year of a decade written in words ("fifties": 1950).
fn decade_in_words(word: &str) -> Option<i32> {
    let at = [
        "twenties",
        "thirties",
        "forties",
        "fifties",
        "sixties",
        "seventies",
        "eighties",
        "nineties",
    ]
    .iter()
    .position(|w| w.eq_ignore_ascii_case(word))?;
    Some(1920 + 10 * at as i32)
}
static DIED: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\b(?:died|deaths?)\b"));
/// "born in 2010 or later", "born after 2000", "born before 1950", "born between 1950 and 1960",
/// "born 1990-1999".
static BORN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\bborn\s+(?:(in|during|since|after|before|from|between)\s+)?((?:19|20)\d{2})(?:\s+(or\s+later|or\s+after|and\s+later|or\s+earlier|or\s+before)|(?:\s*[-–]\s*|\s+(?:or|and|to|through|thru|until|till)\s+)((?:19|20)\d{2}))?",
    )
});
static FEMALE: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:women|woman|females?|girls?|ladies|lady)\b"));
static MALE: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\b(?:men|man|males?|boys?)\b"));
static SEX_BREAKDOWN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:sex|gender)\s+(?:breakdown|split|distribution|mix|ratio)|\bby\s+(?:sex|gender)\b|\b(?:breakdown|split|distribution)\s+(?:by|of)\s+(?:sex|gender)\b",
    )
});
/// "65 or older", "aged 40 and over", "65+", "over 65", "older than 80", "over-65s".
static AT_LEAST: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:aged?\s+)?(\d{1,3})\s*(?:years?(?:\s+old)?\s+)?(?:or|and)\s+(?:older|over|above|up)\b|\b(?:aged?\s+)?(\d{1,3})\s*\+|\b(?:aged?\s+)?(?:over|older\s+than|above)[\s-]+(?:the\s+age\s+of\s+)?(\d{1,3})(?:['’]?s)?\b",
    )
});
/// "under 18", "younger than 30", "below 40", "under-18s".
static UNDER: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:aged?\s+)?(?:under|younger\s+than|below|less\s+than)[\s-]+(?:the\s+age\s+of\s+)?(\d{1,3})(?:['’]?s)?\b(?:\s+years?(?:\s+old)?)?",
    )
});
/// "aged 40 to 64", "between 18 and 30 years".
static BETWEEN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:aged?\s+(?:between\s+)?|between\s+)(\d{1,3})\s*(?:and|to|-)\s*(\d{1,3})(?:\s+years?(?:\s+old)?)?",
    )
});
static CHILDREN: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:kids|children|child|minors|pediatric|paediatric)\b"));
static ADULTS: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\badults?\b"));
static ELDERLY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:elderly|seniors|senior\s+citizens)\b"));

/// Whether `text` holds an age in a band phrase that is a reading's value rather than an age
/// ("BMI over 30", "systolic above 140"): an age pattern counts only after an age word, or with
/// no other number-bearing concept before it.
fn reads_as_age(text: &str, start: usize) -> bool {
    let before = text[..start].to_lowercase();
    let words = crate::text::words(&before);
    let tail: Vec<&str> = words.iter().rev().take(3).map(String::as_str).collect();
    if tail
        .iter()
        .any(|w| matches!(*w, "age" | "aged" | "ages" | "old" | "older"))
    {
        return true;
    }
    // "are 65 or older", "patients 65+": after a verb or the people counted.
    matches!(
        tail.first().copied(),
        Some(
            "are"
                | "is"
                | "were"
                | "patients"
                | "pts"
                | "people"
                | "women"
                | "men"
                | "adults"
                | "those"
                | "who"
        ) | None
    )
}

/// Whether an age phrase says it is one whatever comes before it: "aged 40 and over", "the
/// over-65s", "under-18s" (a number made plural), never "under 30 years" after a reading.
fn names_an_age_group(phrase: &str) -> bool {
    static PLURAL_AGE: LazyLock<Regex> = LazyLock::new(|| regex(r"\d['’]?s$"));
    let phrase = phrase.trim().to_lowercase();
    phrase.starts_with("age") || PLURAL_AGE.is_match(&phrase)
}

fn year_range(
    word: &str,
    year: i32,
    tail: Option<&str>,
    second: Option<i32>,
) -> (Option<i32>, Option<i32>) {
    let tail = tail.map(|t| t.to_lowercase());
    let later = tail
        .as_deref()
        .is_some_and(|t| t.ends_with("later") || t.ends_with("after"));
    let earlier = tail
        .as_deref()
        .is_some_and(|t| t.ends_with("earlier") || t.ends_with("before"));
    match (word.to_lowercase().as_str(), second) {
        (_, Some(second)) => (Some(year.min(second)), Some(year.max(second))),
        ("since" | "from", _) => (Some(year), None),
        ("after", _) => (Some(year + 1), None),
        ("before", _) => (None, Some(year - 1)),
        _ if later => (Some(year), None),
        _ if earlier => (None, Some(year)),
        _ => (Some(year), Some(year)),
    }
}

/// The population `question` restricts its cohort to, and the question with the words that say
/// so blanked out (for the concept reading).
pub fn read(question: &str) -> (Population, String) {
    let mut p = Population::default();
    let mut text = question.to_string();
    let blank = |text: &mut String, range: std::ops::Range<usize>| {
        text.replace_range(range.clone(), &" ".repeat(range.len()));
    };
    if let Some(c) = BORN.captures(&text.clone()) {
        let year: i32 = c[2].parse().unwrap_or(0);
        let second = c.get(4).and_then(|m| m.as_str().parse().ok());
        let word = c.get(1).map_or("in", |m| m.as_str());
        (p.born_from, p.born_to) = year_range(word, year, c.get(3).map(|m| m.as_str()), second);
        blank(&mut text, c.get(0).expect("whole match").range());
    }
    if let Some(c) = DECADE.captures(&text.clone()) {
        let first = match (c.get(2), c.get(3)) {
            (Some(digits), _) => digits.as_str().parse::<i32>().unwrap_or(0) * 10,
            (None, Some(words)) => decade_in_words(words.as_str()).unwrap_or(0),
            (None, None) => 0,
        };
        let years = (Some(first), Some(first + 9));
        if c[1].to_lowercase().starts_with("born") {
            (p.born_from, p.born_to) = years;
        } else {
            (p.died_from, p.died_to) = years;
            p.vital = Some(Vital::Deceased);
        }
        blank(&mut text, c.get(0).expect("whole match").range());
    }
    if let Some(c) = DIED_IN.captures(&text.clone()) {
        let year: i32 = c[2].parse().unwrap_or(0);
        let second = c.get(4).and_then(|m| m.as_str().parse().ok());
        (p.died_from, p.died_to) = year_range(&c[1], year, c.get(3).map(|m| m.as_str()), second);
        p.vital = Some(Vital::Deceased);
        blank(&mut text, c.get(0).expect("whole match").range());
    }
    for m in EITHER_VITAL.find_iter(&text.clone()) {
        blank(&mut text, m.range());
    }
    for m in LIVING.find_iter(&text.clone()) {
        p.vital = Some(Vital::Living);
        blank(&mut text, m.range());
    }
    for m in DECEASED.find_iter(&text.clone()) {
        p.vital.get_or_insert(Vital::Deceased);
        blank(&mut text, m.range());
    }
    // "How many patients died?", "median age at death": the dead.
    if p.vital.is_none() {
        if let Some(m) = DIED.find(&text.clone()) {
            p.vital = Some(Vital::Deceased);
            blank(&mut text, m.range());
        }
    } else if let Some(m) = DIED.find(&text.clone()) {
        blank(&mut text, m.range());
    }
    if let Some(m) = SEX_BREAKDOWN.find(&text.clone()) {
        p.by_sex = true;
        blank(&mut text, m.range());
    }
    let female: Vec<_> = FEMALE.find_iter(&text).map(|m| m.range()).collect();
    let male: Vec<_> = MALE.find_iter(&text).map(|m| m.range()).collect();
    match (female.is_empty(), male.is_empty()) {
        (false, true) => p.sex = Some("female"),
        (true, false) => p.sex = Some("male"),
        (false, false) => p.by_sex = true,
        (true, true) => {}
    }
    for range in female.into_iter().chain(male) {
        blank(&mut text, range);
    }
    if let Some(c) = BETWEEN.captures(&text.clone()) {
        let (a, b): (u32, u32) = (c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0));
        if a < b && b <= 120 && !looks_like_years(a, b) {
            p.min_age = Some(a);
            p.max_age = Some(b + 1);
            blank(&mut text, c.get(0).expect("whole match").range());
        }
    }
    if let Some(c) = AT_LEAST.captures(&text.clone()) {
        let m = c.get(0).expect("whole match");
        // "over 65" is read as "65 or older": the everyday sense of the phrase in a question
        // about age bands.
        let n = c
            .get(1)
            .or(c.get(2))
            .or(c.get(3))
            .and_then(|n| n.as_str().parse::<u32>().ok());
        if let Some(n) = n.filter(|n| *n <= 120) {
            if reads_as_age(&text, m.start()) || names_an_age_group(m.as_str()) {
                p.min_age = Some(n);
                blank(&mut text, m.range());
            }
        }
    }
    if let Some(c) = UNDER.captures(&text.clone()) {
        let m = c.get(0).expect("whole match");
        if let Ok(n) = c[1].parse::<u32>() {
            if n <= 120 && (reads_as_age(&text, m.start()) || names_an_age_group(m.as_str())) {
                p.max_age = Some(n);
                blank(&mut text, m.range());
            }
        }
    }
    if let Some(m) = CHILDREN.find(&text.clone()) {
        p.max_age.get_or_insert(18);
        blank(&mut text, m.range());
    }
    if let Some(m) = ADULTS.find(&text.clone()) {
        p.min_age.get_or_insert(18);
        blank(&mut text, m.range());
    }
    if let Some(m) = ELDERLY.find(&text.clone()) {
        p.min_age.get_or_insert(65);
        blank(&mut text, m.range());
    }
    (p, text)
}

/// "between 2015 and 2020" is years, not ages.
fn looks_like_years(a: u32, b: u32) -> bool {
    a >= 1900 || b >= 1900
}

impl Population {
    /// Whether it restricts nothing (a sex breakdown alone restricts nothing either).
    pub fn is_everyone(&self) -> bool {
        Population {
            by_sex: false,
            ..self.clone()
        } == Population::default()
    }

    /// How the cohort line names these patients: "living female patients aged 65 or older".
    pub fn describe(&self, noun: &str) -> String {
        let mut out = Vec::new();
        match self.vital {
            Some(Vital::Living) => out.push("living".to_string()),
            Some(Vital::Deceased) => out.push("deceased".to_string()),
            None => {}
        }
        if let Some(sex) = self.sex {
            out.push(sex.to_string());
        }
        out.push(noun.to_string());
        match (self.min_age, self.max_age) {
            (Some(a), Some(b)) => out.push(format!("aged {a} to {}", b.saturating_sub(1))),
            (Some(a), None) => out.push(format!("aged {a} or older")),
            (None, Some(b)) => out.push(format!("under {b}")),
            (None, None) => {}
        }
        let years = |from: Option<i32>, to: Option<i32>| match (from, to) {
            (Some(a), Some(b)) if a == b => Some(format!("in {a}")),
            (Some(a), Some(b)) => Some(format!("from {a} to {b}")),
            (Some(a), None) => Some(format!("in {a} or later")),
            (None, Some(b)) => Some(format!("in {b} or earlier")),
            (None, None) => None,
        };
        if let Some(y) = years(self.born_from, self.born_to) {
            out.push(format!("born {y}"));
        }
        if let Some(y) = years(self.died_from, self.died_to) {
            out.push(format!("who died {y}"));
        }
        out.join(" ")
    }

    /// Whether `person` belongs. An unknown attribute the population restricts excludes the
    /// person (a patient without a recorded sex is counted as neither).
    pub fn admits(&self, person: &Person) -> bool {
        let vital = match self.vital {
            Some(Vital::Living) => !person.deceased,
            Some(Vital::Deceased) => person.deceased,
            None => true,
        };
        let sex = self.sex.is_none_or(|s| person.sex.as_deref() == Some(s));
        let in_years = |value: Option<i32>, from: Option<i32>, to: Option<i32>| {
            if from.is_none() && to.is_none() {
                return true;
            }
            value.is_some_and(|v| from.is_none_or(|f| v >= f) && to.is_none_or(|t| v <= t))
        };
        // A withheld birth year (90 and over) is known to be no later than `born_by`: enough for
        // "born before 1940", never for a closed range ("born in the 1930s").
        let born = match (person.birth_year, person.born_by) {
            (None, Some(by)) if self.born_from.is_none() => self.born_to.is_none_or(|to| by <= to),
            _ => in_years(person.birth_year, self.born_from, self.born_to),
        };
        let age = if self.min_age.is_none() && self.max_age.is_none() {
            true
        } else {
            person.age.is_some_and(|a| {
                self.min_age.is_none_or(|m| a >= m) && self.max_age.is_none_or(|m| a < m)
            })
        };
        vital && sex && age && born && in_years(person.death_year, self.died_from, self.died_to)
    }
}

/// What the store says of each of `patients` (sex and death from the Patient fact, age and birth
/// year from `vault.ages`).
pub async fn people(pool: &PgPool, patients: &[i64]) -> Result<BTreeMap<i64, Person>, StoreError> {
    static GENDER: LazyLock<Regex> = LazyLock::new(|| regex(r"(?:^|\. )Gender is (\w+)"));
    static DIED_ON: LazyLock<Regex> =
        LazyLock::new(|| regex(r"The patient died on ((?:19|20)\d{2})-\d{2}-\d{2}"));
    let mut out: BTreeMap<i64, Person> = patients.iter().map(|p| (*p, Person::default())).collect();
    let rows = sqlx::query(
        "SELECT patient_key, sentences FROM facts
         WHERE resource_type = 'Patient' AND patient_key = ANY($1)",
    )
    .bind(patients)
    .fetch_all(pool)
    .await?;
    for row in rows {
        let key: i64 = row.get("patient_key");
        let sentences: String = row.get("sentences");
        let Some(person) = out.get_mut(&key) else {
            continue;
        };
        person.sex = GENDER.captures(&sentences).map(|c| c[1].to_lowercase());
        if let Some(c) = DIED_ON.captures(&sentences) {
            person.deceased = true;
            person.death_year = c[1].parse().ok();
        } else if sentences.contains("The patient is deceased") {
            person.deceased = true;
        }
    }
    let rows = sqlx::query("SELECT patient_key, age, birth_year FROM vault.ages($1)")
        .bind(patients)
        .fetch_all(pool)
        .await?;
    for row in rows {
        let key: i64 = row.get("patient_key");
        if let Some(person) = out.get_mut(&key) {
            person.age = row
                .get::<Option<i32>, _>("age")
                .and_then(|a| u32::try_from(a).ok());
            person.birth_year = row.get("birth_year");
            if person.birth_year.is_none() && person.age == Some(90) {
                person.born_by = Some(chrono::Utc::now().year() - 90);
            }
        }
    }
    Ok(out)
}

/// The patients of `patients` that `population` admits (all of them when it restricts nothing).
pub async fn filter(
    pool: &PgPool,
    patients: &[i64],
    population: &Population,
) -> Result<Vec<i64>, StoreError> {
    if population.is_everyone() {
        return Ok(patients.to_vec());
    }
    Ok(people(pool, patients)
        .await?
        .into_iter()
        .filter(|(_, person)| population.admits(person))
        .map(|(key, _)| key)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn population(q: &str) -> Population {
        read(q).0
    }

    #[test]
    fn living_women_of_an_age_are_read_and_taken_out_of_the_question() {
        let (p, rest) = read("How many living women are 65 or older?");
        assert_eq!(p.vital, Some(Vital::Living));
        assert_eq!(p.sex, Some("female"));
        assert_eq!(p.min_age, Some(65));
        assert_eq!(p.max_age, None);
        assert!(!rest.contains("living") && !rest.contains("women") && !rest.contains("65"));
        // "Alive today" is the population, not a question about the present.
        let (alive, rest) = read("adults alive today who have never had a colonoscopy - count?");
        assert_eq!(alive.vital, Some(Vital::Living));
        assert!(!rest.contains("today"), "{rest}");
        // "Living or dead": everyone.
        let (either, rest) = read("patients born before 1940 (living or dead) - how many?");
        assert_eq!(either.vital, None);
        assert!(!rest.contains("dead"), "{rest}");
        assert_eq!(
            p.describe("patients"),
            "living female patients aged 65 or older"
        );
    }

    #[test]
    fn children_adults_and_bands() {
        let p = population("how many kids (under 18) do we have? living patients only");
        assert_eq!((p.min_age, p.max_age), (None, Some(18)));
        assert_eq!(p.vital, Some(Vital::Living));
        let p = population("Median BMI among living patients aged 40 and over?");
        assert_eq!(p.min_age, Some(40));
        let p = population("median latest body weight for living adult men?");
        assert_eq!((p.min_age, p.sex), (Some(18), Some("male")));
        let p = population("How many patients aged 40 to 64 have asthma?");
        assert_eq!((p.min_age, p.max_age), (Some(40), Some(65)));
        let (p, rest) = read("living under-18s who've had an ear infection - count?");
        assert_eq!((p.vital, p.max_age), (Some(Vital::Living), Some(18)));
        assert!(!rest.contains("18"), "{rest}");
        let p = population("flu jabs among the over-65s?");
        assert_eq!(p.min_age, Some(65));
    }

    #[test]
    fn a_reading_threshold_is_not_an_age() {
        let (p, rest) = read("How many patients have a BMI over 30?");
        assert_eq!(p.min_age, None);
        assert!(rest.contains("over 30"));
        let p = population("How many patients have had a systolic above 140 since 2018?");
        assert!(p.is_everyone());
    }

    #[test]
    fn deaths_and_births_by_year() {
        let p = population("How many patients died in 2010 or later?");
        assert_eq!(p.vital, Some(Vital::Deceased));
        assert_eq!((p.died_from, p.died_to), (Some(2010), None));
        let p = population("How many patients died in 2020 or 2021?");
        assert_eq!((p.died_from, p.died_to), (Some(2020), Some(2021)));
        let p = population("How many patients were born in 2010 or later?");
        assert_eq!((p.born_from, p.born_to), (Some(2010), None));
        assert_eq!(p.vital, None);
        let p = population("Median age at death for the deceased patients?");
        assert_eq!(p.vital, Some(Vital::Deceased));
        let p = population("How many patients in the archive are deceased?");
        assert_eq!(p.vital, Some(Vital::Deceased));
        let p = population("deaths from 2010 through 2019 - how many patients?");
        assert_eq!((p.died_from, p.died_to), (Some(2010), Some(2019)));
        let p = population("how many died between 2015 and 2020?");
        assert_eq!((p.died_from, p.died_to), (Some(2015), Some(2020)));
        let p = population("# of patients born in the 1990s?");
        assert_eq!((p.born_from, p.born_to), (Some(1990), Some(1999)));
        assert_eq!(p.vital, None);
        let p = population("patients born 1990-1999 with asthma?");
        assert_eq!((p.born_from, p.born_to), (Some(1990), Some(1999)));
        let p = population("how many of our pts were born in the fifties?");
        assert_eq!((p.born_from, p.born_to), (Some(1950), Some(1959)));
        let p = population("deaths in the 2010s?");
        assert_eq!((p.died_from, p.died_to), (Some(2010), Some(2019)));
    }

    #[test]
    fn both_sexes_ask_for_a_breakdown() {
        let p = population("Sex breakdown please - how many female and how many male patients?");
        assert!(p.by_sex && p.sex.is_none() && p.is_everyone());
        assert!(population("How many patients have asthma?").is_everyone());
    }

    #[test]
    fn who_is_admitted() {
        let p = population("How many living women are 65 or older?");
        let woman = |age, deceased| Person {
            sex: Some("female".into()),
            deceased,
            death_year: None,
            age: Some(age),
            birth_year: None,
            born_by: None,
        };
        assert!(p.admits(&woman(65, false)));
        assert!(!p.admits(&woman(64, false)));
        assert!(!p.admits(&woman(70, true)));
        assert!(!p.admits(&Person {
            sex: Some("male".into()),
            ..woman(70, false)
        }));
        // Unknown age: not counted in an age band.
        assert!(!p.admits(&Person {
            age: None,
            ..woman(70, false)
        }));
        let died = population("How many patients died in 2020 or 2021?");
        let dead = |year| Person {
            deceased: true,
            death_year: year,
            ..Person::default()
        };
        // A birth year withheld at 90 and over is before 1940, but in no given decade.
        let oldest = Person {
            age: Some(90),
            born_by: Some(1936),
            ..Person::default()
        };
        assert!(population("patients born before 1940?").admits(&oldest));
        assert!(!population("patients born in the 1930s?").admits(&oldest));
        assert!(!population("patients born after 1920?").admits(&oldest));
        assert!(!population("patients born before 1930?").admits(&oldest));
        assert!(population("how many patients?").admits(&oldest));
        assert!(died.admits(&dead(Some(2021))));
        assert!(!died.admits(&dead(Some(2019))));
        assert!(!died.admits(&dead(None)));
    }
}
