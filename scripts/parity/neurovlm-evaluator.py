#!/usr/bin/env python3
"""
Runs NeuroVLM-Bench's own evaluator (evaluate_detailed.py from a checkout of
ChatMED/neurovlm-bench; not part of this repository) on harness result files
and writes the figures it computes, per file, for the whole file and for each
source dataset, as JSON (NaN written as NaN, as Python's json does).

    python3 scripts/parity/neurovlm-evaluator.py --evaluator <checkout>/evaluate_detailed.py \
        --out test/fixtures/neurovlm-parity/evaluator-figures.json results-*.jsonl

Needs scikit-learn, pandas, statsmodels, scipy and matplotlib (Debian:
python3-sklearn python3-pandas python3-statsmodels python3-scipy
python3-matplotlib). The evaluator draws its confusion-matrix plots into
results/confusion_matrix/ under the working folder: this runs it in a
temporary folder. Interval keys (`*_ci`, from an unseeded random state) and
cost keys (priced from the evaluator's table of hosted APIs) are dropped, and
so that a model missing from that table (any local model, UNKNOWN_MODEL)
does not stop the run at pricing, the table answers every model name.

Where the evaluator raises on a file (or on one dataset's records), the
figures are replaced by {"raises": "<exception name>", "message": "..."}.
"""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")

DROP_SUFFIXES = ("_ci",)
DROP_KEYS = {"avg_input_cost", "avg_output_cost", "avg_cost", "usd_cost_per_1k_images"}


class AnyModelPrices(dict):
    """The evaluator's price table, answering models it does not list (cost figures are dropped anyway)."""

    def __missing__(self, key):
        return {}


def load_evaluator(path):
    spec = importlib.util.spec_from_file_location("evaluate_detailed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.MODEL_PRICES = AnyModelPrices(module.MODEL_PRICES)
    return module


def guarded(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the evaluator's own failure is the expected outcome
        return {"raises": type(e).__name__, "message": str(e)[:300]}


def datasets_of(data):
    out = set()
    for d in data:
        try:
            out.add((d.get("input", {}).get("metadata", {}) or {}).get("dataset"))
        except AttributeError:
            pass
    return sorted(x for x in out if isinstance(x, str))


def plain(x):
    """NumPy values and tuples as plain JSON values."""
    if hasattr(x, "tolist"):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    return x


def figures(ev, data, dataset):
    with contextlib.redirect_stdout(io.StringIO()):
        res = ev.evaluate(data, "results/parity", dataset)
    per_model = {
        model: {k: plain(v) for k, v in m.items() if not k.endswith(DROP_SUFFIXES) and k not in DROP_KEYS}
        for model, m in res["per_model"].items()
    }
    return {
        "per_model": per_model,
        "field_results": plain(res["field_results"]),
        "overall_accuracy": res["overall_accuracy"],
        "total_items": res["total_items"],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--evaluator", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    ev = load_evaluator(os.path.abspath(args.evaluator))
    files = [os.path.abspath(f) for f in args.files]
    out_path = os.path.abspath(args.out)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "results", "confusion_matrix"))
        os.chdir(tmp)
        for path in files:
            data = guarded(lambda: ev.load_jsonl(path))
            if isinstance(data, dict):
                out[os.path.basename(path)] = {"all": data, "datasets": {}}
                continue
            entry = {"all": guarded(lambda: figures(ev, data, None)), "datasets": {}}
            for d in datasets_of(data):
                entry["datasets"][d] = guarded(lambda: figures(ev, ev.load_jsonl(path, d), d))
            out[os.path.basename(path)] = entry
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote figures for {len(files)} files to {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
