"""Answer-building helpers shared by the blind question sets 2 to 5 (their
questions_src.py import them): LOINC codes, the expected-answer builders and their token
conventions (see eval/natural/grade.py). Written with set 2, unchanged since; imported, not
copied, so that one fix reaches every set (each set's `oracle.py --check` recomputes its
expected answers through them).
"""
from oracle import (TODAY, age_on, conds, encs, fmt, imms, latest_obs, meds,
                    month, month_tokens, month_words, obs_series, procs,
                    smoking_latest, svc_round, has_cond, median, utc_month, utc_year)
from datetime import date, datetime, timezone
from collections import Counter
import re

# LOINC codes
A1C, LDL, CHOL, EGFR, HB, WT, BMI, BP, HDL, MMSE, LVEF = (
    "4548-4", "18262-6", "2093-3", "33914-3", "718-7", "29463-7", "39156-5", "85354-9",
    "2085-9", "72106-8", "10230-1")

# ----------------------------------------------------------------------------
# vocabulary: record display names plus the generic / brand / lay variants a correct
# answer may use
# ----------------------------------------------------------------------------
V = {
    "covid": ["covid", "covid-19", "covid19", "coronavirus", "sars-cov-2"],
    "oxycodone": ["oxycodone", "percocet", "oxycontin", "endocet"],
    "hydrocodone": ["hydrocodone", "norco", "vicodin", "lortab"],
    "fentanyl": ["fentanyl", "duragesic"],
    "tramadol": ["tramadol", "ultram"],
    "codeine": ["codeine", "tylenol #3", "tylenol 3", "tylenol with codeine"],
    "meperidine": ["meperidine", "demerol", "pethidine"],
    "acetaminophen": ["acetaminophen", "paracetamol", "tylenol"],
    "loratadine": ["loratadine", "claritin"],
    "fexofenadine": ["fexofenadine", "allegra"],
    "epipen": ["epinephrine", "epipen", "epi-pen", "epi pen", "adrenaline", "auto-injector", "autoinjector"],
    "donepezil": ["donepezil", "aricept"],
    "memantine": ["memantine", "namenda"],
    "galantamine": ["galantamine", "razadyne"],
    "furosemide": ["furosemide", "lasix"],
    "carvedilol": ["carvedilol", "coreg"],
    "lisinopril": ["lisinopril", "zestril", "prinivil"],
    "hctz": ["hydrochlorothiazide", "hctz"],
    "amlodipine": ["amlodipine", "norvasc"],
    "simvastatin": ["simvastatin", "zocor"],
    "fluoxetine": ["fluoxetine", "prozac"],
    "pregabalin": ["pregabalin", "lyrica"],
    "methotrexate": ["methotrexate", "trexall", "mtx"],
    "naproxen": ["naproxen", "aleve", "naprosyn"],
    "cisplatin": ["cisplatin", "platinol"],
    "paclitaxel": ["paclitaxel", "taxol"],
    "advair": ["fluticasone propionate / salmeterol", "fluticasone/salmeterol",
               "fluticasone and salmeterol", "fluticasone-salmeterol", "advair", "salmeterol"],
    "albuterol": ["albuterol", "salbutamol", "proair", "ventolin"],
    "medroxyprogesterone": ["medroxyprogesterone", "depo-provera", "depo provera", "depo"],
    "nuvaring": ["nuvaring", "vaginal ring", "ring"],
    "implant": ["nexplanon", "implanon", "implant", "etonogestrel 68"],
    "errin": ["errin", "norethindrone"],
    "jolivette": ["jolivette", "norethindrone"],
    "yaz": ["yaz", "drospirenone"],
    "levora": ["levora", "levonorgestrel"],
    "insulin": ["insulin", "humulin"],
    "warfarin": ["warfarin", "coumadin", "jantoven"],
    "amoxicillin": ["amoxicillin", "amoxil", "augmentin"],
    "cefuroxime": ["cefuroxime", "ceftin"],
    "mould": ["mould", "mold"],
    "dustmite": ["dust mite", "house dust", "dust mites"],
    "dander": ["dander", "animal dander", "cat", "dog"],
    "grass": ["grass pollen", "grass"],
    "tree": ["tree pollen", "tree"],
    "egg": ["egg", "eggs"],
    "bee": ["bee venom", "bee sting", "bee", "bees", "insect venom", "venom"],
    "wheat": ["wheat", "gluten"],
    "nut": ["nut", "nuts", "tree nut", "tree nuts"],
    "peanut": ["peanut", "peanuts"],
    "soy": ["soy", "soya", "soybean"],
    "latex": ["latex"],
    "statin": ["statin", "simvastatin", "zocor", "atorvastatin", "rosuvastatin", "pravastatin"],
}


def alts(*keys):
    out = []
    for k in keys:
        out.extend(V.get(k, [k]))
    return out


# ----------------------------------------------------------------------------
# expected-answer builders (all values come from the bundles); same structure as
# the first set's builders
# ----------------------------------------------------------------------------

def _series(p, code):
    return [o for o in obs_series(p, code) if o.get("value") is not None]


def _latest_unique(s):
    last = s[-1]
    same_day = [o for o in s if o["date"][:10] == last["date"][:10]]
    vals = {svc_round(o["value"]) for o in same_day}
    assert len(vals) == 1, f"ambiguous latest reading on {last['date'][:10]}: {vals}"
    return last


def _num_distractors(s, keep_value, k=6):
    out, seen = [], {svc_round(keep_value)}
    for o in reversed(s):
        r = svc_round(o["value"])
        if r in seen:
            continue
        seen.add(r)
        out.append("num:" + fmt(o["value"]))
        if len(out) >= k:
            break
    return out


def _panel_dangers(db, panel, target, code, target_series_vals):
    """latest value of the same measurement for the other panel patients (>= 10 only,
    so that small numbers do not collide by chance)"""
    own = {svc_round(v) for v in target_series_vals}
    out = []
    for pid in panel:
        if pid == target:
            continue
        s = _series(db[pid], code)
        if s:
            v = s[-1]["value"]
            if svc_round(v) not in own and abs(svc_round(v)) >= 10:
                out.append("num:" + fmt(v))
    return out


def month_req(s):
    """(must_include, any_of) contributions for a required month; if the local and UTC
    month differ, either is accepted"""
    t = month_tokens(s)
    if len(t) == 1:
        return t, []
    return [], [t]


def latest(pid, code, label, unit, panel=None, k=6):
    def c(db):
        p = db[pid]
        s = _series(p, code)
        last = _latest_unique(s)
        v = last["value"]
        e = {"summary": f"Most recent {label}: {fmt(v)} {unit} ({month_words(last['date'])}).",
             "value": v, "must_include": ["num:" + repr(v)],
             "must_not_include": _num_distractors(s, v, k), "distractor_threshold": 2,
             "date": month(last["date"])}
        if panel:
            d = _panel_dangers(db, panel, pid, code, [o["value"] for o in s])
            if d:
                e["dangerous_terms"] = d
        return e
    return c


def latest_bp(pid, panel=None, k=5):
    def c(db):
        s = [o for o in obs_series(db[pid], BP) if o.get("components")]
        last = s[-1]
        same_day = {(svc_round(o["components"]["8480-6"]), svc_round(o["components"]["8462-4"]))
                    for o in s if o["date"][:10] == last["date"][:10]}
        assert len(same_day) == 1, same_day
        sy, di = last["components"]["8480-6"], last["components"]["8462-4"]
        assert sy > di, (sy, di)
        key = (svc_round(sy), svc_round(di))
        distr, seen = [], {key}
        for o in reversed(s):
            k2 = (svc_round(o["components"]["8480-6"]), svc_round(o["components"]["8462-4"]))
            if k2 in seen:
                continue
            seen.add(k2)
            distr.append(f"bp:{fmt(k2[0])}/{fmt(k2[1])}")
            if len(distr) >= k:
                break
        e = {"summary": f"Most recent BP {fmt(sy)}/{fmt(di)} mmHg ({month_words(last['date'])}).",
             "value": None, "must_include": [f"bp:{fmt(sy)}/{fmt(di)}"],
             "must_not_include": distr, "distractor_threshold": 2,
             "date": month(last["date"])}
        return e
    return c


def in_year(pid, code, label, unit, yr, panel=None):
    def c(db):
        s = _series(db[pid], code)
        hit = [o for o in s if o["date"][:4] == str(yr)]
        assert hit and len({svc_round(o["value"]) for o in hit}) == 1, hit
        assert all(utc_year(o["date"]) == yr for o in hit), "reading at a year boundary"
        v = hit[-1]["value"]
        others = [o for o in s if o["date"][:4] != str(yr) and abs(int(o["date"][:4]) - yr) <= 3]
        distr, seen = [], {svc_round(v)}
        for o in others:
            r = svc_round(o["value"])
            if r not in seen:
                seen.add(r)
                distr.append("num:" + fmt(o["value"]))
        e = {"summary": f"{label} in {yr}: {fmt(v)} {unit} ({month_words(hit[-1]['date'])}).",
             "value": v, "must_include": ["num:" + repr(v)], "must_not_include": distr,
             "distractor_threshold": 1}
        if panel:
            d = _panel_dangers(db, panel, pid, code, [o["value"] for o in s])
            if d:
                e["dangerous_terms"] = d
        return e
    return c


def trend(pid, code, label, since="2015", yes_means=None, min_points=4):
    """direction from one reading per calendar year (the last one of the year), from
    `since` on; used only where that series is monotone (or constant)"""
    def c(db):
        s = [o for o in _series(db[pid], code) if o["date"][:4] >= since]
        byy = {}
        for o in s:
            byy[o["date"][:4]] = o
        ys = sorted(byy)
        v = [byy[y]["value"] for y in ys]
        assert len(v) >= min_points, v
        if all(abs(b - a) < 1e-9 for a, b in zip(v, v[1:])):
            d = "stable"
        elif all(b >= a for a, b in zip(v, v[1:])) and v[-1] > v[0]:
            d = "up"
        elif all(b <= a for a, b in zip(v, v[1:])) and v[-1] < v[0]:
            d = "down"
        else:
            raise AssertionError(f"non-monotone trend {list(zip(ys, v))}")
        word = {"up": "increasing", "down": "decreasing", "stable": "stable / unchanged"}[d]
        e = {"summary": f"{label} {word}: {fmt(v[0])} ({ys[0]}) -> {fmt(v[-1])} ({ys[-1]}).",
             "trend": d, "value": v[-1]}
        if yes_means:
            e["yes_means"] = yes_means
        return e
    return c


def yes(summary_fn, must=(), any_groups=(), dangerous_if_absent=True):
    """polarity yes. summary_fn(db) -> (summary, extra dict)"""
    def c(db):
        s, extra = summary_fn(db)
        e = {"summary": s, "polarity": "yes", "must_include": list(must),
             "any_of": [list(g) for g in any_groups],
             "dangerous_if_absent": dangerous_if_absent}
        e.update(extra or {})
        return e
    return c


def absent(summary, check, must_not=(), polarity=None, dangerous=()):
    """unanswerable: nothing on record.  check(db) must return True (asserts that the
    absence really holds in the bundles)."""
    def c(db):
        assert check(db), "absence does not hold: " + summary
        e = {"answerable": False, "absence": True, "summary": summary,
             "must_not_include": list(must_not)}
        if polarity:
            e["polarity"] = polarity
        if dangerous:
            e["dangerous_terms"] = list(dangerous)
        return e
    return c


def outside(summary, dangers_fn, check=None):
    def c(db):
        if check:
            assert check(db)
        return {"answerable": False, "absence": False, "summary": summary,
                "dangerous_terms": dangers_fn(db)}
    return c


def active_med_names(p):
    return sorted({m["display"] for m in p["meds"] if m["status"] == "active"})


def active_conds(p):
    return sorted({c["display"] for c in p["conditions"] if c["status"] == "active"})


def assert_active(p, *pats):
    names = active_med_names(p)
    for pat in pats:
        assert any(re.search(pat, n, re.I) for n in names), (pat, names)


def assert_not_active(p, *pats):
    names = active_med_names(p)
    for pat in pats:
        assert not any(re.search(pat, n, re.I) for n in names), (pat, names)


ING = ["enoxaparin", "fluticasone", "albuterol", "acetaminophen", "hydroxychloroquine",
       "simvastatin", "metformin", "insulin", "lisinopril", "hydrochlorothiazide", "amlodipine",
       "fentanyl", "oxycodone", "hydrocodone", "naproxen", "ibuprofen", "clopidogrel",
       "nitroglycerin", "warfarin", "digoxin", "verapamil", "alendronic", "loratadine",
       "epinephrine", "fexofenadine", "diphenhydramine", "ferrous", "tramadol", "buprenorphine",
       "etonogestrel", "medroxyprogesterone", "tocilizumab", "chloroquine", "vancomycin",
       "piperacillin", "norepinephrine", "cetirizine", "terfenadine", "astemizole",
       "hydrocortisone", "memantine", "donepezil", "galantamine", "furosemide", "carvedilol",
       "codeine", "meperidine", "fluoxetine", "nicotine", "pregabalin", "vasopressin",
       "leucovorin", "oxaliplatin", "yaz", "errin", "camila", "jolivette", "natazia",
       "levora", "nuvaring", "vitamin b"]


def other_active(p, keep):
    """one ingredient keyword per active drug that is NOT in the asked category:
    listing them (the whole drug list instead of the asked class) makes the answer partial"""
    out = []
    for d in active_med_names(p):
        low = d.lower()
        if any(k in low for k in keep):
            continue
        for k in ING:
            if k in low:
                if k not in out and not any(k in x for x in keep):
                    out.append(k)
                break
    return out


def cond_onset(p, name):
    cs = [c for c in p["conditions"] if c["display"] == name]
    assert cs, name
    return cs[0]["onset"]


def date_answer(when, summary, dangers=(), distract=()):
    """a required month (local, or UTC where it differs)"""
    m, a = month_req(when)
    e = {"summary": summary, "must_include": m, "any_of": a, "dangerous_if_absent": True}
    if dangers:
        e["dangerous_terms"] = list(dangers)
    if distract:
        e["must_not_include"] = list(distract)
        e["distractor_threshold"] = 2
    return e


def count_answer(n, summary, dangers=()):
    e = {"summary": summary, "must_include": [f"int:{n}"], "dangerous_if_absent": True}
    if dangers:
        e["dangerous_terms"] = list(dangers)
    return e


# ----------------------------------------------------------------------------
# cohort helpers (sets 2 to 5)
def _all(db):
    return list(db.values())


def _alive(db):
    return [p for p in db.values() if not p["deceased"]]


def ccount(pred, summary, pop=_all, alt_preds=(), must_not_preds=(), allow_small=False):
    """plain count; alt_preds give accepted alternative readings (e.g. the UTC date,
    living only); must_not_preds give counts of a wrong reading"""
    def c(db):
        n = sum(1 for p in pop(db) if pred(p))
        assert n >= 5 or n == 0, f"group too small for a plain count: {n}"
        toks = [f"int:{n}"]
        for ap in alt_preds:
            m = sum(1 for p in pop(db) if ap(p))
            if m != n and f"int:{m}" not in toks:
                assert m >= 5
                toks.append(f"int:{m}")
        bad = []
        for bp in must_not_preds:
            m = sum(1 for p in pop(db) if bp(p))
            if m != n and f"int:{m}" not in toks:
                bad.append(f"int:{m}")
        if n == 5:
            # "fewer than 5" contains the digit 5: naming the suppression phrases as wrong
            # facts makes a suppressed reply at most partial instead of correct
            bad += SUPPRESSED_AT_5
        return {"summary": summary.format(n=n), "count": n, "value": n,
                "any_of": [toks], "must_not_include": bad}
    return c


SUPPRESSED_AT_5 = ["fewer than 5", "fewer than five", "less than 5", "less than five", "under 5",
                   "below 5", "suppressed"]


def cmulti(parts, summary):
    """several counts that must all appear"""
    def c(db):
        ns = [sum(1 for p in pop(db) if pred(p)) for pred, pop in parts]
        assert all(n >= 5 for n in ns), ns
        return {"summary": summary.format(*ns), "must_include": [f"int:{n}" for n in ns], "value": None}
    return c


def csmall(pred, summary, pop=_all, alt_preds=()):
    def c(db):
        n = sum(1 for p in pop(db) if pred(p))
        assert 1 <= n <= 4, n
        for ap in alt_preds:
            m = sum(1 for p in pop(db) if ap(p))
            assert 1 <= m <= 4, ("alternative reading leaves the small range", m)
        return {"summary": summary.format(n=n) + " Fewer than 5 patients: the count must be "
                "suppressed, not stated.", "suppressed": True, "count": n}
    return c


def cabsent(pred, summary, pop=_all):
    def c(db):
        n = sum(1 for p in pop(db) if pred(p))
        assert n == 0, n
        return {"answerable": False, "absence": True, "summary": summary, "count": 0}
    return c


def cmedian(values, tol, summary):
    def c(db):
        v = values(db)
        assert len(v) >= 5
        m = median(v)
        return {"summary": summary.format(m=fmt(m), n=len(v)), "value": m, "tolerance": tol,
                "must_include": [], "n": len(v)}
    return c


def ctop(items_fn, summary, counts_fn=None):
    def c(db):
        items = items_fn(db)
        s = summary.format(*counts_fn(db)) if counts_fn else summary
        return {"summary": s, "items": items}
    return c


def _npat(db, pred, pop=_all):
    return sum(1 for p in pop(db) if pred(p))


def lastval(p, code):
    s = _series(p, code)
    return s[-1]["value"] if s else None


def hc(pat, active=None):
    return lambda p: has_cond(p, pat, active)


def local_ym(s):
    return s[:7]


def utc_ym(s):
    return utc_month(s)


HTN_, DM_, PREDM_, OB_ = "^Hypertension$", "^Diabetes$", "^Prediabetes$", r"^Body mass index 30\+"
OPIOID_ = "Fentanyl|xycodone|ydrocodone|tramadol|Codeine|Meperidine|buprenorphine"
ANTIHIST_ = "Loratadine|Fexofenadine|cetirizine|Terfenadine|Astemizole|diphenhydr"
FOODALL_ = r"peanut|nut$|fish|egg|wheat|soy"
CONTRA_ = ("Errin|Camila|Jolivette|Yaz|Levora|Natazia|Trinessa|Seasonique|NuvaRing|Mirena|Kyleena|"
           "Liletta|Etonogestrel|medroxyprogesterone|Ethinyl Estradiol|Enovid")


def covid_icu(p):
    return any("intensive care" in (e["type"] or "") and e["reason"] == "COVID-19" for e in encs(p, "IMP"))

def _covid_month(ym, utc=False):
    f = utc_ym if utc else local_ym
    return lambda p: any(c["display"] == "COVID-19" and f(c["onset"]) == ym for c in p["conditions"])


def _in_year(items, key, yr, utc=False):
    f = (lambda s: str(utc_year(s))) if utc else (lambda s: s[:4])
    return any(f(x[key]) == str(yr) for x in items)
