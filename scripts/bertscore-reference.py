"""Reference numbers for test/unit/core/scoring/metrics/bertscore-bert-score.test.ts.

BERTScore as bert_score defines it, written independently in torch: greedy
cosine matching over every token, [CLS]/[SEP] included; weights 1 with
[CLS]/[SEP] at 0, or idf = ln((M+1)/(df+1)) over the references (each counted
once per pair, duplicates included; unseen tokens ln(M+1)); P and R set to 0
for a side with only [CLS][SEP]; NaN F set to 0. One pair per batch.

Run: python3 scripts/bertscore-reference.py (PyTorch).
"""
import math
from collections import Counter, defaultdict
import torch

CLS, SEP = 101, 102

def greedy(ref_emb, ref_idf, hyp_emb, hyp_idf):
    ref = torch.tensor(ref_emb, dtype=torch.float64)[None]
    hyp = torch.tensor(hyp_emb, dtype=torch.float64)[None]
    ref = ref / ref.norm(dim=-1, keepdim=True)
    hyp = hyp / hyp.norm(dim=-1, keepdim=True)
    sim = torch.bmm(hyp, ref.transpose(1, 2))
    wp = sim.max(dim=2)[0]
    wr = sim.max(dim=1)[0]
    hi = torch.tensor([hyp_idf], dtype=torch.float64); hi = hi / hi.sum(dim=1, keepdim=True)
    ri = torch.tensor([ref_idf], dtype=torch.float64); ri = ri / ri.sum(dim=1, keepdim=True)
    P = (wp * hi).sum(dim=1); R = (wr * ri).sum(dim=1)
    F = 2 * P * R / (P + R)
    if len(hyp_emb) == 2 or len(ref_emb) == 2:
        P = torch.zeros_like(P); R = torch.zeros_like(R)
    F = F.masked_fill(torch.isnan(F), 0.0)
    return P.item(), R.item(), F.item()

def no_idf_dict():
    d = defaultdict(lambda: 1.0); d[SEP] = 0; d[CLS] = 0; return d

def idf_dict(refs):
    c = Counter(); [c.update(set(r)) for r in refs]
    d = defaultdict(lambda: math.log(len(refs) + 1))
    d.update({k: math.log((len(refs) + 1) / (v + 1)) for k, v in c.items()})
    return d

# token ids and hand-made embeddings (4 dimensions)
E = {
  CLS: [1, 0, 0, 1], SEP: [0, 1, 0, 1],
  1: [1, 0.2, 0, 0.9],   # "mass": closest to [CLS]
  2: [0, 1, 0.1, 0],     # "left"
  3: [0.1, 0, 1, 0],     # "lesion"
  4: [0, 0.9, 0.2, 0.1], # "right"
  5: [0.2, 0.1, 0.9, 0.3], # "tumour"
  6: [0, 0.3, 0, 1],     # "enhancing": closest to [SEP]
}
cand = [CLS, 1, 2, 3, SEP]
ref = [CLS, 4, 5, 6, SEP]
emb = lambda ids: [E[i] for i in ids]

d = no_idf_dict()
print('no idf', greedy(emb(ref), [d[i] for i in ref], emb(cand), [d[i] for i in cand]))
# the same without the special rows (what the old code did)
print('content only', greedy(emb(ref[1:-1]), [1]*3, emb(cand[1:-1]), [1]*3))
r = torch.tensor(emb(ref), dtype=torch.float64); c = torch.tensor(emb(cand), dtype=torch.float64)
sim = (c / c.norm(dim=-1, keepdim=True)) @ (r / r.norm(dim=-1, keepdim=True)).T
print('best match cand->ref', sim.argmax(1).tolist(), 'ref->cand', sim.argmax(0).tolist())
refs = [[CLS, 4, 5, 6, SEP], [CLS, 4, 5, 6, SEP], [CLS, 2, 5, SEP]]
d = idf_dict(refs)
print('idf', {k: d[k] for k in [CLS, SEP, 1, 2, 3, 4, 5, 6]})
print('idf pair', greedy(emb(ref), [d[i] for i in ref], emb(cand), [d[i] for i in cand]))
d = no_idf_dict()
print('empty cand', greedy(emb(ref), [d[i] for i in ref], emb([CLS, SEP]), [0, 0]))
