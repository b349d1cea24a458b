//! "Is she losing weight?", "How has his A1c changed since 2017?": the direction of one reading
//! of one patient over the years, from the last value of each calendar year, answered yes or no
//! when the question asks about one direction.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use chrono::{Datelike, NaiveDate};
use regex::Regex;

use crate::privacy::generalize::{format_value, Reading};

/// Which way a series went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
    Stable,
}

/// What a trend question asks: whether a reading went one way (yes or no), or which way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    Whether(Direction),
    Which,
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid trend regex")
}

static UP: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:going|gone|trending|creeping|moving|went|gone|headed|heading)\s+up\b|\b(?:gaining|gained|putting\s+on|put\s+on|increasing|increased|rising|risen|climbing)\b|\bgetting\s+(?:higher|heavier|bigger)\b|\bgone\s+up\b|\b(?:putting|put|piling|piled)\s+(?:the\s+)?(?:weight|pounds|kilos)\s+(?:back\s+)?on\b|\b(?:regained|regaining)\b",
    )
});
static DOWN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:going|gone|trending|coming|came|moving|went|headed|heading)\s+down\b|\b(?:losing|lost|decreasing|decreased|dropping|dropped|falling|fallen|declining|declined)\b|\bgetting\s+(?:lower|lighter|smaller)\b",
    )
});
static OPEN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:trend|trends|trending|changed|changing|change|changes|evolved|progressed|over\s+(?:the\s+)?(?:last|past)\s+(?:few\s+|several\s+|\d+\s+)?years|over\s+time|up\s+or\s+down|down\s+or\s+up)\b",
    )
});

/// Whether `question` asks about a trend, and how.
pub fn asked(question: &str) -> Option<Asked> {
    let up = UP.is_match(question);
    let down = DOWN.is_match(question);
    let open = OPEN.is_match(question);
    static EITHER: LazyLock<Regex> =
        LazyLock::new(|| regex(r"(?i)\b(?:up\s+or\s+down|down\s+or\s+up)\b"));
    if EITHER.is_match(question) {
        return Some(Asked::Which);
    }
    match (up, down) {
        (true, false) => Some(Asked::Whether(Direction::Up)),
        (false, true) => Some(Asked::Whether(Direction::Down)),
        (true, true) => Some(Asked::Which),
        (false, false) => open.then_some(Asked::Which),
    }
}

/// A reading's yearly series: the last value of each calendar year, oldest first.
pub fn yearly(readings: &[(NaiveDate, f64)]) -> Vec<(i32, f64)> {
    let mut last: BTreeMap<i32, (NaiveDate, f64)> = BTreeMap::new();
    for (day, value) in readings {
        match last.get(&day.year()) {
            Some((seen, _)) if seen > day => {}
            _ => {
                last.insert(day.year(), (*day, *value));
            }
        }
    }
    last.into_iter().map(|(y, (_, v))| (y, v)).collect()
}

/// Years a trend looks back when the question names no start: the last seven calendar years of
/// the record.
pub const YEARS: i32 = 7;

/// The series from `since` (a year), or over the last [`YEARS`] years of the record.
pub fn window(series: &[(i32, f64)], since: Option<i32>) -> Vec<(i32, f64)> {
    let Some(&(last, _)) = series.last() else {
        return Vec::new();
    };
    let from = since.unwrap_or(last - YEARS + 1);
    series.iter().copied().filter(|(y, _)| *y >= from).collect()
}

/// The direction from the first to the last value: a change within 3 % of the first value
/// (or of 1 when it is near zero) is stable.
pub fn direction(series: &[(i32, f64)]) -> Option<Direction> {
    let (&(_, first), &(_, last)) = (series.first()?, series.last()?);
    if series.len() < 2 {
        return None;
    }
    let tolerance = (first.abs() * 0.03).max(0.01);
    Some(if last - first > tolerance {
        Direction::Up
    } else if first - last > tolerance {
        Direction::Down
    } else {
        Direction::Stable
    })
}

/// The answer's line: "Body Weight decreased from 77 kg (2015) to 71 kg (2021); the last value
/// of each year: 77 kg (2015), 75 kg (2017), 71 kg (2021)", led by yes or no for a question
/// about one direction.
pub fn sentence(code: &str, reading: &Reading, series: &[(i32, f64)], asked: Asked) -> String {
    let Some(direction) = direction(series) else {
        return String::new();
    };
    let show = |v: f64| {
        let shown = reading.render(&[format_value(v)]);
        let shown = shown.trim().trim_end_matches('.');
        shown.strip_prefix("Value is ").unwrap_or(shown).to_string()
    };
    let (first, last) = (series[0], series[series.len() - 1]);
    let moved = match direction {
        Direction::Up => format!(
            "increased from {} ({}) to {} ({})",
            show(first.1),
            first.0,
            show(last.1),
            last.0
        ),
        Direction::Down => format!(
            "decreased from {} ({}) to {} ({})",
            show(first.1),
            first.0,
            show(last.1),
            last.0
        ),
        Direction::Stable => format!(
            "stayed stable: {} ({}) and {} ({})",
            show(first.1),
            first.0,
            show(last.1),
            last.0
        ),
    };
    let each: Vec<String> = series
        .iter()
        .map(|(y, v)| format!("{} ({y})", show(*v)))
        .collect();
    let lead = match asked {
        Asked::Whether(d) if d == direction => "Yes. ",
        Asked::Whether(_) => "No. ",
        Asked::Which => "",
    };
    format!(
        "{lead}{code} {moved}; the last value of each year: {}.",
        each.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, 1).unwrap()
    }

    #[test]
    fn questions_about_a_direction_or_any() {
        assert_eq!(
            asked("Is Ms. Stoltenberg losing weight?"),
            Some(Asked::Whether(Direction::Down))
        );
        assert_eq!(
            asked("Is the patient's weight going up?"),
            Some(Asked::Whether(Direction::Up))
        );
        assert_eq!(
            asked("is dusty putting on weight as he grows? (since 2014)"),
            Some(Asked::Whether(Direction::Up))
        );
        assert_eq!(
            asked("Trinidad's weight over the last few years - going up or down?"),
            Some(Asked::Which)
        );
        assert_eq!(
            asked("How has Margarita's weight changed over the past few years?"),
            Some(Asked::Which)
        );
        assert_eq!(
            asked("has he been putting the weight back on since his surgery?"),
            Some(Asked::Whether(Direction::Up))
        );
        assert_eq!(asked("did they put her on metformin?"), None);
        assert_eq!(asked("What was her latest weight?"), None);
        assert_eq!(asked("When was she diagnosed with asthma?"), None);
    }

    #[test]
    fn the_last_value_of_each_year_gives_the_direction() {
        let readings = [
            (day(2014, 3), 80.0),
            (day(2015, 2), 77.0),
            (day(2015, 11), 76.5),
            (day(2018, 6), 74.0),
            (day(2021, 5), 71.0),
        ];
        let series = yearly(&readings);
        assert_eq!(
            series,
            vec![(2014, 80.0), (2015, 76.5), (2018, 74.0), (2021, 71.0)]
        );
        let recent = window(&series, None);
        assert_eq!(recent.first(), Some(&(2015, 76.5)));
        assert_eq!(direction(&recent), Some(Direction::Down));
        assert_eq!(window(&series, Some(2018)).len(), 2);
        assert_eq!(
            direction(&[(2015, 76.4), (2021, 76.0)]),
            Some(Direction::Stable)
        );
        assert_eq!(direction(&[(2021, 76.0)]), None);
    }

    #[test]
    fn the_answer_leads_with_yes_or_no_for_one_direction() {
        let reading = Reading::parse("Value is 71 kg.");
        let series = [(2015, 76.5), (2021, 71.0)];
        let line = sentence(
            "Body Weight",
            &reading,
            &series,
            Asked::Whether(Direction::Down),
        );
        assert!(
            line.starts_with("Yes. Body Weight decreased from"),
            "{line}"
        );
        assert!(line.contains("71 kg (2021)"), "{line}");
        let line = sentence(
            "Body Weight",
            &reading,
            &series,
            Asked::Whether(Direction::Up),
        );
        assert!(line.starts_with("No. "), "{line}");
        assert!(!sentence("Body Weight", &reading, &series, Asked::Which).starts_with("No"));
    }
}
