#!/usr/bin/env python3
"""
Scores hand-made SLAKE answers with lmms-eval's own SLAKE code
(`lmms_eval/tasks/slake/utils.py`: `normalize_answer`, `slake_process_results`
and the accuracy aggregates overall, open and closed) and writes each pair's
normalised texts and verdict, and the three accuracies, as JSON:

    python3 scripts/parity/slake-exact-match.py --utils <checkout>/lmms_eval/tasks/slake/utils.py \
        > test/fixtures/answer-parity/slake.json

lmms-eval is read from a checkout of EvolvingLMMs-Lab/lmms-eval (not part of
this repository). Its imports of datasets, huggingface_hub, loguru and PIL are
stubbed: they load and show data, and nothing of theirs runs here.
"""
import argparse
import importlib.util
import json
import sys
import types


def stub_imports():
    for name in ["datasets", "huggingface_hub", "loguru", "PIL", "PIL.Image"]:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["datasets"].Dataset = object
    sys.modules["huggingface_hub"].snapshot_download = lambda **k: ""
    sys.modules["loguru"].logger = types.SimpleNamespace(info=lambda *a, **k: None)
    sys.modules["PIL"].Image = sys.modules["PIL.Image"]
    sys.modules["PIL.Image"].Image = object


# (prediction, reference, answer_type): what models write and what SLAKE holds,
# with the edges of the normalisation (asides, full-width punctuation, Unicode
# spaces, yes/no words in both languages, x-ray spellings).
PAIRS = [
    ("Brain", "brain", "OPEN"),
    ("brain.", "Brain", "OPEN"),
    ("The brain", "Brain", "OPEN"),
    ("Left Lung", "left lung", "OPEN"),
    ("left lung (upper lobe)", "left lung", "OPEN"),
    ("left（上叶）lung", "left lung", "OPEN"),
    ("X-Ray", "xray", "OPEN"),
    ("x ray", "X-ray", "OPEN"),
    ("x-ray image", "X-Ray", "OPEN"),
    ("MRI", "mri", "OPEN"),
    ("T2-weighted", "T2 weighted", "OPEN"),
    ("Yes", "yes", "CLOSED"),
    ("yeah", "Yes", "CLOSED"),
    ("True", "yes", "CLOSED"),
    ("Nope.", "No", "CLOSED"),
    ("no, it is not", "No", "CLOSED"),
    ("是的", "是", "CLOSED"),
    ("不是", "否", "CLOSED"),
    ("异常", "no", "CLOSED"),
    ("正常。", "是", "CLOSED"),
    ("肺，", "肺", "OPEN"),
    ("心脏（左）", "心脏", "OPEN"),
    ("  liver\t\n", "Liver", "OPEN"),
    ("liver\u00a0and\u2003spleen", "liver and spleen", "OPEN"),
    ("liver\u001cspleen", "liver spleen", "OPEN"),
    ("liver\u0085spleen", "liver spleen", "OPEN"),
    ("\ufeffliver", "liver", "OPEN"),
    ("liver\u200bspleen", "liver spleen", "OPEN"),
    ("((nested) aside) kidney", "kidney", "OPEN"),
    ("kidney (left", "kidney", "OPEN"),
    ("İstanbul", "i̇stanbul", "OPEN"),
    ("ΣΟΦΙΑΣ", "σοφιας", "OPEN"),
    ("2", "two", "OPEN"),
    ("", "yes", "CLOSED"),
    ("Heart & lungs", "heart lungs", "OPEN"),
    ("Axial", "Transverse Plane", "OPEN"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--utils", required=True, help="lmms_eval/tasks/slake/utils.py of an lmms-eval checkout")
    args = parser.parse_args()
    stub_imports()
    spec = importlib.util.spec_from_file_location("slake_utils", args.utils)
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)

    records = []
    pairs = []
    for i, (prediction, reference, answer_type) in enumerate(PAIRS):
        doc = {"qid": i + 1, "answer": reference, "answer_type": answer_type, "q_lang": "en", "modality": "MRI", "content_type": "Organ"}
        record = utils.slake_process_results(doc, [prediction])["slake_accuracy"]
        records.append(record)
        pairs.append({
            "prediction": prediction, "reference": reference, "answerType": answer_type,
            "predictionNormalized": record["prediction_normalized"], "referenceNormalized": record["target_normalized"],
            "correct": bool(record["is_correct"]),
        })
    out = {
        "source": "lmms-eval lmms_eval/tasks/slake/utils.py (normalize_answer, slake_process_results, slake_aggregate_*)",
        "pairs": pairs,
        "accuracy": utils.slake_aggregate_accuracy(records),
        "openAccuracy": utils.slake_aggregate_open_accuracy(records),
        "closedAccuracy": utils.slake_aggregate_closed_accuracy(records),
    }
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
