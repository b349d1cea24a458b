#!/usr/bin/env python3
"""Oracle for the THIRD blind natural-language evaluation set.

eval/natural/oracle.py (the same FHIR digest, helpers, build and check) run on this folder:
it builds eval/natural3/questions.json from eval/natural3/questions_src.py, reading the raw
Synthea FHIR R4 bundles with the Python standard library only; it shares no code with the
service. --check also fails when a question repeats one of the first or the second set.

  python3 eval/natural3/oracle.py --build   # (re)write questions.json from questions_src.py
  python3 eval/natural3/oracle.py --check   # recompute every expected value, assert it
                                            # matches questions.json; also checks that no
                                            # patient name leaked outside questions.json and
                                            # that no question repeats one of sets 1 and 2
  python3 eval/natural3/oracle.py --facts PATIENT_ID   # dump one patient's digest

  The parsed bundles are cached in /tmp (keyed by file names and sizes); to force a
  fresh parse of the raw bundles: ORACLE_CACHE=/nonexistent/x python3 eval/natural3/oracle.py --check
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
oracle.CACHE = os.environ.get("ORACLE_CACHE", "/tmp/natural3_eval_oracle_cache.json")
# questions_src.py imports its helpers with `from oracle import ...`: the shared oracle, pointed
# at this folder.
sys.modules["oracle"] = oracle

EARLIER_SETS = ("natural", "natural2")


def _norm(t):
    return re.sub(r"\s+", " ", re.sub(r"[^a-z ]", "", oracle._ascii(t).lower())).strip()


def earlier_set_duplicates(qs):
    """the third set must not repeat a question of the first (eval/natural) or the second
    (eval/natural2) set; texts are compared lower-cased, accent-, digit- and
    punctuation-free"""
    seen = {}
    for folder in EARLIER_SETS:
        path = os.path.join(HERE, "..", folder, "questions.json")
        if not os.path.exists(path):
            print(f"WARNING: {path} not found; duplicate check against it skipped")
            continue
        with open(path) as fh:
            for q in json.load(fh):
                seen.setdefault(_norm(q["question"]), q["id"])
    n = 0
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


def id_prefixes(qs):
    """ids ct3-NNN (care team) / co3-NNN (cohort), matching the audience"""
    n = 0
    for q in qs:
        want = "ct3-" if q["audience"] == "care_team" else "co3-"
        if not re.fullmatch(re.escape(want) + r"\d{3}", q["id"]):
            print(f"BAD ID {q['id']} for audience {q['audience']}")
            n += 1
    return n


if __name__ == "__main__":
    oracle.EXTRA_CHECKS.append(earlier_set_duplicates)
    oracle.EXTRA_CHECKS.append(id_prefixes)
    sys.exit(oracle.main(sys.argv[1:]))
