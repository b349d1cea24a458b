//! The one date grammar: every date a text names, in the spellings people, records and models
//! use, with its span, its precision and every day it can mean (`03/04/2015` is 4 March in the
//! US and 3 April elsewhere: both are candidates).
//!
//! Read: ISO (`2015-03-04`, `2015/03/04`, `2015.03.04`, with a time after it), compact
//! (`20150304`), numeric day and month in either order with `/`, `-` or `.` and a two- or
//! four-digit year, month names and abbreviations before or after the day with ordinals and
//! "of" (`March 4th, 2015`, `4 Mar 2015`, `the 17th of February 1983`, `4-Mar-2015`), and months
//! without a day (`March 2015`, `2015-03`).

use std::sync::LazyLock;

use chrono::{Datelike, NaiveDate};
use regex::Regex;

/// How precise a mention is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// A day.
    Day,
    /// A month of a year.
    Month,
}

/// One date in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DateMention {
    /// Byte offset of the start.
    pub start: usize,
    /// Byte offset just past the end.
    pub end: usize,
    /// Every date it can mean (the first of the month for a month).
    pub candidates: Vec<NaiveDate>,
    /// Day or month.
    pub precision: Precision,
}

impl DateMention {
    /// The date most readers mean (ISO order, else month first as in US records).
    pub fn date(&self) -> NaiveDate {
        self.candidates[0]
    }
}

/// English month names, January first.
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Whether a word is a month's name, in any case ("march", "March").
pub fn is_month_name(word: &str) -> bool {
    MONTHS.iter().any(|m| m.eq_ignore_ascii_case(word))
}

/// "March 2015": a date without its day.
pub fn month_year(date: NaiveDate) -> String {
    format!("{} {}", MONTHS[date.month0() as usize], date.year())
}

const MONTH: &str = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";

enum Form {
    Iso,
    Compact,
    Numeric,
    MonthDayYear,
    DayMonthYear,
    MonthYear,
    YearMonth,
}

static FORMS: LazyLock<Vec<(Form, Regex)>> = LazyLock::new(|| {
    let r = |p: String| Regex::new(&p).expect("valid date regex");
    vec![
        (
            Form::Iso,
            r(r"\b(\d{4})([-/.])(\d{1,2})([-/.])(\d{1,2})(?:T[0-9:.+\-Z]*)?\b".into()),
        ),
        (
            Form::Compact,
            r(r"\b((?:19|20)\d{2})(\d{2})(\d{2})\b".into()),
        ),
        (
            Form::MonthDayYear,
            r(format!(
                r"(?i)\b{MONTH}[\s\-/.,]+(\d{{1,2}})(?:st|nd|rd|th)?[\s\-/.,]+(\d{{4}})\b"
            )),
        ),
        (
            Form::DayMonthYear,
            r(format!(
                r"(?i)\b(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?[\s\-/.,]+{MONTH}[\s\-/.,]+(\d{{2}}|\d{{4}})\b"
            )),
        ),
        (
            Form::Numeric,
            r(r"\b(\d{1,2})([/.\-])(\d{1,2})([/.\-])(\d{4}|\d{2})\b".into()),
        ),
        (
            Form::MonthYear,
            r(format!(r"(?i)\b{MONTH}(?:\s+of)?,?\s+(\d{{4}})\b")),
        ),
        (Form::YearMonth, r(r"\b((?:19|20)\d{2})-(\d{2})\b".into())),
    ]
});

fn month_number(name: &str) -> u32 {
    let lower = name.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| lower.starts_with(&m[..3].to_ascii_lowercase()))
        .map(|i| i as u32 + 1)
        .unwrap_or(0)
}

fn year_of(text: &str) -> i32 {
    let y: i32 = text.parse().unwrap_or(0);
    if text.len() == 2 {
        // Two-digit years: the most recent century that does not put the date in the future.
        let this_year = chrono::Utc::now().year() % 100;
        if y <= this_year + 1 {
            2000 + y
        } else {
            1900 + y
        }
    } else {
        y
    }
}

fn ymd(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d)
}

/// Every date `text` names, in order, without overlaps (the longest reading wins).
pub fn find(text: &str) -> Vec<DateMention> {
    // Same offsets, with word boundaries where other scripts touch a date.
    let view = super::latin_view(text);
    let text = view.as_str();
    let mut found: Vec<DateMention> = Vec::new();
    let num = |s: &str| s.parse::<u32>().unwrap_or(0);
    for (form, pattern) in FORMS.iter() {
        for c in pattern.captures_iter(text) {
            let whole = c.get(0).expect("group 0");
            if found
                .iter()
                .any(|f| whole.start() < f.end && f.start < whole.end())
            {
                continue;
            }
            let (candidates, precision) = match form {
                Form::Iso => {
                    if c[2] != c[4] {
                        continue; // 2015-03/04 is not a date
                    }
                    (
                        ymd(num(&c[1]) as i32, num(&c[3]), num(&c[5]))
                            .into_iter()
                            .collect::<Vec<_>>(),
                        Precision::Day,
                    )
                }
                Form::Compact => (
                    ymd(num(&c[1]) as i32, num(&c[2]), num(&c[3]))
                        .into_iter()
                        .collect(),
                    Precision::Day,
                ),
                Form::Numeric => {
                    if c[2] != c[4] {
                        continue;
                    }
                    let y = year_of(&c[5]);
                    let (a, b) = (num(&c[1]), num(&c[3]));
                    let mut all: Vec<NaiveDate> =
                        [ymd(y, a, b), ymd(y, b, a)].into_iter().flatten().collect();
                    all.dedup();
                    (all, Precision::Day)
                }
                Form::MonthDayYear => (
                    ymd(num(&c[3]) as i32, month_number(&c[1]), num(&c[2]))
                        .into_iter()
                        .collect(),
                    Precision::Day,
                ),
                Form::DayMonthYear => (
                    ymd(year_of(&c[3]), month_number(&c[2]), num(&c[1]))
                        .into_iter()
                        .collect(),
                    Precision::Day,
                ),
                Form::MonthYear => (
                    ymd(num(&c[2]) as i32, month_number(&c[1]), 1)
                        .into_iter()
                        .collect(),
                    Precision::Month,
                ),
                Form::YearMonth => (
                    ymd(num(&c[1]) as i32, num(&c[2]), 1).into_iter().collect(),
                    Precision::Month,
                ),
            };
            if candidates.is_empty() {
                continue;
            }
            found.push(DateMention {
                start: whole.start(),
                end: whole.end(),
                candidates,
                precision,
            });
        }
    }
    found.sort_by_key(|m| m.start);
    found
}

/// Days `text` names (every candidate of every day-precision mention).
pub fn days(text: &str) -> Vec<NaiveDate> {
    let mut out: Vec<NaiveDate> = find(text)
        .into_iter()
        .filter(|m| m.precision == Precision::Day)
        .flat_map(|m| m.candidates)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Months `text` names without a day ("in January 2017", "2017-01"), as their first days.
pub fn months(text: &str) -> Vec<NaiveDate> {
    let mut out: Vec<NaiveDate> = find(text)
        .into_iter()
        .filter(|m| m.precision == Precision::Month)
        .flat_map(|m| m.candidates)
        .filter_map(|d| d.with_day(1))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// "since 2018", "from 2018", "after 2015", "2010 or later": the first day of the first year the
/// text asks about from then on ("after 2015" starts with 2016).
pub fn since(text: &str) -> Option<NaiveDate> {
    static SINCE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\b(since|after|from)\s+((?:19|20)\d{2})\b|\b((?:19|20)\d{2})\s+(?:(?:or|and)\s+(?:later|after)|onwards?)\b",
        )
        .expect("valid since regex")
    });
    let c = SINCE.captures(text)?;
    let year: i32 = c.get(2).or(c.get(3))?.as_str().parse().ok()?;
    let after = c
        .get(1)
        .is_some_and(|w| w.as_str().eq_ignore_ascii_case("after"));
    ymd(year + i32::from(after), 1, 1)
}

/// The first day a question's period excludes at its end: "before 2015" and "prior to 2015" are
/// 2015-01-01, "until 2014", "up to 2014" and "2014 or earlier" 2015-01-01 too.
pub fn before(text: &str) -> Option<NaiveDate> {
    static BEFORE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\b(before|prior\s+to|until|till|up\s+to|through)\s+((?:19|20)\d{2})\b|\b((?:19|20)\d{2})\s+or\s+(?:earlier|before)\b",
        )
        .expect("valid before regex")
    });
    let c = BEFORE.captures(text)?;
    let year: i32 = c.get(2).or(c.get(3))?.as_str().parse().ok()?;
    let excludes = c.get(1).is_some_and(|w| {
        let w = w.as_str().to_ascii_lowercase();
        w == "before" || w.starts_with("prior")
    });
    ymd(if excludes { year } else { year + 1 }, 1, 1)
}

/// "2000-2009", "between 2010 and 2015", "2010 to 2019", "the 1980s": the first day of a closed
/// range of years and the first day after it. (An open bound is [`since`] or [`before`]; "from
/// 2010 through 2019" is both.)
pub fn year_range(text: &str) -> Option<(NaiveDate, NaiveDate)> {
    static RANGE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\b(?:between\s+)?((?:19|20)\d{2})\s*(?:[-–]|\s(?:and|to|through|thru|until|till)\s)\s*((?:19|20)\d{2})\b",
        )
        .expect("valid range regex")
    });
    static DECADE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b((?:19|20)\d)0['’]?s\b").expect("valid decade regex"));
    if let Some(c) = RANGE.captures(text) {
        let (a, b): (i32, i32) = (c[1].parse().ok()?, c[2].parse().ok()?);
        // "between 2010 and 2015" but never "2015 and 2010" read backwards, nor a list of two
        // years written with "and" alone ("in 2019 and 2020" is the years, which the periods
        // read).
        let written_and = c[0].to_ascii_lowercase().contains(" and ");
        let between = c[0].to_ascii_lowercase().starts_with("between");
        if a < b && (between || !written_and) {
            return Some((ymd(a, 1, 1)?, ymd(b + 1, 1, 1)?));
        }
    }
    let c = DECADE.captures(text)?;
    let first: i32 = c[1].parse::<i32>().ok()? * 10;
    Some((ymd(first, 1, 1)?, ymd(first + 10, 1, 1)?))
}

/// "early 2017" (January to April), "mid 2017" (May to August), "late 2017" (September to
/// December), "in 2017" or "during 2017" (the whole year): the months of each period, as their
/// first days. Kept apart from [`find`]: these are not dates to generalize, only ranges a
/// question asks about.
pub fn periods(text: &str) -> Vec<NaiveDate> {
    static PERIOD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(early|mid|middle\s+of|late|in|during|throughout)[\s\-]+((?:19|20)\d{2})\b(?:$|[^\-/.\d]|\.(?:\s|$))")
            .expect("valid period regex")
    });
    // "In 2000 or later", "in 2015 onwards": a bound (see [`since`], [`before`]), not a year.
    static BOUND_AFTER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^\s*(?:or\s+(?:later|after|earlier|before)|and\s+(?:later|after)|onwards?)\b",
        )
        .expect("valid regex")
    });
    // "In 2016 or 2017", "in 2019, 2020 and 2021": the years listed after the first.
    static LISTED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s*(?:,|/|&|or|and)\s*((?:19|20)\d{2})\b(?:$|[^\-/.\d]|\.(?:\s|$))")
            .expect("valid regex")
    });
    let mut out = Vec::new();
    for c in PERIOD.captures_iter(text) {
        let mut end = c.get(2).map_or(0, |y| y.end());
        if BOUND_AFTER.is_match(&text[end..]) {
            continue;
        }
        let word = c[1].to_ascii_lowercase();
        let months = match word.as_str() {
            "early" => 1..=4,
            "late" => 9..=12,
            w if w.starts_with("mid") => 5..=8,
            _ => 1..=12,
        };
        let mut years: Vec<i32> = vec![c[2].parse().unwrap_or(0)];
        if months.clone().count() == 12 {
            while let Some(listed) = LISTED_AFTER.captures(&text[end..]) {
                years.push(listed[1].parse().unwrap_or(0));
                end += listed.get(1).map_or(0, |y| y.end());
            }
        }
        for year in years {
            out.extend(months.clone().filter_map(|m| ymd(year, m, 1)));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A year written alone beside the words of a question ("LDL 2017 - value?", "his 2019 flu
/// shot", "2012 sore throat: what was he given?"): the twelve months of that year. Not a year
/// that another reading already takes: a period or a bound ("in", "since", "before", "after",
/// "from", "until", "between"), a range or a list ("2010-2019", "2010 to 2019", "2010 or
/// later"), a decade ("1990s"), a date ("March 2017", "2017-03-04"); nor a number with a unit
/// ("2017 grams") or after another number.
pub fn bare_years(text: &str) -> Vec<NaiveDate> {
    static YEAR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:([a-z0-9]+)[\s,(]+|^|[\s(])((?:19|20)\d{2})\b([^\n]{0,12})")
            .expect("valid year regex")
    });
    static NOT_ALONE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:'?s\b|\s*[\-–/.:]\s*\d|\s*\+|[\s,]*(?:or|and|to|through|thru|till|until|onwards?|on)\b)")
            .expect("valid regex")
    });
    const BOUNDS: &[&str] = &[
        "in",
        "during",
        "throughout",
        "early",
        "mid",
        "late",
        "since",
        "before",
        "after",
        "from",
        "until",
        "till",
        "to",
        "through",
        "thru",
        "between",
        "and",
        "or",
        "by",
        "of",
        "prior",
        "born",
    ];
    const UNITS: &[&str] = &[
        "g", "gram", "grams", "kg", "mg", "ml", "l", "mmol", "lb", "lbs", "cm", "mm", "units",
        "iu", "patients", "pts", "people", "times",
    ];
    let mentions = find(text);
    let mut out = Vec::new();
    for c in YEAR.captures_iter(text) {
        let year = c.get(2).expect("the year group");
        if mentions
            .iter()
            .any(|m| year.start() >= m.start && year.end() <= m.end)
        {
            continue;
        }
        let before = c.get(1).map(|m| m.as_str().to_ascii_lowercase());
        if before.as_deref().is_some_and(|w| {
            BOUNDS.contains(&w) || w.chars().all(|c| c.is_ascii_digit()) || is_month_name(w)
        }) {
            continue;
        }
        let after = c.get(3).map_or("", |m| m.as_str());
        let next: String = after
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_lowercase();
        if NOT_ALONE.is_match(after) || UNITS.contains(&next.as_str()) {
            continue;
        }
        let year: i32 = year.as_str().parse().unwrap_or(0);
        out.extend((1..=12).filter_map(|m| ymd(year, m, 1)));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `text` with every mention replaced by `with(mention)`.
pub fn replace(text: &str, with: impl Fn(&DateMention) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in find(text) {
        out.push_str(&text[last..m.start]);
        out.push_str(&with(&m));
        last = m.end;
    }
    out.push_str(&text[last..]);
    out
}

/// `text` with every day turned into its month ("4 March 2015" → "March 2015").
pub fn generalize_to_months(text: &str) -> String {
    replace(text, |m| month_year(m.date()))
}

/// Whether `text` names a day (any spelling).
pub fn names_a_day(text: &str) -> bool {
    find(text).iter().any(|m| m.precision == Precision::Day)
}

#[cfg(test)]
mod tests {
    #[test]
    fn closed_ranges_of_years() {
        let day = |y| ymd(y, 1, 1).unwrap();
        assert_eq!(
            year_range("prediabetes first diagnosed 2000-2009"),
            Some((day(2000), day(2010)))
        );
        assert_eq!(
            year_range("deaths between 2010 and 2015 inclusive"),
            Some((day(2010), day(2016)))
        );
        assert_eq!(
            year_range("hypertension diagnosed during the 1980s"),
            Some((day(1980), day(1990)))
        );
        assert_eq!(
            year_range("flu shots 2015 to 2017"),
            Some((day(2015), day(2018)))
        );
        assert_eq!(year_range("in 2019 and 2020"), None);
        assert_eq!(year_range("between 2020 and 2010"), None);
        assert_eq!(year_range("since 2015"), None);
    }

    use super::*;

    #[test]
    fn since_reads_the_first_year_asked_from() {
        let first = |y| NaiveDate::from_ymd_opt(y, 1, 1);
        assert_eq!(since("ER visits since 2018?"), first(2018));
        assert_eq!(since("deaths in 2010 or later"), first(2010));
        assert_eq!(
            since("any admissions after 2015 for the pneumonia"),
            first(2016)
        );
        // "after" elsewhere in the question does not shift the year.
        assert_eq!(since("since 2018, after her surgery"), first(2018));
        assert_eq!(since("weight in 2019"), None);
        assert_eq!(since("diagnosed in 2000 or later"), first(2000));
        assert_eq!(since("visits in 2015 onwards"), first(2015));
        assert_eq!(since("2012 and after"), first(2012));
    }

    #[test]
    fn before_reads_the_first_year_a_question_leaves_out() {
        let first = |y| NaiveDate::from_ymd_opt(y, 1, 1);
        assert_eq!(
            before("how many pts had a fracture before 2015?"),
            first(2015)
        );
        assert_eq!(before("prior to 2015"), first(2015));
        assert_eq!(before("visits until 2014"), first(2015));
        assert_eq!(before("2014 or earlier"), first(2015));
        assert_eq!(before("before she died"), None);
        assert_eq!(before("weight in 2019"), None);
    }

    #[test]
    fn periods_of_a_year() {
        let months = |t: &str| periods(t).iter().map(|d| d.month()).collect::<Vec<u32>>();
        assert_eq!(months("weight in early 2017?"), [1, 2, 3, 4]);
        assert_eq!(months("in mid-2016"), [5, 6, 7, 8]);
        assert_eq!(months("late 2015."), [9, 10, 11, 12]);
        assert_eq!(months("visits in 2014").len(), 12);
        assert!(periods("on 2017-03-04").is_empty());
        assert!(periods("in 2017-03").is_empty());
        assert!(periods("in March 2017").is_empty());
        assert!(periods("weighed 2017 grams").is_empty());
        // A bound is no period: see `since` and `before`.
        assert!(periods("sinusitis diagnosed in 2000 or later").is_empty());
        assert!(periods("visits in 2015 onwards").is_empty());
        // Years listed after the first are periods too.
        let years = |t: &str| {
            let mut y: Vec<i32> = periods(t).iter().map(|d| d.year()).collect();
            y.dedup();
            y
        };
        assert_eq!(years("Td given in 2016 or 2017 - count?"), [2016, 2017]);
        assert_eq!(years("in 2019, 2020 and 2021?"), [2019, 2020, 2021]);
        assert_eq!(years("in 2019 and 2020-03-04"), [2019]);
    }

    #[test]
    fn a_year_alone_is_read_where_nothing_else_reads_it() {
        let years = |t: &str| {
            let mut y: Vec<i32> = bare_years(t).iter().map(|d| d.year()).collect();
            y.dedup();
            y
        };
        assert_eq!(years("pierre ldl 2017 - value?"), [2017]);
        assert_eq!(years("his 2019 flu shot?"), [2019]);
        assert_eq!(
            years("2012 sore throat - what was he given for it?"),
            [2012]
        );
        assert_eq!(years("bp (2016)?"), [2016]);
        assert_eq!(bare_years("ldl 2017").len(), 12);
        for other in [
            "weight in 2019",
            "since 2015",
            "before 1970",
            "2010 or later",
            "2018 on",
            "2010-2019",
            "2010 to 2019",
            "from 2010 through 2019",
            "born in the 1990s",
            "on 2017-03-04",
            "in March 2017",
            "March 2017",
            "weighed 2017 grams",
            "between 2010 and 2019",
            "about 1999 patients",
        ] {
            assert!(bare_years(other).is_empty(), "{other}");
        }
    }

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn reads_every_common_spelling() {
        let want = d(2015, 3, 4);
        for text in [
            "on 2015-03-04",
            "on 2015/03/04",
            "on 2015.03.04",
            "at 2015-03-04T10:00:00+02:00",
            "20150304",
            "on 3/4/2015",
            "on 03-04-2015",
            "on March 4, 2015",
            "on Mar 4th 2015",
            "on Mar. 4 2015",
            "on 4 March 2015",
            "the 4th of March, 2015",
            "4-Mar-2015",
            "4 mar 15",
        ] {
            assert!(days(text).contains(&want), "{text}: {:?}", find(text));
        }
        assert_eq!(days("on 03/04/2015"), vec![d(2015, 3, 4), d(2015, 4, 3)]);
        assert_eq!(days("17th of February 1983"), vec![d(1983, 2, 17)]);
        assert_eq!(days("17.02.1983"), vec![d(1983, 2, 17)]);
        assert!(days("on 2015-02-30").is_empty());
    }

    #[test]
    fn months_and_non_dates() {
        let m = find("in March 2015 and 2016-07");
        assert_eq!(m.len(), 2);
        assert!(m.iter().all(|m| m.precision == Precision::Month));
        assert!(find("Blood pressure 120/80 mmHg, pain 7/10, version 2.7.0").is_empty());
        assert!(!names_a_day("in May 2015"));
    }

    #[test]
    fn generalizes_days_to_months() {
        assert_eq!(
            generalize_to_months("seen 4 March 2015 and on 2016-05-01T10:00:00Z."),
            "seen March 2015 and on May 2016."
        );
        assert_eq!(generalize_to_months("in March 2015"), "in March 2015");
    }
}
