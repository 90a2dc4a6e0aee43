"""Writes a small VLMEvalKit benchmark TSV and the prediction files VLMEvalKit
would write for it, with the same libraries VLMEvalKit uses (pandas, and
xlsxwriter for .xlsx), so NeuroEval's reader is tested on bytes those
libraries produce, not on our own idea of them.

VLMEvalKit (open-compass/VLMEvalKit, vlmeval/inference.py::infer_data_job and
vlmeval/smp/file.py::dump): the dataset's TSV columns without `image`, plus
`prediction`; xlsx through `pd.ExcelWriter(engine='xlsxwriter',
engine_kwargs={'options': {'strings_to_formulas': False}})` and
`to_excel(index=False)`; tsv through `to_csv(sep='\t', index=False,
quoting=csv.QUOTE_ALL)`.

Run with Debian's python3-pandas and python3-xlsxwriter:
    /usr/bin/python3 scripts/interchange/make-vlmevalkit-predictions.py test/fixtures/interchange/vlmevalkit
"""
import base64
import csv
import struct
import sys
import zlib
from pathlib import Path

import pandas as pd


def png(r: int, g: int, b: int) -> bytes:
    """A 2x2 RGB PNG of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes([r, g, b]) * 2 for _ in range(2))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


ROWS = [
    (1, "Which sequence shows the lesion best?", ["T1", "T2", "FLAIR", "DWI"], "C", "stroke", "C"),
    (2, "Where is the mass centred?", ["Frontal lobe", "Cerebellum", "Pons", "Thalamus"], "B", "tumor", "The answer is B."),
    (3, "Most likely diagnosis: <ring-enhancing> lesion & oedema?", ["Abscess", "Glioblastoma", "Metastasis", "Lymphoma"], "B", "tumor", "Answer: B\r\nbecause of the irregular rim"),
    (4, "Which finding is typical of MS?", ["Dawson fingers", "Lacunes", "Microbleeds", "Calcification"], "A", "multiple sclerosis", "Failed to obtain answer."),
    (5, "病灶位于哪个脑叶？", ["额叶", "顶叶", "颞叶", "枕叶"], "C", "other", "(C) 颞叶"),
    (6, "Is this scan normal?", ["Yes", "No", "Cannot tell", "Artefact"], "A", "normal", "D"),
]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    colours = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30), (30, 200, 200), (200, 30, 200)]
    bench = pd.DataFrame([
        {"index": i, "image": base64.b64encode(png(*colours[k])).decode(), "question": q, "A": o[0], "B": o[1], "C": o[2], "D": o[3], "answer": a, "category": c}
        for k, (i, q, o, a, c, _p) in enumerate(ROWS)
    ])
    bench.to_csv(out / "NeuroMCQ.tsv", sep="\t", index=False, quoting=csv.QUOTE_ALL)
    preds = bench.drop(columns=["image"]).copy()
    preds["prediction"] = [p for (*_rest, p) in ROWS]
    with pd.ExcelWriter(out / "DemoVLM_NeuroMCQ.xlsx", engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as writer:
        preds.to_excel(writer, index=False)
    preds.to_csv(out / "DemoVLM_NeuroMCQ.tsv", sep="\t", index=False, quoting=csv.QUOTE_ALL)
    preds.to_json(out / "DemoVLM_NeuroMCQ.json", orient="records", force_ascii=False, indent=4)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
