#!/usr/bin/env python3
"""
Scores hand-made replies with MedCalc-Bench's own code, as its `run.py`
does for each row: `extract_answer(reply, calculator_id)` (evaluation/run.py),
then `check_correctness(answer, ground_truth, calculator_id, upper, lower)`
(evaluation/evaluate.py), a raised exception counting as "Incorrect". Writes
each row's extracted answer (or the exception) and verdict, and the accuracy,
as JSON:

    python3 scripts/parity/medcalc-correctness.py --evaluation <checkout>/evaluation \
        > test/fixtures/answer-parity/medcalc.json

MedCalc-Bench is read from a checkout of ncbi-nlp/MedCalc-Bench (not part of
this repository). Its imports of the model client, pandas and tqdm are
stubbed: they load data and call models, and nothing of theirs runs here.
"""
import argparse
import contextlib
import io
import json
import sys
import types


def stub_imports():
    for name in ["tqdm", "pandas", "llm_inference", "table_stats"]:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["llm_inference"].LLMInference = object
    sys.modules["table_stats"].compute_overall_accuracy = lambda *a, **k: None


def reply(answer, thinking="Worked through the note."):
    """A reply as the zero-shot prompt asks for it: a JSON dict, the answer as written."""
    return '{"step_by_step_thinking": "%s", "answer": %s}' % (thinking, answer)


# (reply, calculator id, ground truth, lower limit, upper limit). Decimal
# calculators have limits; the others repeat the answer as the benchmark does.
ROWS = [
    # decimal (2: creatinine clearance; 3: CKD-EPI; 5: MAP; 6: BMI …)
    (reply('"41.77"'), 2, "41.77", "39.68", "43.86"),
    (reply('"39.68"'), 2, "41.77", "39.68", "43.86"),
    (reply('"39.67"'), 2, "41.77", "39.68", "43.86"),
    (reply('"The clearance is 42 mL/min"'), 2, "41.77", "39.68", "43.86"),
    (reply('"8.1 mL/min/1.73 m²"'), 3, "8.2", "7.79", "8.61"),
    (reply('"53.1%"'), 10, "0.531", "0.50445", "0.55755"),
    (reply('"about 50% or 53.1%"'), 10, "0.531", "0.50445", "0.55755"),
    (reply('"BMI = 24.5 kg/m^2 (normal)"'), 6, "24.5", "23.275", "25.725"),
    (reply('"-3.5"'), 5, "-3.5", "-3.675", "-3.325"),
    (reply('"08.5"'), 5, "8.5", "8.075", "8.925"),
    (reply('"08"'), 5, "8", "7.6", "8.4"),
    (reply('"0"'), 5, "0", "0", "0"),
    (reply('"str(round((140 - 67) * 72.3 / (72 * 1.2), 2))"'), 2, "61.09", "58.04", "64.14"),
    (reply('"str(140 - 67 * 2)"'), 2, "6", "5.7", "6.3"),
    (reply('"str(2 ^ 3 + 1)"'), 2, "9", "8.55", "9.45"),
    (reply('"str(sqrt(16) * 2)"'), 2, "8", "7.6", "8.4"),
    (reply('"str(round(7 / 2))"'), 2, "4", "3.8", "4.2"),
    (reply('"str(round(5 / 2))"'), 2, "2", "1.9", "2.1"),
    (reply('"str(round(2.675, 2))"'), 2, "2.67", "2.67", "2.67"),
    (reply('"str(min(3, 4.5) + abs(-2))"'), 2, "5", "4.75", "5.25"),
    (reply('"str(pow(2, 10) / 1024)"'), 2, "1", "0.95", "1.05"),
    (reply('"str(int(7.9) + float(1))"'), 2, "8", "7.6", "8.4"),
    (reply('"str(7 // 2 + 7 % 3)"'), 2, "4", "3.8", "4.2"),
    (reply('"str(-7 // 2)"'), 2, "-4", "-4.2", "-3.8"),
    (reply('"str(-7 % 3)"'), 2, "2", "1.9", "2.1"),
    (reply('"str(2 ** -1)"'), 2, "0.5", "0.475", "0.525"),
    (reply('"str(math.log(100, 10))"'), 2, "2", "1.9", "2.1"),
    (reply('"str(math.exp(0) + math.floor(2.7))"'), 2, "3", "2.85", "3.15"),
    (reply('"str((140 - 67) * 72.3 / (72 * 1.2)"'), 2, "61.09", "58.04", "64.14"),
    (reply('"str(1 / 0)"'), 2, "1", "0.95", "1.05"),
    (reply('"str(max(1, 2))"'), 2, "2", "1.9", "2.1"),
    (reply('"str(weight / height ** 2)"'), 2, "1", "0.95", "1.05"),
    (reply('"str(70 kg / 1.75 ** 2)"'), 6, "22.86", "21.72", "24.0"),
    (reply('"str(3 is odd)"'), 2, "1", "1", "1"),
    (reply('"str(1.5e3)"'), 2, "1500", "1425", "1575"),
    (reply('"X.XX"'), 2, "41.77", "39.68", "43.86"),
    (reply('"str(value which is the answer to the question)"'), 2, "41.77", "39.68", "43.86"),
    (reply('41.77'), 2, "41.77", "39.68", "43.86"),
    (reply('"41.77"') + ' Also {"answer": "12"}', 2, "41.77", "39.68", "43.86"),
    ("The creatinine clearance is 41.77 mL/min.", 2, "41.77", "39.68", "43.86"),
    ("", 2, "41.77", "39.68", "43.86"),
    # integer (4: CHA2DS2-VASc; 15: Wells; …)
    (reply('"3"'), 4, "3", "3", "3"),
    (reply('"3.5"'), 4, "4", "4", "4"),
    (reply('"2.5"'), 4, "2", "2", "2"),
    (reply('"3 out of 9"'), 4, "3", "3", "3"),
    (reply('"criteria 1, 2, 5 are met"'), 4, "3", "3", "3"),
    (reply('"score of 2 (low risk), then 3"'), 4, "3", "3", "3"),
    (reply('"-1"'), 15, "-1", "-1", "-1"),
    (reply('"03"'), 4, "3", "3", "3"),
    (reply('"00"'), 4, "0", "0", "0"),
    (reply('"no points"'), 4, "0", "0", "0"),
    ("The score is 3.", 4, "3", "3", "3"),
    # date (13: estimated due date; 68: conception date)
    (reply('"08/21/2021"'), 13, "08/21/2021", "08/21/2021", "08/21/2021"),
    (reply('"8/21/2021"'), 13, "08/21/2021", "08/21/2021", "08/21/2021"),
    (reply('"08/22/2021"'), 13, "08/21/2021", "08/21/2021", "08/21/2021"),
    (reply('"02/30/2021"'), 68, "02/28/2021", "02/28/2021", "02/28/2021"),
    (reply('"Due date: 08/21/2021"'), 13, "08/21/2021", "08/21/2021", "08/21/2021"),
    (reply('"2021-08-21"'), 13, "08/21/2021", "08/21/2021", "08/21/2021"),
    ("08/21/2021", 13, "08/21/2021", "08/21/2021", "08/21/2021"),
    # gestational age (69): (weeks, days)
    (reply('"(4 weeks, 2 days)"'), 69, "(4 weeks, 2 days)", "(4 weeks, 2 days)", "(4 weeks, 2 days)"),
    (reply("['4 weeks', '2 days']"), 69, "(4 weeks, 2 days)", "(4 weeks, 2 days)", "(4 weeks, 2 days)"),
    (reply('"(4, 3)"'), 69, "(4 weeks, 2 days)", "(4 weeks, 2 days)", "(4 weeks, 2 days)"),
    (reply('"(4, 02)"'), 69, "(4 weeks, 2 days)", "(4 weeks, 2 days)", "(4 weeks, 2 days)"),
    (reply('"4 weeks and 2 days"'), 69, "(4 weeks, 2 days)", "(4 weeks, 2 days)", "(4 weeks, 2 days)"),
    (reply('"about a month"'), 69, "(4 weeks, 2 days)", "(4 weeks, 2 days)", "(4 weeks, 2 days)"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--evaluation", required=True, help="the evaluation/ folder of a MedCalc-Bench checkout")
    args = parser.parse_args()
    stub_imports()
    sys.path.insert(0, args.evaluation)
    import run  # noqa: E402  (MedCalc-Bench's evaluation/run.py)

    out_rows = []
    for text, calid, truth, lower, upper in ROWS:
        # run.py's loop: extract, check, and any exception is "Incorrect" (its prints are silenced).
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                answer, _explanation = run.extract_answer(text, calid)
                correct = bool(run.check_correctness(answer, truth, calid, upper, lower))
                error = None
            except Exception as e:  # noqa: BLE001  (run.py catches every exception)
                answer, correct, error = None, False, type(e).__name__
        out_rows.append({"reply": text, "calculatorId": calid, "groundTruth": truth, "lower": lower, "upper": upper, "answer": answer, "error": error, "correct": correct})
    json.dump({
        "source": "MedCalc-Bench evaluation/run.py extract_answer and evaluation/evaluate.py check_correctness, as run.py's loop calls them",
        "rows": out_rows,
        "accuracy": sum(r["correct"] for r in out_rows) / len(out_rows),
    }, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
