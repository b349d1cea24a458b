"""Plots a `fhir-rag-harness bench scale` result: latency per question kind and ingest throughput
against patients (both axes of the latency plot logarithmic)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

source, target = sys.argv[1], sys.argv[2]
result = json.load(open(source))
sizes = sorted(result["sizes"], key=lambda s: s["patients"])
patients = [s["patients"] for s in sizes]

fig, (latency, ingest) = plt.subplots(1, 2, figsize=(11, 4.2))
for kind, colour in (("care_team", "tab:blue"), ("cohort", "tab:orange"), ("dp", "tab:green")):
    latency.plot(patients, [s[kind]["p95_ms"] for s in sizes], "o-", color=colour,
                 label=f"{kind} p95")
    latency.plot(patients, [s[kind]["p50_ms"] for s in sizes], "o--", color=colour, alpha=0.6,
                 label=f"{kind} p50")
latency.set_xscale("log")
latency.set_yscale("log")
latency.set_xlabel("patients in the store")
latency.set_ylabel("answer latency, ms")
latency.set_title("Answers")
latency.legend(fontsize=7)
latency.grid(True, which="both", alpha=0.3)

ingest.plot(patients, [s.get("ingest_patients_per_s_one") or float("nan") for s in sizes], "o-",
            label="one pipeline")
ingest.plot(patients, [s.get("ingest_patients_per_s_two") or float("nan") for s in sizes], "o-",
            label="two pipelines")
ingest.set_xscale("log")
ingest.set_ylim(bottom=0)
ingest.set_xlabel("patients in the store")
ingest.set_ylabel("patients ingested per second")
ingest.set_title("Ingest")
ingest.legend(fontsize=7)
ingest.grid(True, which="both", alpha=0.3)

fig.suptitle(f"fhir-rag-harness bench scale, {result['embedding_model']}, {result['cores']} cores, "
             f"{result['date'][:10]}", fontsize=9)
fig.tight_layout()
fig.savefig(target, dpi=110)
print(f"written to {target}")
