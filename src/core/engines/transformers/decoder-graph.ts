/**
 * One edit to a decoder's ONNX file before onnxruntime loads it: each
 * layer's new keys and values (this pass's positions only) become outputs
 * of their own, `neuroeval.new.<layer>.<key|value>`.
 *
 * Why: onnxruntime-web copies every output it returns out of its WASM heap
 * into a freshly allocated array. A decoder's `present.*` outputs are the
 * whole key/value cache (past + new), so each decode step hands back the
 * whole cache in new memory: 174 MB per token for SmolVLM-256M at a
 * 3,778-token prompt. Fresh memory costs a page fault per 4 KiB page on
 * first touch; in Chromium (whose allocator maps large arrays afresh each
 * time) that made a step at that length about 0.75 s where the arithmetic
 * takes about 0.1 s (docs/BENCHMARKS.md). With the new positions as outputs
 * of their own, the engine asks only for logits and those, keeps the cache
 * in arrays of its own that grow in place (kv-cache.ts), and a step copies
 * the cache into the runtime's heap (memory already touched) instead of
 * out of it.
 *
 * The edit is made only where the graph has the form transformers.js
 * exports of Llama-like decoders have: `present.N.key` is the output of a
 * `Concat` along the positions axis of the graph input
 * `past_key_values.N.key` and the pass's keys. Anything else (a cache
 * branch, fused attention, a cast on the way) leaves the file as it is, and
 * the engine keeps the whole-cache outputs. Nothing else in the file
 * changes: an `Identity` node per output is appended to the graph, and the
 * graph's outputs gain those names.
 */

const NEW_KV_PREFIX = 'neuroeval.new.';
const PAST = 'past_key_values.';
const PRESENT = 'present.';

/** The output holding the new positions of a cache input (`past_key_values.3.key` → `neuroeval.new.3.key`). */
export function newKvOutput(pastName: string): string {
  return NEW_KV_PREFIX + pastName.slice(PAST.length);
}

// ── protobuf: only what an ONNX ModelProto needs here ──

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

interface Field {
  readonly no: number;
  readonly wire: number;
  /** Where the field's tag starts. */
  readonly start: number;
  /** Its value (for LEN fields, the bytes after the length). */
  readonly from: number;
  readonly to: number;
}

/** Thrown for bytes that are not a well-formed protobuf message: the file is then left as it is. */
class NotProtobuf extends Error {}

function varint(buf: Uint8Array, pos: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new NotProtobuf('varint runs past the end');
    const b = buf[pos++]!;
    // Lengths and tags fit in 53 bits; wider values (negative int64) are only read by bigVarint.
    if (scale < 2 ** 53) value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) return { value, next: pos };
  }
  throw new NotProtobuf('varint longer than 10 bytes');
}

/** A signed int64 varint (two's complement), as ONNX attributes store `axis`. */
function int64(buf: Uint8Array, from: number, to: number): bigint {
  let value = 0n;
  let shift = 0n;
  for (let pos = from; pos < to; pos++) {
    value |= BigInt(buf[pos]! & 0x7f) << shift;
    shift += 7n;
  }
  return BigInt.asIntN(64, value);
}

function* fields(buf: Uint8Array, from: number, to: number): Generator<Field> {
  let pos = from;
  while (pos < to) {
    const start = pos;
    const tag = varint(buf, pos);
    pos = tag.next;
    const no = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    let valueFrom = pos;
    if (wire === VARINT) pos = varint(buf, pos).next;
    else if (wire === I64) pos += 8;
    else if (wire === I32) pos += 4;
    else if (wire === LEN) {
      const len = varint(buf, pos);
      valueFrom = len.next;
      pos = len.next + len.value;
    } else throw new NotProtobuf(`wire type ${wire}`);
    if (pos > to) throw new NotProtobuf('field runs past its message');
    yield { no, wire, start, from: valueFrom, to: pos };
  }
}

const utf8 = new TextDecoder();
const encoder = new TextEncoder();
const text = (buf: Uint8Array, f: Field) => utf8.decode(buf.subarray(f.from, f.to));

function encodeVarint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 128) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** A LEN field (a string or a nested message). */
function lenField(no: number, body: Uint8Array | readonly number[]): number[] {
  return [...encodeVarint(no * 8 + LEN), ...encodeVarint(body.length), ...body];
}

const str = (no: number, s: string) => lenField(no, encoder.encode(s));

// ── the ONNX messages (onnx.proto field numbers) ──

const MODEL_GRAPH = 7;
const GRAPH_NODE = 1;
const GRAPH_INPUT = 11;
const GRAPH_OUTPUT = 12;
const NODE_INPUT = 1;
const NODE_OUTPUT = 2;
const NODE_NAME = 3;
const NODE_OP = 4;
const NODE_ATTRIBUTE = 5;
const NODE_DOMAIN = 7;
const ATTR_NAME = 1;
const ATTR_INT = 3;
const VALUE_NAME = 1;
const VALUE_TYPE = 2;
const TYPE_TENSOR = 1;
const TENSOR_ELEM_TYPE = 1;

interface ConcatNode {
  readonly inputs: readonly string[];
  readonly output: string;
  readonly axis: bigint | null;
}

function concatNode(buf: Uint8Array, from: number, to: number): ConcatNode | null {
  const inputs: string[] = [];
  const outputs: string[] = [];
  let op = '';
  let domain = '';
  let axis: bigint | null = null;
  for (const f of fields(buf, from, to)) {
    // Every field read here is length-delimited (strings, and attributes as messages).
    if (f.wire !== LEN) continue;
    if (f.no === NODE_INPUT) inputs.push(text(buf, f));
    else if (f.no === NODE_OUTPUT) outputs.push(text(buf, f));
    else if (f.no === NODE_OP) op = text(buf, f);
    else if (f.no === NODE_DOMAIN) domain = text(buf, f);
    else if (f.no === NODE_ATTRIBUTE) {
      let name = '';
      let value: bigint | null = null;
      for (const a of fields(buf, f.from, f.to)) {
        if (a.no === ATTR_NAME && a.wire === LEN) name = text(buf, a);
        else if (a.no === ATTR_INT && a.wire === VARINT) value = int64(buf, a.from, a.to);
      }
      if (name === 'axis') axis = value;
    }
  }
  if (op !== 'Concat' || (domain !== '' && domain !== 'ai.onnx') || outputs.length !== 1) return null;
  return { inputs, output: outputs[0]!, axis };
}

/** The element type (TensorProto.DataType) a ValueInfoProto declares, or null. */
function elemType(buf: Uint8Array, from: number, to: number): { name: string; elem: number | null } {
  let name = '';
  let elem: number | null = null;
  for (const f of fields(buf, from, to)) {
    if (f.no === VALUE_NAME && f.wire === LEN) name = text(buf, f);
    else if (f.no === VALUE_TYPE && f.wire === LEN) {
      for (const t of fields(buf, f.from, f.to)) {
        if (t.no !== TYPE_TENSOR || t.wire !== LEN) continue;
        for (const e of fields(buf, t.from, t.to)) if (e.no === TENSOR_ELEM_TYPE && e.wire === VARINT) elem = varint(buf, e.from).value;
      }
    }
  }
  return { name, elem };
}

/** What {@link exposeNewKv} found and did. */
export interface NewKvEdit {
  /** The edited file. */
  readonly bytes: Uint8Array;
  /** Cache inputs that now have a `neuroeval.new.*` output. */
  readonly inputs: readonly string[];
}

/**
 * The model with every cache input's new positions as an output of its own,
 * or null when the graph does not have the form described above for every
 * `present.*` output (or the bytes are not a model at all).
 */
export function exposeNewKv(model: Uint8Array): NewKvEdit | null {
  try {
    return edit(model);
  } catch (error) {
    if (error instanceof NotProtobuf) return null;
    throw error;
  }
}

function edit(model: Uint8Array): NewKvEdit | null {
  let graph: Field | null = null;
  for (const f of fields(model, 0, model.length)) if (f.no === MODEL_GRAPH && f.wire === LEN) graph = f;
  if (!graph) return null;

  const graphInputs = new Set<string>();
  const presentTypes = new Map<string, number | null>();
  const concats = new Map<string, ConcatNode>();
  for (const f of fields(model, graph.from, graph.to)) {
    if (f.wire !== LEN) continue;
    if (f.no === GRAPH_INPUT) graphInputs.add(elemType(model, f.from, f.to).name);
    else if (f.no === GRAPH_OUTPUT) {
      const v = elemType(model, f.from, f.to);
      if (v.name.startsWith(PRESENT)) presentTypes.set(v.name, v.elem);
    } else if (f.no === GRAPH_NODE) {
      const node = concatNode(model, f.from, f.to);
      if (node?.output.startsWith(PRESENT)) concats.set(node.output, node);
    }
  }
  if (presentTypes.size === 0) return null;

  const added: number[] = [];
  const inputs: string[] = [];
  for (const [present, elem] of presentTypes) {
    const past = PAST + present.slice(PRESENT.length);
    const node = concats.get(present);
    // Keys and values are [batch, heads, positions, head dim]: the cache grows along axis 2.
    if (!node || node.inputs.length !== 2 || node.inputs[0] !== past || !graphInputs.has(past) || (node.axis !== 2n && node.axis !== -2n) || elem === null) return null;
    const output = newKvOutput(past);
    added.push(...lenField(GRAPH_NODE, [...str(NODE_INPUT, node.inputs[1]!), ...str(NODE_OUTPUT, output), ...str(NODE_NAME, output), ...str(NODE_OP, 'Identity')]));
    const tensorType = lenField(TYPE_TENSOR, [...encodeVarint(TENSOR_ELEM_TYPE * 8 + VARINT), ...encodeVarint(elem)]);
    added.push(...lenField(GRAPH_OUTPUT, [...str(VALUE_NAME, output), ...lenField(VALUE_TYPE, tensorType)]));
    inputs.push(past);
  }

  // The graph field again, longer by what was added; every other byte of the file is kept.
  const graphLength = graph.to - graph.from + added.length;
  const head = [...encodeVarint(MODEL_GRAPH * 8 + LEN), ...encodeVarint(graphLength)];
  const out = new Uint8Array(graph.start + head.length + graphLength + (model.length - graph.to));
  out.set(model.subarray(0, graph.start), 0);
  let at = graph.start;
  out.set(head, at);
  at += head.length;
  out.set(model.subarray(graph.from, graph.to), at);
  at += graph.to - graph.from;
  out.set(added, at);
  at += added.length;
  out.set(model.subarray(graph.to), at);
  return { bytes: out, inputs };
}
