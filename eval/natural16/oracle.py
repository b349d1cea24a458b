#!/usr/bin/env python3
"""Oracle for the SIXTEENTH blind natural-language evaluation set.

eval/natural/oracle.py (the same FHIR digest, helpers, build and check) run on this folder:
it builds eval/natural16/questions.json from eval/natural16/questions_src.py, reading the raw
Synthea FHIR R4 bundles with the Python standard library only; it shares no code with the
service. --check also fails when a question repeats one of the first fifteen sets
(verbatim, or with only the patient's name swapped).

  python3 eval/natural16/oracle.py --build   # (re)write questions.json from questions_src.py
  python3 eval/natural16/oracle.py --check   # recompute every expected value, assert it
                                            # matches questions.json; also checks that no
                                            # patient name leaked outside questions.json, that
                                            # no question repeats one of sets 1-15
                                            # (also with only the patient's name swapped), and
                                            # that the ids are ct16-NNN / co16-NNN
  python3 eval/natural16/oracle.py --facts PATIENT_ID   # dump one patient's digest

  The parsed bundles are cached in /tmp (keyed by file names and sizes); to force a
  fresh parse of the raw bundles: ORACLE_CACHE=/nonexistent/x python3 eval/natural16/oracle.py --check
"""
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "natural_oracle", os.path.join(HERE, "..", "natural", "oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)
oracle.HERE = HERE
oracle.CACHE = os.environ.get("ORACLE_CACHE", "/tmp/natural16_eval_oracle_cache.json")
# questions_src.py imports its helpers with `from oracle import ...`: the shared oracle, pointed
# at this folder.
sys.modules["oracle"] = oracle

EARLIER_SETS = ("natural", "natural2", "natural3", "natural4", "natural5", "natural6", "natural7", "natural8", "natural9", "natural10", "natural11", "natural12", "natural13", "natural14", "natural15")
ID_PREFIX = {"care_team": "ct16-", "cohort": "co16-"}


def _norm(t):
    return re.sub(r"\s+", " ", re.sub(r"[^a-z ]", "", oracle._ascii(t).lower())).strip()


def _earlier_questions():
    """(folder, question) for every question of sets 1-15; a missing file is a failure, not a
    skipped check"""
    out, missing = [], 0
    for folder in EARLIER_SETS:
        path = os.path.join(HERE, "..", folder, "questions.json")
        if not os.path.exists(path):
            print(f"MISSING earlier set {path}: the repeat checks need it")
            missing += 1
            continue
        with open(path) as fh:
            out.extend(json.load(fh))
    return out, missing


def earlier_set_duplicates(qs):
    """the sixteenth set must not repeat a question of sets 1-15 (eval/natural ... eval/natural15) nor
    one of its own; texts are compared lower-cased, accent-, digit- and punctuation-free"""
    earlier, n = _earlier_questions()
    seen = {}
    for q in earlier:
        seen.setdefault(_norm(q["question"]), q["id"])
    own = {}
    for q in qs:
        k = _norm(q["question"])
        if k in seen:
            print(f"DUPLICATE of an earlier set: {q['id']} = {seen[k]}")
            n += 1
        if k in own:
            print(f"DUPLICATE within this set: {q['id']} = {own[k]}")
            n += 1
        own.setdefault(k, q["id"])
    return n


def _name_words():
    """every name part of the 120 archive patients (digit-free, accent-free, lower case)"""
    words = set()
    for p in oracle.load_all().values():
        for x in (p["name"]["given"], p["name"]["family"]):
            for part in re.split(r"[\s'-]", _norm(x)):
                if part:
                    words.add(part)
    return words


def _template(t, names):
    """name words -> X; a possessive (a name followed by 's, normalised to name + "s") counts as the
    name too (set 9's check left possessives unchanged and so missed "<name>'s height" swaps)"""
    return " ".join("X" if w in names or (w.endswith("s") and w[:-1] in names) else w for w in _norm(t).split())


def earlier_set_templates(qs):
    """stricter than earlier_set_duplicates: the sixteenth set must not reuse the wording of a
    question of sets 1-15 (or of an earlier question of its own) with only the patient's name
    swapped (patient-name words replaced by X before the comparison; a question made only of a
    name plus one or two words is exempt)"""
    names = _name_words()
    earlier, n = _earlier_questions()
    seen = {}
    for q in earlier:
        seen.setdefault(_template(q["question"], names), q["id"])
    own = {}
    for q in qs:
        k = _template(q["question"], names)
        if len([w for w in k.split() if w != "X"]) <= 2:
            continue
        if k in seen:
            print(f"TEMPLATE REPEAT of an earlier set: {q['id']} = {seen[k]} ({k!r})")
            n += 1
        if k in own:
            print(f"TEMPLATE REPEAT within this set: {q['id']} = {own[k]} ({k!r})")
            n += 1
        own.setdefault(k, q["id"])
    return n


def id_prefixes(qs):
    """ids ct16-NNN (care team) / co16-NNN (cohort), matching the audience"""
    n = 0
    for q in qs:
        want = ID_PREFIX.get(q["audience"])
        if want is None or not re.fullmatch(re.escape(want) + r"\d{3}", q["id"]):
            print(f"BAD ID {q['id']} for audience {q['audience']}")
            n += 1
    return n


if __name__ == "__main__":
    oracle.EXTRA_CHECKS.append(earlier_set_duplicates)
    oracle.EXTRA_CHECKS.append(earlier_set_templates)
    oracle.EXTRA_CHECKS.append(id_prefixes)
    sys.exit(oracle.main(sys.argv[1:]))
