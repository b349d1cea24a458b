//! Generalization: the deterministic transformations that distance a synthetic document from the
//! record it comes from (thesis §3.2): numbers rounded, exact dates turned into months, ages into
//! bands, repeated readings of one kind folded into a range.

use std::sync::LazyLock;

use regex::Regex;

/// A measured value: the number after "is" ("Value is 80.3 kg", "Systolic Blood Pressure is 118").
static VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bis (-?\d+(?:\.\d+)?)\b").expect("valid regex"));

/// An age written out: "52 years old", "aged 52", "age 52", "52-year-old".
static AGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:aged?\s+(\d{1,3})|(\d{1,3})(?:\s+|-)years?(?:\s+|-)old)\b")
        .expect("valid regex")
});

pub use crate::text::dates::{month_year, MONTHS};

/// An age band of ten years; 90 and over form one band (HIPAA Safe Harbor).
pub fn age_band(age: u32) -> String {
    if age >= 90 {
        "90 or older".into()
    } else {
        let low = age / 10 * 10;
        format!("{low} to {}", low + 9)
    }
}

/// Rounds a measured value: whole numbers from 10 up, one decimal from 1 to 10, two significant
/// digits below 1. The point is to drop the precision that makes a reading a fingerprint of one
/// record while keeping its clinical meaning.
pub fn round_value(x: f64) -> f64 {
    let magnitude = x.abs();
    if magnitude >= 10.0 {
        x.round()
    } else if magnitude >= 1.0 {
        (x * 10.0).round() / 10.0
    } else if magnitude == 0.0 {
        0.0
    } else {
        let digits = 1 - magnitude.log10().floor() as i32;
        let scale = 10f64.powi(digits);
        (x * scale).round() / scale
    }
}

/// Writes a rounded value without trailing zeros.
pub fn format_value(x: f64) -> String {
    let text = format!("{:.4}", round_value(x));
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// Exact dates become months, ages become bands, measured values are rounded.
pub fn generalize_text(text: &str) -> String {
    let dated = crate::text::dates::generalize_to_months(text);
    let aged = AGE.replace_all(&dated, |c: &regex::Captures<'_>| {
        let age: u32 = c
            .get(1)
            .or_else(|| c.get(2))
            .and_then(|m| m.as_str().parse().ok())
            .unwrap_or(0);
        format!("aged {}", age_band(age))
    });
    let reading = Reading::parse(&aged);
    reading.render(
        &reading
            .values
            .iter()
            .map(|v| format_value(*v))
            .collect::<Vec<_>>(),
    )
}

/// A sentence split into its wording and its measured values, so that readings of one kind can
/// be compared and folded.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The sentence with each value replaced by `{}`.
    pub template: String,
    /// The values, in order.
    pub values: Vec<f64>,
}

impl Reading {
    /// Splits a sentence.
    pub fn parse(sentence: &str) -> Reading {
        let mut template = String::with_capacity(sentence.len());
        let mut values = Vec::new();
        let mut last = 0;
        for c in VALUE.captures_iter(sentence) {
            let number = c.get(1).expect("group 1");
            match number.as_str().parse::<f64>() {
                Ok(v) => {
                    template.push_str(&sentence[last..number.start()]);
                    template.push_str("{}");
                    values.push(v);
                    last = number.end();
                }
                Err(_) => continue,
            }
        }
        template.push_str(&sentence[last..]);
        Reading { template, values }
    }

    /// The sentence with `values[i]` in the i-th slot.
    pub fn render(&self, values: &[String]) -> String {
        let mut out = String::with_capacity(self.template.len() + 16);
        let mut parts = self.template.split("{}");
        if let Some(first) = parts.next() {
            out.push_str(first);
        }
        for (i, part) in parts.enumerate() {
            out.push_str(values.get(i).map(String::as_str).unwrap_or("?"));
            out.push_str(part);
        }
        out
    }
}

/// Folds readings that share a template into one sentence whose values are ranges of the rounded
/// values ("Value is 78 to 82 kg"). All readings must share `template`; returns `None` when they
/// have no values to fold.
pub fn fold_readings(readings: &[Reading]) -> Option<String> {
    let first = readings.first()?;
    if first.values.is_empty() || readings.iter().any(|r| r.template != first.template) {
        return None;
    }
    let ranges: Vec<String> = (0..first.values.len())
        .map(|slot| {
            let rounded = readings
                .iter()
                .filter_map(|r| r.values.get(slot))
                .map(|v| round_value(*v));
            let (low, high) = rounded.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
            if low == high {
                format_value(low)
            } else {
                format!("{} to {}", format_value(low), format_value(high))
            }
        })
        .collect();
    Some(first.render(&ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_by_magnitude() {
        assert_eq!(format_value(80.3), "80");
        assert_eq!(format_value(173.9), "174");
        assert_eq!(format_value(13.54), "14");
        assert_eq!(format_value(4.6643), "4.7");
        assert_eq!(format_value(0.0437), "0.044");
        assert_eq!(format_value(-2.26), "-2.3");
        assert_eq!(format_value(0.0), "0");
        assert_eq!(format_value(118.0), "118");
    }

    #[test]
    fn generalizes_dates_ages_and_values() {
        assert_eq!(
            generalize_text("Onset on 2011-08-08. Value is 80.34 kg."),
            "Onset on August 2011. Value is 80 kg."
        );
        assert_eq!(
            generalize_text("The patient died on 2020-02-29T10:00:00Z"),
            "The patient died on February 2020"
        );
        assert_eq!(
            generalize_text("a 93-year-old man"),
            "a aged 90 or older man"
        );
        assert_eq!(generalize_text("aged 47"), "aged 40 to 49");
        // Codes and unit text are not values.
        assert_eq!(
            generalize_text("Code is Pneumococcal conjugate PCV 13. Value is 4.6643 10*6/uL."),
            "Code is Pneumococcal conjugate PCV 13. Value is 4.7 10*6/uL."
        );
    }

    #[test]
    fn folds_repeated_readings_into_ranges() {
        let readings: Vec<Reading> = [
            "Code is Blood Pressure. Diastolic Blood Pressure is 83 mm[Hg]. Systolic Blood Pressure is 118 mm[Hg].",
            "Code is Blood Pressure. Diastolic Blood Pressure is 76 mm[Hg]. Systolic Blood Pressure is 133.4 mm[Hg].",
            "Code is Blood Pressure. Diastolic Blood Pressure is 80 mm[Hg]. Systolic Blood Pressure is 121 mm[Hg].",
        ]
        .iter()
        .map(|s| Reading::parse(s))
        .collect();
        assert_eq!(
            fold_readings(&readings).unwrap(),
            "Code is Blood Pressure. Diastolic Blood Pressure is 76 to 83 mm[Hg]. Systolic Blood Pressure is 118 to 133 mm[Hg]."
        );
        let same = [
            Reading::parse("Value is 80.1 kg."),
            Reading::parse("Value is 79.9 kg."),
        ];
        assert_eq!(fold_readings(&same).unwrap(), "Value is 80 kg.");
        assert!(fold_readings(&[Reading::parse("Status is completed.")]).is_none());
    }

    #[test]
    fn age_bands() {
        assert_eq!(age_band(0), "0 to 9");
        assert_eq!(age_band(89), "80 to 89");
        assert_eq!(age_band(90), "90 or older");
        assert_eq!(age_band(104), "90 or older");
    }
}
