#!/usr/bin/env python3
"""
Scores hand-made token embeddings with bert_score's own matching code
(`bert_cos_score_idf`: pairs in padded batches, then `greedy_cos_idf`) at
batch size 64 (its default) and 1, and writes the pairs and bert_score's
P, R, F as JSON. The embeddings replace the encoder (bert_score's
`get_bert_embedding` is swapped for a lookup of the hand-made vectors), so
only the batching and the matching are bert_score's. Some candidate and
reference tokens are built so that their best cosine is negative: in a
padded batch they score 0.

    python3 scripts/parity/bertscore-batching.py --bert-score <checkout>/bert_score/utils.py \
        > test/fixtures/bertscore/batching.json

Needs PyTorch (Debian: python3-torch); bert_score itself is read from a
checkout of Tiiiger/bert_score (not part of this repository). Its imports of
transformers and tqdm are stubbed: nothing of theirs runs here.
"""
import argparse
import importlib.util
import json
import random
import sys
import types

import torch

DIM = 6
PAIRS = 70


def stub_imports():
    tr = types.ModuleType("transformers")
    for name in ["AutoModel", "AutoTokenizer", "BertConfig", "GPT2Tokenizer", "RobertaTokenizer", "RobertaConfig", "XLMConfig", "XLNetConfig"]:
        setattr(tr, name, object)
    tr.__version__ = "0"
    sys.modules.setdefault("transformers", tr)
    tq = types.ModuleType("tqdm")
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = lambda x, **k: x
    sys.modules.setdefault("tqdm", tq)
    sys.modules.setdefault("tqdm.auto", auto)
    pkg = types.ModuleType("bert_score")
    pkg.__version__ = "0"
    pkg.__path__ = []
    sys.modules["bert_score"] = pkg


def load_utils(path):
    stub_imports()
    spec = importlib.util.spec_from_file_location("bert_score.utils", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bert_score.utils"] = module
    spec.loader.exec_module(module)
    return module


def vec(rng):
    return [round(rng.uniform(-1, 1), 6) for _ in range(DIM)]


def negative_to_all(rng, others):
    """Tilts `others` towards the first axis and returns a vector pointing away: its cosine with each of them is negative."""
    for o in others:
        o[0] = round(abs(o[0]) + 0.5, 6)
    v = [-2.0] + [round(rng.uniform(-0.1, 0.1), 6) for _ in range(DIM - 1)]
    assert all(sum(a * b for a, b in zip(v, o)) < 0 for o in others)
    return v


def make_pairs(rng):
    pairs = []
    for i in range(PAIRS):
        nc = rng.randint(1, 9)
        nr = rng.randint(1, 9)
        cand = [vec(rng) for _ in range(nc + 2)]
        ref = [vec(rng) for _ in range(nr + 2)]
        if i % 3 == 0:
            cand[1] = negative_to_all(rng, ref)
        if i % 4 == 1:
            ref[1] = negative_to_all(rng, cand)
        pairs.append({"candidate": cand, "reference": ref})
    return pairs


def scores(utils, pairs, batch_size):
    table = {}
    refs, hyps = [], []
    for i, p in enumerate(pairs):
        for side, key, names in (("candidate", f"c{i}", hyps), ("reference", f"r{i}", refs)):
            vs = p[side]
            # [CLS] and [SEP] (first and last) weigh 0, as bert_score sets their idf to 0.
            idf = [0.0] + [1.0] * (len(vs) - 2) + [0.0]
            table[key] = (torch.tensor(vs, dtype=torch.float32), torch.tensor(idf, dtype=torch.float32))
            names.append(key)

    def get_bert_embedding(sen_batch, model, tokenizer, idf_dict, device="cpu", all_layers=False):
        embs = [table[s][0] for s in sen_batch]
        idfs = [table[s][1] for s in sen_batch]
        lens = [e.size(0) for e in embs]
        emb = torch.nn.utils.rnn.pad_sequence(embs, batch_first=True)
        idf = torch.nn.utils.rnn.pad_sequence(idfs, batch_first=True)
        mask = torch.zeros(len(lens), max(lens), dtype=torch.long)
        for k, n in enumerate(lens):
            mask[k, :n] = 1
        return emb, mask, idf

    utils.get_bert_embedding = get_bert_embedding
    model = torch.nn.Linear(1, 1)
    out = utils.bert_cos_score_idf(model, refs, hyps, None, {}, batch_size=batch_size, device="cpu")
    return [[float(x) for x in row] for row in out.tolist()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bert-score", required=True, help="path to bert_score/utils.py of a checkout")
    args = ap.parse_args()
    utils = load_utils(args.bert_score)
    pairs = make_pairs(random.Random(20261202))
    out = {
        "note": "P, R, F per pair from bert_score's bert_cos_score_idf on these embeddings; [CLS]/[SEP] are each text's first and last vector",
        "pairs": pairs,
        "batch_64": scores(utils, pairs, 64),
        "batch_1": scores(utils, pairs, 1),
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
