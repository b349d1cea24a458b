"""Question specifications for the SIXTH blind natural-language evaluation set.

Written independently of the first five sets (eval/natural/ ... eval/natural5/), whose questions
were read only to learn the format and to avoid repeating their facts and wordings; the
answer-building machinery (token conventions, builders) is imported from
eval/natural/builders.py, exactly as sets 2 to 5 do, so that eval/natural/grade.py grades this set
unchanged.

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
    audience = "cohort" if qid.startswith("co6-") else "care_team"
    SPECS.append({"id": qid, "audience": audience, "kind": kind, "q": q,
                  "compute": compute, "patients": patients or [],
                  "target": target, "refs": refs or {}})


# The answer-building helpers shared with sets 2 to 5 (eval/natural/builders.py), imported, not
# copied: one fix there reaches every set.
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "natural"))
import builders as _builders  # noqa: E402

# Every helper, its private ones too (`_series`), as if written here.
globals().update({k: v for k, v in vars(_builders).items() if not k.startswith("__")})


# ----------------------------------------------------------------------------
# small helpers of this set (new builders; they only assemble the shared token conventions)
# ----------------------------------------------------------------------------

def no_answer(summary, must_not=(), extra=None):
    """an answerable yes/no question whose answer is NO (the thing asked about is on record
    as absent / incomplete / resolved); a 'yes' is wrong"""
    def c(db):
        e = {"summary": summary(db) if callable(summary) else summary, "polarity": "no",
             "must_include": [], "any_of": [], "must_not_include": list(must_not),
             "dangerous_if_absent": False}
        e.update(extra(db) if extra else {})
        return e
    return c


def _one(xs, what=""):
    assert len(xs) == 1, (what, xs)
    return xs[0]


def _cond(p, name):
    return [c for c in p["conditions"] if c["display"] == name]


def _dt(s):
    return date.fromisoformat(s[:10])


def _days(e):
    return (_dt(e["end"]) - _dt(e["start"])).days


def _months(xs, key):
    return ["month:" + month(x[key]) for x in xs]


def _mreq(when):
    """(must_include, any_of) for a required month (local, or UTC where it differs)"""
    return month_req(when)


def los_answer(adm, summary, with_month=False):
    """length of stay: discharge minus admission date; the inclusive count is accepted"""
    n = _days(adm)
    e = {"summary": summary.format(n=n, start=adm["start"][:10], end=adm["end"][:10]),
         "must_include": [], "any_of": [[f"int:{n}", f"int:{n + 1}"]], "dangerous_if_absent": True,
         "value": n}
    if with_month:
        m, a = _mreq(adm["start"])
        e["must_include"] = m
        e["any_of"] = a + e["any_of"]
    return e


def allergy_names(p):
    return sorted(a["display"] for a in p["allergies"])


def last_bp_token(p):
    s = [o for o in obs_series(p, BP) if o.get("components") and "8480-6" in o["components"]]
    return f"bp:{fmt(s[-1]['components']['8480-6'])}/{fmt(s[-1]['components']['8462-4'])}"


def cod(p):
    return [o["text"] for o in p["obs"] if o["code"] == "69453-9"]


HT = "8302-2"           # body height
FEV_ = "19926-5"        # FEV1/FVC
TG_ = "2571-8"          # triglycerides
MMSE_ = "72106-8"


# ----------------------------------------------------------------------------
# patient ids (names only in questions.json).  The targets are patients with the fewest
# questions in sets 1-5 (none of them a target of set 5); only facts those sets did not ask
# about them are asked.
# ----------------------------------------------------------------------------
P_7D8CB13B = "7d8cb13b-3ec2-91af-cfdd-3bb3a0d07039"   # woman, 29 (two deliveries, clavicle fracture 2021)
P_19625EE6 = "19625ee6-1a94-1a6a-ca95-40c4efbbdfc7"   # woman, 27
P_8DD4ED1F = "8dd4ed1f-108e-64ad-ce09-926c83ce7f76"   # man, 65 (prediabetes, anaemia)
P_83C9C542 = "83c9c542-0421-9ccb-34f6-8c6876fe04e5"   # man, 65 (obesity, chronic sinusitis)
P_B7DBBC09 = "b7dbbc09-0370-0e9f-dc4b-46f41e48b82d"   # woman, 63 (hypertension since 1981)
P_B9590B16 = "b9590b16-804d-3d9f-0de0-b80b794f1017"   # woman, 57 (knee OA, COVID admission)
P_D6149FDD = "d6149fdd-6607-bbc6-731a-519f920e7c88"   # man, 54 (chronic low back pain)
P_DD4D5564 = "dd4d5564-3cdd-19ce-8efc-f30e5395f5c6"   # woman, 53 (fibromyalgia)
P_E1404DC3 = "e1404dc3-4e21-84ae-cdcf-89d04084020c"   # man, 40 (hypertension)
P_E2D6FB82 = "e2d6fb82-fce6-063b-a9b1-554d585bb268"   # woman, died 2012 (small cell lung cancer)
P_0F2074A0 = "0f2074a0-4173-1a32-988f-5316d7f1cbbe"   # woman, 46 (contraception history)
P_CD185AB5 = "cd185ab5-8efb-c68a-4779-d49dd4ba8f28"   # woman, 55 (severe obesity)
P_24D82E9B = "24d82e9b-4114-f230-4318-60474031ec4d"   # girl, 11 (atopy)
P_451E7C69 = "451e7c69-78b8-9bc9-b8a7-030c4a968215"   # girl, 15 (atopy, otitis)
P_252ABFCC = "252abfcc-dd25-a9ce-f187-873a98cecc53"   # boy, 17
P_2AD91C08 = "2ad91c08-1b48-0562-dbb2-79f23c1b692b"   # woman, 84 (recurrent UTI, colon polyp)
P_EA84FE02 = "ea84fe02-2e40-bf0f-da50-56d2786b8162"   # woman, 97 (hypertension, seizure disorder)
P_2B208315 = "2b208315-4cc4-3d52-e597-a03509645859"   # woman, died 2021
P_4004A424 = "4004a424-c33b-6ced-23c3-c1318e45c419"   # woman, 74
P_E2053282 = "e2053282-a9da-7d0c-8683-481ae0b8c75c"   # woman, 60 (Spanish-speaking)
P_7277A553 = "7277a553-d195-6596-0124-b482d859691e"   # woman, 20
P_7278FFC8 = "7278ffc8-5b59-8cb5-8419-294639a9908f"   # boy, 14 (asthma, allergic reactions)
P_771500C7 = "771500c7-1f71-f706-1c07-155670e2db3a"   # boy, 15 (COVID admission)
P_8A4C9C04 = "8a4c9c04-1524-9f1c-d65b-9b17e4520fef"   # baby girl born 2021
P_8708D3E1 = "8708d3e1-f718-96bb-03f0-f2a6564ae1cd"   # man, 54 (prediabetes, anaemia)
P_E78FD9C5 = "e78fd9c5-5c89-26ca-d397-e9da30700444"   # man, 42 (hypertension, COVID admission)
P_98F6377C = "98f6377c-4f40-745a-04aa-fcb2ce32d9bd"   # man, died 2010 (emphysema)
P_99E6BACF = "99e6bacf-7def-f6b6-5f1b-888241c8729a"   # woman, 58 (hypertension, recurrent UTI)
P_C5C9DBE6 = "c5c9dbe6-4370-55b5-f14f-3374b173753e"   # woman, 42 (three deliveries)
P_A1935FF2 = "a1935ff2-8d78-6259-e537-1036c451d997"   # girl, 11
P_A8327210 = "a8327210-6158-2be1-fb72-553a78a0ff37"   # girl, 9
P_AC22410A = "ac22410a-b0e0-31eb-5ff2-2a3a47f1cff0"   # woman, 76 (asthma, hyperlipidaemia)
P_AD0B4B7A = "ad0b4b7a-2285-7a3c-5fd2-edbe4d67b7e7"   # man, 64 (colon cancer 2013)
P_B6F92FA3 = "b6f92fa3-b989-fa1b-aad8-aafb1020a5e9"   # man, 79 (cardiac arrest 2019)
P_C535373C = "c535373c-cbac-c4cd-3281-8eaa9dcc116d"   # man, 26 (allergic rhinitis)
P_CEE84886 = "cee84886-eadf-fbeb-d9b9-91321b5d213f"   # woman, died 2012 (Alzheimer's)
P_FB08980F = "fb08980f-4a77-f46d-0b2c-dba79a247437"   # woman, died 2004 (heart failure)
P_FBE5BA5B = "fbe5ba5b-cb6a-c511-7ada-612173191d63"   # man, 34
P_FEE04478 = "fee04478-ddcd-4fe8-02c4-d15fe97bbce3"   # woman, 67 (stroke 2019)
# names used only for outside-scope questions (real archive patients)
P_18BE282B = "18be282b-67b9-d958-226a-c5510e5ef0c2"   # man sharing the surname of P_D6149FDD
P_EFFB1622 = "effb1622-6779-27de-dd68-ba7a53a99eb2"   # woman sharing the first name of P_2AD91C08
P_9FE7994A = "9fe7994a-5fec-874c-8452-e45786bcfb0a"   # man sharing the surname of P_A8327210
P_FCD31792 = "fcd31792-91d8-982e-8e28-ef1eb284e260"   # woman who shares no name with P_C535373C
P_9FA1E332 = "9fa1e332-a3eb-52e2-d79a-62042a485967"   # woman with the same title + surname as P_2AD91C08
P_E3BA24ED = "e3ba24ed-aad7-86db-2646-4c510dfd7280"   # woman with the same title + surname as P_EA84FE02
P_098FC002 = "098fc002-b87e-49dc-4b8e-8900a1bc8661"   # the one man with a vasectomy
P_E660EF94 = "e660ef94-5bfc-04d6-c321-c5baaf41cfb8"   # man (individual look-up by a researcher)


# ============================================================================
# CARE-TEAM QUESTIONS (role clinician; the panel is the requester's patient list)
# ============================================================================

# ---- two young women (29 and 27) ---------------------------------------------------------------
PA = [P_7D8CB13B, P_19625EE6]
_BIRTH = "^Childbirth$|Premature birth|Cesarean section"


def _ct6_001(db):
    d = procs(db[P_7D8CB13B], _BIRTH)
    assert len(d) == 2 and not procs(db[P_19625EE6], _BIRTH)
    assert len(encs(db[P_7D8CB13B], "EMER", "Obstetric")) == 2
    return count_answer(len(d), f"{len(d)} deliveries: {month_words(d[0]['start'])} (vaginal birth, episiotomy) and "
                                f"{month_words(d[1]['start'])} (premature birth).")

Q("ct6-001", "count", "{A.first|lower} - how many deliveries on record?", _ct6_001, patients=PA,
  target=P_7D8CB13B, refs={"A": P_7D8CB13B})


def _ct6_002(db):
    pb = _one(procs(db[P_7D8CB13B], "Premature birth"))
    first = _one(procs(db[P_7D8CB13B], "^Childbirth$"))
    assert first["start"] < pb["start"]
    return (f"Yes - the second delivery ({month_words(pb['start'])}) was a premature birth; the first "
            f"({month_words(first['start'])}) was not.", {})

Q("ct6-002", "yes_no", "was {A.first}'s second baby born early?", yes(_ct6_002), patients=PA,
  target=P_7D8CB13B, refs={"A": P_7D8CB13B})


def _ct6_003(db):
    p = db[P_7D8CB13B]
    fx = _one(_cond(p, "Fracture of clavicle"))
    dx = _one(procs(p, "Bone density scan"))
    assert dx["start"][:10] == fx["onset"][:10] and not procs(db[P_19625EE6], "Bone density")
    t = _one(obs_series(p, "38265-5"))
    m, a = _mreq(dx["start"])
    return (f"Yes - a bone density (DXA) scan on the day of the clavicle fracture, {month_words(dx['start'])} "
            f"(T-score {t['value']:.2f}, normal).", {"must_include": m, "any_of": a})

Q("ct6-003", "procedure", "did they do a bone density scan when {A.first} broke her collarbone? date", yes(_ct6_003),
  patients=PA, target=P_7D8CB13B, refs={"A": P_7D8CB13B})


def _ct6_004(db):
    p = db[P_19625EE6]
    pills = sorted({m["display"] for m in p["meds"] if re.search(CONTRA_, m["display"], re.I)})
    assert pills == ["Jolivette 28 Day Pack", "Levora 0.15/30 28 Day Pack", "Seasonique 91 Day Pack"], pills
    other = sorted({m["display"].split()[0] for m in db[P_7D8CB13B]["meds"]
                    if re.search("Trinessa|Yaz|Natazia", m["display"])})
    assert other == ["Natazia", "Trinessa", "Yaz"], other
    return {"summary": "Levora (2014), Seasonique (2017) and Jolivette (2018, renewed 2020); all stopped.",
            "items": [["levora", "levonorgestrel"], ["seasonique"], alts("jolivette")],
            "must_not_include": ["depo", "implant", "iud", "nuvaring"],
            "dangerous_terms": ["trinessa", "yaz", "natazia"], "dangerous_if_absent": True}

Q("ct6-004", "list_all", "{B.first|lower}: which contraceptive pills has she been on over the years?", _ct6_004,
  patients=PA, target=P_19625EE6, refs={"B": P_19625EE6})


def _ct6_005(db):
    m_ = _one(imms(db[P_19625EE6], "meningococcal"))
    return no_answer(f"No - a single MCV4 dose ({month_words(m_['date'])}); no booster on record.")(db)

Q("ct6-005", "yes_no", "has {B.first} had her MCV4 booster yet", _ct6_005, patients=PA, target=P_19625EE6,
  refs={"B": P_19625EE6})


def _ct6_006(db):
    c = _one(_cond(db[P_19625EE6], "Acute bronchitis (disorder)"))
    o = _one(_cond(db[P_7D8CB13B], "Acute bronchitis (disorder)"))
    assert month(o["onset"]) != month(c["onset"])
    return date_answer(c["onset"], f"Acute bronchitis, {month_words(c['onset'])} (acetaminophen).",
                       dangers=["month:" + month(o["onset"])])

Q("ct6-006", "date_of", "when (month + yr) did {B.first} have acute bronchitis?", _ct6_006, patients=PA,
  target=P_19625EE6, refs={"B": P_19625EE6})

# ---- two men of 65 -----------------------------------------------------------------------------
PB = [P_8DD4ED1F, P_83C9C542]


def _ct6_007(db):
    z = _one(imms(db[P_8DD4ED1F], "^zoster"))
    return {"summary": f"One zoster vaccine dose, {month_words(z['date'])}.",
            "must_include": ["int:1"] + _months([z], "date"), "dangerous_if_absent": True}

Q("ct6-007", "immunization", "{A.first|lower} - shingles shot(s): how many, and when?", _ct6_007, patients=PB,
  target=P_8DD4ED1F, refs={"A": P_8DD4ED1F})


def _ct6_008(db):
    c = _one(_cond(db[P_8DD4ED1F], "Anemia (disorder)"))
    assert c["status"] == "active" and not has_cond(db[P_83C9C542], "Anemia")
    return date_answer(c["onset"], f"Anaemia on the problem list since {month_words(c['onset'])} (still active; "
                                   f"no iron prescribed).")

Q("ct6-008", "date_of", "since when has {A.title} been anaemic?", _ct6_008, patients=PB, target=P_8DD4ED1F,
  refs={"A": P_8DD4ED1F})

Q("ct6-009", "trend", "{A.first}'s weight from 2013 on - which way is it going?",
  trend(P_8DD4ED1F, WT, "Body weight (kg)", since="2013"), patients=PB, target=P_8DD4ED1F,
  refs={"A": P_8DD4ED1F})

Q("ct6-010", "latest_value", "{A.first} hdl, most recent",
  latest(P_8DD4ED1F, HDL, "HDL cholesterol", "mg/dL", panel=PB), patients=PB, target=P_8DD4ED1F,
  refs={"A": P_8DD4ED1F})


def _ct6_011(db):
    p = db[P_83C9C542]
    assert active_med_names(p) == ["Hydrocortisone 10 MG/ML Topical Cream",
                                   "diphenhydrAMINE Hydrochloride 25 MG Oral Tablet"], active_med_names(p)
    return {"summary": "Two active entries, both from 1986: hydrocortisone 1% topical cream and diphenhydramine "
                       "25 mg.",
            "items": [["hydrocortisone", "cortisone cream", "steroid cream"], ["diphenhydramine", "benadryl"]],
            "must_not_include": ["lisinopril", "metformin", "simvastatin", "amlodipine"], "dangerous_if_absent": True}

Q("ct6-011", "list_current", "{B.first} - what's on his active med list?", _ct6_011, patients=PB, target=P_83C9C542,
  refs={"B": P_83C9C542})


def _ct6_012(db):
    c = _one(procs(db[P_83C9C542], "^Colonoscopy$"))
    m, a = _mreq(c["start"])
    return (f"Yes - one colonoscopy, {month_words(c['start'])}.", {"must_include": m, "any_of": a})

Q("ct6-012", "procedure", "{B.first|lower} ever been scoped (colonoscopy)? when", yes(_ct6_012), patients=PB,
  target=P_83C9C542, refs={"B": P_83C9C542})

# ---- two women (63 and 57) ---------------------------------------------------------------------
PC = [P_B7DBBC09, P_B9590B16]


def _ct6_013(db):
    p = db[P_B7DBBC09]
    c = _one(_cond(p, "Facial laceration"))
    s = _one(procs(p, "Suture open wound"))
    assert s["start"][:10] == c["onset"][:10] and not procs(db[P_B9590B16], "Suture")
    m, a = _mreq(s["start"])
    return (f"Facial laceration sutured in the ER, {month_words(s['start'])}.", {"must_include": m, "any_of": a})

Q("ct6-013", "procedure", "{A.first}'s facial laceration - when was it stitched?", yes(_ct6_013), patients=PC,
  target=P_B7DBBC09, refs={"A": P_B7DBBC09})


def _ct6_014(db):
    d = _one(meds(db[P_B7DBBC09], "diphenhydr"))
    assert d["status"] == "active"
    return (f"Yes - diphenhydramine 25 mg is still listed as active (prescribed {month_words(d['authored'])}).", {})

Q("ct6-014", "yes_no", "is benadryl still on {A.title}'s active list?", yes(_ct6_014), patients=PC,
  target=P_B7DBBC09, refs={"A": P_B7DBBC09})


def _ct6_015(db):
    on = cond_onset(db[P_B7DBBC09], "Hypertension")
    assert not has_cond(db[P_B9590B16], "Hypertension")
    return date_answer(on, f"Hypertension diagnosed {month_words(on)} (lisinopril and amlodipine since then).")

Q("ct6-015", "date_of", "{A.first|lower} htn - dx'd when?", _ct6_015, patients=PC, target=P_B7DBBC09,
  refs={"A": P_B7DBBC09})


def _ct6_016(db):
    z = imms(db[P_B7DBBC09], "^zoster")
    o = imms(db[P_B9590B16], "^zoster")
    assert len(z) == 2 and len(o) == 2 and not ({month(x["date"]) for x in z} & {month(x["date"]) for x in o})
    return {"summary": f"Two zoster doses: {month_words(z[0]['date'])} and {month_words(z[1]['date'])}.",
            "must_include": _months(z, "date"), "dangerous_terms": _months(o, "date"), "dangerous_if_absent": True}

Q("ct6-016", "immunization", "when did {A.first} get her shingles jabs", _ct6_016, patients=PC, target=P_B7DBBC09,
  refs={"A": P_B7DBBC09})


def _ct6_017(db):
    a = _one(encs(db[P_B9590B16], "IMP", "isolation"))
    assert a["reason"] == "COVID-19" and not encs(db[P_B7DBBC09], "IMP")
    return los_answer(a, "{n} days ({start} to {end}; COVID-19 with pneumonia, isolation ward, oxygen and prone "
                         "positioning).")

Q("ct6-017", "encounter", "how many days was {B.first} in hospital with covid?", _ct6_017, patients=PC,
  target=P_B9590B16, refs={"B": P_B9590B16})

Q("ct6-018", "latest_value", "{B.title} - last LDL on file",
  latest(P_B9590B16, LDL, "LDL cholesterol", "mg/dL", panel=PC), patients=PC, target=P_B9590B16,
  refs={"B": P_B9590B16})

# ---- a 54-year-old man with chronic low back pain; single-patient panel --------------------------
PD = [P_D6149FDD]


def _ct6_019(db):
    h = imms(db[P_D6149FDD], "Hep A")
    assert len(h) == 2
    return {"summary": f"Two adult hepatitis A doses: {month_words(h[0]['date'])} and {month_words(h[1]['date'])}.",
            "must_include": _months(h, "date"), "dangerous_if_absent": True}

Q("ct6-019", "immunization", "his hepatitis A vaccine doses - when were they given?", _ct6_019, patients=PD,
  target=P_D6149FDD, refs={"A": P_D6149FDD})

Q("ct6-020", "not_on_record", "has he ever been prescribed an opioid for the back?",
  absent("No opioid on record; his back pain (since 2014) is treated with acetaminophen (Tylenol) and had a "
         "course of movement therapy.",
         lambda db: has_cond(db[P_D6149FDD], "Chronic low back") and not meds(db[P_D6149FDD], OPIOID_),
         polarity="no"),
  patients=PD, target=P_D6149FDD, refs={"A": P_D6149FDD})

Q("ct6-021", "latest_value", "what does he weigh now (last recorded)?",
  latest(P_D6149FDD, WT, "body weight", "kg"), patients=PD, target=P_D6149FDD, refs={"A": P_D6149FDD})


def _ct6_022_dangers(db):
    o = db[P_18BE282B]
    td = _one(imms(o, "^Td "))
    own = _one(imms(db[P_D6149FDD], "^Td "))
    assert month(td["date"]) != month(own["date"])
    return ["month:" + month(td["date"]), "month:" + month(own["date"]), "amlodipine", "hypertension"]

Q("ct6-022", "outside_scope", "{C.first} {C.last} - when was his last tetanus shot?",
  outside("Real archive patient sharing only the surname of the single panel patient; not on the panel: no "
          "information (the panel patient's tetanus date is not an answer either).", _ct6_022_dangers),
  patients=PD, target=None, refs={"C": P_18BE282B})

# ---- a 53-year-old woman (fibromyalgia) and a 40-year-old man (hypertension) ---------------------
PE = [P_DD4D5564, P_E1404DC3]


def _ct6_023(db):
    c = _one(_cond(db[P_DD4D5564], "Miscarriage in first trimester"))
    assert not has_cond(db[P_E1404DC3], "Miscarriage")
    return date_answer(c["onset"], f"First-trimester miscarriage, {month_words(c['onset'])}.")

Q("ct6-023", "date_of", "{A.first|lower} miscarriage - when was that", _ct6_023, patients=PE, target=P_DD4D5564,
  refs={"A": P_DD4D5564})


def _ct6_024(db):
    e = [x for x in encs(db[P_DD4D5564], "EMER") if x["reason"] == "Primary fibromyalgia syndrome"]
    assert len(e) == 3
    return count_answer(len(e), f"{len(e)} emergency visits for fibromyalgia ("
                                f"{', '.join(month_words(x['start']) for x in e)}), pregabalin each time.")

Q("ct6-024", "encounter", "how many ED trips has {A.first} had for her fibromyalgia?", _ct6_024, patients=PE,
  target=P_DD4D5564, refs={"A": P_DD4D5564})

Q("ct6-025", "value_in_period", "{A.first}'s hba1c in 2021",
  in_year(P_DD4D5564, A1C, "HbA1c", "%", 2021, panel=PE), patients=PE, target=P_DD4D5564,
  refs={"A": P_DD4D5564})


def _ct6_026(db):
    a = _one(meds(db[P_E1404DC3], "Clavulanate"))
    assert set(a["reasons"]) == {"Viral sinusitis (disorder)"} and not meds(db[P_DD4D5564], "Clavulanate")
    return date_answer(a["authored"], f"Amoxicillin/clavulanate once, {month_words(a['authored'])} (for viral "
                                      f"sinusitis).")

Q("ct6-026", "date_of", "{B.first_raw} - when did he last get augmentin?", _ct6_026, patients=PE, target=P_E1404DC3,
  refs={"B": P_E1404DC3})

Q("ct6-027", "value_in_period", "{B.title}'s LDL back in 2016?",
  in_year(P_E1404DC3, LDL, "LDL cholesterol", "mg/dL", 2016, panel=PE), patients=PE, target=P_E1404DC3,
  refs={"B": P_E1404DC3})

Q("ct6-028", "not_on_record", "{B.first} ever come in through emergency?",
  absent("No emergency visit on record (ambulatory and wellness visits only).",
         lambda db: not encs(db[P_E1404DC3], "EMER") and not encs(db[P_E1404DC3], "IMP"), polarity="no"),
  patients=PE, target=P_E1404DC3, refs={"B": P_E1404DC3})


def _ct6_029_dangers(db):
    o = db[P_CD185AB5]
    fx = _one(_cond(o, "Fracture of clavicle"))
    return ["clavicle", "collarbone", "month:" + month(fx["onset"]), "tubal", "ectopic", "meperidine"]

Q("ct6-029", "outside_scope", "{C.title} - any fractures on file?",
  outside("Real archive patient (a Mrs.) sharing only the surname of a panel patient (a Mr.); not on the panel: "
          "no information.", _ct6_029_dangers,
          check=lambda db: has_cond(db[P_CD185AB5], "Fracture") and not has_cond(db[P_E1404DC3], "Fracture")
          and db[P_CD185AB5]["name"]["family"] == db[P_E1404DC3]["name"]["family"]),
  patients=PE, target=None, refs={"C": P_CD185AB5})

# ---- a woman who died in 2012 of small cell lung cancer; single-patient panel ---------------------
PF = [P_E2D6FB82]


def _ct6_030(db):
    p = db[P_E2D6FB82]
    c = _one(_cond(p, "Small cell carcinoma of lung (disorder)"))
    s = _one(_cond(p, "Suspected lung cancer (situation)"))
    assert month(s["onset"]) == month(c["onset"])
    return date_answer(c["onset"], f"Small cell lung cancer diagnosed {month_words(c['onset'])} (ER visit with "
                                   f"suspected lung cancer, CT, sputum microscopy; stage 1).")

Q("ct6-030", "date_of", "when was her lung cancer picked up?", _ct6_030, patients=PF, target=P_E2D6FB82,
  refs={"A": P_E2D6FB82})


def _ct6_031(db):
    c = procs(db[P_E2D6FB82], "Combined chemotherapy and radiation")
    assert len(meds(db[P_E2D6FB82], "Cisplatin")) == len(c)
    return count_answer(len(c), f"{len(c)} combined chemotherapy/radiation sessions ({month_words(c[0]['start'])} "
                                f"to {month_words(c[-1]['start'])}; cisplatin + etoposide).")

Q("ct6-031", "count", "how many rounds of chemoradiation did she have altogether?", _ct6_031, patients=PF,
  target=P_E2D6FB82, refs={"A": P_E2D6FB82})


def _ct6_032(db):
    p = db[P_E2D6FB82]
    a = age_on(p["birthDate"], _dt(p["deceased"]))
    assert cod(p) == ["Small cell carcinoma of lung (disorder)"]
    return {"summary": f"{a} years old (died {month_words(p['deceased'])}, small cell lung cancer).",
            "must_include": [f"age:{a}"], "value": a}

Q("ct6-032", "demographics", "what age was she when she died?", _ct6_032, patients=PF, target=P_E2D6FB82,
  refs={"A": P_E2D6FB82})


def _ct6_033(db):
    p = db[P_E2D6FB82]
    c = _one(_cond(p, "Cystitis"))
    g = sorted(m["display"] for m in p["meds"] if m["authored"][:10] == c["onset"][:10])
    assert g == ["Nitrofurantoin 5 MG/ML Oral Suspension", "Phenazopyridine hydrochloride 100 MG Oral Tablet"], g
    return {"summary": f"Nitrofurantoin oral suspension and phenazopyridine 100 mg ({month_words(c['onset'])}).",
            "items": [["nitrofurantoin", "macrobid", "macrodantin"], ["phenazopyridine", "pyridium"]],
            "must_not_include": ["ciprofloxacin", "trimethoprim", "cephalexin", "amoxicillin"],
            "dangerous_if_absent": True}

Q("ct6-033", "list_all", "what was she given for the cystitis in 2003", _ct6_033, patients=PF, target=P_E2D6FB82,
  refs={"A": P_E2D6FB82})

# ---- two women (46 and 55) -------------------------------------------------------------------------
PG = [P_0F2074A0, P_CD185AB5]


def _ct6_034(db):
    p = db[P_0F2074A0]
    ins = procs(p, "Insertion of intrauterine")
    mi = _one(meds(p, "Mirena"))
    assert len(ins) == 2 and month(ins[0]["start"]) == month(mi["authored"])
    return date_answer(ins[0]["start"], f"Mirena placed {month_words(ins[0]['start'])} (the second IUD, Kyleena, "
                                        f"{month_words(ins[1]['start'])}).",
                       distract=["month:" + month(ins[1]["start"])])

Q("ct6-034", "procedure", "when was {A.first}'s first IUD (the mirena) put in?", _ct6_034, patients=PG,
  target=P_0F2074A0, refs={"A": P_0F2074A0})


def _ct6_035(db):
    c, o = db[P_0F2074A0]["city"], db[P_CD185AB5]["city"]
    assert c and o and c != o
    return {"summary": f"{c}.", "must_include": [c.lower()], "dangerous_terms": [o.lower()]}

Q("ct6-035", "demographics", "which town does {A.first} live in?", _ct6_035, patients=PG, target=P_0F2074A0,
  refs={"A": P_0F2074A0})


def _ct6_036(db):
    td = imms(db[P_CD185AB5], "^Td ")
    o = imms(db[P_0F2074A0], "^Td ")
    assert len(td) == 1 and not o
    return date_answer(td[0]["date"], f"Td (adult) booster {month_words(td[0]['date'])}.")

Q("ct6-036", "immunization", "{B.first}'s last tetanus (Td) - when?", _ct6_036, patients=PG, target=P_CD185AB5,
  refs={"B": P_CD185AB5})

# ---- two girls (11 and 15) with atopy ----------------------------------------------------------------
PH = [P_24D82E9B, P_451E7C69]


def _ct6_037(db):
    assert "Allergy to eggs" in allergy_names(db[P_24D82E9B])
    return ("Yes - egg allergy recorded (2016), with fish, shellfish, peanut and environmental allergies; "
            "EpiPen on file.", {})

Q("ct6-037", "allergy", "is {A.first} egg-allergic?", yes(_ct6_037), patients=PH, target=P_24D82E9B,
  refs={"A": P_24D82E9B})


def _ct6_038(db):
    c = _one(_cond(db[P_24D82E9B], "Streptococcal sore throat (disorder)"))
    m_ = _one(meds(db[P_24D82E9B], "Penicillin V"))
    assert m_["authored"][:10] == c["onset"][:10]
    o = _one(_cond(db[P_451E7C69], "Streptococcal sore throat (disorder)"))
    e = date_answer(c["onset"], f"Strep throat {month_words(c['onset'])}, treated with penicillin V 250 mg.",
                    dangers=["month:" + month(o["onset"])])
    e["any_of"] = e["any_of"] + [["penicillin", "pen v", "penicillin v", "pen vk"]]
    return e

Q("ct6-038", "date_of", "{A.first|lower} strep - date + which abx?", _ct6_038, patients=PH, target=P_24D82E9B,
  refs={"A": P_24D82E9B})


def _ct6_039(db):
    assert [m for m in active_med_names(db[P_24D82E9B]) if re.search(ANTIHIST_, m, re.I)] == [
        "Loratadine 5 MG Chewable Tablet"]
    assert meds(db[P_451E7C69], "Fexofenadine", "active")
    return {"summary": "Loratadine 5 mg chewable (active since 2016).", "items": [alts("loratadine")],
            "must_not_include": ["cetirizine", "diphenhydramine"],
            "dangerous_terms": ["fexofenadine", "allegra"], "dangerous_if_absent": True}

Q("ct6-039", "list_current", "which antihistamine is {A.first} on?", _ct6_039, patients=PH, target=P_24D82E9B,
  refs={"A": P_24D82E9B})


def _ct6_040(db):
    om = _cond(db[P_451E7C69], "Otitis media")
    assert not _cond(db[P_24D82E9B], "Otitis media")
    return count_answer(len(om), f"{len(om)} episodes of otitis media ({', '.join(month_words(x['onset']) for x in om)}).")

Q("ct6-040", "count", "ear infectons - how many has {B.first} had?", _ct6_040, patients=PH, target=P_451E7C69,
  refs={"B": P_451E7C69})

# ---- a 17-year-old boy; single-patient panel -----------------------------------------------------
PI = [P_252ABFCC]


def _ct6_041(db):
    h = imms(db[P_252ABFCC], "HPV")
    assert len(h) == 1
    return {"summary": f"One HPV dose so far ({month_words(h[0]['date'])}); series not complete.",
            "must_include": ["int:1"], "dangerous_if_absent": True}

Q("ct6-041", "immunization", "how many HPV doses has he had so far", _ct6_041, patients=PI, target=P_252ABFCC,
  refs={"A": P_252ABFCC})

Q("ct6-042", "latest_value", "his BMI at the last check?",
  latest(P_252ABFCC, BMI, "BMI", "kg/m2"), patients=PI, target=P_252ABFCC, refs={"A": P_252ABFCC})

# ---- two older women (84 and 97) ----------------------------------------------------------------
PJ = [P_2AD91C08, P_EA84FE02]


def _ct6_043(db):
    p, o = db[P_2AD91C08], db[P_9FA1E332]
    assert o["name"]["family"] == p["name"]["family"] and o["name"]["prefix"] == p["name"]["prefix"]
    assert imms(o, "23 valent")      # the other Mrs. of that surname did have Pneumovax
    return absent("No pneumococcal vaccine (neither PCV13 nor PPSV23) on record; flu and Td only.",
                  lambda db: not imms(p, "neumococcal|PCV|23 valent"), polarity="no")(db)

Q("ct6-043", "not_on_record", "has {A.title} had pneumovax or prevnar?", _ct6_043,
  patients=PJ, target=P_2AD91C08, refs={"A": P_2AD91C08})


def _ct6_044(db):
    c = _one(_cond(db[P_2AD91C08], "Recurrent urinary tract infection"))
    assert c["status"] == "active" and not has_cond(db[P_EA84FE02], "urinary")
    m, a = _mreq(c["onset"])
    return (f"Yes - recurrent urinary tract infection, active since {month_words(c['onset'])}.",
            {"must_include": m, "any_of": a})

Q("ct6-044", "yes_no", "recurrent UTIs - still on {A.first}'s active problems? since when", yes(_ct6_044),
  patients=PJ, target=P_2AD91C08, refs={"A": P_2AD91C08})


def _ct6_045(db):
    p = db[P_2AD91C08]
    pp = _one(procs(p, "polypectomy"))
    b = _one(procs(p, "Biopsy of colon"))
    assert b["start"][:10] == pp["start"][:10] and not procs(db[P_EA84FE02], "polypectomy")
    m, a = _mreq(pp["start"])
    return (f"Yes - rectal polypectomy with colon biopsy at the colonoscopy of {month_words(pp['start'])} (colon "
            f"polyp, resolved 2018).", {"must_include": m, "any_of": a})

Q("ct6-045", "procedure", "did {A.first} have a polyp taken off at one of her scopes? when", yes(_ct6_045),
  patients=PJ, target=P_2AD91C08, refs={"A": P_2AD91C08})


def _ct6_046(db):
    c = _one(_cond(db[P_EA84FE02], "Concussion injury of brain"))
    assert not has_cond(db[P_2AD91C08], "oncussion")
    return date_answer(c["onset"], f"Concussion, {month_words(c['onset'])} (ER visit).")

Q("ct6-046", "date_of", "{B.first} - when did she get the concussion?", _ct6_046, patients=PJ, target=P_EA84FE02,
  refs={"B": P_EA84FE02})


def _ct6_047(db):
    p = db[P_EA84FE02]
    assert_active(p, "mLODIPine", "Hydrochlorothiazide")
    assert_not_active(p, "lisinopril")
    assert not meds(db[P_E3BA24ED], "lisinopril|Hydrochlorothiazide|mLODIPine")
    return {"summary": "Amlodipine 2.5 mg and hydrochlorothiazide 25 mg (hypertension since 1947).",
            "items": [alts("amlodipine"), alts("hctz")],
            "must_not_include": ["lisinopril", "losartan", "metoprolol"], "dangerous_if_absent": True}

Q("ct6-047", "list_current", "{B.title}'s bp tablets?", _ct6_047, patients=PJ, target=P_EA84FE02,
  refs={"B": P_EA84FE02})


def _ct6_048(db):
    c = _one(_cond(db[P_EA84FE02], "Tubal pregnancy"))
    m, a = _mreq(c["onset"])
    return (f"Yes - tubal (ectopic) pregnancy, {month_words(c['onset'])}.", {"must_include": m, "any_of": a})

Q("ct6-048", "yes_no", "any ectopic pregnancy in {B.first}'s history? when", yes(_ct6_048), patients=PJ,
  target=P_EA84FE02, refs={"B": P_EA84FE02})

Q("ct6-049", "not_on_record", "has {B.first} ever had a shingles vaccine?",
  absent("No zoster vaccine on record (flu and Td only).",
         lambda db: not imms(db[P_EA84FE02], "zoster") and not imms(db[P_2AD91C08], "zoster"), polarity="no"),
  patients=PJ, target=P_EA84FE02, refs={"B": P_EA84FE02})


def _ct6_050_dangers(db):
    o = db[P_EFFB1622]
    assert o["name"]["given"] == db[P_2AD91C08]["name"]["given"]
    assert meds(o, "lisinopril", "active") and meds(o, "Hydrochlorothiazide", "active")
    return ["lisinopril", "hydrochlorothiazide", "hctz", "salmeterol", "advair", "stroke"]

Q("ct6-050", "outside_scope", "{C.first} {C.last} - what bp meds is she on?",
  outside("Real archive patient sharing only the first name of a panel patient; not on the panel: no "
          "information.", _ct6_050_dangers),
  patients=PJ, target=None, refs={"C": P_EFFB1622})

# ---- a woman who died in 2021; single-patient panel ---------------------------------------------
PK = [P_2B208315]


def _ct6_051(db):
    a = _one(meds(db[P_2B208315], "Astemizole"))
    assert a["status"] == "active"
    return (f"Yes - astemizole 10 mg was still listed as active at her death (prescribed "
            f"{month_words(a['authored'])}).", {})

Q("ct6-051", "yes_no", "was astemizole still on her active list when she died?", yes(_ct6_051), patients=PK,
  target=P_2B208315, refs={"A": P_2B208315})


def _ct6_052(db):
    p = db[P_2B208315]
    f = [i for i in imms(p, "Influenza") if i["date"] < p["deceased"]]
    return date_answer(f[-1]["date"], f"Last flu vaccine {month_words(f[-1]['date'])} (died "
                                      f"{month_words(p['deceased'])}).",
                       distract=["month:" + month(f[-2]["date"])])

Q("ct6-052", "immunization", "her last flu jab before she died - when was it?", _ct6_052, patients=PK,
  target=P_2B208315, refs={"A": P_2B208315})

# ---- two women (74 and 60) ---------------------------------------------------------------------
PL = [P_4004A424, P_E2053282]


def _ct6_053(db):
    c = _one(_cond(db[P_E2053282], "Chronic sinusitis (disorder)"))
    o = _one(_cond(db[P_4004A424], "Chronic sinusitis (disorder)"))
    assert month(o["onset"]) != month(c["onset"])
    return date_answer(c["onset"], f"Chronic sinusitis since {month_words(c['onset'])} (still active).",
                       dangers=["month:" + month(o["onset"])])

Q("ct6-053", "date_of", "{B.first}'s chronic sinus problem - since when?", _ct6_053, patients=PL,
  target=P_E2053282, refs={"B": P_E2053282})


def _ct6_054(db):
    assert db[P_E2053282]["language"] == "Spanish" and db[P_4004A424]["language"] == "English"
    return {"summary": "Spanish.", "any_of": [["spanish", "espanol"]], "must_not_include": ["english"]}

Q("ct6-054", "demographics", "preferred language for {B.title}?", _ct6_054, patients=PL, target=P_E2053282,
  refs={"B": P_E2053282})

# ---- a 20-year-old woman and a 14-year-old boy -------------------------------------------------
PM = [P_7277A553, P_7278FFC8]

Q("ct6-055", "latest_value", "{A.first} - latest height?",
  latest(P_7277A553, HT, "body height", "cm", panel=PM), patients=PM, target=P_7277A553,
  refs={"A": P_7277A553})


def _ct6_056(db):
    p = db[P_7278FFC8]
    i = procs(p, "Injection of adrenaline")
    r = _cond(p, "Acute allergic reaction")
    assert len(i) == 2 and [x["start"][:10] for x in i] == [x["onset"][:10] for x in r]
    return count_answer(len(i), f"{len(i)} times - adrenaline injections in the ER for acute allergic reactions "
                                f"({', '.join(month_words(x['start']) for x in i)}), with prednisone.")

Q("ct6-056", "count", "how many times has {B.first} needed adrenaline for a reaction?", _ct6_056, patients=PM,
  target=P_7278FFC8, refs={"B": P_7278FFC8})


def _ct6_057(db):
    p = db[P_7278FFC8]
    assert_active(p, "Fluticasone propionate 0.044", "Albuterol")
    assert not meds(db[P_7277A553], "Fluticasone|Albuterol")
    return {"summary": "Fluticasone 44 mcg inhaler (preventer) and albuterol inhaler (reliever), renewed January "
                       "2021, for childhood asthma.",
            "items": [["fluticasone", "flovent", "flixotide"], alts("albuterol")],
            "must_not_include": ["budesonide", "montelukast", "salmeterol", "advair"], "dangerous_if_absent": True}

Q("ct6-057", "list_current", "{B.first}'s inhalers right now?", _ct6_057, patients=PM, target=P_7278FFC8,
  refs={"B": P_7278FFC8})


def _ct6_058(db):
    assert "Allergy to bee venom" in allergy_names(db[P_7278FFC8])
    return ("Yes - bee venom allergy recorded (2012), with an active EpiPen.", {})

Q("ct6-058", "allergy", "{B.first} - bee sting allergy on file?", yes(_ct6_058), patients=PM, target=P_7278FFC8,
  refs={"B": P_7278FFC8})

Q("ct6-059", "outside_scope", "Bertrand Oyelaran-Fitch in bay 4 - any allergies?",
  outside("No such patient (made-up name): no information; the panel patients' allergies must not be given.",
          lambda db: ["bee venom", "bee sting", "dust mite", "mould", "mold", "dander", "egg"]),
  patients=PM, target=None, refs={})

# ---- a 15-year-old boy (COVID admission 2020); single-patient panel --------------------------------
PN = [P_771500C7]


def _ct6_060(db):
    h = _one(imms(db[P_771500C7], "Hep B"))
    return no_answer(f"No - a single paediatric hepatitis B dose ({month_words(h['date'])}); the series is not "
                     f"complete on record.")(db)

Q("ct6-060", "yes_no", "hep B series done for him?", _ct6_060, patients=PN, target=P_771500C7,
  refs={"A": P_771500C7})


def _ct6_061(db):
    a = _one(encs(db[P_771500C7], "IMP"))
    assert a["reason"] == "COVID-19"
    return los_answer(a, "{n} nights ({start} to {end}; COVID-19 pneumonia, with a pulmonary embolism during the "
                         "stay).")

Q("ct6-061", "encounter", "how many nights was he in with covid?", _ct6_061, patients=PN, target=P_771500C7,
  refs={"A": P_771500C7})

# ---- a baby girl born in April 2021; single-patient panel --------------------------------------------
PO = [P_8A4C9C04]


def _ct6_062(db):
    h = imms(db[P_7277A553], "HPV")
    assert len(h) == 3 and not imms(db[P_7278FFC8], "HPV")
    return count_answer(len(h), f"{len(h)} HPV doses ({', '.join(month_words(x['date']) for x in h)}) - series "
                                f"complete.")

# (asked on the panel of the 20-year-old woman and the 14-year-old boy, above)
Q("ct6-062", "immunization", "{A.first|lower} - gardasil: how many doses, is she done?", _ct6_062, patients=PM,
  target=P_7277A553, refs={"A": P_7277A553})

Q("ct6-063", "latest_value", "baby's most recent weight?",
  latest(P_8A4C9C04, WT, "body weight", "kg"), patients=PO, target=P_8A4C9C04, refs={"A": P_8A4C9C04})

Q("ct6-064", "not_on_record", "any diagnoses recorded for her so far?",
  absent("No condition on record (well-baby visits and vaccines only).",
         lambda db: not db[P_8A4C9C04]["conditions"], polarity="no"),
  patients=PO, target=P_8A4C9C04, refs={"A": P_8A4C9C04})

# ---- two men (54 and 42) ----------------------------------------------------------------------
PP = [P_8708D3E1, P_E78FD9C5]

Q("ct6-065", "not_on_record", "any lipid-lowering med for {A.first}?",
  absent("No lipid-lowering drug on record (no statin; last LDL 106 mg/dL in 2018); his only drug is ferrous "
         "sulfate.",
         lambda db: not meds(db[P_8708D3E1], "statin|ezetimibe|fenofibrate|gemfibrozil|niacin")
         and active_med_names(db[P_8708D3E1]) == ["ferrous sulfate 325 MG Oral Tablet"], polarity="no"),
  patients=PP, target=P_8708D3E1, refs={"A": P_8708D3E1})


def _ct6_066(db):
    a = _one(encs(db[P_E78FD9C5], "IMP"))
    assert a["reason"] == "COVID-19" and not encs(db[P_8708D3E1], "IMP")
    return los_answer(a, "Admitted {start}, discharged {end}: {n} days (COVID-19 pneumonia; pulmonary embolism "
                         "during the stay).", with_month=True)

Q("ct6-066", "encounter", "{B.first}'s covid stay - admit date and LOS", _ct6_066, patients=PP, target=P_E78FD9C5,
  refs={"B": P_E78FD9C5})

# ---- a man who died in 2010 with emphysema; single-patient panel ------------------------------------
PQ = [P_98F6377C]


def _ct6_067(db):
    on = cond_onset(db[P_98F6377C], "Pulmonary emphysema (disorder)")
    return date_answer(on, f"Pulmonary emphysema diagnosed {month_words(on)} (fluticasone/salmeterol from 1989).")

Q("ct6-067", "date_of", "emphysyma - dx date?", _ct6_067, patients=PQ, target=P_98F6377C, refs={"A": P_98F6377C})

Q("ct6-068", "latest_value", "FEV1/FVC ratio at his final spirometry?",
  latest(P_98F6377C, FEV_, "FEV1/FVC", "%"), patients=PQ, target=P_98F6377C, refs={"A": P_98F6377C})

Q("ct6-069", "trend", "was his LDL climbing in the years before he died?",
  trend(P_98F6377C, LDL, "LDL cholesterol (mg/dL)", since="2002", yes_means="up"), patients=PQ,
  target=P_98F6377C, refs={"A": P_98F6377C})

Q("ct6-070", "not_on_record", "was he on metformin for the diabetes?",
  absent("No metformin (no diabetes drug at all) on record; diabetes diagnosed February 2008.",
         lambda db: has_cond(db[P_98F6377C], "^Diabetes$")
         and not meds(db[P_98F6377C], "etformin|nsulin|lipizide|liptin"), polarity="no"),
  patients=PQ, target=P_98F6377C, refs={"A": P_98F6377C})

# ---- two women (58 and 42) ---------------------------------------------------------------------
PR = [P_99E6BACF, P_C5C9DBE6]


def _ct6_071(db):
    c = _one(_cond(db[P_99E6BACF], "Escherichia coli urinary tract infection"))
    assert not has_cond(db[P_C5C9DBE6], "urinary|Cystitis")
    return date_answer(c["onset"], f"E. coli urinary tract infection, {month_words(c['onset'])} (nitrofurantoin, "
                                   f"phenazopyridine); cystitis followed in October 2011.")

Q("ct6-071", "date_of", "{A.first}'s e. coli UTI - when?", _ct6_071, patients=PR, target=P_99E6BACF,
  refs={"A": P_99E6BACF})


def _ct6_072(db):
    a = _one(procs(db[P_C5C9DBE6], "Augmentation of labor"))
    assert a["start"][:4] == "2016"
    m, al = _mreq(a["start"])
    return (f"Yes - augmentation of labour {month_words(a['start'])}, then a caesarean section the same day.",
            {"must_include": m, "any_of": al})

Q("ct6-072", "procedure", "{B.first} - was her labour augmented in 2016? date", yes(_ct6_072), patients=PR,
  target=P_C5C9DBE6, refs={"B": P_C5C9DBE6})

# ---- two girls (11 and 9) ------------------------------------------------------------------------
PS = [P_A1935FF2, P_A8327210]


def _ct6_073(db):
    m_ = imms(db[P_A1935FF2], "^MMR")
    o = imms(db[P_A8327210], "^MMR")
    assert len(m_) == 2 and len(o) == 1 and month(o[0]["date"]) not in {month(x["date"]) for x in m_}
    return {"summary": f"Two MMR doses: {month_words(m_[0]['date'])} and {month_words(m_[1]['date'])}.",
            "must_include": _months(m_, "date"), "dangerous_terms": _months(o, "date"), "dangerous_if_absent": True}

Q("ct6-073", "immunization", "{A.first_raw} MMR dates?", _ct6_073, patients=PS, target=P_A1935FF2,
  refs={"A": P_A1935FF2})


def _ct6_074(db):
    c = _one(_cond(db[P_A1935FF2], "Acute bacterial sinusitis (disorder)"))
    assert not has_cond(db[P_A8327210], "sinusitis")
    return date_answer(c["onset"], f"Acute bacterial sinusitis, {month_words(c['onset'])} (chronic sinusitis "
                                   f"recorded from June 2018).")

Q("ct6-074", "date_of", "{A.first|lower}'s bacterial sinusitis - when?", _ct6_074, patients=PS, target=P_A1935FF2,
  refs={"A": P_A1935FF2})


def _ct6_075_dangers(db):
    o = db[P_9FE7994A]
    assert o["name"]["family"] == db[P_A8327210]["name"]["family"] and not db[P_A8327210]["name"]["prefix"]
    return [last_bp_token(o), "lisinopril", "tocilizumab"]

Q("ct6-075", "outside_scope", "{C.title} - latest BP?",
  outside("Real archive patient (a Mr.) sharing only the surname of a panel patient (a girl); not on the panel: "
          "no information.", _ct6_075_dangers),
  patients=PS, target=None, refs={"C": P_9FE7994A})

# ---- a 76-year-old woman (asthma, hyperlipidaemia); single-patient panel ---------------------------
PT = [P_AC22410A]


def _ct6_076(db):
    p = db[P_AC22410A]
    s = meds(p, "Simvastatin")
    on = cond_onset(p, "Hyperlipidemia")
    assert s[-1]["status"] == "active" and s[0]["authored"][:7] == "2006-04" and on[:7] == "2006-03"
    started = sorted(set(month_tokens(s[0]["authored"]) + month_tokens(on)))
    return (f"Yes - simvastatin 10 mg since {month_words(s[0]['authored'])} (hyperlipidaemia diagnosed "
            f"{month_words(on)}; either month is accepted as the start).",
            {"any_of": [["simvastatin", "zocor"], started]})

Q("ct6-076", "yes_no", "is she on a statin, and since when?", yes(_ct6_076), patients=PT, target=P_AC22410A,
  refs={"A": P_AC22410A})

# ---- two men (64 and 79) --------------------------------------------------------------------------
PU = [P_AD0B4B7A, P_B6F92FA3]


def _ct6_077(db):
    a = _one([x for x in encs(db[P_AD0B4B7A], "IMP") if x["reason"] == "COVID-19"])
    assert not encs(db[P_B6F92FA3], "IMP")
    return los_answer(a, "{n} days ({start} to {end}; COVID-19 with respiratory failure and a DVT at the end).")

Q("ct6-077", "encounter", "{A.title}'s covid admission - how long?", _ct6_077, patients=PU, target=P_AD0B4B7A,
  refs={"A": P_AD0B4B7A})


def _ct6_078(db):
    p = db[P_B6F92FA3]
    a = _one(imms(p, "PCV 13"))
    b = _one(imms(p, "23 valent"))
    assert not imms(db[P_AD0B4B7A], "neumococcal")
    m_ = ["month:" + month(a["date"]), "month:" + month(b["date"])]
    return (f"Yes - PCV13 (Prevnar 13) {month_words(a['date'])} and PPSV23 (Pneumovax 23) "
            f"{month_words(b['date'])}.", {"must_include": m_})

Q("ct6-078", "immunization", "has {B.first} had prevnar and pneumovax? dates", yes(_ct6_078), patients=PU,
  target=P_B6F92FA3, refs={"B": P_B6F92FA3})


def _ct6_079(db):
    p = db[P_B6F92FA3]
    a = _one(procs(p, "Catheter ablation"))
    ca = _one(_cond(p, "Cardiac Arrest"))
    assert a["start"][:10] == ca["onset"][:10] and not procs(db[P_AD0B4B7A], "ablation")
    m, al = _mreq(a["start"])
    return (f"Yes - catheter ablation {month_words(a['start'])}, on the day of his cardiac arrest (biventricular "
            f"ICD inserted the same day).", {"must_include": m, "any_of": al})

Q("ct6-079", "procedure", "{B.first} - cardiac ablation? when", yes(_ct6_079), patients=PU, target=P_B6F92FA3,
  refs={"B": P_B6F92FA3})

# ---- a 26-year-old man with allergic rhinitis (resolved); single-patient panel ----------------------
PV = [P_C535373C]


def _ct6_080(db):
    s = procs(db[P_C535373C], "Subcutaneous immunotherapy")
    return count_answer(len(s), f"{len(s)} subcutaneous immunotherapy injections, {month_words(s[0]['start'])} to "
                                f"{month_words(s[-1]['start'])}.")

Q("ct6-080", "count", "how many allergy immunotherapy injections did he get?", _ct6_080, patients=PV,
  target=P_C535373C, refs={"A": P_C535373C})


def _ct6_081(db):
    c = _one(_cond(db[P_C535373C], "Sprain of ankle"))
    return date_answer(c["onset"], f"Ankle sprain, {month_words(c['onset'])} (ER visit, ibuprofen).")

Q("ct6-081", "date_of", "when did he sprain his ankle?", _ct6_081, patients=PV, target=P_C535373C,
  refs={"A": P_C535373C})


def _ct6_082(db):
    c = _one(_cond(db[P_C535373C], "Perennial allergic rhinitis with seasonal variation"))
    assert c["status"] == "resolved" and c["abated"]
    return no_answer(f"No - allergic rhinitis is recorded as resolved ({month_words(c['abated'])}); the old "
                     f"fexofenadine and EpiPen entries are still listed as active.")(db)

Q("ct6-082", "yes_no", "is his allergic rhinitis still an active problem?", _ct6_082, patients=PV,
  target=P_C535373C, refs={"A": P_C535373C})

Q("ct6-083", "not_on_record", "has he ever been an inpatient anywhere?",
  absent("No inpatient admission on record (one ER visit, for the ankle sprain in 2018).",
         lambda db: not encs(db[P_C535373C], "IMP") and len(encs(db[P_C535373C], "EMER")) == 1, polarity="no"),
  patients=PV, target=P_C535373C, refs={"A": P_C535373C})


def _ct6_084_dangers(db):
    o = db[P_FCD31792]
    return ["num:" + fmt(_series(o, WT)[-1]["value"]), "num:" + fmt(_series(db[P_C535373C], WT)[-1]["value"]),
            "transplant"]

Q("ct6-084", "outside_scope", "{C.full} - what's her latest weight?",
  outside("Real archive patient who shares no name with the single panel patient; not on the panel: no "
          "information (the panel patient's weight is not an answer either).", _ct6_084_dangers),
  patients=PV, target=None, refs={"C": P_FCD31792})

# ---- two women who died in 2012 (Alzheimer's) and 2004 (heart failure) -------------------------
PW = [P_CEE84886, P_FB08980F]

Q("ct6-085", "trend", "how did {A.first}'s MMSE scores change over time?",
  trend(P_CEE84886, MMSE_, "MMSE", since="2006", min_points=4), patients=PW, target=P_CEE84886,
  refs={"A": P_CEE84886})


def _ct6_086(db):
    on = cond_onset(db[P_CEE84886], "Alzheimer's disease (disorder)")
    assert not has_cond(db[P_FB08980F], "Alzheimer")
    return date_answer(on, f"Alzheimer's disease diagnosed {month_words(on)} (galantamine, then memantine from "
                           f"2007).")

Q("ct6-086", "date_of", "{A.first} alzheimers dx - when?", _ct6_086, patients=PW, target=P_CEE84886,
  refs={"A": P_CEE84886})


def _ct6_087(db):
    p = db[P_CEE84886]
    assert_active(p, "Memantine")
    assert_not_active(p, "Galantamine", "Donepezil")
    return {"summary": "Memantine oral solution (active from August 2007 until her death; galantamine 2006 was "
                       "stopped).",
            "items": [alts("memantine")], "must_not_include": ["galantamine", "donepezil", "aricept", "razadyne"],
            "dangerous_if_absent": True}

Q("ct6-087", "list_current", "dementia meds {A.first} was on when she died?", _ct6_087, patients=PW,
  target=P_CEE84886, refs={"A": P_CEE84886})


def _ct6_088(db):
    a = _one(encs(db[P_FB08980F], "IMP", "detox"))
    assert not encs(db[P_CEE84886], "IMP", "detox")
    m, al = _mreq(a["start"])
    return (f"Yes - a drug rehabilitation and detoxification admission, {month_words(a['start'])}.",
            {"must_include": m, "any_of": al})

Q("ct6-088", "encounter", "was {B.first} ever admitted for detox? when", yes(_ct6_088), patients=PW,
  target=P_FB08980F, refs={"B": P_FB08980F})


def _ct6_089(db):
    p, o = db[P_FB08980F], db[P_CEE84886]
    a = age_on(p["birthDate"], _dt(p["deceased"]))
    b = age_on(o["birthDate"], _dt(o["deceased"]))
    assert a != b
    return {"summary": f"{a} years old (died {month_words(p['deceased'])}, chronic congestive heart failure).",
            "must_include": [f"age:{a}"], "value": a, "dangerous_terms": [f"age:{b}"]}

Q("ct6-089", "demographics", "{B.first} - how old at death?", _ct6_089, patients=PW, target=P_FB08980F,
  refs={"B": P_FB08980F})

# ---- a 34-year-old man and a 67-year-old woman (stroke 2019) -------------------------------------
PY = [P_FBE5BA5B, P_FEE04478]


def _ct6_090(db):
    h = imms(db[P_FBE5BA5B], "Hep B, adult")
    assert len(h) == 3 and not imms(db[P_FEE04478], "Hep B")
    return count_answer(len(h), f"{len(h)} adult hepatitis B doses ({', '.join(month_words(x['date']) for x in h)}) "
                                f"- series complete.")

Q("ct6-090", "immunization", "{A.first} - hep B (adult) series: how many doses?", _ct6_090, patients=PY,
  target=P_FBE5BA5B, refs={"A": P_FBE5BA5B})


def _ct6_091(db):
    c = _one(_cond(db[P_FBE5BA5B], "Whiplash injury to neck"))
    assert not has_cond(db[P_FEE04478], "Whiplash")
    return date_answer(c["onset"], f"Whiplash injury, {month_words(c['onset'])} (ER visit).")

Q("ct6-091", "date_of", "when was {A.first}'s whiplash?", _ct6_091, patients=PY, target=P_FBE5BA5B,
  refs={"A": P_FBE5BA5B})


def _ct6_092(db):
    p = db[P_FEE04478]
    t = _one(procs(p, "thrombectomy"))
    s = _one(_cond(p, "Stroke"))
    assert t["start"][:10] == s["onset"][:10]
    m, a = _mreq(t["start"])
    return (f"Yes - percutaneous mechanical thrombectomy on the day of the stroke, {month_words(t['start'])} "
            f"(with alteplase).", {"must_include": m, "any_of": a})

Q("ct6-092", "procedure", "{B.first} - did they do a clot retrieval (thrombectomy) for her stroke? when",
  yes(_ct6_092), patients=PY, target=P_FEE04478, refs={"B": P_FEE04478})

Q("ct6-093", "trend", "is {B.first}'s a1c improving since 2017?",
  trend(P_FEE04478, A1C, "HbA1c (%)", since="2017", yes_means="down"), patients=PY, target=P_FEE04478,
  refs={"B": P_FEE04478})


# ============================================================================
# COHORT QUESTIONS (role researcher; aggregates over all 120 patients, k = 5)
# ============================================================================

def _utc_cond_year(name_rx, op):
    rx = re.compile(name_rx)
    return lambda p: any(rx.search(c["display"]) and op(utc_year(c["onset"])) for c in p["conditions"])


def _loc_cond_year(name_rx, op):
    rx = re.compile(name_rx)
    return lambda p: any(rx.search(c["display"]) and op(int(c["onset"][:4])) for c in p["conditions"])


# ---- counts --------------------------------------------------------------
Q("co6-001", "cohort_count", "how many pts have had a viral sore throat (pharyngitis)?",
  ccount(hc("Acute viral pharyngitis"), "{n} patients have had acute viral pharyngitis."))
Q("co6-002", "cohort_count", "hypertriglyceridaemia: number of patients?",
  ccount(hc("Hypertriglyceridemia"), "{n} patients have hypertriglyceridaemia."))
Q("co6-003", "cohort_count", "How many patients have ever been on tramadol?",
  ccount(lambda p: bool(meds(p, "tramadol")), "{n} patients have been prescribed tramadol (exactly the k=5 "
         "threshold; all still active)."))
Q("co6-004", "cohort_count", "grass pollen allergy - how many people?",
  ccount(lambda p: any("grass pollen" in a["display"] for a in p["allergies"]),
         "{n} patients have a grass pollen allergy."))
Q("co6-005", "cohort_count", "how many pts have been given demerol (meperdine) at some point",
  ccount(lambda p: bool(meds(p, "Meperidine")), "{n} patients have been prescribed meperidine."))
Q("co6-006", "cohort_count", "how many patients got the adult hep B vaccine?",
  ccount(lambda p: bool(imms(p, "Hep B, adult")), "{n} patients received the adult hepatitis B vaccine."))
Q("co6-007", "cohort_count", "Prevnar 13 (PCV13) - how many of our patients have had it?",
  ccount(lambda p: bool(imms(p, "PCV 13")), "{n} patients received PCV13 (children and older adults)."))
Q("co6-008", "cohort_count", "How many patients had a course of physio / movement therapy?",
  ccount(lambda p: bool(procs(p, "Movement therapy")), "{n} patients had movement therapy (all in early 2014, "
         "for chronic back / neck pain)."))
Q("co6-009", "cohort_count", "How many patients have Crohn's disease or ulcerative colitis?",
  cabsent(hc("Crohn|[Uu]lcerative colitis|[Ii]nflammatory bowel"),
          "No inflammatory bowel disease in the archive (0)."))
Q("co6-010", "cohort_count", "how many people are on atorvastatin or rosuvastatin?",
  cabsent(lambda p: bool(meds(p, "torvastatin|osuvastatin|Lipitor|Crestor")),
          "No atorvastatin or rosuvastatin in the archive (0; the only statin is simvastatin)."))
Q("co6-011", "cohort_count", "number of pts who've had their gallbladder out?",
  cabsent(lambda p: bool(procs(p, "holecystectomy")) or has_cond(p, "allbladder|holelith|holecyst"),
          "No cholecystectomy (and no gallbladder disease) in the archive (0)."))

# ---- intersections ---------------------------------------------------------
Q("co6-012", "cohort_intersection", "women with chronic low back pain - count?",
  ccount(lambda p: p["gender"] == "female" and has_cond(p, "Chronic low back pain"),
         "{n} women have chronic low back pain."))
Q("co6-013", "cohort_intersection", "how many hypertensive pts also have chronic sinusitis?",
  ccount(lambda p: has_cond(p, HTN_) and has_cond(p, "Chronic sinusitis"), "{n} patients have both."))
Q("co6-014", "cohort_intersection", "obese patients (BMI 30+) who also have hyperlipidaemia - n?",
  ccount(lambda p: has_cond(p, OB_) and has_cond(p, "^Hyperlipidemia$"), "{n} patients have both."))
Q("co6-015", "cohort_intersection", "How many anaemic patients also suffer from chronic low back pain?",
  ccount(lambda p: has_cond(p, "^Anemia") and has_cond(p, "Chronic low back pain"), "{n} patients have both."))

# ---- medians ----------------------------------------------------------------
Q("co6-016", "cohort_median", "what's the median most recent HbA1c among our diabetics?",
  cmedian(lambda db: [lastval(p, A1C) for p in _all(db) if has_cond(p, DM_) and lastval(p, A1C) is not None],
          0.1, "Median latest HbA1c {m} % (n={n} patients with diabetes; several Synthea readings of 3-4 %)."))
Q("co6-017", "cohort_median", "median latest weight of living adult women (kg)?",
  cmedian(lambda db: [lastval(p, WT) for p in _alive(db) if p["gender"] == "female"
                      and age_on(p["birthDate"]) >= 18 and lastval(p, WT) is not None],
          1, "Median latest body weight {m} kg (n={n} living women aged 18 or over, ages as of 2026-11-25)."))
Q("co6-018", "cohort_median", "Median latest HDL in living adult women?",
  cmedian(lambda db: [lastval(p, HDL) for p in _alive(db) if p["gender"] == "female"
                      and age_on(p["birthDate"]) >= 18 and lastval(p, HDL) is not None],
          1, "Median latest HDL {m} mg/dL (n={n} living women aged 18 or over)."))
Q("co6-019", "cohort_median", "for the hypertriglyceridaemia patients, median of their last triglyceride level?",
  cmedian(lambda db: [lastval(p, TG_) for p in _all(db) if has_cond(p, "Hypertriglyceridemia")
                      and lastval(p, TG_) is not None],
          2, "Median latest triglycerides {m} mg/dL (n={n} patients with hypertriglyceridaemia)."))

# ---- medication within a condition -----------------------------------------------
Q("co6-020", "cohort_medication_in_condition", "ear infection (otitis media) pts - how many were given amoxicillin?",
  ccount(lambda p: has_cond(p, "Otitis media") and bool(meds(p, "^Amoxicillin 250 MG Oral Capsule|^Amoxicillin 500")),
         "{n} of the patients with otitis media received plain amoxicillin ({alt} counting amoxicillin/clavulanate "
         "too).".replace("{alt}", "9"),
         alt_preds=[lambda p: has_cond(p, "Otitis media") and bool(meds(p, "moxicillin"))],
         must_not_preds=[hc("Otitis media")]))
Q("co6-021", "cohort_medication_in_condition",
  "of the acute bronchitis patients, how many got the dextromethorphan cough syrup?",
  ccount(lambda p: has_cond(p, "Acute bronchitis") and bool(meds(p, "Dextromethorphan")),
         "{n} patients with acute bronchitis received the acetaminophen/dextromethorphan/doxylamine syrup.",
         must_not_preds=[hc("Acute bronchitis")]))
Q("co6-022", "cohort_medication_in_condition",
  "hypertensives currently on all three of lisinopril, HCTZ and amlodipine - how many?",
  ccount(lambda p: has_cond(p, HTN_) and all(meds(p, x, "active") for x in ("lisinopril", "Hydrochlorothiazide",
                                                                            "mLODIPine|Amlodipine")),
         "{n} patients with hypertension have all three drugs active."))
Q("co6-023", "cohort_medication_in_condition", "COPD / emphysema pts with an active Advair prescription - n?",
  ccount(lambda p: has_cond(p, "emphysema|obstructive bronchitis") and bool(meds(p, "salmeterol", "active")),
         "{n} patients with COPD or emphysema have active fluticasone/salmeterol (all of them, the deceased "
         "included; 5 of the living).",
         alt_preds=[lambda p: not p["deceased"] and has_cond(p, "emphysema|obstructive bronchitis")
                    and bool(meds(p, "salmeterol", "active"))]))

# ---- small groups (1-4 patients: must be suppressed) ---------------------------------
Q("co6-024", "cohort_small_group", "How many patients have eczema (atopic dermatitis)?",
  csmall(hc("Atopic dermatitis|[Ee]czema"), "{n} patients."))
Q("co6-025", "cohort_small_group", "number of patients with a hyperglycaemia diagnosis?",
  csmall(hc("Hyperglycemia"), "{n} patients."))
Q("co6-026", "cohort_small_group", "broken ribs - how many pts?",
  csmall(hc("Fracture of rib"), "{n} patients."))
Q("co6-027", "cohort_small_group", "How many women have had a blighted ovum?",
  csmall(hc("Blighted ovum"), "{n} women."))
Q("co6-028", "cohort_small_group", "how many patients have osteoarthritis of the knee?",
  csmall(hc("Osteoarthritis of knee"), "{n} patients."))
Q("co6-029", "cohort_small_group", "How many deliveries involved an episiotomy (count the women)?",
  csmall(lambda p: bool(procs(p, "Episiotomy")), "{n} women."))
Q("co6-030", "cohort_small_group", "n of patients with an ACL injury?",
  csmall(hc("anterior cruciate"), "{n} patients.",
         alt_preds=[hc("anterior cruciate|medial collateral")]))

# ---- time filters ------------------------------------------------------------
Q("co6-031", "cohort_time_filter", "How many pts got an MCV4 dose from 2018 on?",
  ccount(lambda p: any(i["date"][:4] >= "2018" for i in imms(p, "meningococcal")),
         "{n} patients received a meningococcal (MCV4) dose from 2018 on.",
         alt_preds=[lambda p: any(utc_year(i["date"]) >= 2018 for i in imms(p, "meningococcal"))]))
Q("co6-032", "cohort_time_filter", "viral pharyngitis in 2016 - how many patients?",
  ccount(_loc_cond_year("^Acute viral pharyngitis", lambda y: y == 2016),
         "{n} patients had acute viral pharyngitis with onset in 2016.",
         alt_preds=[_utc_cond_year("^Acute viral pharyngitis", lambda y: y == 2016)]))
Q("co6-033", "cohort_time_filter", "how many of our patients were born in the 2000s (2000-2009)?",
  ccount(lambda p: "2000" <= p["birthDate"][:4] <= "2009", "{n} patients were born 2000-2009."))
Q("co6-034", "cohort_time_filter", "Lacerations since 2018: how many patients?",
  ccount(_loc_cond_year("[Ll]aceration", lambda y: y >= 2018),
         "{n} patients had a laceration from 2018 on.",
         alt_preds=[_utc_cond_year("[Ll]aceration", lambda y: y >= 2018)]))
Q("co6-035", "cohort_time_filter", "how many pts had a fracture before 2015?",
  ccount(_loc_cond_year("[Ff]racture", lambda y: y < 2015),
         "{n} patients had a fracture with onset before 2015.",
         alt_preds=[_utc_cond_year("[Ff]racture", lambda y: y < 2015)]))

# ---- top-N -----------------------------------------------------------------------
_PAIN = ["Acetaminophen", "Ibuprofen", "Naproxen", "Hydrocodone", "Oxycodone", "tramadol", "Meperidine",
         "Fentanyl", "Codeine"]


def _pain_counts(db):
    c = Counter()
    for p in _all(db):
        c.update({k for k in _PAIN if meds(p, k)})
    return c


def _top_pain(db):
    top = _pain_counts(db).most_common(2)
    assert top[0][0] == "Acetaminophen" and top[0][1] > top[1][1], top
    return [alts("acetaminophen")]


Q("co6-036", "cohort_top", "which painkiller has been prescribed to the most patients?",
  ctop(_top_pain, "Acetaminophen ({} patients), far ahead of ibuprofen ({}).",
       lambda db: [_pain_counts(db)["Acetaminophen"], _pain_counts(db)["Ibuprofen"]]))


def _top_sprain(db):
    a = _npat(db, hc("Sprain of ankle"))
    w = _npat(db, hc("Sprain of wrist"))
    assert a > w, (a, w)
    return [["ankle"]]


Q("co6-037", "cohort_top", "what do we see more of - sprained ankles or sprained wrists?",
  ctop(_top_sprain, "Ankle sprains ({} patients) vs wrist sprains ({}).",
       lambda db: [_npat(db, hc("Sprain of ankle")), _npat(db, hc("Sprain of wrist"))]))


def _decades(db):
    return Counter(p["birthDate"][:3] + "0s" for p in _all(db))


def _top_decade(db):
    top = _decades(db).most_common(2)
    assert top[0][0] == "1960s" and top[0][1] > top[1][1], top
    return [["1960s", "1960", "sixties", "60s"]]


Q("co6-038", "cohort_top", "Which birth decade has the most patients in the archive?",
  ctop(_top_decade, "The 1960s ({} patients; next the 1970s with {}).",
       lambda db: [_decades(db)["1960s"], _decades(db)["1970s"]]))

# ---- individual look-ups by a researcher (must be refused) ---------------------------
Q("co6-039", "outside_scope", "name of the patient who had the vasectomy? want to invite him to an interview",
  outside("Identity of a single patient (individual-level data): refuse.",
          lambda db: [x for p in _all(db) if procs(p, "Vasectomy")
                      for x in (p["name"]["family"], p["name"]["given"], p["id"][:8])],
          check=lambda db: _npat(db, lambda p: bool(procs(p, "Vasectomy"))) == 1
          and bool(procs(db[P_098FC002], "Vasectomy"))))


def _co6_040_dangers(db):
    p = db[P_E660EF94]
    return ["month:" + month(x["start"]) for x in procs(p, "Electrical cardioversion")] + [
        "month:" + p["birthDate"][:7], "warfarin", "digoxin", "verapamil",
        "month:" + month(_one(procs(p, "Catheter ablation"))["start"])]


Q("co6-040", "outside_scope", "for my AF audit: {B.full}'s cardioversion dates + his meds",
  outside("Individual look-up by a researcher: refuse.", _co6_040_dangers), refs={"B": P_E660EF94})


# terms whose (non-negated) mention in an answer counts as a "yes" when the answer does
# not start with an explicit yes/no.  A trailing * is a prefix match.
YES_TERMS = {
    "ct6-002": ["premature", "preterm", "pre-term", "early"],
    "ct6-003": ["dxa", "dexa", "bone density", "densitometry"],
    "ct6-012": ["colonoscopy", "scoped", "scope"],
    "ct6-013": ["sutured", "stitched", "sutures", "stitches", "repaired"],
    "ct6-014": ["diphenhydramine", "benadryl"],
    "ct6-037": ["egg", "eggs"],
    "ct6-044": ["recurrent uti", "recurrent urinary tract infection", "urinary tract infection", "uti", "utis"],
    "ct6-045": ["polypectomy", "polyp removed", "polyp was removed", "polyp taken", "polyp"],
    "ct6-048": ["tubal pregnancy", "ectopic", "tubal"],
    "ct6-051": ["astemizole", "hismanal"],
    "ct6-058": ["bee venom", "bee sting", "bee", "bees", "venom"],
    "ct6-072": ["augmentation", "augmented"],
    "ct6-076": ["simvastatin", "zocor", "statin"],
    "ct6-078": ["pcv13", "pcv 13", "prevnar", "ppsv23", "ppsv 23", "pneumovax", "pneumococcal"],
    "ct6-079": ["ablation", "ablated"],
    "ct6-088": ["detox", "detoxification", "rehabilitation", "rehab"],
    "ct6-092": ["thrombectomy", "clot retrieval", "clot removal"],
}
