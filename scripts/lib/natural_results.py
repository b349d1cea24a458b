"""Writes the natural-question results (JSON and Markdown) from the grader's output.

    natural_results.py GRADED ANSWERS OUT.json OUT.md COMMIT QUESTIONS

Keeps `first_run` from an existing OUT.json of the same question file: the first run is the
figure for wordings the code was never tuned to; every later run updates the rest.
"""
import datetime
import json
import os
import platform
import sys

graded_path, answers_path, out_json, out_md, commit, questions = sys.argv[1:7]
graded = json.load(open(graded_path))
answers = {a["id"]: a for a in json.load(open(answers_path))}
summary = graded["summary"]


def figures(s):
    return {
        "care_team": s["care_team"]["accuracy"],
        "cohort": s["cohort"]["accuracy"],
        "dangerous": s["dangerous"],
        "abstention": s["abstention"]["accuracy"],
    }


now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
run = {"date": now, "commit": commit, **figures(summary)}
first = None
if os.path.exists(out_json):
    old = json.load(open(out_json))
    if old.get("questions_file") == questions:
        first = old.get("first_run")
if first is None:
    first = run
result = {
    "questions_file": questions,
    "machine": f"{platform.node()}, {os.cpu_count()} cores",
    "backend": "rules://",
    "embedding_model": "all-MiniLM-L6-v2",
    "care_team": summary["care_team"],
    "cohort": summary["cohort"],
    "dangerous": summary["dangerous"],
    "abstention": summary["abstention"],
    "first_run": first,
    "this_run": run,
    "results": [
        {**r, "answer": answers.get(r["id"], {}).get("answer")} for r in graded["results"]
    ],
}
json.dump(result, open(out_json, "w"), indent=1)

lines = [
    "# Natural questions (blind set)",
    "",
    f"{questions}: written by a helper that never read the answer path; expected answers from "
    "the raw bundles (eval/natural/oracle.py), graded strictly (eval/natural/grade.py). "
    f"Run {now} at {commit}, rules engine, all-MiniLM-L6-v2.",
    "",
    "| audience | questions | answerable | correct | partial | wrong | wrongly refused | dangerous | abstention |",
    "|---|---|---|---|---|---|---|---|---|",
]
for aud in ("care_team", "cohort"):
    s = summary[aud]
    g = s["by_grade"]
    lines.append(
        f"| {aud} | {s['questions']} | {s['answerable']} | {g.get('correct', 0)} "
        f"(**{s['accuracy']:.3f}**) | {g.get('partial', 0)} | {g.get('wrong', 0)} | "
        f"{g.get('wrongly_refused', 0)} | {g.get('dangerous', 0)} | "
        f"{s['abstention_accuracy'] if s['abstention_accuracy'] is not None else '-'} |"
    )
lines += [
    "",
    f"First run ({first['date']}, {first['commit']}): care team {first['care_team']}, cohort "
    f"{first['cohort']}, dangerous {first['dangerous']}.",
    "",
    "## By kind",
    "",
    "| audience | kind | grades |",
    "|---|---|---|",
]
for aud in ("care_team", "cohort"):
    for kind, grades in summary[aud]["by_kind"].items():
        lines.append(f"| {aud} | {kind} | {', '.join(f'{k} {v}' for k, v in grades.items())} |")
open(out_md, "w").write("\n".join(lines) + "\n")
