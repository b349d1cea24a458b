#!/usr/bin/env python3
"""Oracle for the SECOND blind natural-language evaluation set.

eval/natural/oracle.py (the same FHIR digest, helpers, build and check) run on this folder:
it builds eval/natural2/questions.json from eval/natural2/questions_src.py, reading the raw
Synthea FHIR R4 bundles with the Python standard library only; it shares no code with the
service. --check also fails when a question repeats one of the first set.

  python3 eval/natural2/oracle.py --build   # (re)write questions.json from questions_src.py
  python3 eval/natural2/oracle.py --check   # recompute every expected value, assert it
                                            # matches questions.json; also checks that no
                                            # patient name leaked outside questions.json and
                                            # that no question repeats one of the first set
  python3 eval/natural2/oracle.py --facts PATIENT_ID   # dump one patient's digest

  The parsed bundles are cached in /tmp (keyed by file names and sizes); to force a
  fresh parse of the raw bundles: ORACLE_CACHE=/nonexistent/x python3 eval/natural2/oracle.py --check
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
oracle.CACHE = os.environ.get("ORACLE_CACHE", "/tmp/natural2_eval_oracle_cache.json")
# questions_src.py imports its helpers with `from oracle import …`: the shared oracle, pointed
# at this folder.
sys.modules["oracle"] = oracle


def first_set_duplicates(qs):
    """the second set must not repeat a question of the first set (eval/natural)"""
    path = os.path.join(HERE, "..", "natural", "questions.json")
    if not os.path.exists(path):
        return 0
    with open(path) as fh:
        first = json.load(fh)

    def norm(t):
        return re.sub(r"[^a-z ]", "", oracle._ascii(t).lower()).strip()
    seen = {norm(q["question"]): q["id"] for q in first}
    n = 0
    for q in qs:
        if norm(q["question"]) in seen:
            print(f"DUPLICATE of the first set: {q['id']} = {seen[norm(q['question'])]}")
            n += 1
    return n


if __name__ == "__main__":
    oracle.EXTRA_CHECKS.append(first_set_duplicates)
    sys.exit(oracle.main(sys.argv[1:]))
