#!/usr/bin/env python3
"""How far the medians and middle halves that cohort answers release move from the exact ones,
and how often a released figure is one patient's own value (issue 29), on a Synthea archive.

Reads the raw bundles (not the store): for every observation code and unit, the latest numeric
value of each patient. For each group it computes the exact quartiles (linear interpolation,
what cohort answers released before) and the released ones (src/answer/cohort.rs,
`released_quantile`: the mean of the values ranked within ±10 % of the group around the
quantile, rounded as every reading is, only for groups of at least max(4k, 20) patients; the
formula is repeated here, and a unit test pins the Rust one on a fixed example).

Usage: python3 scripts/measure_quantiles.py [ARCHIVE] [--k 5]
Writes docs/results/quantiles.json and .md.
"""
import argparse
import bz2
import json
import math
import pathlib
import statistics

ROOT = pathlib.Path(__file__).resolve().parent.parent


def round_value(x):
    """src/privacy/generalize.rs round_value: what an answer prints."""
    m = abs(x)
    if m >= 10:
        return float(round(x))
    if m >= 1:
        return round(x, 1)
    if m == 0:
        return 0.0
    digits = 1 - math.floor(math.log10(m))
    return round(x, digits)


def exact_quantile(sorted_values, q):
    position = q * (len(sorted_values) - 1)
    low, high = math.floor(position), math.ceil(position)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def released_quantile(sorted_values, q, window=0.1):
    last = len(sorted_values) - 1
    low = math.floor(max(q - window, 0.0) * last)
    high = math.ceil(min(q + window, 1.0) * last)
    chosen = sorted_values[low:high + 1]
    return round_value(sum(chosen) / len(chosen))


def latest_values(archive):
    groups = {}
    for path in sorted(pathlib.Path(archive).glob("*.json.bz2")):
        bundle = json.load(bz2.open(path))
        latest = {}
        for entry in bundle.get("entry", []):
            r = entry.get("resource", {})
            if r.get("resourceType") != "Observation":
                continue
            quantity = r.get("valueQuantity")
            when = r.get("effectiveDateTime") or r.get("issued") or ""
            if not quantity or "value" not in quantity:
                continue
            code = (r.get("code", {}).get("coding") or [{}])[0].get("display") or r.get(
                "code", {}).get("text", "?")
            key = (code, quantity.get("unit", ""))
            if key not in latest or when >= latest[key][0]:
                latest[key] = (when, float(quantity["value"]))
        for key, (_, value) in latest.items():
            groups.setdefault(key, []).append(value)
    return groups


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("archive", nargs="?",
                        default=str(ROOT.parent / "shared/data/synthea/blaze-synthea-2.7.0-120p"))
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    k = args.k
    minimum = max(4 * k, 20)
    groups = latest_values(args.archive)
    def moved(figure, values, iqr):
        """The most that removing one patient moves `figure`, as a share of the middle half."""
        if iqr <= 0 or len(values) < 3:
            return None
        base = figure(values)
        return max(abs(figure(values[:i] + values[i + 1:]) - base) for i in range(len(values))) / iqr

    shifts_before, shifts_small, shifts_after = [], [], []
    before = {"figures": 0, "own_value": 0, "groups": 0}
    small = {"figures": 0, "own_value": 0, "groups": 0}
    after = {"figures": 0, "own_value": 0, "groups": 0, "relative_error": [],
             "error_in_iqr": []}
    rows = []
    for (code, unit), values in sorted(groups.items()):
        if len(values) < k:
            continue
        values.sort()
        own = {round_value(v) for v in values}
        exact = [exact_quantile(values, q) for q in (0.25, 0.5, 0.75)]
        before["groups"] += 1
        shift = moved(lambda v: exact_quantile(v, 0.5), values, exact[2] - exact[0])
        if shift is not None:
            shifts_before.append(shift)
            if len(values) < minimum:
                shifts_small.append(shift)
        for e in exact:
            before["figures"] += 1
            before["own_value"] += round_value(e) in own
        if len(values) < minimum:
            small["groups"] += 1
            for e in exact:
                small["figures"] += 1
                small["own_value"] += round_value(e) in own
            continue
        released = [released_quantile(values, q) for q in (0.25, 0.5, 0.75)]
        iqr = exact[2] - exact[0]
        shift = moved(lambda v: released_quantile(v, 0.5), values, iqr)
        if shift is not None:
            shifts_after.append(shift)
        after["groups"] += 1
        for e, r in zip(exact, released):
            after["figures"] += 1
            after["own_value"] += round_value(r) in own
            if e != 0:
                after["relative_error"].append(abs(r - e) / abs(e))
            if iqr > 0:
                after["error_in_iqr"].append(abs(r - e) / iqr)
        rows.append({"code": code, "unit": unit, "patients": len(values),
                     "exact": [round_value(e) for e in exact], "released": released})
    errors = after.pop("relative_error")
    in_iqr = after.pop("error_in_iqr")
    after["median_relative_error"] = statistics.median(errors) if errors else None
    after["max_relative_error"] = max(errors) if errors else None
    after["median_error_as_share_of_middle_half"] = statistics.median(in_iqr) if in_iqr else None
    after["max_error_as_share_of_middle_half"] = max(in_iqr) if in_iqr else None
    before["median_one_patient_shift_of_median"] = statistics.median(shifts_before)
    small["median_one_patient_shift_of_median"] = statistics.median(shifts_small)
    after["median_one_patient_shift_of_median"] = statistics.median(shifts_after)
    report = {
        "archive": pathlib.Path(args.archive).name,
        "k": k,
        "quantile_min_patients": minimum,
        "before_exact_order_statistics_from_k": before,
        "groups_now_without_quantiles": small,
        "released_now": after,
        "groups": rows,
    }
    out = ROOT / "docs/results/quantiles.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    md = [
        "# Cohort quantiles: released against exact (issue 29)",
        "",
        f"Archive {report['archive']}, k = {k}; quantiles need {minimum} patients.",
        "",
        "| | groups | figures | equal to a patient's own (rounded) value | one patient moves the median by (median over groups, share of the middle half) |",
        "|---|---|---|---|---|",
        f"| before: exact quartiles from k patients | {before['groups']} | {before['figures']} | {before['own_value']} | {before['median_one_patient_shift_of_median']:.3f} |",
        f"| of which groups under {minimum} (now: no quantile) | {small['groups']} | {small['figures']} | {small['own_value']} | {small['median_one_patient_shift_of_median']:.3f} |",
        f"| now: released (mean of ±10 % ranks, rounded as readings are) | {after['groups']} | {after['figures']} | {after['own_value']} | {after['median_one_patient_shift_of_median']:.3f} |",
        "",
        "In groups of 20 and more, many patients share a rounded value (a systolic pressure of 120), so a",
        "released figure equal to someone's value says little there; what one patient can move it by does.",
        "",
        f"Released against exact: median relative error {after['median_relative_error']:.3f}, "
        f"largest {after['max_relative_error']:.3f}; as a share of the exact middle half: "
        f"median {after['median_error_as_share_of_middle_half']:.3f}, largest "
        f"{after['max_error_as_share_of_middle_half']:.3f}.",
        "",
    ]
    (ROOT / "docs/results/quantiles.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
