#!/usr/bin/python3
"""Trains the demo-trained model on the data `npm run demo-model -- data` wrote.

    /usr/bin/python3 scripts/demo-trained/train.py <data dir> [--epochs 14] [--threads 2]

Needs PyTorch (Debian: apt-get install python3-torch). Seeded; writes
<data dir>/weights.bin, weights.json (name -> offset, shape) and report.json.
The model mirrors scripts/demo-trained/graphs.ts op for op (same shapes, same
orientation of every matrix, the same -1e4 attention bias and RMS norm), so
the ONNX graphs built from these weights compute what was trained.

Every slice is asked two ways (two tasks): NeuroVLM-Bench's classification
prompt and Neural-MedBench's lesion-recognition prompt. Training is
teacher-forced on the answer tokens only. Every example of a task starts with
the same tokens (its prompt, then "User:"), and a batch holds one task, so
that shared prefix runs once per batch and its keys and values are reused,
exactly as a KV cache would hold them. After the first stage the model's
precision per class on the validation set becomes the confidence it is
taught to state (second stage), so its diagnosis_confidence is calibrated on
these phantoms.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument('data')
p.add_argument('--epochs', type=int, default=12)
p.add_argument('--calibration-epochs', type=int, default=3)
p.add_argument('--batch', type=int, default=32)
p.add_argument('--lr', type=float, default=2e-3)
p.add_argument('--threads', type=int, default=2)
args = p.parse_args()

torch.manual_seed(20261123)
np.random.seed(20261123)
torch.set_num_threads(args.threads)
D = args.data
meta = json.load(open(os.path.join(D, 'meta.json')))
dims = meta['dims']
H, NH, HD, L, I, V = dims['hidden'], dims['heads'], dims['headDim'], dims['layers'], dims['intermediate'], dims['vocabSize']
S = dims['imageSize']
CH = dims['channels']
GRID = dims['grid']
EOS = meta['eos']
DIGITS = meta['digits']
CLASSES = meta['classes']
CONVS = [(5, 4, 2), (3, 2, 1), (3, 2, 1), (3, 2, 1)]
ID_BYTES = [bytes.fromhex(h) for h in meta['idToBytes']]


def load(name):
    ex = json.load(open(os.path.join(D, f'{name}.json')))['examples']
    px = np.fromfile(os.path.join(D, f'{name}.u8'), dtype=np.uint8).reshape(-1, S, S)  # one slice per case; examples name theirs by 'img'
    return ex, px


train, train_px = load('train')
val, val_px = load('val')
# The image token is the one repeated GRID² times in a row.
IMAGE_ID = max(set(train[0]['ids']), key=train[0]['ids'].count)
TASKS = sorted({e['task'] for e in train})
PROMPT, P, TAIL = {}, {}, {}
for t in TASKS:
    PROMPT[t] = next(e['ids'] for e in train if e['task'] == t)
    assert PROMPT[t].count(IMAGE_ID) == GRID * GRID, 'one image of GRID² tokens per prompt'
    assert all(e['ids'] == PROMPT[t] for e in train + val if e['task'] == t), f'every {t} prompt is the same token sequence (the image is the only input that varies)'
    P[t] = PROMPT[t].index(IMAGE_ID) - 2  # shared prefix: up to the image block's <fake_token_around_image><global-img>
    TAIL[t] = PROMPT[t][P[t]:]  # image block, the prompt's words after it and "Assistant:"; image tokens replaced by the image's features


def param(*shape, scale=None):
    t = torch.empty(*shape)
    if scale is None:
        fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
        scale = math.sqrt(1.0 / fan_in)
    torch.nn.init.uniform_(t, -scale * math.sqrt(3), scale * math.sqrt(3))
    return torch.nn.Parameter(t)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        w = {}
        cin = 3
        for i, (k, _, _) in enumerate(CONVS):
            w[f'vision.conv{i}.weight'] = param(CH[i], cin, k, k, scale=math.sqrt(2.0 / (cin * k * k)))
            w[f'vision.conv{i}.bias'] = torch.nn.Parameter(torch.zeros(CH[i]))
            cin = CH[i]
        w['vision.proj.weight'] = param(cin, H)
        w['vision.proj.bias'] = torch.nn.Parameter(torch.zeros(H))
        w['vision.position'] = param(GRID * GRID, H, scale=0.02)
        w['text.embed'] = param(V, H, scale=0.5)
        for l in range(L):
            for n in ('q', 'k', 'v', 'o'):
                w[f'layers.{l}.{n}'] = param(H, H)
            w[f'layers.{l}.up'] = param(H, I)
            w[f'layers.{l}.down'] = param(I, H, scale=math.sqrt(0.5 / I))
            w[f'layers.{l}.norm1'] = torch.nn.Parameter(torch.ones(H))
            w[f'layers.{l}.norm2'] = torch.nn.Parameter(torch.ones(H))
        w['final_norm'] = torch.nn.Parameter(torch.ones(H))
        w['lm_head.weight'] = param(H, V)
        w['lm_head.bias'] = torch.nn.Parameter(torch.zeros(V))
        self.w = torch.nn.ParameterDict({k.replace('.', '__'): v for k, v in w.items()})
        freq = torch.tensor([1 / 10000 ** ((2 * (i // 2)) / H) for i in range(H)], dtype=torch.float32)
        phase = torch.tensor([0.0 if i % 2 == 0 else math.pi / 2 for i in range(H)], dtype=torch.float32)
        self.register_buffer('freq', freq)
        self.register_buffer('phase', phase)

    def W(self, name):
        return self.w[name.replace('.', '__')]

    def vision(self, gray):  # gray: uint8 [B, S, S] -> [B, GRID², H]
        x = (gray.float() / 255 - 0.5) / 0.5
        x = x.unsqueeze(1).expand(-1, 3, -1, -1)
        for i, (k, s, pad) in enumerate(CONVS):
            x = F.relu(F.conv2d(x, self.W(f'vision.conv{i}.weight'), self.W(f'vision.conv{i}.bias'), stride=s, padding=pad))
        b, c = x.shape[0], x.shape[1]
        cells = x.reshape(b, c, GRID * GRID).transpose(1, 2)
        return cells @ self.W('vision.proj.weight') + self.W('vision.proj.bias') + self.W('vision.position')

    def norm(self, x, name):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5) * self.W(name)

    def positions(self, start, n):
        pos = torch.arange(start, start + n, dtype=torch.float32).unsqueeze(1)
        return torch.sin(pos * self.freq + self.phase)

    def heads(self, t):
        b, n, _ = t.shape
        return t.reshape(b, n, NH, HD).transpose(1, 2)

    def layers(self, x, past, start):
        """x [B, n, H] at positions start..start+n-1; past: per layer (K, V) [B, NH, start, HD] or None."""
        b, n, _ = x.shape
        total = start + n
        key_pos = torch.arange(total)
        query_pos = torch.arange(start, total).unsqueeze(1)
        bias = torch.where(key_pos <= query_pos, torch.tensor(0.0), torch.tensor(-1e4))
        present = []
        for l in range(L):
            h = self.norm(x, f'layers.{l}.norm1')
            q = self.heads(h @ self.W(f'layers.{l}.q'))
            k = self.heads(h @ self.W(f'layers.{l}.k'))
            v = self.heads(h @ self.W(f'layers.{l}.v'))
            if past is not None:
                k = torch.cat([past[l][0].expand(b, -1, -1, -1), k], 2)
                v = torch.cat([past[l][1].expand(b, -1, -1, -1), v], 2)
            present.append((k, v))
            scores = (q @ k.transpose(2, 3)) * (1 / math.sqrt(HD)) + bias
            ctx = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, n, H)
            x = x + ctx @ self.W(f'layers.{l}.o')
            h = self.norm(x, f'layers.{l}.norm2')
            x = x + F.relu(h @ self.W(f'layers.{l}.up')) @ self.W(f'layers.{l}.down')
        return x, present

    def logits(self, x):
        return self.norm(x, 'final_norm') @ self.W('lm_head.weight') + self.W('lm_head.bias')

    def prefix(self, task):
        ids = torch.tensor([PROMPT[task][:P[task]]])
        x = self.W('text.embed')[ids] + self.positions(0, P[task])
        _, present = self.layers(x, None, 0)
        return present

    def tail_embeds(self, gray, task):
        """The prompt after the shared prefix, image tokens replaced by the image features, in order."""
        feats = self.vision(gray)
        ids = torch.tensor(TAIL[task])
        base = self.W('text.embed')[ids].unsqueeze(0).expand(gray.shape[0], -1, -1).clone()
        where = (ids == IMAGE_ID).nonzero().squeeze(1)
        base[:, where] = feats
        return base


def batch_tensors(examples, px, idx, noise):
    gray = torch.from_numpy(px[[examples[i]['img'] for i in idx]])
    if noise:
        # Small pixel noise, added before the model's own rescale: images are never pixel-identical in use.
        g = gray.float() + torch.randn(gray.shape) * 4.0
        gray = g.clamp(0, 255).round().to(torch.uint8)
    answers = [examples[i]['answer'] for i in idx]
    n = max(len(a) for a in answers)
    ans = torch.full((len(idx), n), -100, dtype=torch.long)
    for j, a in enumerate(answers):
        ans[j, :len(a)] = torch.tensor(a)
    return gray, ans


def loss_on(model, examples, px, idx, noise=True):
    task = examples[idx[0]]['task']
    assert all(examples[i]['task'] == task for i in idx), 'a batch holds one task'
    gray, ans = batch_tensors(examples, px, idx, noise)
    past = model.prefix(task)
    tail = model.tail_embeds(gray, task)
    inp = ans.clamp(min=0)[:, :-1]
    x = torch.cat([tail, model.W('text.embed')[inp]], 1)
    x = x + model.positions(P[task], x.shape[1])
    h, _ = model.layers(x, past, P[task])
    # Logits from the last prompt token on: each predicts the next answer token.
    out = model.logits(h[:, len(TAIL[task]) - 1:])
    return F.cross_entropy(out.reshape(-1, V), ans.reshape(-1), ignore_index=-100)


@torch.no_grad()
def generate(model, examples, px, idx, max_new=60):
    task = examples[idx[0]]['task']
    gray = torch.from_numpy(px[[examples[i]['img'] for i in idx]])
    past = model.prefix(task)
    x = model.tail_embeds(gray, task) + model.positions(P[task], len(TAIL[task]))
    h, present = model.layers(x, past, P[task])
    pos = P[task] + len(TAIL[task])
    tok = model.logits(h[:, -1:]).argmax(-1)
    out = [tok]
    done = tok.squeeze(1) == EOS
    for _ in range(max_new - 1):
        x = model.W('text.embed')[tok] + model.positions(pos, 1)
        h, present = model.layers(x, [(k, v) for k, v in present], pos)
        pos += 1
        tok = model.logits(h).argmax(-1)
        out.append(tok)
        done = done | (tok.squeeze(1) == EOS)
        if bool(done.all()):
            break
    return torch.cat(out, 1).tolist()


def text_of(ids):
    b = b''
    for i in ids:
        if i == EOS:
            break
        b += ID_BYTES[i]
    return b.decode('utf8', 'replace')


def answers_of(model, examples, px, task):
    """(example index, answer text) for every example of the task."""
    of_task = [i for i, e in enumerate(examples) if e['task'] == task]
    for start in range(0, len(of_task), 64):
        idx = of_task[start:start + 64]
        for i, ids in zip(idx, generate(model, examples, px, idx)):
            yield i, text_of(ids)


def evaluate_lesion(model, examples, px):
    """Share of lesion answers that parse, and of those with a stated side in the reference, the share naming it."""
    model.eval()
    n, valid, sided, right = 0, 0, 0, 0
    for i, t in answers_of(model, examples, px, 'lesion'):
        n += 1
        try:
            said = json.loads(t[t.index('{'):t.rindex('}') + 1]).get('laterality')
            valid += 1
        except Exception:
            said = 'invalid'
        if examples[i]['side'] is not None:
            sided += 1
            right += said == examples[i]['side']
    model.train()
    return valid / max(n, 1), right / max(sided, 1)


def evaluate(model, examples, px):
    model.eval()
    right, valid = 0, 0
    n = sum(e['task'] == 'classification' for e in examples)
    confusion = {c: {d: 0 for d in CLASSES + ['invalid']} for c in CLASSES}
    for i, t in answers_of(model, examples, px, 'classification'):
        try:
            pred = json.loads(t[t.index('{'):t.rindex('}') + 1]).get('diagnosis_name')
            valid += 1
        except Exception:
            pred = 'invalid'
        pred = pred if pred in CLASSES else 'invalid'
        confusion[examples[i]['cls']][pred] += 1
        right += pred == examples[i]['cls']
    model.train()
    precision = {}
    for d in CLASSES:
        said = sum(confusion[c][d] for c in CLASSES)
        precision[d] = confusion[d][d] / said if said else 0.0
    return right / n, valid / n, precision, confusion


def set_confidence(examples, precision):
    for e in examples:
        if 'conf' not in e:
            continue
        pct = int(round(100 * min(0.99, max(0.5, precision[e['cls']]))))
        e['answer'][e['conf']] = DIGITS[pct // 10]
        e['answer'][e['conf'] + 1] = DIGITS[pct % 10]


def fit(model, epochs, lr):
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    by_task = {t: [i for i, e in enumerate(train) if e['task'] == t] for t in TASKS}
    steps = epochs * sum(math.ceil(len(v) / args.batch) for v in by_task.values())
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 50) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    for epoch in range(epochs):
        batches = []
        for ids in by_task.values():
            order = np.random.permutation(ids).tolist()
            batches += [order[b:b + args.batch] for b in range(0, len(order), args.batch)]
        total = 0.0
        t0 = time.time()
        for k in np.random.permutation(len(batches)).tolist():
            idx = batches[k]
            loss = loss_on(model, train, train_px, idx)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        check = epoch % 3 == 2 or epoch == epochs - 1
        acc, valid, _, _ = evaluate(model, val, val_px) if check else (float('nan'),) * 4
        lesion_valid, side = evaluate_lesion(model, val, val_px) if check else (float('nan'),) * 2
        print(f'epoch {epoch + 1}/{epochs}: loss {total / len(train):.4f}, val accuracy {acc:.3f}, JSON valid {valid:.3f}, '
              f'lesion JSON valid {lesion_valid:.3f}, side right {side:.3f}, {time.time() - t0:.0f} s', flush=True)


started = time.time()
model = Model()
print(f'{sum(p.numel() for p in model.parameters())} parameters; tasks {TASKS}, prefix {P} tokens, tail {[len(TAIL[t]) for t in TASKS]}, '
      f'{len(train)} training and {len(val)} validation examples', flush=True)
fit(model, args.epochs, args.lr)
acc, valid, precision, confusion = evaluate(model, val, val_px)
print('stage 1 precision per class:', {k: round(v, 3) for k, v in precision.items()}, flush=True)
set_confidence(train, precision)
set_confidence(val, precision)
fit(model, args.calibration_epochs, args.lr / 4)
acc, valid, precision2, confusion = evaluate(model, val, val_px)
lesion_valid, side = evaluate_lesion(model, val, val_px)
print(f'final: val accuracy {acc:.3f}, JSON valid {valid:.3f}, lesion JSON valid {lesion_valid:.3f}, side right {side:.3f}', flush=True)

# Export: float32, row-major, in the graphs' orientation (names as graphs.ts asks for them).
index, chunks, offset = {}, [], 0
for key, value in model.w.items():
    name = key.replace('__', '.')
    a = value.detach().numpy().astype('<f4')
    index[name] = {'offset': offset, 'dims': list(a.shape)}
    chunks.append(a.tobytes())
    offset += a.size
open(os.path.join(D, 'weights.bin'), 'wb').write(b''.join(chunks))
json.dump(index, open(os.path.join(D, 'weights.json'), 'w'))
report = {
    'trainCases': len(train) // len(TASKS), 'valCases': len(val) // len(TASKS), 'tasks': TASKS, 'epochs': args.epochs, 'calibrationEpochs': args.calibration_epochs,
    'valAccuracy': acc, 'valJsonValid': valid, 'valLesionJsonValid': lesion_valid, 'valLateralityAccuracy': side, 'precision': precision, 'statedConfidence': precision,
    'precisionAfterCalibration': precision2, 'confusion': confusion, 'seconds': time.time() - started,
    'torch': torch.__version__, 'threads': args.threads, 'parameters': sum(p.numel() for p in model.parameters()),
}
json.dump(report, open(os.path.join(D, 'report.json'), 'w'), indent=1)
print(f'wrote weights and report in {time.time() - started:.0f} s')
