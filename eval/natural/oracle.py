#!/usr/bin/env python3
"""Independent oracle for the blind natural-language evaluation set.

Reads the raw Synthea FHIR R4 transaction bundles (bzip2 JSON, one per patient)
directly with the Python standard library and computes the facts that the
questions in questions.json ask about.  It shares no code with the service.

Usage
  python3 eval/natural/oracle.py --build   # (re)write questions.json from questions_src.py
  python3 eval/natural/oracle.py --check   # recompute every expected value, assert it
                                           # matches questions.json
  python3 eval/natural/oracle.py --facts PATIENT_ID   # dump one patient's digest

Conventions (documented in README.md)
  * "today" is 2026-11-25.
  * Dates are taken as written in the record (local date part of the ISO string);
    when the UTC month would differ, both months are accepted.
  * A condition is "current" when clinicalStatus is active (no abatement);
    a medication is "current" when MedicationRequest.status is active.
  * Patient names never appear in this file; question texts refer to patients
    through placeholders that are filled from the bundle at build time.
"""
import bz2
import json
import os
import re
import statistics
import sys
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get(
    "SYNTHEA_DIR", "/work/shared/data/synthea/blaze-synthea-2.7.0-120p")
TODAY = date(2026, 11, 25)
CACHE = os.environ.get("ORACLE_CACHE", "/tmp/natural_eval_oracle_cache.json")

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]


# ----------------------------------------------------------------------------
# loading
# ----------------------------------------------------------------------------

def _strip_digits(s):
    return re.sub(r"\d+", "", s or "")


def _text(cc):
    if not cc:
        return None
    if cc.get("text"):
        return cc["text"]
    for c in cc.get("coding", []):
        if c.get("display"):
            return c["display"]
    return None


def _code(cc):
    for c in (cc or {}).get("coding", []):
        return c.get("code")
    return None


def _status(cc):
    for c in (cc or {}).get("coding", []):
        return c.get("code")
    return None


def _load_bundle(path):
    with bz2.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def digest_bundle(bundle):
    """Reduce one patient bundle to plain facts."""
    res = [e["resource"] for e in bundle.get("entry", [])]
    byref = {}
    for r in res:
        byref["urn:uuid:" + r["id"]] = r
        byref[r["resourceType"] + "/" + r["id"]] = r
    pats = [r for r in res if r["resourceType"] == "Patient"]
    assert len(pats) == 1, "expected one Patient per bundle"
    p = pats[0]
    off = [n for n in p.get("name", []) if n.get("use") == "official"] or p.get("name", [])
    nm = off[0]
    given = nm.get("given", [""])
    marital = _text(p.get("maritalStatus"))
    race = eth = None
    for ext in p.get("extension", []):
        if ext["url"].endswith("us-core-race"):
            for x in ext.get("extension", []):
                if x["url"] == "text":
                    race = x.get("valueString")
        if ext["url"].endswith("us-core-ethnicity"):
            for x in ext.get("extension", []):
                if x["url"] == "text":
                    eth = x.get("valueString")
    addr = (p.get("address") or [{}])[0]
    d = {
        "id": p["id"],
        "name": {
            "prefix": (nm.get("prefix") or [None])[0],
            "given_raw": given[0],
            "family_raw": nm.get("family", ""),
            "given": _strip_digits(given[0]),
            "family": _strip_digits(nm.get("family", "")),
        },
        "gender": p.get("gender"),
        "birthDate": p.get("birthDate"),
        "deceased": p.get("deceasedDateTime"),
        "marital": marital,
        "race": race,
        "ethnicity": eth,
        "city": addr.get("city"),
        "language": _text(((p.get("communication") or [{}])[0]).get("language")),
        "conditions": [], "meds": [], "obs": [], "imms": [], "allergies": [],
        "procs": [], "encounters": [], "careplans": [], "devices": [],
        "reports": [],
    }
    for r in res:
        t = r["resourceType"]
        if t == "Condition":
            d["conditions"].append({
                "display": _text(r.get("code")), "code": _code(r.get("code")),
                "status": _status(r.get("clinicalStatus")),
                "onset": r.get("onsetDateTime"), "abated": r.get("abatementDateTime"),
                "recorded": r.get("recordedDate")})
        elif t == "MedicationRequest":
            if "medicationCodeableConcept" in r:
                mc = r["medicationCodeableConcept"]
            else:
                mref = byref.get(r.get("medicationReference", {}).get("reference"), {})
                mc = mref.get("code")
            reasons = []
            for rr in r.get("reasonReference", []):
                c = byref.get(rr.get("reference"))
                if c is not None:
                    reasons.append(_text(c.get("code")))
                elif rr.get("display"):
                    reasons.append(rr["display"])
            for rc in r.get("reasonCode", []):
                reasons.append(_text(rc))
            d["meds"].append({
                "display": _text(mc), "code": _code(mc), "status": r.get("status"),
                "authored": r.get("authoredOn"), "reasons": reasons,
                "encounter": (r.get("encounter") or {}).get("reference")})
        elif t == "Observation":
            o = {"display": _text(r.get("code")), "code": _code(r.get("code")),
                 "date": r.get("effectiveDateTime") or (r.get("effectivePeriod") or {}).get("start"),
                 "category": _code((r.get("category") or [{}])[0])}
            if "valueQuantity" in r:
                o["value"] = r["valueQuantity"].get("value")
                o["unit"] = r["valueQuantity"].get("unit")
            elif "valueCodeableConcept" in r:
                o["text"] = _text(r["valueCodeableConcept"])
            elif "valueString" in r:
                o["text"] = r["valueString"]
            if "component" in r:
                o["components"] = {}
                for c in r["component"]:
                    if "valueQuantity" in c:
                        o["components"][_code(c.get("code"))] = c["valueQuantity"].get("value")
            d["obs"].append(o)
        elif t == "Immunization":
            d["imms"].append({"display": _text(r.get("vaccineCode")),
                              "code": _code(r.get("vaccineCode")),
                              "date": r.get("occurrenceDateTime"),
                              "status": r.get("status")})
        elif t == "AllergyIntolerance":
            reactions = []
            for rx in r.get("reaction", []):
                for m in rx.get("manifestation", []):
                    reactions.append(_text(m))
            d["allergies"].append({
                "display": _text(r.get("code")), "code": _code(r.get("code")),
                "status": _status(r.get("clinicalStatus")),
                "category": r.get("category"), "criticality": r.get("criticality"),
                "type": r.get("type"), "recorded": r.get("recordedDate"),
                "reactions": reactions})
        elif t == "Procedure":
            per = r.get("performedPeriod") or {}
            d["procs"].append({"display": _text(r.get("code")), "code": _code(r.get("code")),
                               "start": per.get("start") or r.get("performedDateTime"),
                               "end": per.get("end"),
                               "reasons": [x.get("display") for x in r.get("reasonReference", [])]})
        elif t == "Encounter":
            per = r.get("period") or {}
            reason = None
            for rc in r.get("reasonCode", []):
                reason = _text(rc)
            d["encounters"].append({
                "class": (r.get("class") or {}).get("code"),
                "type": _text((r.get("type") or [{}])[0]),
                "start": per.get("start"), "end": per.get("end"), "reason": reason,
                "id": r["id"]})
        elif t == "CarePlan":
            cats = [_text(c) for c in r.get("category", [])]
            d["careplans"].append({"category": [c for c in cats if c],
                                   "status": r.get("status"),
                                   "start": (r.get("period") or {}).get("start"),
                                   "end": (r.get("period") or {}).get("end")})
        elif t == "Device":
            d["devices"].append({"display": _text(r.get("type")),
                                 "status": r.get("status"),
                                 "manufactured": r.get("manufactureDate")})
        elif t == "DiagnosticReport":
            d["reports"].append({"display": _text(r.get("code")),
                                 "date": r.get("effectiveDateTime")})
    for k in ("conditions", "obs", "imms", "procs", "encounters", "meds", "reports"):
        key = {"conditions": "onset", "obs": "date", "imms": "date", "procs": "start",
               "encounters": "start", "meds": "authored", "reports": "date"}[k]
        d[k].sort(key=lambda x: (x.get(key) or ""))
    return d


_DB = None


def load_all():
    """Return {patient_id: digest} for the 120 patients (cached in /tmp)."""
    global _DB
    if _DB is not None:
        return _DB
    files = sorted(f for f in os.listdir(DATA)
                   if f.endswith(".json.bz2") and not f.startswith("0-"))
    sig = [(f, os.path.getsize(os.path.join(DATA, f))) for f in files]
    if os.path.exists(CACHE):
        try:
            with open(CACHE) as fh:
                c = json.load(fh)
            if c.get("sig") == sig and c.get("version") == 3:
                _DB = c["db"]
                return _DB
        except Exception:
            pass
    db = {}
    for f in files:
        d = digest_bundle(_load_bundle(os.path.join(DATA, f)))
        db[d["id"]] = d
    assert len(db) == 120, len(db)
    try:
        with open(CACHE, "w") as fh:
            json.dump({"sig": sig, "version": 3, "db": db}, fh)
    except OSError:
        pass
    _DB = db
    return db


# ----------------------------------------------------------------------------
# small helpers used by the question specs
# ----------------------------------------------------------------------------

def dpart(s):
    """local calendar date of an ISO string"""
    return s[:10] if s else None


def month(s):
    return s[:7] if s else None


def utc_month(s):
    if not s or len(s) <= 10:
        return month(s)
    dt = datetime.fromisoformat(s)
    return dt.astimezone(timezone.utc).strftime("%Y-%m")


def month_tokens(s):
    """grader tokens for a month; both local and UTC month if they differ"""
    a, b = month(s), utc_month(s)
    return ["month:" + a] if a == b else ["month:" + a, "month:" + b]


def month_words(s):
    y, m = s[:4], int(s[5:7])
    return f"{MONTHS[m - 1]} {y}"


def year(s):
    return int(s[:4]) if s else None


def utc_year(s):
    if not s or len(s) <= 10:
        return year(s)
    return datetime.fromisoformat(s).astimezone(timezone.utc).year


def age_on(birth, on=TODAY):
    b = date.fromisoformat(birth)
    return on.year - b.year - ((on.month, on.day) < (b.month, b.day))


def alive(p):
    return p["deceased"] is None


def svc_round(v):
    """the service's documented rounding: >=10 integer, 1..10 one decimal,
    below 1 two significant digits (half-up on the decimal value as written)"""
    from decimal import Decimal, ROUND_HALF_UP
    import math
    d = Decimal(repr(float(v)))
    a = abs(d)
    if a >= 10:
        q = Decimal(1)
    elif a >= 1:
        q = Decimal("0.1")
    elif a == 0:
        return 0.0
    else:
        q = Decimal(1).scaleb(int(math.floor(math.log10(float(a)))) - 1)
    return float(d.quantize(q, rounding=ROUND_HALF_UP))


def fmt(v):
    """a value written the way the service's rounding rule would write it"""
    r = svc_round(v)
    if abs(r) >= 10:
        return str(int(r))
    if abs(r) >= 1:
        return "%.1f" % r
    if r == 0:
        return "0"
    return ("%.6f" % r).rstrip("0").rstrip(".")


def obs_series(p, code=None, display=None):
    out = []
    for o in p["obs"]:
        if code and o["code"] != code:
            continue
        if display and o["display"] != display:
            continue
        out.append(o)
    out.sort(key=lambda o: o["date"])
    return out


def latest_obs(p, code, display=None):
    s = [o for o in obs_series(p, code, display) if o.get("value") is not None or o.get("text") or o.get("components")]
    return s[-1] if s else None


def conds(p, pred=None, active=None):
    out = []
    for c in p["conditions"]:
        if pred and not pred(c["display"]):
            continue
        if active is True and c["status"] != "active":
            continue
        if active is False and c["status"] == "active":
            continue
        out.append(c)
    return out


def has_cond(p, pat, active=None):
    rx = re.compile(pat, re.I)
    return bool(conds(p, lambda d: bool(rx.search(d or "")), active))


def meds(p, pat=None, status=None):
    rx = re.compile(pat, re.I) if pat else None
    return [m for m in p["meds"] if (rx is None or rx.search(m["display"] or ""))
            and (status is None or m["status"] == status)]


def imms(p, pat=None):
    rx = re.compile(pat, re.I) if pat else None
    return [i for i in p["imms"] if rx is None or rx.search(i["display"] or "")]


def procs(p, pat=None):
    rx = re.compile(pat, re.I) if pat else None
    return [x for x in p["procs"] if rx is None or rx.search(x["display"] or "")]


def encs(p, cls=None, pat=None):
    rx = re.compile(pat, re.I) if pat else None
    return [e for e in p["encounters"] if (cls is None or e["class"] in (cls if isinstance(cls, (list, tuple)) else [cls]))
            and (rx is None or rx.search(e["type"] or ""))]


def smoking_latest(p):
    o = latest_obs(p, "72166-2")
    return o["text"] if o else None


# cohort helpers -------------------------------------------------------------

def patients_where(pred):
    db = load_all()
    return sorted(pid for pid, p in db.items() if pred(p))


def count_where(pred):
    return len(patients_where(pred))


def median(xs):
    return statistics.median(xs)


# ----------------------------------------------------------------------------
# build / check
# ----------------------------------------------------------------------------

def name_fields(p):
    n = p["name"]
    pre = n["prefix"] or ""
    fam, giv = n["family"], n["given"]
    return {
        "first": giv, "last": fam, "full": f"{giv} {fam}",
        "first_raw": n["given_raw"], "last_raw": n["family_raw"],
        "full_raw": f"{n['given_raw']} {n['family_raw']}",
        "title": f"{pre} {fam}".strip() if pre else fam,
        "title_raw": f"{pre} {n['family_raw']}".strip() if pre else n["family_raw"],
    }


def _ascii(s):
    import unicodedata
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


FILTERS = {"lower": str.lower, "ascii": _ascii, "initial": lambda s: s[:1]}


def fill(text, refs):
    """replace {A.first} / {A.first|lower} style placeholders; refs maps letter -> patient id"""
    db = load_all()

    def rep(m):
        key, field, flt = m.group(1), m.group(2), m.group(3)
        v = name_fields(db[refs[key]])[field]
        if flt:
            v = FILTERS[flt](v)
        return v
    return re.sub(r"\{([A-Z])\.([a-z_]+)(?:\|([a-z]+))?\}", rep, text)


def build_questions():
    sys.path.insert(0, HERE)
    import questions_src as qs  # noqa
    db = load_all()
    out = []
    for spec in qs.SPECS:
        refs = spec.get("refs", {})
        q = {
            "id": spec["id"],
            "audience": spec["audience"],
            "role": "clinician" if spec["audience"] == "care_team" else "researcher",
            "patients": spec.get("patients", []) if spec["audience"] == "care_team" else [],
            "target_patient": spec.get("target"),
            "question": fill(spec["q"], refs),
            "kind": spec["kind"],
            "expected": spec["compute"](db),
        }
        e = q["expected"]
        if spec["id"] in getattr(qs, "YES_TERMS", {}):
            e["yes_terms"] = list(qs.YES_TERMS[spec["id"]])
        e.setdefault("answerable", True)
        e.setdefault("must_include", [])
        e.setdefault("any_of", [])
        e.setdefault("must_not_include", [])
        e.setdefault("value", None)
        e.setdefault("tolerance", None)
        e.setdefault("absence", False)
        e["summary"] = fill(e.get("summary", ""), refs)
        for k in ("must_include", "must_not_include", "dangerous_terms", "distractors"):
            if k in e:
                e[k] = [fill(x, refs) for x in e[k]]
        for k in ("any_of", "items"):
            if k in e:
                e[k] = [[fill(x, refs) for x in g] for g in e[k]]
        out.append(q)
    return out


# ordinary English words / drug names that happen to equal a synthetic patient name
NAME_WORD_WHITELIST = {"august", "numbers", "rose", "camila", "will", "little", "grant"}


def name_leaks():
    """patient names may appear only in questions.json: scan the other files"""
    db = load_all()
    names = set()
    for p in db.values():
        for x in (p["name"]["given"], p["name"]["family"]):
            for part in re.split(r"[\s']", _ascii(x)):
                if len(part) >= 3:
                    names.add(part.lower())
    names -= NAME_WORD_WHITELIST
    n = 0
    for fn in ("oracle.py", "questions_src.py", "grade.py", "README.md"):
        path = os.path.join(HERE, fn)
        if not os.path.exists(path):
            continue
        t = _ascii(open(path, encoding="utf-8").read()).lower()
        for nm in sorted(names):
            if re.search(r"\b" + re.escape(nm) + r"\b", t):
                print(f"NAME LEAK: '{nm}' appears in {fn}")
                n += 1
    return n


# Checks a set built on this oracle adds to --check (eval/natural2: no question of this set).
EXTRA_CHECKS = []


def main(argv):
    if "--facts" in argv:
        pid = argv[argv.index("--facts") + 1]
        json.dump(load_all()[pid], sys.stdout, indent=1)
        return 0
    if "--build" in argv:
        qs = build_questions()
        with open(os.path.join(HERE, "questions.json"), "w") as fh:
            json.dump(qs, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        print(f"wrote {len(qs)} questions")
        return 0
    if "--check" in argv:
        qs = build_questions()
        with open(os.path.join(HERE, "questions.json")) as fh:
            frozen = json.load(fh)
        fz = {q["id"]: q for q in frozen}
        bad = 0
        assert len(fz) == len(frozen), "duplicate ids"
        for q in qs:
            f = fz.get(q["id"])
            if f is None:
                print("MISSING in questions.json:", q["id"])
                bad += 1
                continue
            for k in ("audience", "patients", "target_patient", "question", "kind", "expected"):
                if f.get(k) != q.get(k):
                    print(f"MISMATCH {q['id']} field {k}:\n  frozen:     {f.get(k)}\n  recomputed: {q.get(k)}")
                    bad += 1
        extra = set(fz) - {q["id"] for q in qs}
        for x in sorted(extra):
            print("EXTRA in questions.json (no oracle spec):", x)
            bad += 1
        bad += name_leaks()
        for extra_check in EXTRA_CHECKS:
            bad += extra_check(qs)
        print(f"checked {len(qs)} questions against the raw bundles: "
              f"{'OK' if not bad else str(bad) + ' problems'}")
        return 1 if bad else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
