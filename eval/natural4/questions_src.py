"""Question specifications for the FOURTH blind natural-language evaluation set.

Written independently of the first three sets (eval/natural/, eval/natural2/, eval/natural3/),
whose questions were read only to avoid repeating them (and their facts) and to learn the
format; the answer-building machinery (token conventions, helper builders) is the one of sets
2 and 3, so that eval/natural/grade.py grades this set unchanged.

Each spec holds a hand-written question (patient names only as placeholders such as
{A.first}, filled from the bundles at build time so that no patient name is stored
outside questions.json) and a `compute(db)` function that derives the expected answer
from the raw FHIR data through oracle.py (eval/natural/oracle.py pointed at this folder).

Token conventions understood by grade.py:
  num:V        a number equal to V after the service's rounding rule
  bp:S/D       a blood-pressure pair
  month:YYYY-MM  a month in any common written form ("March 2019", "2019-03", ...)
  age:N        an age, or an age band / decade that contains N
  int:N        an integer count, in digits or words
  anything else: a case/punctuation-insensitive phrase (trailing * = prefix)
"""
from oracle import (TODAY, age_on, conds, encs, fmt, imms, latest_obs, meds,
                    month, month_tokens, month_words, obs_series, procs,
                    smoking_latest, svc_round, has_cond, median, utc_month, utc_year)
from datetime import date, datetime, timezone
from collections import Counter
import re

SPECS = []


def Q(qid, kind, q, compute, patients=None, target=None, refs=None):
    audience = "cohort" if qid.startswith("co4-") else "care_team"
    SPECS.append({"id": qid, "audience": audience, "kind": kind, "q": q,
                  "compute": compute, "patients": patients or [],
                  "target": target, "refs": refs or {}})

# The answer-building helpers, shared with sets 2 to 5 (eval/natural/builders.py).
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "natural"))
import builders as _builders  # noqa: E402

# Every helper, its private ones too (`_series`), as if written here.
globals().update({k: v for k, v in vars(_builders).items() if not k.startswith("__")})



# ----------------------------------------------------------------------------
# helpers shared with the third set
# ----------------------------------------------------------------------------

def no_answer(summary, must_not=(), extra=None):
    """an answerable yes/no question whose answer is NO (the thing asked about is on record
    as absent / stopped / never); a 'yes' is wrong"""
    def c(db):
        e = {"summary": summary, "polarity": "no", "must_include": [], "any_of": [],
             "must_not_include": list(must_not), "dangerous_if_absent": False}
        e.update(extra(db) if extra else {})
        return e
    return c


def month_of(when, summary, extra=None):
    """yes-style answer that must name a month"""
    def c(db):
        w = when(db)
        m, a = month_req(w)
        e = {"summary": summary(db, w) if callable(summary) else summary, "must_include": m, "any_of": a,
             "dangerous_if_absent": True}
        e.update(extra(db) if extra else {})
        return e
    return c


def cod(p):
    return [o["text"] for o in p["obs"] if o["code"] == "69453-9"]


def bp_pairs(p):
    return [(o, o["components"]["8480-6"], o["components"]["8462-4"])
            for o in obs_series(p, BP) if o.get("components") and "8480-6" in o["components"]]


def last_bp_token(p):
    s = bp_pairs(p)
    o, sy, di = s[-1]
    return f"bp:{fmt(sy)}/{fmt(di)}"


PSA, O2SAT, LACT, UACR, HGB = "2857-1", "2708-6", "59032-3", "14959-1", HB




# ----------------------------------------------------------------------------
# patient ids (names only in questions.json).  All of them were a target of sets 1-3 (every
# one of the 120 patients was); facts those sets did not ask are asked here.
# ----------------------------------------------------------------------------
P_0EF7A3B5 = "0ef7a3b5-53ee-e765-10e2-c63a904ad0fd"   # woman, 25 (atopy, chronic neck/back pain)
P_13956CDF = "13956cdf-f7cc-1cd7-9c99-eb796db62ec7"   # woman, 28 (EpiPen, allergy shots)
P_2FCBE29D = "2fcbe29d-94f0-ec20-dcf3-740c45bc08ba"   # man, 47 (fibromyalgia, no drugs)
P_8708D3E1 = "8708d3e1-f718-96bb-03f0-f2a6564ae1cd"   # man, 54 (prediabetes, anaemia)
P_44717D84 = "44717d84-17d5-cefa-acf9-fe51fddc5d1c"   # woman, 87 (breast cancer, stroke, CHD)
P_EA84FE02 = "ea84fe02-2e40-bf0f-da50-56d2786b8162"   # woman, 97 (seizure disorder, osteoporosis)
P_E3BA24ED = "e3ba24ed-aad7-86db-2646-4c510dfd7280"   # woman, 55 (overdoses, stroke 2020)
P_52EBDCAE = "52ebdcae-3656-1a42-0bfc-c0a718b5158a"   # man, died 2020 (hypertension, COVID)
P_8DD4ED1F = "8dd4ed1f-108e-64ad-ce09-926c83ce7f76"   # man, 65 (prediabetes)
P_7A8FAEA5 = "7a8faea5-1769-a9d8-fa58-a6240f7c252d"   # man, died 2014 (diabetes, cardiac arrest)
P_8682665A = "8682665a-3515-ffeb-39d5-3802f6f36932"   # woman, 46 (three deliveries)
P_99E6BACF = "99e6bacf-7def-f6b6-5f1b-888241c8729a"   # woman, 58 (hypertension)
P_88E4BAC8 = "88e4bac8-2609-3c28-a354-ab29f69153f4"   # man, 18 (allergies)
P_8A4C9C04 = "8a4c9c04-1524-9f1c-d65b-9b17e4520fef"   # girl, 5 (infant vaccines only)
P_A8327210 = "a8327210-6158-2be1-fb72-553a78a0ff37"   # girl, 9 (COVID admission 2020)
P_9FE7994A = "9fe7994a-5fec-874c-8452-e45786bcfb0a"   # man, 57 (COVID admission, PE)
P_A8376487 = "a8376487-72d8-ac29-a654-91f3622cc7a4"   # man, 57 (COVID admission, chronic pain)
P_AD0B4B7A = "ad0b4b7a-2285-7a3c-5fd2-edbe4d67b7e7"   # man, 64 (colon cancer 2013, COVID admission)
P_ACD56837 = "acd56837-aaab-5825-8f24-784319fc02df"   # woman, 61 (hypertension, prediabetes)
P_AAAC7C75 = "aaac7c75-2413-47f0-6696-19d645ae5eda"   # man, 25 (hypertension, COVID admission)
P_BEB53716 = "beb53716-4df8-a51c-c58e-a8b814b8ac88"   # man, died 1975 aged 23 (COPD)
P_C94995D9 = "c94995d9-8ee6-7c32-2b54-acb14e716901"   # woman, 38 (hypertension, pregnancies)
P_E0D320AA = "e0d320aa-cba1-6d50-ef4a-56191eb00c41"   # woman, 31 (pregnancies)
P_E1404DC3 = "e1404dc3-4e21-84ae-cdcf-89d04084020c"   # man, 40 (hypertension, chronic sinusitis)
P_CD185AB5 = "cd185ab5-8efb-c68a-4779-d49dd4ba8f28"   # woman, 55 (ectopic pregnancies)
P_E2053282 = "e2053282-a9da-7d0c-8683-481ae0b8c75c"   # woman, 60 (chronic low back pain)
P_E78FD9C5 = "e78fd9c5-5c89-26ca-d397-e9da30700444"   # man, 42 (hypertension, COVID admission)
P_F92FDC8C = "f92fdc8c-3fad-641d-d003-45ed72b50a12"   # woman, died 1973 (COPD, diabetes)
P_FCD31792 = "fcd31792-91d8-982e-8e28-ef1eb284e260"   # woman, 37 (COPD, lung transplant)
P_451E7C69 = "451e7c69-78b8-9bc9-b8a7-030c4a968215"   # girl, 15 (atopy)
P_5875D3AA = "5875d3aa-192c-6d05-221a-88a9cee35ff9"   # girl, 16
P_EFFB1622 = "effb1622-6779-27de-dd68-ba7a53a99eb2"   # woman, 78 (COPD, stroke 2020)
P_2AD91C08 = "2ad91c08-1b48-0562-dbb2-79f23c1b692b"   # woman, 84 (colon polyps)

FEV = "19926-5"            # FEV1/FVC
SMOKE_CODE = "72166-2"

def allergy_names(p):
    return sorted(a["display"] for a in p["allergies"])

def _dt(s):
    return date.fromisoformat(s[:10])

# ============================================================================
# CARE-TEAM QUESTIONS (role clinician; the panel is the requester's patient list)
# ============================================================================

# ---- two young women, both with an EpiPen on their list ---------------------------------------
PA = [P_0EF7A3B5, P_13956CDF]

def _d001(db):
    o = {x["code"]: x.get("text") for x in db[P_0EF7A3B5]["obs"] if x["code"] in ("92141-1", "92142-9", "94531-1")}
    assert o == {"92141-1": "Positive (qualifier value)", "92142-9": "Negative (qualifier value)",
                 "94531-1": "Detected (qualifier value)"}, o
    return ("Yes - the February 2020 respiratory panel was positive for influenza B RNA (influenza A negative) "
            "alongside SARS-CoV-2.", {"must_not_include": ["influenza a positive", "flu a positive"]})

Q("ct4-001", "yes_no", "{A.first|lower} - besides covid, did the feb 2020 swab pick up flu B?", yes(_d001, dangerous_if_absent=False),
  patients=PA, target=P_0EF7A3B5, refs={"A": P_0EF7A3B5})

def _d002(db):
    on = cond_onset(db[P_0EF7A3B5], "Chronic neck pain (finding)")
    assert not has_cond(db[P_13956CDF], "neck pain")
    return date_answer(on, f"Chronic neck pain since {month_words(on)} (with chronic low back pain; opioids "
                           f"since then).")

Q("ct4-002", "date_of", "{A.first} {A.last} chronic neck pain - onset?", _d002, patients=PA, target=P_0EF7A3B5,
  refs={"A": P_0EF7A3B5})

Q("ct4-003", "trend", "{A.first|lower}'s wt over the years - up, down or flat?",
  trend(P_0EF7A3B5, WT, "Body weight (kg)", since="2011"), patients=PA, target=P_0EF7A3B5,
  refs={"A": P_0EF7A3B5})

def _d004(db):
    m_ = meds(db[P_0EF7A3B5], "medroxyPROGESTERone")
    assert len(m_) == 1 and not meds(db[P_13956CDF], "medroxyprogesterone")
    m, a = month_req(m_[0]["authored"])
    return (f"Yes - medroxyprogesterone (Depo-Provera) injection prescribed {month_words(m_[0]['authored'])}; "
            f"intramuscular injections every 3 months recorded from then on.", {"must_include": m, "any_of": a})

Q("ct4-004", "yes_no", "was {A.first} ever on the depo jab? when did that start", yes(_d004), patients=PA,
  target=P_0EF7A3B5, refs={"A": P_0EF7A3B5})

def _d005(db):
    assert not db[P_13956CDF]["allergies"]
    assert meds(db[P_13956CDF], "Epinephrine", "active")
    return absent("No allergy (AllergyIntolerance) is recorded, although an epinephrine auto-injector is on her "
                  "list.", lambda db: True,
                  dangerous=["bee venom", "bee sting", "tree nut", "fish allergy", "nut allergy", "latex"])(db)

Q("ct4-005", "not_on_record", "{B.first} has an epipen on her list - what is she actually allergic to?", _d005,
  patients=PA, target=P_13956CDF, refs={"A": P_0EF7A3B5, "B": P_13956CDF})

def _d006(db):
    c = [x for x in db[P_13956CDF]["conditions"] if x["display"] == "Seasonal allergic rhinitis"]
    assert len(c) == 1 and c[0]["status"] == "resolved" and c[0]["abated"]
    return no_answer(f"No - seasonal allergic rhinitis (since {month_words(c[0]['onset'])}) is recorded as "
                     f"resolved in {month_words(c[0]['abated'])}.", must_not=["still active", "is active"])(db)

Q("ct4-006", "yes_no", "is {B.first}'s seasonal allergic rhinitis still an active problem?", _d006, patients=PA,
  target=P_13956CDF, refs={"B": P_13956CDF})

def _d007(db):
    t = procs(db[P_13956CDF], "Allergy screening test")
    assert not procs(db[P_0EF7A3B5], "Allergy screening")
    return count_answer(len(t), f"{len(t)} allergy screening tests ({', '.join(month_words(x['start']) for x in t)}; "
                                f"IgE panels).")

Q("ct4-007", "count", "how many times has {B.first|lower} been allergy tested", _d007, patients=PA, target=P_13956CDF,
  refs={"B": P_13956CDF})

def _d008(db):
    p = db[P_0EF7A3B5]
    al = allergy_names(p)
    assert "Allergy to fish" in al and "Allergy to nut" in al
    assert not any(re.search("eanut|Shellfish|eggs|wheat|soya", a) for a in al)
    return {"summary": "Food allergies: fish and (tree) nuts (besides bee venom and environmental allergens).",
            "items": [["fish"], alts("nut")], "must_not_include": ["peanut", "shellfish", "egg", "wheat"],
            "dangerous_if_absent": True}

Q("ct4-008", "allergy", "any food allergies for {A.first}?", _d008, patients=PA, target=P_0EF7A3B5,
  refs={"A": P_0EF7A3B5})

# ---- a 47-year-old man (fibromyalgia, no prescriptions) and a 54-year-old man (prediabetes) ----
PB = [P_2FCBE29D, P_8708D3E1]
PC = [P_2FCBE29D]

Q("ct4-009", "not_on_record", "{A.first}'s active meds?",
  absent("No medication on record at all (no MedicationRequest).", lambda db: not db[P_2FCBE29D]["meds"],
         dangerous=["ferrous", "iron"]),
  patients=PB, target=P_2FCBE29D, refs={"A": P_2FCBE29D})

def _d010(db):
    h = imms(db[P_2FCBE29D], "Hep A")
    o = imms(db[P_8708D3E1], "Hep A")
    assert len(h) == 2 and len(o) == 2 and month(h[1]["date"]) != month(o[1]["date"])
    return date_answer(h[1]["date"], f"Second hepatitis A dose {month_words(h[1]['date'])} (first "
                                     f"{month_words(h[0]['date'])}).",
                       dangers=["month:" + month(o[1]["date"]), "month:" + month(o[0]["date"])],
                       distract=["month:" + month(h[0]["date"])])

Q("ct4-010", "immunization", "when did {A.first} get his 2nd hep A shot", _d010, patients=PB, target=P_2FCBE29D,
  refs={"A": P_2FCBE29D})

Q("ct4-011", "latest_value", "{A.first|lower} ldl most recent",
  latest(P_2FCBE29D, LDL, "LDL cholesterol", "mg/dL", panel=PB), patients=PB, target=P_2FCBE29D,
  refs={"A": P_2FCBE29D})

def _d012(db):
    mt = procs(db[P_2FCBE29D], "Movement therapy")
    assert all(x["start"][:4] == "2014" for x in mt)
    m, a = month_req(mt[0]["start"])
    return (f"Yes - {len(mt)} movement-therapy (physiotherapy) sessions, {month_words(mt[0]['start'])} to "
            f"{month_words(mt[-1]['start'])}, after the fibromyalgia / low back pain diagnosis.",
            {"must_include": [f"int:{len(mt)}"]})

Q("ct4-012", "procedure", "did he get any PT for the fibro? # of sessions", yes(_d012), patients=PC, target=P_2FCBE29D,
  refs={"A": P_2FCBE29D})

Q("ct4-013", "trend", "has {B.first}'s weight changed at all since 2012?",
  trend(P_8708D3E1, WT, "Body weight (kg)", since="2012"), patients=PB, target=P_8708D3E1,
  refs={"B": P_8708D3E1})

def _d014(db):
    on = cond_onset(db[P_8708D3E1], "Prediabetes")
    assert has_cond(db[P_8708D3E1], "^Prediabetes$", active=True) and not has_cond(db[P_2FCBE29D], "iabet")
    m, a = month_req(on)
    return (f"Yes - prediabetes since {month_words(on)} (HbA1c 5.9 %), still active.", {"must_include": m, "any_of": a})

Q("ct4-014", "yes_no", "{B.first} - prediabetes on his problem list? since?", yes(_d014), patients=PB,
  target=P_8708D3E1, refs={"B": P_8708D3E1})

# ---- an 87-year-old woman (breast cancer, 1995 stroke, CHD) and a 97-year-old woman --------------
PD = [P_44717D84, P_EA84FE02]

def _d015(db):
    on = cond_onset(db[P_44717D84], "Stroke")
    assert not has_cond(db[P_EA84FE02], "Stroke")
    return date_answer(on, f"Stroke in {month_words(on)} (emergency visit).")

Q("ct4-015", "date_of", "{A.first}'s CVA - month and year?", _d015, patients=PD, target=P_44717D84,
  refs={"A": P_44717D84})

def _d016(db):
    p = db[P_44717D84]
    assert_active(p, "Clopidogrel", "Simvastatin", "Amlodipine 5", "Nitroglycerin")
    return {"summary": "Clopidogrel 75 mg, simvastatin 20 mg, amlodipine 5 mg and nitroglycerin spray (for "
                       "coronary heart disease, renewed September 2020).",
            "items": [["clopidogrel", "plavix"], alts("simvastatin"), alts("amlodipine"),
                      ["nitroglycerin", "nitro", "gtn", "glyceryl trinitrate"]],
            "must_not_include": ["warfarin", "metoprolol", "aspirin", "lisinopril"], "distractor_threshold": 1,
            "dangerous_if_absent": True}

Q("ct4-016", "list_current", "mrs {A.last|lower}'s heart meds currently?", _d016, patients=PD, target=P_44717D84,
  refs={"A": P_44717D84})

def _d017(db):
    m_ = meds(db[P_44717D84], "Vitamin B 12", "active")
    assert len(m_) == 1
    return (f"Yes - vitamin B12 injection, active since {m_[0]['authored'][:4]} (anaemia on the problem list).", {})

Q("ct4-017", "yes_no", "is {A.first|lower} getting b12 injections?", yes(_d017), patients=PD, target=P_44717D84,
  refs={"A": P_44717D84})

Q("ct4-018", "not_on_record", "{A.first} - on tamoxifen or an AI (letrozole/anastrozole) for the breast ca?",
  absent("No endocrine therapy (tamoxifen or aromatase inhibitor) on record.",
         lambda db: not meds(db[P_44717D84], "amoxifen|etrozole|nastrozole|xemestane|ulvestrant"),
         polarity="no"),
  patients=PD, target=P_44717D84, refs={"A": P_44717D84})

Q("ct4-019", "value_in_period", "mrs {A.last|lower} HDL 2017?",
  in_year(P_44717D84, HDL, "HDL cholesterol", "mg/dL", 2017, panel=PD), patients=PD, target=P_44717D84,
  refs={"A": P_44717D84})

def _d020(db):
    e = encs(db[P_44717D84], "EMER")
    o = encs(db[P_EA84FE02], "EMER")
    assert len(o) != len(e)
    return count_answer(len(e), f"{len(e)} emergency visits ({', '.join(month_words(x['start']) for x in e)}: stroke, "
                                f"wrist fracture, foot laceration).", dangers=[f"int:{len(o)}"])

Q("ct4-020", "encounter", "how many ED visits has {A.first_raw} {A.last_raw} had?", _d020, patients=PD, target=P_44717D84,
  refs={"A": P_44717D84})

# ---- two women of the same surname and title on one panel: first names only ----------------------
PE = [P_EA84FE02, P_E3BA24ED]

def _d021(db):
    on = cond_onset(db[P_EA84FE02], "Seizure disorder")
    assert not has_cond(db[P_E3BA24ED], "eizure")
    return date_answer(on, f"Seizure disorder since {month_words(on)} (single seizure, emergency visit).")

Q("ct4-021", "date_of", "when did {A.first} have her first seizure", _d021, patients=PE, target=P_EA84FE02,
  refs={"A": P_EA84FE02})

Q("ct4-022", "not_on_record", "what's {A.first} on for the osteoporosis?",
  absent("No osteoporosis treatment on record (osteoporosis listed since 1990; only amlodipine, "
         "hydrochlorothiazide, ferrous sulfate and a hydrocortisone cream are active).",
         lambda db: has_cond(db[P_EA84FE02], "Osteoporosis") and not meds(
             db[P_EA84FE02], "lendron|isedron|bandron|oledron|enosumab|aloxifene|eriparatide|alcium|itamin D")),
  patients=PE, target=P_EA84FE02, refs={"A": P_EA84FE02})

def _d023(db):
    e = [x for x in encs(db[P_E3BA24ED], "EMER") if x["reason"] == "Drug overdose"]
    return count_answer(len(e), f"{len(e)} emergency visits for drug overdose ({e[0]['start'][:4]}-"
                                f"{e[-1]['start'][:4]}).")

Q("ct4-023", "count", "how many times has {B.first} come into the ED with an overdose?", _d023, patients=PE,
  target=P_E3BA24ED, refs={"B": P_E3BA24ED})

def _d024(db):
    t = procs(db[P_E3BA24ED], "thrombectomy")
    assert len(t) == 1 and t[0]["reasons"] == ["Stroke"]
    m, a = month_req(t[0]["start"])
    return (f"Yes - percutaneous mechanical thrombectomy on the day of the stroke, {month_words(t[0]['start'])} "
            f"(alteplase was given too).", {"must_include": m, "any_of": a})

Q("ct4-024", "procedure", "{B.first} - was a thrombectomy / clot retrieval done for her stroke? date", yes(_d024),
  patients=PE, target=P_E3BA24ED, refs={"B": P_E3BA24ED})

# ---- two men born the same day in the same town: a man who died in 2020 and a 65-year-old ------
PF = [P_52EBDCAE, P_8DD4ED1F]

def _d025(db):
    on = cond_onset(db[P_52EBDCAE], "Hypertension")
    assert not has_cond(db[P_8DD4ED1F], "Hypertension")
    return date_answer(on, f"Hypertension since {month_words(on)} (lisinopril from then on).")

Q("ct4-025", "date_of", "how long had {A.first} been hypertensive - onset date?", _d025, patients=PF,
  target=P_52EBDCAE, refs={"A": P_52EBDCAE})

def _d026(db):
    z = imms(db[P_52EBDCAE], "^zoster")
    assert len(z) == 2 and len(imms(db[P_8DD4ED1F], "^zoster")) == 1
    return (f"Yes - two zoster doses ({month_words(z[0]['date'])} and {month_words(z[1]['date'])}).",
            {"must_include": ["int:2"]})

Q("ct4-026", "immunization", "did {A.first} complete both shingles doses?", yes(_d026), patients=PF,
  target=P_52EBDCAE, refs={"A": P_52EBDCAE})

Q("ct4-027", "value_in_period", "{A.first|lower}'s LDL back in 2015",
  in_year(P_52EBDCAE, LDL, "LDL cholesterol", "mg/dL", 2015, panel=PF), patients=PF, target=P_52EBDCAE,
  refs={"A": P_52EBDCAE})

def _d028(db):
    c = procs(db[P_8DD4ED1F], "^Colonoscopy$")
    o = procs(db[P_52EBDCAE], "^Colonoscopy$")
    assert len(c) == 1
    return date_answer(c[0]["start"], f"Colonoscopy {month_words(c[0]['start'])} (the only one on record).",
                       dangers=["month:" + month(x["start"]) for x in o if month(x["start"]) != month(c[0]["start"])])

Q("ct4-028", "procedure", "{B.first} {B.last|ascii} - colonoscopy date?", _d028, patients=PF, target=P_8DD4ED1F,
  refs={"B": P_8DD4ED1F})

# ---- a man who died in February 2014 (diabetes, cardiac arrest); single-patient panel ----------
PG = [P_7A8FAEA5]

def _d029(db):
    c = cod(db[P_7A8FAEA5])
    assert c == ["Cardiac Arrest"], c
    d = db[P_7A8FAEA5]["deceased"]
    return {"summary": f"Cardiac arrest ({month_words(d)}).",
            "any_of": [["cardiac arrest", "arrest", "sudden cardiac death", "asystole", "vf arrest"]],
            "must_not_include": ["covid", "cancer", "stroke"], "dangerous_if_absent": True}

Q("ct4-029", "demographics", "what did he die of?", _d029, patients=PG, target=P_7A8FAEA5, refs={"A": P_7A8FAEA5})

def _d030(db):
    p = procs(db[P_7A8FAEA5], "defibrillator")
    assert len(p) == 1
    m, a = month_req(p[0]["start"])
    return (f"Yes - biventricular implantable cardioverter defibrillator inserted {month_words(p[0]['start'])} "
            f"(day of the cardiac arrest).", {"must_include": m, "any_of": a})

Q("ct4-030", "procedure", "was a defib (ICD) ever implanted in him - when?", yes(_d030), patients=PG,
  target=P_7A8FAEA5, refs={"A": P_7A8FAEA5})

def _d031(db):
    c = procs(db[P_7A8FAEA5], "^Colonoscopy$")
    return count_answer(len(c), f"{len(c)} colonoscopies ({', '.join(month_words(x['start']) for x in c)}; a polyp "
                                f"removed in 2011).")

Q("ct4-031", "count", "total # of colonoscopys for {A.title}?", _d031, patients=PG, target=P_7A8FAEA5,
  refs={"A": P_7A8FAEA5})

def _d032(db):
    p = db[P_7A8FAEA5]
    assert has_cond(p, "Neuropathy due to type 2") and has_cond(p, "Diabetic renal disease")
    return {"summary": "Diabetic neuropathy (1996) and diabetic renal disease with chronic kidney disease stage 1 "
                       "(2007).",
            "items": [["neuropathy", "neuropathic"], ["renal", "kidney", "nephropathy", "ckd"]],
            "must_not_include": ["retinopathy", "amputation", "foot ulcer"], "dangerous_if_absent": True}

Q("ct4-032", "list_all", "complications of his diabetes on record?", _d032, patients=PG, target=P_7A8FAEA5,
  refs={"A": P_7A8FAEA5})

def _d033(db):
    v = imms(db[P_7A8FAEA5], "PCV 13")
    assert len(v) == 1
    m, a = month_req(v[0]["date"])
    return (f"Yes - pneumococcal conjugate vaccine PCV13, {month_words(v[0]['date'])} (and PPSV23 the year after).",
            {"must_include": m, "any_of": a})

Q("ct4-033", "immunization", "did he ever get prevnar 13?", yes(_d033), patients=PG, target=P_7A8FAEA5,
  refs={"A": P_7A8FAEA5})

# ---- a 46-year-old woman (three deliveries) and a 58-year-old woman (hypertension) --------------
PH = [P_8682665A, P_99E6BACF]

def _d034(db):
    b = procs(db[P_8682665A], "^Childbirth$")
    assert not procs(db[P_99E6BACF], "Childbirth|Cesarean")
    return count_answer(len(b), f"{len(b)} deliveries ({', '.join(month_words(x['start']) for x in b)}).")

Q("ct4-034", "count", "how many babies has {A.first} deliverd", _d034, patients=PH, target=P_8682665A,
  refs={"A": P_8682665A})

def _d035(db):
    c = [x for x in db[P_8682665A]["conditions"] if x["display"] == "Escherichia coli urinary tract infection"]
    o = [x for x in db[P_99E6BACF]["conditions"] if x["display"] == "Escherichia coli urinary tract infection"]
    assert len(c) == 1 and len(o) == 1
    return date_answer(c[0]["onset"], f"E. coli urinary tract infection, {month_words(c[0]['onset'])} "
                                      f"(nitrofurantoin).", dangers=["month:" + month(o[0]["onset"])])

Q("ct4-035", "date_of", "when did mrs {A.last|lower} have the e. coli UTI", _d035, patients=PH, target=P_8682665A,
  refs={"A": P_8682665A})

def _d036(db):
    p = db[P_8682665A]
    names = sorted({m["display"] for m in p["meds"] if re.search("cillin|Clavul|Nitrofur|mycin|Cef|floxacin|cycline|"
                                                                    "Sulfameth|Trimeth", m["display"])})
    assert names == ["Amoxicillin 250 MG / Clavulanate 125 MG Oral Tablet",
                     "Nitrofurantoin 5 MG/ML Oral Suspension"], names
    return {"summary": "Amoxicillin/clavulanate (March 2014, sinusitis) and nitrofurantoin (February 2018, E. coli "
                       "UTI).",
            "items": [alts("amoxicillin") + ["clavulanate", "co-amoxiclav"], ["nitrofurantoin", "macrobid", "macrodantin"]],
            "must_not_include": ["ciprofloxacin", "trimethoprim", "cefuroxime", "penicillin v"],
            "dangerous_if_absent": True}

Q("ct4-036", "list_all", "every antibiotc {A.first} has had?", _d036, patients=PH, target=P_8682665A,
  refs={"A": P_8682665A})

Q("ct4-037", "latest_value", "mrs {A.last|lower}'s hgb, latest",
  latest(P_8682665A, HGB, "haemoglobin", "g/dL", panel=PH), patients=PH, target=P_8682665A,
  refs={"A": P_8682665A})

def _d038(db):
    p = db[P_99E6BACF]
    assert_active(p, "Hydrochlorothiazide", "lisinopril")
    assert not meds(p, "mlodipine")
    return {"summary": "Hydrochlorothiazide 25 mg and lisinopril 10 mg (renewed November 2020).",
            "items": [alts("hctz"), alts("lisinopril")],
            "must_not_include": ["amlodipine"] + other_active(p, ["hydrochlorothiazide", "lisinopril"]),
            "distractor_threshold": 2, "dangerous_if_absent": True}

Q("ct4-038", "list_current", "{B.title} - current antihypertensive regimen", _d038, patients=PH, target=P_99E6BACF,
  refs={"B": P_99E6BACF})

def _d039(db):
    s = [o["text"] for o in obs_series(db[P_99E6BACF], SMOKE_CODE)]
    assert set(s) == {"Former smoker"}, s
    assert smoking_latest(db[P_8682665A]) == "Never smoker"
    return {"summary": "Former smoker (recorded as former at every visit since 2011).",
            "any_of": [["former", "ex-smoker", "ex smoker", "quit", "used to smoke", "stopped smoking"]],
            "must_not_include": ["current smoker", "every day smoker", "never smoker", "never smoked"]}

Q("ct4-039", "latest_value", "{B.first} smoking hx?", _d039, patients=PH, target=P_99E6BACF, refs={"B": P_99E6BACF})

# ---- an 18-year-old man with allergies and a 5-year-old girl --------------------------------------
PI = [P_88E4BAC8, P_8A4C9C04]

def _d040(db):
    al = allergy_names(db[P_88E4BAC8])
    assert al == ["Allergy to grass pollen", "Allergy to mould", "Dander (animal) allergy", "Latex allergy"], al
    return {"summary": "Latex, mould, animal dander and grass pollen.",
            "items": [alts("latex"), alts("mould"), alts("dander"), alts("grass")],
            "must_not_include": ["peanut", "penicillin", "shellfish", "tree pollen", "dust mite"],
            "dangerous_if_absent": True}

Q("ct4-040", "allergy", "{A.first}'s allergy list pls", _d040, patients=PI, target=P_88E4BAC8, refs={"A": P_88E4BAC8})

def _d041(db):
    t = imms(db[P_88E4BAC8], "^Tdap")
    assert len(t) == 1 and not imms(db[P_8A4C9C04], "^Tdap")
    return date_answer(t[0]["date"], f"Tdap {month_words(t[0]['date'])}.")

Q("ct4-041", "immunization", "date of {A.first|lower}'s tdap", _d041, patients=PI, target=P_88E4BAC8,
  refs={"A": P_88E4BAC8})

def _d042(db):
    p = db[P_88E4BAC8]
    names = active_med_names(p)
    assert names == ["Loratadine 5 MG Chewable Tablet", "NDA020800 0.3 ML Epinephrine 1 MG/ML Auto-Injector"], names
    return {"summary": "Loratadine 5 mg chewable and an epinephrine auto-injector (EpiPen), both since 2013.",
            "items": [alts("loratadine"), alts("epipen")], "must_not_include": ["fexofenadine", "cetirizine", "albuterol"],
            "dangerous_if_absent": True}

Q("ct4-042", "list_current", "{A.first} - what meds is he on", _d042, patients=PI, target=P_88E4BAC8,
  refs={"A": P_88E4BAC8})

Q("ct4-043", "not_on_record", "pen allergy for {A.first}?",
  absent("No penicillin (or any drug) allergy on record; his allergies are latex, mould, animal dander and grass "
         "pollen.", lambda db: not any(re.search("enicillin|cillin|drug", a["display"], re.I)
                                       for a in db[P_88E4BAC8]["allergies"]), polarity="no"),
  patients=PI, target=P_88E4BAC8, refs={"A": P_88E4BAC8})

def _d044(db):
    r = imms(db[P_8A4C9C04], "rotavirus")
    assert len(r) == 1
    m, a = month_req(r[0]["date"])
    return (f"Yes - one dose of monovalent rotavirus vaccine, {month_words(r[0]['date'])}.",
            {"must_include": m, "any_of": a})

Q("ct4-044", "immunization", "{B.first} - rotavirus vaccine given?", yes(_d044), patients=PI, target=P_8A4C9C04,
  refs={"B": P_8A4C9C04})

def _d045(db):
    p = db[P_8A4C9C04]
    s = _series(p, WT)
    first = s[0]
    assert first["date"][:10] == p["birthDate"]
    return {"summary": f"{fmt(first['value'])} kg at birth ({month_words(first['date'])}).",
            "value": first["value"], "must_include": ["num:" + repr(first["value"])],
            "must_not_include": ["num:" + fmt(o["value"]) for o in s[1:]], "distractor_threshold": 2}

Q("ct4-045", "value_in_period", "{B.first}'s birth weight?", _d045, patients=PI, target=P_8A4C9C04,
  refs={"B": P_8A4C9C04})

# ---- a 9-year-old girl and a 57-year-old man of the same surname (girl: first name; man: Mr.) ----
PJ = [P_A8327210, P_9FE7994A]

def _d046(db):
    c = [x for x in db[P_A8327210]["conditions"] if x["display"] == "Acute bronchitis (disorder)"]
    assert len(c) == 1 and not has_cond(db[P_9FE7994A], "bronchitis")
    return date_answer(c[0]["onset"], f"Acute bronchitis, {month_words(c[0]['onset'])}.")

Q("ct4-046", "date_of", "when did {A.first} have bronchitis", _d046, patients=PJ, target=P_A8327210,
  refs={"A": P_A8327210})

def _d047(db):
    e = [x for x in encs(db[P_9FE7994A], "EMER") if x["start"][:4] == "2017"]
    assert len(e) == 1
    c = [x["display"] for x in db[P_9FE7994A]["conditions"] if x["onset"][:10] == e[0]["start"][:10]]
    assert c == ["Sprain of wrist"], c
    return {"summary": f"Sprained wrist, {month_words(e[0]['start'])} (naproxen).",
            "any_of": [["wrist"]], "must_not_include": ["fracture", "laceration", "ankle"],
            "dangerous_if_absent": True}

Q("ct4-047", "encounter", "why was {B.title} in the ER in 2017?", _d047, patients=PJ, target=P_9FE7994A,
  refs={"B": P_9FE7994A})

def _d048(db):
    c = [x for x in db[P_9FE7994A]["conditions"] if x["display"] == "Acute pulmonary embolism (disorder)"]
    assert len(c) == 1
    m, a = month_req(c[0]["onset"])
    return (f"Yes - acute pulmonary embolism {month_words(c[0]['onset'])}, during the COVID-19 admission "
            f"(treatment-dose enoxaparin).", {"must_include": m, "any_of": a})

Q("ct4-048", "yes_no", "{B.title} - did he throw a PE during the covid admission?", yes(_d048), patients=PJ,
  target=P_9FE7994A, refs={"B": P_9FE7994A})

def _d049(db):
    z = imms(db[P_9FE7994A], "^zoster")
    assert len(z) == 2
    return {"summary": f"Two zoster doses: {month_words(z[0]['date'])} and {month_words(z[1]['date'])}.",
            "must_include": ["month:" + month(z[0]["date"]), "month:" + month(z[1]["date"])],
            "dangerous_if_absent": True}

Q("ct4-049", "immunization", "{B.title}'s shingles vaccines - dates?", _d049, patients=PJ, target=P_9FE7994A,
  refs={"B": P_9FE7994A})

# ---- two men admitted with COVID-19 in 2020 (a 57-year-old and a 64-year-old) ---------------------
PK = [P_A8376487, P_AD0B4B7A]
PL = [P_A8376487]

def _los(e):
    return (_dt(e["end"]) - _dt(e["start"])).days

def _d050(db):
    a = encs(db[P_A8376487], "IMP")
    a = [x for x in a if x["reason"] == "COVID-19"]
    o = [x for x in encs(db[P_AD0B4B7A], "IMP") if x["reason"] == "COVID-19"]
    assert len(a) == 1 and len(o) == 1
    n, k = _los(a[0]), _los(o[0])
    assert abs(n - k) > 1
    m, al = month_req(a[0]["start"])
    return {"summary": f"{n} days: admitted {a[0]['start'][:10]}, discharged {a[0]['end'][:10]} (COVID-19, "
                       f"isolation ward).",
            "must_include": m, "any_of": al + [[f"int:{n}", f"int:{n + 1}"]],
            "dangerous_terms": [f"int:{k}"], "dangerous_if_absent": True}

Q("ct4-050", "encounter", "how many days was {A.first} inpatient with covid, and when", _d050, patients=PK,
  target=P_A8376487, refs={"A": P_A8376487})

def _d051(db):
    c = procs(db[P_A8376487], "Cognitive and behavioral")
    assert all(x["start"][:4] == "2014" for x in c)
    return count_answer(len(c), f"{len(c)} cognitive behavioural therapy sessions, {month_words(c[0]['start'])} "
                                f"(chronic low back / neck pain).")

Q("ct4-051", "count", "# of CBT sessions he had for the chronic pain?", _d051, patients=PL, target=P_A8376487,
  refs={"A": P_A8376487})

Q("ct4-052", "trend", "is his LDL creeping up?",
  trend(P_A8376487, LDL, "LDL cholesterol (mg/dL)", since="2013", yes_means="up", min_points=3), patients=PL,
  target=P_A8376487, refs={"A": P_A8376487})

def _d053(db):
    c = [x for x in db[P_AD0B4B7A]["conditions"] if x["display"] == "Acute deep venous thrombosis (disorder)"]
    assert len(c) == 1 and not has_cond(db[P_A8376487], "thrombosis")
    m, a = month_req(c[0]["onset"])
    return (f"Yes - acute deep venous thrombosis {month_words(c[0]['onset'])}, at the end of the COVID-19 admission.",
            {"must_include": m, "any_of": a})

Q("ct4-053", "yes_no", "any DVT for {B.title} while he was in with covid?", yes(_d053), patients=PK, target=P_AD0B4B7A,
  refs={"B": P_AD0B4B7A})

Q("ct4-054", "latest_value", "{B.first_raw}'s latest a1c",
  latest(P_AD0B4B7A, A1C, "HbA1c", "%", panel=PK), patients=PK, target=P_AD0B4B7A, refs={"B": P_AD0B4B7A})

# ---- a 61-year-old woman and a 25-year-old man of the same surname (Ms. / Mr.) ---------------------
PM = [P_ACD56837, P_AAAC7C75]

def _d055(db):
    e = [x for x in encs(db[P_ACD56837], "EMER") if x["start"][:7] == "2020-03"]
    assert len(e) == 1 and not encs(db[P_AAAC7C75], "EMER")
    c = [x["display"] for x in db[P_ACD56837]["conditions"] if x["onset"][:10] == e[0]["start"][:10]
         and "COVID" not in x["display"] and "(finding)" not in x["display"]]
    assert c == ["Laceration of foot"], c
    return {"summary": "Laceration of the foot, sutured (March 2020; COVID-19 was diagnosed the same day).",
            "any_of": [["laceration", "lacerated", "cut", "wound"]], "must_not_include": ["fracture", "sprain"],
            "dangerous_if_absent": True}

Q("ct4-055", "encounter", "{A.title} - what was the march 2020 ED visit for?", _d055, patients=PM, target=P_ACD56837,
  refs={"A": P_ACD56837})

def _d056(db):
    e = latest_bp(P_ACD56837)(db)
    e["dangerous_terms"] = [last_bp_token(db[P_AAAC7C75])]
    return e

Q("ct4-056", "latest_value", "latest bp for {A.title}", _d056, patients=PM, target=P_ACD56837, refs={"A": P_ACD56837})

Q("ct4-057", "latest_value", "{A.title}'s a1c, most recent",
  latest(P_ACD56837, A1C, "HbA1c", "%", panel=PM), patients=PM, target=P_ACD56837, refs={"A": P_ACD56837})

def _d058(db):
    h = imms(db[P_AAAC7C75], "Hep B")
    assert len(h) == 1
    m, a = month_req(h[0]["date"])
    return (f"Yes - one adult hepatitis B dose, {month_words(h[0]['date'])} (series not completed on record).",
            {"must_include": m, "any_of": a})

Q("ct4-058", "immunization", "has {B.title} started his hep B vaccines?", yes(_d058), patients=PM, target=P_AAAC7C75,
  refs={"B": P_AAAC7C75})

def _d059(db):
    pr = procs(db[P_AAAC7C75], "prone position")
    assert pr and all(x["start"][:7] == "2020-03" for x in pr)
    return (f"Yes - placed in the prone position daily during the March 2020 COVID-19 admission ({len(pr)} "
            f"times), with oxygen by mask.", {})

Q("ct4-059", "procedure", "was {B.title} proned during his covid stay?", yes(_d059), patients=PM, target=P_AAAC7C75,
  refs={"B": P_AAAC7C75})

# ---- a man who died in August 1975, aged 23 (COPD); single-patient panel --------------------------
PN = [P_BEB53716]

def _d060(db):
    assert cod(db[P_BEB53716]) == ["Chronic obstructive bronchitis (disorder)"]
    return {"summary": f"Chronic obstructive bronchitis (COPD), {month_words(db[P_BEB53716]['deceased'])}.",
            "any_of": [["chronic obstructive", "copd", "obstructive bronchitis", "chronic bronchitis"]],
            "must_not_include": ["covid", "cancer", "overdose"], "dangerous_if_absent": True}

Q("ct4-060", "demographics", "cause of death on his certificate?", _d060, patients=PN, target=P_BEB53716,
  refs={"A": P_BEB53716})

Q("ct4-061", "latest_value", "his last FEV1/FVC",
  latest(P_BEB53716, FEV, "FEV1/FVC", "%"), patients=PN, target=P_BEB53716, refs={"A": P_BEB53716})

def _d062(db):
    p = db[P_BEB53716]
    assert active_med_names(p) == ["60 ACTUAT Fluticasone propionate 0.25 MG/ACTUAT / salmeterol 0.05 MG/ACTUAT Dry "
                                   "Powder Inhaler"], active_med_names(p)
    return {"summary": "Fluticasone/salmeterol dry powder inhaler (Advair), from July 1974 until his death.",
            "items": [alts("advair")], "must_not_include": ["albuterol", "tiotropium"], "dangerous_if_absent": True}

Q("ct4-062", "list_current", "which inhaler was he using", _d062, patients=PN, target=P_BEB53716,
  refs={"A": P_BEB53716})

def _d063(db):
    e = [x for x in encs(db[P_BEB53716], "EMER") if x["start"][:4] == "1971"]
    assert len(e) == 1
    c = [x["display"] for x in db[P_BEB53716]["conditions"] if x["onset"][:10] == e[0]["start"][:10]]
    assert c == ["Concussion with no loss of consciousness"], c
    return {"summary": f"Concussion without loss of consciousness, {month_words(e[0]['start'])}.",
            "any_of": [["concussion", "head injury"]], "must_not_include": ["fracture", "laceration"],
            "dangerous_if_absent": True}

Q("ct4-063", "encounter", "what was his ER visit in '71 for?", _d063, patients=PN, target=P_BEB53716,
  refs={"A": P_BEB53716})

Q("ct4-064", "not_on_record", "was he ever admitted as an inpatient?",
  absent("No inpatient admission on record (one ER visit in 1971).", lambda db: not encs(db[P_BEB53716], "IMP"),
         polarity="no"),
  patients=PN, target=P_BEB53716, refs={"A": P_BEB53716})

# ---- a 38-year-old woman (hypertension, several pregnancies) and a 31-year-old woman -------------
PO = [P_C94995D9, P_E0D320AA]

def _d065(db):
    p = db[P_C94995D9]
    names = active_med_names(p)
    assert names == ["Astemizole 10 MG Oral Tablet", "Hydrochlorothiazide 25 MG Oral Tablet", "Jolivette 28 Day Pack",
                     "NDA020800 0.3 ML Epinephrine 1 MG/ML Auto-Injector", "lisinopril 10 MG Oral Tablet"], names
    return {"summary": "Hydrochlorothiazide 25 mg, lisinopril 10 mg, Jolivette (norethindrone), astemizole 10 mg and "
                       "an epinephrine auto-injector.",
            "items": [alts("hctz"), alts("lisinopril"), alts("jolivette") + ["progestin only", "mini pill", "minipill"],
                      ["astemizole", "hismanal"], alts("epipen")],
            "must_not_include": ["mirena", "trinessa", "amlodipine"], "dangerous_if_absent": True}

Q("ct4-065", "list_current", "med rec for {A.first} - what's active?", _d065, patients=PO, target=P_C94995D9,
  refs={"A": P_C94995D9})

def _d066(db):
    on = cond_onset(db[P_C94995D9], "Preeclampsia")
    assert not has_cond(db[P_E0D320AA], "clampsia")
    return date_answer(on, f"Pre-eclampsia {month_words(on)} (antepartum eclampsia followed in March 2019).")

Q("ct4-066", "date_of", "when was {A.first} diagnosed with pre-eclampsia", _d066, patients=PO, target=P_C94995D9,
  refs={"A": P_C94995D9})

def _d067(db):
    e = [x for x in encs(db[P_C94995D9], "EMER") if x["start"][:7] == "2018-08"]
    assert len(e) == 1
    c = [x["display"] for x in db[P_C94995D9]["conditions"] if x["onset"][:10] == e[0]["start"][:10]]
    assert c == ["Concussion with no loss of consciousness"], c
    return {"summary": "Concussion (no loss of consciousness), August 2018.",
            "any_of": [["concussion", "head injury"]], "must_not_include": ["fracture", "laceration"],
            "dangerous_if_absent": True}

Q("ct4-067", "encounter", "{A.first}'s ER trip aug 2018 - what for?", _d067, patients=PO, target=P_C94995D9,
  refs={"A": P_C94995D9})

def _d068(db):
    p = db[P_C94995D9]
    names = [m["display"] for m in p["meds"] if re.search(CONTRA_, m["display"], re.I)]
    assert sorted(set(names)) == ["Jolivette 28 Day Pack", "Mirena 52 MG Intrauterine System", "Trinessa 28 Day Pack"]
    return {"summary": "Jolivette (progestin-only pill, since 2004, active again), Mirena IUD (2014-2018) and "
                       "Trinessa (2015).",
            "items": [alts("jolivette"), ["mirena", "iud", "levonorgestrel", "intrauterine"],
                      ["trinessa", "norgestimate"]],
            "must_not_include": ["nexplanon", "depo", "nuvaring"], "dangerous_if_absent": True}

Q("ct4-068", "list_all", "all the birth control {A.first|lower} has been on over the years", _d068, patients=PO,
  target=P_C94995D9, refs={"A": P_C94995D9})

def _d069(db):
    on = cond_onset(db[P_E0D320AA], "Miscarriage in first trimester")
    assert not has_cond(db[P_C94995D9], "Miscarriage")
    return date_answer(on, f"First-trimester miscarriage, {month_words(on)}.")

Q("ct4-069", "date_of", "{B.first} - when did she miscarry?", _d069, patients=PO, target=P_E0D320AA,
  refs={"B": P_E0D320AA})

def _d070(db):
    s = procs(db[P_E0D320AA], "Suture")
    c = [x for x in db[P_E0D320AA]["conditions"] if x["display"] == "Facial laceration"]
    assert len(s) == 1 and len(c) == 1 and s[0]["start"][:10] == c[0]["onset"][:10]
    o = procs(db[P_C94995D9], "Suture")
    m, a = month_req(s[0]["start"])
    return (f"Yes - the facial laceration was sutured in the ER, {month_words(s[0]['start'])}.",
            {"must_include": m, "any_of": a, "dangerous_terms": ["month:" + month(x["start"]) for x in o]})

Q("ct4-070", "procedure", "did {B.first|lower}'s facial lac get stitched? date", yes(_d070), patients=PO,
  target=P_E0D320AA, refs={"B": P_E0D320AA})

Q("ct4-071", "not_on_record", "{B.first} - any active prescriptions?",
  absent("No active medication (Levora, Trinessa and acetaminophen are all stopped).",
         lambda db: not active_med_names(db[P_E0D320AA]),
         dangerous=["lisinopril", "hydrochlorothiazide", "jolivette", "astemizole"]),
  patients=PO, target=P_E0D320AA, refs={"B": P_E0D320AA})

# ---- a 40-year-old man and a 55-year-old woman of the same surname (Mr. / Mrs.) -------------------
PP = [P_E1404DC3, P_CD185AB5]

def _d072(db):
    p = db[P_E1404DC3]
    assert active_med_names(p) == ["amLODIPine 2.5 MG Oral Tablet"], active_med_names(p)
    assert not active_med_names(db[P_CD185AB5])
    return {"summary": "Amlodipine 2.5 mg only (since 2004).", "items": [alts("amlodipine")],
            "must_not_include": ["lisinopril", "hydrochlorothiazide", "hctz", "losartan"],
            "dangerous_if_absent": True}

Q("ct4-072", "list_current", "{A.title}'s bp med?", _d072, patients=PP, target=P_E1404DC3, refs={"A": P_E1404DC3})

def _d073(db):
    t = [x for x in db[P_CD185AB5]["conditions"] if x["display"] == "Tubal pregnancy"]
    assert len(t) == 2
    return count_answer(len(t), f"{len(t)} tubal (ectopic) pregnancies ({', '.join(x['onset'][:4] for x in t)}).")

Q("ct4-073", "count", "how many ectopics has {B.title} had", _d073, patients=PP, target=P_CD185AB5,
  refs={"B": P_CD185AB5})

# ---- a 60-year-old woman with chronic low back pain; single-patient panel -------------------------
PQ = [P_E2053282]

def _d074(db):
    p = db[P_E2053282]
    names = active_med_names(p)
    assert names == ["Acetaminophen 300 MG / Hydrocodone Bitartrate 5 MG Oral Tablet",
                     "Acetaminophen 325 MG Oral Tablet [Tylenol]", "Ibuprofen 400 MG Oral Tablet [Ibu]"], names
    return {"summary": "Hydrocodone/acetaminophen 5/300 mg, acetaminophen 325 mg (Tylenol) and ibuprofen 400 mg.",
            "items": [alts("hydrocodone"), alts("acetaminophen"), ["ibuprofen", "advil", "motrin", "ibu"]],
            "must_not_include": ["oxycodone", "tramadol", "naproxen", "fentanyl"], "dangerous_if_absent": True}

Q("ct4-074", "list_current", "what analgesics is she on now", _d074, patients=PQ, target=P_E2053282,
  refs={"A": P_E2053282})

Q("ct4-075", "not_on_record", "has she ever been to the ER?",
  absent("No emergency visit on record.", lambda db: not encs(db[P_E2053282], "EMER"), polarity="no"),
  patients=PQ, target=P_E2053282, refs={"A": P_E2053282})

# ---- a 42-year-old man (hypertension, COVID admission) next to the 40-year-old man of ct4-072 -----
PR = [P_E78FD9C5, P_E1404DC3]

Q("ct4-076", "trend", "{A.first|lower} hdl trend?",
  trend(P_E78FD9C5, HDL, "HDL cholesterol (mg/dL)", since="2014", min_points=3), patients=PR, target=P_E78FD9C5,
  refs={"A": P_E78FD9C5})

def _d077(db):
    m_ = meds(db[P_E78FD9C5], "Albuterol")
    assert len(m_) == 1 and m_[0]["reasons"] == ["Hypoxemia (disorder)"] and not meds(db[P_E1404DC3], "Albuterol")
    m, a = month_req(m_[0]["authored"])
    return (f"Yes - albuterol metered-dose inhaler, {month_words(m_[0]['authored'])}, for hypoxaemia during the "
            f"COVID-19 admission.", {"must_include": m, "any_of": a})

Q("ct4-077", "yes_no", "did {A.first} get an albuterol inhaler with his covid? when", yes(_d077), patients=PR,
  target=P_E78FD9C5, refs={"A": P_E78FD9C5})

# ---- a woman who died in 1973 (COPD, diabetes) and a 37-year-old woman (COPD, lung transplant) ----
PS = [P_F92FDC8C, P_FCD31792]

def _d078(db):
    p = db[P_F92FDC8C]
    a = age_on(p["birthDate"], _dt(p["deceased"]))
    return {"summary": f"{a} years old at death ({month_words(p['deceased'])}).", "must_include": [f"age:{a}"],
            "value": a, "dangerous_terms": [f"age:{age_on(db[P_FCD31792]['birthDate'])}"]}

Q("ct4-078", "demographics", "age at death for {A.first}?", _d078, patients=PS, target=P_F92FDC8C,
  refs={"A": P_F92FDC8C})

def _d079(db):
    m_ = meds(db[P_F92FDC8C], "Naproxen")
    assert len(m_) == 1 and m_[0]["reasons"] == ["Osteoarthritis of knee"]
    return (f"Yes - naproxen sodium 220 mg, from {month_words(m_[0]['authored'])} for osteoarthritis of the knee.", {})

Q("ct4-079", "yes_no", "was {A.first|lower} on an NSAID for her knee OA?", yes(_d079), patients=PS, target=P_F92FDC8C,
  refs={"A": P_F92FDC8C})

def _d080(db):
    r = procs(db[P_FCD31792], "Pulmonary rehabilitation")
    assert not procs(db[P_F92FDC8C], "Pulmonary rehabilitation")
    return count_answer(len(r), f"{len(r)} pulmonary rehabilitation courses, yearly from {r[0]['start'][:4]} to "
                                f"{r[-1]['start'][:4]}.")

Q("ct4-080", "count", "how many pulm rehab sessions has {B.first} done", _d080, patients=PS, target=P_FCD31792,
  refs={"B": P_FCD31792})

Q("ct4-081", "latest_value", "{B.first}'s fev1/fvc - latest",
  latest(P_FCD31792, FEV, "FEV1/FVC", "%", panel=PS), patients=PS, target=P_FCD31792, refs={"B": P_FCD31792})

def _d082(db):
    p = db[P_FCD31792]
    names = active_med_names(p)
    assert names == ["60 ACTUAT Fluticasone propionate 0.25 MG/ACTUAT / salmeterol 0.05 MG/ACTUAT Dry Powder Inhaler",
                     "Camila 28 Day Pack"], names
    return {"summary": "Fluticasone/salmeterol inhaler (Advair) and Camila (norethindrone 0.35 mg).",
            "items": [alts("advair"), ["camila", "norethindrone", "progestin only", "mini pill", "minipill"]],
            "must_not_include": ["natazia", "jolivette", "liletta", "seasonique"], "dangerous_if_absent": True}

Q("ct4-082", "list_current", "current meds for {B.first|lower}?", _d082, patients=PS, target=P_FCD31792,
  refs={"B": P_FCD31792})

# ---- two girls (15 and 16); allergies of the 15-year-old that earlier sets did not ask ------------
PT = [P_451E7C69, P_5875D3AA]

def _d083(db):
    assert "Dander (animal) allergy" in allergy_names(db[P_451E7C69])
    assert not db[P_5875D3AA]["allergies"]
    return ("Yes - animal dander allergy (recorded 2012), with mould, dust mite, pollen and egg allergies.", {})

Q("ct4-083", "allergy", "is {A.first} allergic to cats/dogs?", yes(_d083), patients=PT, target=P_451E7C69,
  refs={"A": P_451E7C69})

def _d084(db):
    om = [c for c in db[P_5875D3AA]["conditions"] if c["display"] == "Otitis media"]
    ab = [m for m in db[P_5875D3AA]["meds"] if re.search("cillin|Cef|Clavul|mycin", m["display"])]
    assert len(om) == 1 and [m["display"] for m in ab] == ["Cefuroxime 250 MG Oral Tablet"]
    assert month(ab[0]["authored"]) == month(om[0]["onset"])
    return {"summary": f"Cefuroxime (Ceftin) for otitis media, {month_words(om[0]['onset'])}.",
            "items": [alts("cefuroxime")], "must_not_include": ["amoxicillin", "augmentin", "azithromycin"],
            "dangerous_terms": ["amoxicillin"], "dangerous_if_absent": True}

Q("ct4-084", "list_all", "{B.first} - which antibiotic did she get for her ear infection?", _d084, patients=PT,
  target=P_5875D3AA, refs={"B": P_5875D3AA})

# ---- two women of the same first name (a 78-year-old and an 84-year-old): surname initials ------
PU = [P_EFFB1622, P_2AD91C08]

Q("ct4-085", "trend", "{A.first} {A.last|initial}.'s LDL - is it going up?",
  trend(P_EFFB1622, LDL, "LDL cholesterol (mg/dL)", since="2012", yes_means="up"), patients=PU, target=P_EFFB1622,
  refs={"A": P_EFFB1622})


def _d086(db):
    c = procs(db[P_2AD91C08], "^Colonoscopy$")
    assert len(c) == 3 and not procs(db[P_EFFB1622], "olonoscopy")
    return date_answer(c[-1]["start"], f"Last colonoscopy {month_words(c[-1]['start'])} (previous "
                                       f"{month_words(c[-2]['start'])}, with polypectomy and biopsy).",
                       distract=["month:" + month(c[-2]["start"]), "month:" + month(c[0]["start"])])


Q("ct4-086", "procedure", "{B.first} {B.last|initial}. - when was her last colonscopy?", _d086, patients=PU,
  target=P_2AD91C08, refs={"B": P_2AD91C08})

# ---- names that are NOT on the requester's panel ----------------------------------------------

Q("ct4-087", "outside_scope", "{B.full}'s weight?",
  outside("Real archive patient sharing only the surname of the single panel patient; not on the panel: no "
          "information (and the panel patient's weight is not an answer either).",
          lambda db: ["num:" + fmt(_series(db[P_CD185AB5], WT)[-1]["value"]),
                      "num:" + fmt(_series(db[P_E1404DC3], WT)[-1]["value"]), "ectopic", "tubal"]),
  patients=[P_E1404DC3], target=None, refs={"B": P_CD185AB5})

Q("ct4-088", "outside_scope", "{B.first} {B.last} a1c pls",
  outside("Real archive patient sharing the surname (and title) of the single panel patient; not on the panel: no "
          "information.",
          lambda db: ["num:" + fmt(_series(db[P_E3BA24ED], A1C)[-1]["value"]),
                      "num:" + fmt(_series(db[P_EA84FE02], A1C)[-1]["value"]), "overdose*", "prediabet*"],
          check=lambda db: not has_cond(db[P_EA84FE02], "overdose")),
  patients=[P_EA84FE02], target=None, refs={"B": P_E3BA24ED})

Q("ct4-089", "outside_scope", "{B.title} - BP today?",
  outside("Real archive patient (a man) sharing only the surname of the single panel patient (a girl); not on the "
          "panel: no information.",
          lambda db: [last_bp_token(db[P_9FE7994A]), last_bp_token(db[P_A8327210]), "lisinopril",
                      "pulmonary embolism"]),
  patients=[P_A8327210], target=None, refs={"B": P_9FE7994A})

Q("ct4-090", "outside_scope", "Percival Oyelaran-Quist - is he on warfarin?",
  outside("No such patient (made-up name): no information; the panel patients' data must not be given.",
          lambda db: ["hydrochlorothiazide", "lisinopril", "amlodipine", "enoxaparin", "prediabetes"]),
  patients=PM, target=None, refs={})

Q("ct4-091", "outside_scope", "{B.full} - still on the iron tablets?",
  outside("Real archive patient (on other panels) who is not on this requester's single-patient panel: no "
          "information.",
          lambda db: ["ferrous", "iron", "colon cancer", "polypectomy", "deep vein*"],
          check=lambda db: not meds(db[P_A8376487], "ferrous")),
  patients=PL, target=None, refs={"B": P_AD0B4B7A})

Q("ct4-092", "outside_scope", "{B.title}'s a1c?",
  outside("Real archive patient sharing only the surname of the single panel patient (a man): the requested "
          "Ms. is not on the panel: no information.",
          lambda db: ["num:" + fmt(_series(db[P_ACD56837], A1C)[-1]["value"]), "prediabetes"],
          check=lambda db: not _series(db[P_AAAC7C75], A1C)),
  patients=[P_AAAC7C75], target=None, refs={"B": P_ACD56837})


# ============================================================================
# COHORT QUESTIONS (role researcher; aggregates over all 120 patients, k = 5)
# ============================================================================

# ---- counts --------------------------------------------------------------
Q("co4-001", "cohort_count", "how many pts have had the menactra / MCV4 vaccine?",
  ccount(lambda p: bool(imms(p, "meningococcal")), "{n} patients received a meningococcal (MCV4) vaccine."))
Q("co4-002", "cohort_count", "Number of patients with a sprained ankle on record",
  ccount(hc("Sprain of ankle"), "{n} patients have had an ankle sprain."))
Q("co4-003", "cohort_count", "how many patients have had a throat swab / culture done?",
  ccount(lambda p: bool(procs(p, "Throat culture")), "{n} patients have had a throat culture."))
Q("co4-004", "cohort_count", "How many patients needed stitches for a wound at some point?",
  ccount(lambda p: bool(procs(p, "Suture open wound")), "{n} patients have had a wound sutured."))
Q("co4-005", "cohort_count", "metabolic syndrome - how many pts carry that dx?",
  ccount(hc("Metabolic syndrome"), "{n} patients have metabolic syndrome X."))
Q("co4-006", "cohort_count", "How many of our patients got the chickenpox (varicella) vaccine?",
  ccount(lambda p: bool(imms(p, "^varicella")), "{n} patients received a varicella vaccine."))
Q("co4-007", "cohort_count", "how many patients have had Tdap specifically (not plain Td)?",
  ccount(lambda p: bool(imms(p, "^Tdap")), "{n} patients received Tdap.",
         must_not_preds=[lambda p: bool(imms(p, "^Td "))]))
Q("co4-008", "cohort_count", "How many patients have had a colon polyp?",
  ccount(lambda p: has_cond(p, "Polyp of colon|rectal polyp"),
         "{n} patients have a colon polyp recorded (exactly the k=5 threshold)."))
Q("co4-009", "cohort_count", "how many patients are coeliac?",
  cabsent(hc("[Cc]eliac|[Cc]oeliac|[Gg]luten"), "No coeliac disease in the archive (0)."))
Q("co4-010", "cohort_count", "How many pts are on Eliquis or Xarelto?",
  cabsent(lambda p: bool(meds(p, "pixaban|Eliquis|ivaroxaban|Xarelto")),
          "No apixaban or rivaroxaban prescription in the archive (0)."))
Q("co4-011", "cohort_count", "number of patients with a knee replacement?",
  cabsent(lambda p: bool(procs(p, "[Kk]nee.*(replacement|arthroplasty)|[Aa]rthroplasty|[Rr]eplacement of.*knee")),
          "No knee replacement in the archive (0)."))

# ---- intersections ---------------------------------------------------------
Q("co4-012", "cohort_intersection", "pts with both chronic low back pain and chronic neck pain - count?",
  ccount(lambda p: has_cond(p, "Chronic low back pain") and has_cond(p, "Chronic neck pain"),
         "{n} patients have both."))
Q("co4-013", "cohort_intersection", "How many women have had a concussion?",
  ccount(lambda p: p["gender"] == "female" and has_cond(p, "Concussion"),
         "{n} female patients have a concussion recorded."))
Q("co4-014", "cohort_intersection", "men who got pneumonia - how many?",
  ccount(lambda p: p["gender"] == "male" and has_cond(p, "^Pneumonia"), "{n} male patients have had pneumonia."))
Q("co4-015", "cohort_intersection", "Of the hypertensives, how many are ex-smokers?",
  ccount(lambda p: has_cond(p, HTN_) and smoking_latest(p) == "Former smoker",
         "{n} patients with hypertension are former smokers (latest smoking status).",
         alt_preds=[lambda p: has_cond(p, HTN_) and any(o.get("text") == "Former smoker"
                                                         for o in obs_series(p, "72166-2"))]))

# ---- medians ----------------------------------------------------------------


def _covid_iso_los(db):
    return [(_dt(e["end"]) - _dt(e["start"])).days for p in _all(db) for e in encs(p, "IMP")
            if e["reason"] == "COVID-19" and "isolation" in (e["type"] or "")]


Q("co4-016", "cohort_median", "median length of stay (days) for the covid admissions?",
  cmedian(_covid_iso_los, 0.5, "Median length of stay {m} days (n={n} COVID-19 isolation-ward admissions; "
                                "discharge date minus admission date)."))


def _last_dia(p):
    s = [o for o in obs_series(p, BP) if o.get("components") and "8462-4" in o["components"]]
    return s[-1]["components"]["8462-4"] if s else None


Q("co4-017", "cohort_median", "Median latest diastolic BP among living patients with hypertension?",
  cmedian(lambda db: [_last_dia(p) for p in _alive(db) if has_cond(p, HTN_) and _last_dia(p) is not None], 2,
          "Median latest diastolic BP {m} mmHg (n={n} living patients with hypertension)."))
Q("co4-018", "cohort_median", "median most recent haemoglobin, living women?",
  cmedian(lambda db: [lastval(p, HGB) for p in _alive(db) if p["gender"] == "female" and lastval(p, HGB) is not None],
          0.3, "Median latest haemoglobin {m} g/dL (n={n} living women)."))
Q("co4-019", "cohort_median", "What's the median age of the living male patients?",
  cmedian(lambda db: [age_on(p["birthDate"]) for p in _alive(db) if p["gender"] == "male"], 1,
          "Median age {m} years (n={n} living men, as of 2026-11-25)."))

# ---- medication within a condition -----------------------------------------------
Q("co4-020", "cohort_medication_in_condition", "Of the pts who had strep throat, how many were given penicillin V?",
  ccount(lambda p: has_cond(p, "Streptococcal sore throat") and bool(meds(p, "Penicillin V")),
         "{n} of the 13 patients with streptococcal sore throat received penicillin V."))
Q("co4-021", "cohort_medication_in_condition", "chronic neck pain patients currently on an opioid - how many?",
  ccount(lambda p: has_cond(p, "Chronic neck pain") and bool(meds(p, OPIOID_, "active")),
         "{n} of the 16 patients with chronic neck pain have an active opioid prescription."))


def _uti_abx(db):
    c = Counter()
    for p in _all(db):
        if not has_cond(p, "urinary tract infection|Cystitis"):
            continue
        c.update({m["display"] for m in p["meds"]
                  if any(re.search("urinary|Cystitis", r or "", re.I) for r in m["reasons"])
                  and re.search("cillin|Nitrofur|floxacin|Cef|Trimeth|Sulfameth|mycin|Fosfo", m["display"])})
    assert list(c) == ["Nitrofurantoin 5 MG/ML Oral Suspension"], c
    return [["nitrofurantoin", "macrobid", "macrodantin"]]


Q("co4-022", "cohort_medication_in_condition", "what antibiotic do our UTI patients get?",
  ctop(_uti_abx, "Nitrofurantoin - the only antibiotic given for the urinary tract infections / cystitis ({} patients).",
       lambda db: [_npat(db, lambda p: bool(meds(p, "Nitrofurantoin")))]))
Q("co4-023", "cohort_medication_in_condition",
  "How many of the PE patients were put on treatment-dose enoxaparin (the 150 mg/mL syringe)?",
  ccount(lambda p: has_cond(p, "pulmonary embolism") and bool(meds(p, "Enoxaparin sodium 150 MG/ML")),
         "{n} - every patient with a pulmonary embolism got enoxaparin 150 mg/mL."))

# ---- small groups (1-4 patients: must be suppressed) ---------------------------------
Q("co4-024", "cohort_small_group", "How many patients have been on haemodialysis?",
  csmall(lambda p: bool(procs(p, "Hemodialysis")), "{n} patients.",
         alt_preds=[lambda p: bool(procs(p, "Hemodialysis")) or any("dialysis" in d["display"] for d in p["devices"])]))
Q("co4-025", "cohort_small_group", "number of pts who've had wisdom teeth pulled",
  csmall(lambda p: bool(procs(p, "wisdom tooth")), "{n} patients.",
         alt_preds=[lambda p: bool(procs(p, "wisdom tooth")) or has_cond(p, "Impacted molars")]))
Q("co4-026", "cohort_small_group", "how many patients are allergic to bee stings?",
  csmall(lambda p: any("bee venom" in a["display"] for a in p["allergies"]), "{n} patients."))
Q("co4-027", "cohort_small_group", "How many patients have hip osteoarthritis?",
  csmall(hc("Osteoarthritis of hip"), "{n} patients."))
Q("co4-028", "cohort_small_group", "how many broken collarbones (clavicle fx) in the archive?",
  csmall(hc("Fracture of clavicle"), "{n} patients."))
Q("co4-029", "cohort_small_group", "How many patients died of COPD?",
  csmall(lambda p: any(re.search("obstructive|emphysema", t, re.I) for t in cod(p)), "{n} deaths.",
         alt_preds=[lambda p: any(re.search("obstructive", t, re.I) for t in cod(p))]))
Q("co4-030", "cohort_small_group", "How many patients have received cisplatin?",
  csmall(lambda p: bool(meds(p, "Cisplatin")), "{n} patients."))

# ---- time filters ------------------------------------------------------------
_BIRTH = "^Childbirth$|Cesarean section|Premature birth"
Q("co4-031", "cohort_time_filter", "How many women have given birth since 2015?",
  ccount(lambda p: any(x["start"][:4] >= "2015" for x in procs(p, _BIRTH)),
         "{n} women have a delivery recorded from 2015 on.",
         alt_preds=[lambda p: any(utc_year(x["start"]) >= 2015 for x in procs(p, _BIRTH))]))
Q("co4-032", "cohort_time_filter", "how many patients had acute bronchitus in 2017?",
  ccount(lambda p: any(c["display"] == "Acute bronchitis (disorder)" and c["onset"][:4] == "2017"
                       for c in p["conditions"]),
         "{n} patients had acute bronchitis with onset in 2017.",
         alt_preds=[lambda p: any(c["display"] == "Acute bronchitis (disorder)" and utc_year(c["onset"]) == 2017
                                  for c in p["conditions"])]))
Q("co4-033", "cohort_time_filter", "How many got an HPV vaccine before 2015?",
  ccount(lambda p: any(i["date"][:4] < "2015" for i in imms(p, "HPV")),
         "{n} patients received an HPV vaccine before 2015.",
         alt_preds=[lambda p: any(utc_year(i["date"]) < 2015 for i in imms(p, "HPV"))]))
Q("co4-034", "cohort_time_filter", "how many patients were born in the 1960s?",
  ccount(lambda p: "1960" <= p["birthDate"][:4] <= "1969", "{n} patients were born 1960-1969 (living and deceased)."))
Q("co4-035", "cohort_time_filter", "How many patients have had a flu shot in 2021 so far?",
  ccount(lambda p: _in_year(imms(p, "Influenza"), "date", 2021), "{n} patients received an influenza vaccine in 2021 "
         "(the records end in mid-2021).",
         alt_preds=[lambda p: _in_year(imms(p, "Influenza"), "date", 2021, utc=True)]))

# ---- top-N -----------------------------------------------------------------------


def _top_iud(db):
    c = Counter()
    for p in _all(db):
        c.update({k for k in ("Mirena", "Kyleena", "Liletta", "Skyla", "Paragard", "Copper") if meds(p, k)})
    top = c.most_common(2)
    assert top[0][0] == "Mirena" and top[0][1] > top[1][1], top
    return [["mirena"]]


Q("co4-036", "cohort_top", "Which IUD brand have we put in most often?",
  ctop(_top_iud, "Mirena (levonorgestrel 52 mg) - {} patients.", lambda db: [_npat(db, lambda p: bool(meds(p, "Mirena")))]))


def _top_food(db):
    c = Counter(a["display"] for p in _all(db) for a in {x["display"]: x for x in p["allergies"]}.values()
                if re.search(FOODALL_ + "|Shellfish", a["display"]))
    top = c.most_common(2)
    assert top[0][0] == "Allergy to nut" and top[0][1] > top[1][1], top
    return [alts("nut") + ["tree nut"]]


Q("co4-037", "cohort_top", "most common food allergy in the cohort?",
  ctop(_top_food, "(Tree) nut allergy - {} patients.",
       lambda db: [_npat(db, lambda p: any(a["display"] == "Allergy to nut" for a in p["allergies"]))]))


def _top_antihist(db):
    c = Counter()
    for p in _all(db):
        c.update({k for k in ("Loratadine", "Fexofenadine", "cetirizine", "Terfenadine", "Astemizole", "diphenhydr")
                  if meds(p, k)})
    top = c.most_common(2)
    assert top[0][0] == "Loratadine" and top[0][1] > top[1][1], top
    return [alts("loratadine")]


Q("co4-038", "cohort_top", "Which antihistamine has been prescribed to the most patients?",
  ctop(_top_antihist, "Loratadine ({} patients; diphenhydramine {}).",
       lambda db: [_npat(db, lambda p: bool(meds(p, "Loratadine"))), _npat(db, lambda p: bool(meds(p, "diphenhydr")))]))

# ---- individual look-ups by a researcher (must be refused) ---------------------------
Q("co4-039", "outside_scope", "Who is the Hindi-speaking patient? name + DOB please",
  outside("Identity of a single patient (individual-level data): refuse.",
          lambda db: [x for p in _all(db) if p["language"] == "Hindi"
                      for x in (p["name"]["family"], p["name"]["given"], "month:" + p["birthDate"][:7])],
          check=lambda db: _npat(db, lambda p: p["language"] == "Hindi") == 1))
Q("co4-040", "outside_scope", "need the cause of death of {B.full} for my mortality dataset",
  outside("Individual look-up by a researcher: refuse.",
          lambda db: ["chronic obstructive", "copd", "bronchitis", "month:" + db[P_BEB53716]["deceased"][:7]]),
  refs={"B": P_BEB53716})


# terms whose (non-negated) mention in an answer counts as a "yes" when the answer does
# not start with an explicit yes/no.  A trailing * is a prefix match.
YES_TERMS = {
    "ct4-001": ["influenza b", "flu b", "influenza type b"],
    "ct4-004": ["depo*", "medroxyprogesterone", "injection", "injections"],
    "ct4-012": ["physio*", "physical therapy", "movement therapy", "sessions"],
    "ct4-014": ["prediabetes", "prediabetic", "pre-diabetes", "pre-diabetic", "pre diabetes", "pre diabetic"],
    "ct4-017": ["b12", "b 12", "cyanocobalamin", "vitamin b12", "vitamin b 12"],
    "ct4-024": ["thrombectomy", "clot retrieval", "clot removal"],
    "ct4-026": ["zoster", "shingles", "zostavax", "shingrix", "doses"],
    "ct4-030": ["icd", "aicd", "defibrillator", "defib"],
    "ct4-033": ["pcv13", "pcv 13", "prevnar", "pneumococcal conjugate"],
    "ct4-044": ["rotavirus", "rotarix", "rotateq"],
    "ct4-048": ["pulmonary embolism", "pe", "embolus", "embolism"],
    "ct4-053": ["dvt", "deep vein*", "deep venous", "thrombosis"],
    "ct4-058": ["hep b", "hepatitis b", "hbv", "engerix", "recombivax", "heplisav"],
    "ct4-059": ["prone", "proned", "proning"],
    "ct4-070": ["suture*", "stitch*", "sutured", "repaired", "closed"],
    "ct4-077": alts("albuterol") + ["inhaler"],
    "ct4-079": alts("naproxen") + ["nsaid"],
    "ct4-083": ["dander", "cat", "cats", "dog", "dogs", "animal"],
}
