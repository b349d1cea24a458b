//! DP aggregates for counting and numeric cohort questions: noisy counts of patients per item
//! (a thresholded Gaussian histogram) and quantiles of readings (the exponential mechanism over
//! a fixed grid). Each patient contributes at most `max_items` items to a histogram and one
//! value to a quantile; the caller enforces that (one row per patient).

use std::collections::{BTreeMap, BTreeSet};

use super::{gaussian_sigma, Noise};

/// A released count.
#[derive(Clone, Debug, PartialEq)]
pub struct NoisyCount {
    /// The item.
    pub item: String,
    /// The noisy count, rounded to a whole number of patients.
    pub count: u64,
    /// Half the width of its 95 % interval ([`margin`] of the noise), in patients.
    pub margin: u64,
}

/// Half the width of the 95 % interval of a figure with Gaussian noise σ: the true figure lies
/// within ±1.96σ of the released one with probability 0.95, whatever the data (the noise is
/// independent of it). For a released histogram count this holds before the threshold; an
/// item just above the threshold is more likely to have been pushed up than down.
pub fn margin(sigma: f64) -> f64 {
    1.959_963_985 * sigma
}

/// How far, in patients, a quantile drawn by [`quantile`] at `epsilon` may sit from the
/// asked rank, with probability `1 - beta`: the exponential mechanism's utility bound
/// (McSherry & Talwar 2007; Dwork & Roth, Theorem 3.11) over the fixed grid, 2·(ln|grid| +
/// ln(1/β))/ε, plus one for the grid's own step.
pub fn rank_error(epsilon: f64, beta: f64) -> f64 {
    2.0 * ((grid().len() as f64).ln() + (1.0 / beta).ln()) / epsilon + 1.0
}

/// The ε₀ of an exponential mechanism that is `rho`-zCDP: an ε₀-DP exponential mechanism is
/// ε₀²/8-zCDP (it is ε₀-bounded-range; Cesar & Rogers, *Bounding, Concentrating, and
/// Truncating*, ALT 2021, Lemma 3.2), so ε₀ = √(8ρ).
pub fn exponential_epsilon(rho: f64) -> f64 {
    (8.0 * rho).sqrt()
}

/// The least noisy count an item must reach to be named, so that an item only one patient has
/// is released with probability at most `delta` whatever that patient's other items:
/// P(1 + N(0, σ²) ≥ τ) ≤ ½·exp(−(τ−1)²/(2σ²)) per item, union over `max_items` items.
pub fn release_threshold(sigma: f64, max_items: usize, delta: f64) -> f64 {
    1.0 + sigma * (2.0 * (max_items.max(1) as f64 / (2.0 * delta)).ln()).sqrt()
}

/// Noisy patient counts per item. `items` holds each patient's items (already distinct);
/// a patient with more than `max_items` keeps a random `max_items` of them (drawn from the
/// answer's noise, independently of every other patient). The Gaussian part is `rho`-zCDP
/// (L2 sensitivity √max_items); items below [`release_threshold`] at `delta` are not named.
/// Most frequent first.
pub fn noisy_counts(
    items: &BTreeMap<i64, BTreeSet<String>>,
    max_items: usize,
    rho: f64,
    delta: f64,
    noise: &mut Noise,
) -> Vec<NoisyCount> {
    let max_items = max_items.max(1);
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for held in items.values() {
        let mut held: Vec<&String> = held.iter().collect();
        let keep = noise.choose_front(&mut held, max_items);
        for item in &held[..keep] {
            *counts.entry(item.as_str()).or_default() += 1;
        }
    }
    let sigma = gaussian_sigma((max_items as f64).sqrt(), rho);
    let threshold = release_threshold(sigma, max_items, delta);
    let mut out: Vec<(f64, &str)> = counts
        .into_iter()
        .map(|(item, n)| (n as f64 + noise.gaussian(sigma), item))
        .filter(|(noisy, _)| *noisy >= threshold)
        .collect();
    out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let margin = margin(sigma).round() as u64;
    out.into_iter()
        .map(|(noisy, item)| NoisyCount {
            item: item.to_string(),
            count: noisy.round().max(0.0) as u64,
            margin,
        })
        .collect()
}

/// A noisy count of patients (sensitivity 1), `rho`-zCDP.
pub fn noisy_total(n: usize, rho: f64, noise: &mut Noise) -> f64 {
    n as f64 + noise.gaussian(gaussian_sigma(1.0, rho))
}

/// The fixed grid quantiles are chosen from: 0 and 10^(i/50) for i in −100..=250 (0.01 to
/// 100,000 in steps of 4.7 %). It depends on no data; negative readings count as 0.
fn grid() -> Vec<f64> {
    let mut grid: Vec<f64> = vec![0.0];
    grid.extend((-100..=250).map(|i| 10f64.powf(i as f64 / 50.0)));
    grid
}

/// The `q`-quantile of `values` (one per patient) by the exponential mechanism with `epsilon`
/// (pure ε-DP): a grid point g is drawn with probability ∝ exp(−ε·|#{v < g} − q·n| / 2); the
/// score's sensitivity is 1. `None` without values.
pub fn quantile(values: &[f64], q: f64, epsilon: f64, noise: &mut Noise) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let target = q.clamp(0.0, 1.0) * sorted.len() as f64;
    let grid = grid();
    let scores: Vec<f64> = grid
        .iter()
        .map(|g| {
            let below = sorted.partition_point(|v| v < g) as f64;
            -epsilon * (below - target).abs() / 2.0
        })
        .collect();
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut pick = noise.uniform() * total;
    for (g, w) in grid.iter().zip(&weights) {
        if pick < *w {
            return Some(*g);
        }
        pick -= w;
    }
    grid.last().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holdings(n: i64, items: &[&str]) -> BTreeMap<i64, BTreeSet<String>> {
        (0..n)
            .map(|p| (p, items.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn common_items_are_counted_closely_and_a_lone_patient_item_stays_hidden() {
        let mut items = holdings(200, &["metformin", "lisinopril"]);
        items.insert(999, ["rare drug".to_string()].into_iter().collect());
        let (rho, delta) = (0.5, 1e-6);
        let mut lone = 0;
        let mut error = 0.0;
        for seed in 0..100u8 {
            let mut noise = Noise::from_seed([seed; 32]);
            let counts = noisy_counts(&items, 4, rho, delta, &mut noise);
            lone += counts.iter().any(|c| c.item == "rare drug") as usize;
            let metformin = counts.iter().find(|c| c.item == "metformin").unwrap();
            error += (metformin.count as f64 - 200.0).abs();
        }
        assert_eq!(lone, 0);
        // σ = √4/√1 = 2: mean absolute error ≈ 1.6.
        assert!(error / 100.0 < 3.0, "mean error {}", error / 100.0);
    }

    #[test]
    fn each_patient_counts_in_at_most_max_items() {
        let items = holdings(50, &["a", "b", "c", "d", "e", "f"]);
        let mut noise = Noise::from_seed([1; 32]);
        // Huge rho: nearly no noise, so the counts show the contribution bound.
        let counts = noisy_counts(&items, 2, 1e9, 1e-6, &mut noise);
        let total: u64 = counts.iter().map(|c| c.count).sum();
        assert_eq!(total, 100);
    }

    #[test]
    fn the_threshold_grows_with_noise_and_items() {
        assert!(release_threshold(2.0, 1, 1e-6) > release_threshold(1.0, 1, 1e-6));
        assert!(release_threshold(1.0, 10, 1e-6) > release_threshold(1.0, 1, 1e-6));
        assert!(release_threshold(1.0, 1, 1e-9) > release_threshold(1.0, 1, 1e-6));
    }

    #[test]
    fn intervals_hold_the_truth_as_often_as_they_say() {
        let mut noise = Noise::from_seed([4; 32]);
        let (rho, n) = (0.1, 500usize);
        let sigma = gaussian_sigma(1.0, rho);
        let inside = (0..4000)
            .filter(|_| (noisy_total(n, rho, &mut noise) - n as f64).abs() <= margin(sigma))
            .count();
        assert!((3760..=3840).contains(&inside), "{inside}/4000");
        // The median's rank error bound holds at least as often as it says.
        let values: Vec<f64> = (0..200).map(|i| 50.0 + i as f64 * 0.5).collect();
        let epsilon = 1.0;
        let bound = rank_error(epsilon, 0.05);
        let within = (0..400)
            .filter(|_| {
                let m = quantile(&values, 0.5, epsilon, &mut noise).unwrap();
                let rank = values.partition_point(|v| *v < m) as f64;
                (rank - 100.0).abs() <= bound
            })
            .count();
        assert!(within >= 380, "{within}/400 within {bound}");
        assert!((exponential_epsilon(0.125) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn quantiles_land_near_the_truth_with_enough_patients() {
        let values: Vec<f64> = (0..400).map(|i| 100.0 + (i % 41) as f64).collect();
        let mut noise = Noise::from_seed([3; 32]);
        for _ in 0..20 {
            let median = quantile(&values, 0.5, 1.0, &mut noise).unwrap();
            assert!((110.0..=130.0).contains(&median), "{median}");
        }
        assert_eq!(quantile(&[], 0.5, 1.0, &mut noise), None);
        // One value among a few: the answer does not pin it at small epsilon.
        let spread: BTreeSet<i64> = (0..50)
            .map(|_| quantile(&[120.0], 0.5, 0.1, &mut noise).unwrap() as i64)
            .collect();
        assert!(spread.len() > 10);
    }
}
