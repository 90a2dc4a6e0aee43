"""
Writes a llama.cpp GGUF of the real-size model's decoder: the same
dimensions (layers, width, heads, KV heads, MLP, vocabulary, rope base) as
the ONNX decoder of scripts/make-real-size-model.ts, random weights in
Q8_0 (or Q4_0), and the folder's own tokenizer, so llama.cpp decodes a
model of the same size as the app does (the bench's native peer).

    python3 test/bench/peers/make-gguf.py <real-size folder> <out.gguf> [Q8_0|Q4_0]

Needs the `gguf` and `numpy` Python packages (the bench installs them from
the local package index when missing).
"""
import json
import sys

import numpy as np
import gguf


def main(folder: str, out: str, kind: str) -> None:
    stamp = json.load(open(f"{folder}/real-size.json"))
    t = stamp["dims"]["text"]
    tok = json.load(open(f"{folder}/tokenizer.json"))
    vocab = tok["model"]["vocab"]
    merges = tok["model"]["merges"]
    specials = {a["content"] for a in tok.get("added_tokens", [])}
    tokens = [None] * len(vocab)
    for piece, i in vocab.items():
        tokens[i] = piece
    assert all(p is not None for p in tokens), "tokenizer.json has gaps in its ids"
    qtype = {"Q8_0": gguf.GGMLQuantizationType.Q8_0, "Q4_0": gguf.GGMLQuantizationType.Q4_0}[kind]

    w = gguf.GGUFWriter(out, "llama")
    w.add_name(f"real-size {stamp['dims']['upstream']} decoder (random weights)")
    w.add_context_length(t["maxPositions"])
    w.add_embedding_length(t["hidden"])
    w.add_block_count(t["layers"])
    w.add_feed_forward_length(t["intermediate"])
    w.add_head_count(t["heads"])
    w.add_head_count_kv(t["kvHeads"])
    w.add_rope_dimension_count(t["headDim"])
    w.add_rope_freq_base(float(t["ropeTheta"]))
    w.add_layer_norm_rms_eps(float(t["rmsNormEps"]))
    w.add_vocab_size(t["vocabSize"])
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if kind == "Q8_0" else gguf.LlamaFileType.MOSTLY_Q4_0)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if p in specials else gguf.TokenType.NORMAL for p in tokens])
    w.add_token_merges(merges if isinstance(merges[0], str) else [" ".join(m) for m in merges])
    w.add_bos_token_id(vocab["<|im_start|>"])
    w.add_eos_token_id(vocab["<end_of_utterance>"])

    rng = np.random.default_rng(7)

    def matrix(name: str, rows: int, cols: int) -> None:
        # Rows are outputs, columns inputs (GGML order); a spread of 1/sqrt(inputs) keeps activations in range.
        a = (rng.random((rows, cols), dtype=np.float32) * 2 - 1) * np.float32(np.sqrt(3.0 / cols))
        w.add_tensor(name, gguf.quants.quantize(a, qtype), raw_dtype=qtype)

    def gain(name: str, n: int) -> None:
        w.add_tensor(name, (1 + (rng.random(n, dtype=np.float32) - 0.5) * 0.2).astype(np.float32))

    h, kv = t["hidden"], t["kvHeads"] * t["headDim"]
    matrix("token_embd.weight", t["vocabSize"], h)
    for l in range(t["layers"]):
        gain(f"blk.{l}.attn_norm.weight", h)
        matrix(f"blk.{l}.attn_q.weight", t["heads"] * t["headDim"], h)
        matrix(f"blk.{l}.attn_k.weight", kv, h)
        matrix(f"blk.{l}.attn_v.weight", kv, h)
        matrix(f"blk.{l}.attn_output.weight", h, t["heads"] * t["headDim"])
        gain(f"blk.{l}.ffn_norm.weight", h)
        matrix(f"blk.{l}.ffn_gate.weight", t["intermediate"], h)
        matrix(f"blk.{l}.ffn_up.weight", t["intermediate"], h)
        matrix(f"blk.{l}.ffn_down.weight", h, t["intermediate"])
    gain("output_norm.weight", h)
    matrix("output.weight", t["vocabSize"], h)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "Q8_0")
