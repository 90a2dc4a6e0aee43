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
 *
 * A second, optional edit splits each layer's attention at the cache
 * boundary ({@link splitPlan}), so no pass builds the whole cache again
 * inside the runtime either (the cache-sized `Concat` cost more than the
 * rest of a decode step on WASM with two threads: docs/performance.md).
 * The file then has no `present.*` outputs, so it is asked for only where
 * the engine's own decoder runs every request of the model
 * (cached-generation.ts).
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

/** A node as the edit reads it: its names, and its integer attributes. */
interface GraphNode {
  /** The node's field in the graph. */
  readonly field: Field;
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** `axis`-like attributes (one int) and `perm`-like ones (ints), by name. */
  readonly ints: ReadonlyMap<string, readonly bigint[]>;
}

const ATTR_INTS = 8;

/** The node in `f`, or null for one outside the default domain (whose ops the edit does not know). */
function readNode(buf: Uint8Array, f: Field): GraphNode | null {
  const inputs: string[] = [];
  const outputs: string[] = [];
  const ints = new Map<string, bigint[]>();
  let op = '';
  let domain = '';
  for (const n of fields(buf, f.from, f.to)) {
    // Every field read here is length-delimited (strings, and attributes as messages).
    if (n.wire !== LEN) continue;
    if (n.no === NODE_INPUT) inputs.push(text(buf, n));
    else if (n.no === NODE_OUTPUT) outputs.push(text(buf, n));
    else if (n.no === NODE_OP) op = text(buf, n);
    else if (n.no === NODE_DOMAIN) domain = text(buf, n);
    else if (n.no === NODE_ATTRIBUTE) {
      let name = '';
      const values: bigint[] = [];
      for (const a of fields(buf, n.from, n.to)) {
        if (a.no === ATTR_NAME && a.wire === LEN) name = text(buf, a);
        else if ((a.no === ATTR_INT || a.no === ATTR_INTS) && a.wire === VARINT) values.push(int64(buf, a.from, a.to));
        else if (a.no === ATTR_INTS && a.wire === LEN) {
          // Packed repeated int64.
          let at = a.from;
          while (at < a.to) {
            const start = at;
            at = varint(buf, at).next;
            values.push(int64(buf, start, at));
          }
        }
      }
      ints.set(name, values);
    }
  }
  if (domain !== '' && domain !== 'ai.onnx') return null;
  return { field: f, op, inputs, outputs, ints };
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

/** What {@link exposeNewKv} is asked to do besides exposing the new positions. */
export interface NewKvOptions {
  /** Split each layer's attention at the cache boundary ({@link splitPlan}). */
  readonly splitAttention?: boolean;
  /**
   * Also hold this kept prefix's keys and values in the file ({@link BakedPrefix}):
   * implies the split, and the edit fails (null) where the split cannot be made.
   */
  readonly prefix?: BakedPrefix;
}

/**
 * A kept prefix's cache, to be held in the decoder file as constants: the
 * file's `past_key_values.N.*` inputs then hold only the positions after it.
 *
 * Why: onnxruntime-web copies every input into its WASM heap on every run,
 * and the engine's growing cache moves each head's block up on every append
 * (kv-cache.ts); at a 3,778-token prompt of SmolVLM-256M that is 174 MB
 * copied and 116 MB moved per decoded token, a third of a step on WASM
 * (docs/performance.md). A prefix every request of a run shares is read in
 * place instead, from the session's own memory.
 */
export interface BakedPrefix {
  /** Positions it holds. */
  readonly length: number;
  /** Per cache input (`past_key_values.3.key`): one row, [1, kv heads, length, head dim], float32 or float16 bits. */
  readonly tensors: ReadonlyMap<string, { readonly dims: readonly number[]; readonly data: Float32Array | Uint16Array }>;
}

/** What {@link exposeNewKv} found and did. */
export interface NewKvEdit {
  /** The edited file. */
  readonly bytes: Uint8Array;
  /** Cache inputs that now have a `neuroeval.new.*` output. */
  readonly inputs: readonly string[];
  /**
   * Whether the attention was split at the cache boundary ({@link splitPlan}):
   * the file then has no `present.*` outputs, and only a caller that keeps
   * the cache itself can run it.
   */
  readonly split: boolean;
}

/**
 * The model with every cache input's new positions as an output of its own,
 * or null when the graph does not have the form described above for every
 * `present.*` output (or the bytes are not a model at all). With
 * `splitAttention`, where every layer's attention reads the cache in the
 * form {@link splitPlan} knows, the attention is also split at the cache
 * boundary and the whole-cache outputs go.
 */
export function exposeNewKv(model: Uint8Array, options: NewKvOptions = {}): NewKvEdit | null {
  try {
    return edit(model, options.splitAttention ?? false, options.prefix ?? null);
  } catch (error) {
    if (error instanceof NotProtobuf) return null;
    throw error;
  }
}

/** Keys and values are [batch, heads, positions, head dim]: the cache grows along axis 2. */
function isPositionsAxis(concat: GraphNode): boolean {
  const axis = concat.ints.get('axis');
  return axis?.length === 1 && (axis[0] === 2n || axis[0] === -2n);
}

const MODEL_OPSET = 8;
const OPSET_DOMAIN = 1;
const OPSET_VERSION = 2;
const GRAPH_INITIALIZER = 5;

/** The default domain's opset the model declares (0 when none). */
function defaultOpset(model: Uint8Array): number {
  let version = 0;
  for (const f of fields(model, 0, model.length)) {
    if (f.no !== MODEL_OPSET || f.wire !== LEN) continue;
    let domain = '';
    let v = 0;
    for (const o of fields(model, f.from, f.to)) {
      if (o.no === OPSET_DOMAIN && o.wire === LEN) domain = text(model, o);
      else if (o.no === OPSET_VERSION && o.wire === VARINT) v = varint(model, o.from).value;
    }
    if (domain === '' || domain === 'ai.onnx') version = v;
  }
  return version;
}

function edit(model: Uint8Array, splitAttention: boolean, prefix: BakedPrefix | null): NewKvEdit | null {
  let graph: Field | null = null;
  for (const f of fields(model, 0, model.length)) if (f.no === MODEL_GRAPH && f.wire === LEN) graph = f;
  if (!graph) return null;

  const graphInputs = new Set<string>();
  const presentTypes = new Map<string, number | null>();
  const concats = new Map<string, GraphNode>();
  const nodes: GraphNode[] = [];
  const graphOutputs = new Set<string>();
  /** Where each whole-cache output's field starts (the split leaves them out). */
  const presentFields = new Set<number>();
  let foreign = false;
  for (const f of fields(model, graph.from, graph.to)) {
    if (f.wire !== LEN) continue;
    if (f.no === GRAPH_INPUT) graphInputs.add(elemType(model, f.from, f.to).name);
    else if (f.no === GRAPH_OUTPUT) {
      const v = elemType(model, f.from, f.to);
      graphOutputs.add(v.name);
      if (v.name.startsWith(PRESENT)) {
        presentTypes.set(v.name, v.elem);
        presentFields.add(f.start);
      }
    } else if (f.no === GRAPH_NODE) {
      const node = readNode(model, f);
      if (!node) {
        foreign = true;
        continue;
      }
      nodes.push(node);
      if (node.op === 'Concat' && node.outputs.length === 1 && node.outputs[0]!.startsWith(PRESENT)) concats.set(node.outputs[0]!, node);
    }
  }
  if (presentTypes.size === 0) return null;

  const added: number[] = [];
  const inputs: string[] = [];
  for (const [present, elem] of presentTypes) {
    const past = PAST + present.slice(PRESENT.length);
    const node = concats.get(present);
    if (!node || node.inputs.length !== 2 || node.inputs[0] !== past || !graphInputs.has(past) || !isPositionsAxis(node) || elem === null) return null;
    const output = newKvOutput(past);
    added.push(...lenField(GRAPH_NODE, [...str(NODE_INPUT, node.inputs[1]!), ...str(NODE_OUTPUT, output), ...str(NODE_NAME, output), ...str(NODE_OP, 'Identity')]));
    const tensorType = lenField(TYPE_TENSOR, [...encodeVarint(TENSOR_ELEM_TYPE * 8 + VARINT), ...encodeVarint(elem)]);
    added.push(...lenField(GRAPH_OUTPUT, [...str(VALUE_NAME, output), ...lenField(VALUE_TYPE, tensorType)]));
    inputs.push(past);
  }

  // Nodes outside the default domain may read the cache in ways the plan cannot see: no split then.
  const plan = (splitAttention || prefix) && !foreign && defaultOpset(model) >= 13 ? splitPlan(nodes, concats, graphOutputs, prefix) : null;
  if (prefix && !plan) return null;
  const parts: Uint8Array[] = [];
  if (!plan) parts.push(model.subarray(graph.from, graph.to));
  else {
    // The graph's fields in order, less the whole-cache outputs and with the attention nodes replaced.
    for (const f of fields(model, graph.from, graph.to)) {
      if (presentFields.has(f.start)) continue;
      parts.push(plan.replace.get(f.start) ?? model.subarray(f.start, f.to));
    }
    parts.push(...plan.initializers);
  }
  parts.push(Uint8Array.from(added));

  // The graph field again, with what changed; every byte outside the graph is kept.
  const graphLength = parts.reduce((n, p) => n + p.length, 0);
  const head = [...encodeVarint(MODEL_GRAPH * 8 + LEN), ...encodeVarint(graphLength)];
  const out = new Uint8Array(graph.start + head.length + graphLength + (model.length - graph.to));
  out.set(model.subarray(0, graph.start), 0);
  let at = graph.start;
  out.set(head, at);
  at += head.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  out.set(model.subarray(graph.to), at);
  return { bytes: out, inputs, split: plan !== null };
}

// ── splitting the attention at the cache boundary ──

const SPLIT = 'neuroeval.split.';
const ATTR_TYPE = 20;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;
const TENSOR_DIMS = 1;
const TENSOR_DATA_TYPE = 2;
const TENSOR_NAME = 8;
const TENSOR_RAW = 9;
const INT64 = 7;

/** A signed int64 as a protobuf varint (negative values take ten bytes). */
function encodeInt64(value: bigint): number[] {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  while (v >= 128n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function intAttr(name: string, value: bigint): number[] {
  return lenField(NODE_ATTRIBUTE, [...str(ATTR_NAME, name), ...encodeVarint(ATTR_TYPE * 8 + VARINT), ATTRIBUTE_INT, ...encodeVarint(ATTR_INT * 8 + VARINT), ...encodeInt64(value)]);
}

function intsAttr(name: string, values: readonly bigint[]): number[] {
  return lenField(NODE_ATTRIBUTE, [...str(ATTR_NAME, name), ...encodeVarint(ATTR_TYPE * 8 + VARINT), ATTRIBUTE_INTS, ...lenField(ATTR_INTS, values.flatMap(encodeInt64))]);
}

function nodeBytes(op: string, inputs: readonly string[], output: string | readonly string[], attrs: readonly number[][] = []): number[] {
  const outputs = typeof output === 'string' ? [output] : output;
  return lenField(GRAPH_NODE, [
    ...inputs.flatMap((i) => str(NODE_INPUT, i)),
    ...outputs.flatMap((o) => str(NODE_OUTPUT, o)),
    ...str(NODE_NAME, outputs[0]!),
    ...str(NODE_OP, op),
    ...attrs.flat(),
  ]);
}

/** A one-dimensional int64 initializer of `values`. */
function int64sInitializer(name: string, values: readonly bigint[]): number[] {
  const raw = new Uint8Array(8 * values.length);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setBigInt64(8 * i, v, true));
  return lenField(GRAPH_INITIALIZER, [...encodeVarint(TENSOR_DIMS * 8 + VARINT), ...encodeVarint(values.length), ...encodeVarint(TENSOR_DATA_TYPE * 8 + VARINT), INT64, ...str(TENSOR_NAME, name), ...lenField(TENSOR_RAW, raw)]);
}

/** A one-element, one-dimensional int64 initializer. */
function int64Initializer(name: string, value: bigint): number[] {
  return int64sInitializer(name, [value]);
}

const TRANSPOSED = [0n, 1n, 3n, 2n];
const sameInts = (a: readonly bigint[] | undefined, b: readonly bigint[]) => a !== undefined && a.length === b.length && a.every((v, i) => v === b[i]);

/** Names of the nodes and initializers the split adds. */
const [ZERO, TWO, LAST, END, HELD] = [`${SPLIT}zero`, `${SPLIT}two`, `${SPLIT}last`, `${SPLIT}end`, `${SPLIT}prefix_length`];

/** A replacement per node field, by where the field starts (empty: the node goes). */
type Replacements = Map<number, Uint8Array>;

/** One `present.N.*` being split: the `Concat`'s two inputs, and what the readers need to see of the graph. */
interface SplitCache {
  readonly present: string;
  readonly past: string;
  readonly fresh: string;
  /** A baked prefix's part of this cache ({@link BakedPrefix}), one initializer per KV head ({@link heldHeads}), or null. */
  readonly prefix: readonly string[] | null;
  readonly consumers: ReadonlyMap<string, readonly GraphNode[]>;
  readonly graphOutputs: ReadonlySet<string>;
  readonly replace: Replacements;
}

/**
 * The attention of every layer computed on the cache and the pass's
 * positions apart, where each layer reads `present.N.*` only as
 * `MatMul(a, Transpose(keys, [0,1,3,2]))` and `MatMul(p, values)`:
 *
 *   scores  = Concat(MatMul(a, pastᵀ), MatMul(a, newᵀ)) along the key axis
 *   context = MatMul(p[…, :past], past_v) + MatMul(p[…, past:], new_v)
 *
 * which is the same arithmetic on each score (a dot product over the head
 * dimension) and the context's sum over positions taken in two parts. The
 * cache-sized `Concat` and `present.*` go: onnxruntime runs every node of a
 * graph whatever outputs a run asks for, so an unasked `present.*` would
 * still be built. Null when any layer reads the cache otherwise.
 */
function splitPlan(
  nodes: readonly GraphNode[],
  concats: ReadonlyMap<string, GraphNode>,
  graphOutputs: ReadonlySet<string>,
  prefix: BakedPrefix | null,
): { replace: Replacements; initializers: Uint8Array[] } | null {
  const consumers = new Map<string, GraphNode[]>();
  for (const n of nodes) {
    for (const i of n.inputs) {
      const list = consumers.get(i);
      if (list) list.push(n);
      else consumers.set(i, [n]);
    }
  }
  const replace: Replacements = new Map();
  const baked: Uint8Array[] = [];
  const headCounts = new Set<number>();
  for (const [present, concat] of concats) {
    replace.set(concat.field.start, new Uint8Array(0));
    const readers = consumers.get(present) ?? [];
    const [past, fresh] = concat.inputs as [string, string];
    const keys = present.endsWith('.key');
    let held: string[] | null = null;
    if (prefix) {
      // The input then holds only the positions after the prefix: nothing but this Concat may read it.
      const tensor = prefix.tensors.get(past);
      if (!tensor || (consumers.get(past) ?? []).length !== 1 || !prefixFits(tensor, prefix.length)) return null;
      const names: string[] = [];
      heldHeads(tensor, keys).forEach((t, h) => {
        names.push(`${SPLIT}prefix.${past.slice(PAST.length)}.${h}`);
        baked.push(...tensorInitializer(names[h]!, t));
      });
      headCounts.add(names.length);
      held = names;
    }
    const cache: SplitCache = { present, past, fresh, prefix: held, consumers, graphOutputs, replace };
    const split = keys ? splitKeys : splitValues;
    if (readers.length === 0 || !readers.every((r) => split(r, cache))) return null;
  }
  // The 1-D index tensors Gather and Slice read: axis 2 of the cache's shape, the key axis, its start and an end past any length.
  const initializers: Uint8Array[] = [Uint8Array.from([...int64Initializer(ZERO, 0n), ...int64Initializer(TWO, 2n), ...int64Initializer(LAST, -1n), ...int64Initializer(END, 2n ** 62n)])];
  if (prefix) {
    initializers.push(Uint8Array.from(int64Initializer(HELD, BigInt(prefix.length))), ...baked);
    for (const n of headCounts) if (n > 1) initializers.push(Uint8Array.from(int64sInitializer(headSplit(n), Array.from({ length: n }, () => 1n))));
  }
  return { replace, initializers };
}

/** Name of the Split sizes initializer that cuts axis 1 into `heads` parts of one. */
const headSplit = (heads: number) => `${SPLIT}heads.${heads}`;

/**
 * A held cache's heads as the 2-D matrices the products read: keys
 * transposed ([dim, positions]: scores = a · keysᵀ), values as they are
 * ([positions, dim]: a head's block of the cache, not copied).
 *
 * Why per head and 2-D: onnxruntime packs a constant right-hand side of
 * MatMul once, when the session is made, only where it is 2-D; a 4-D
 * [1, heads, positions, dim] constant is packed again on every product.
 * Measured on onnxruntime-web WASM (docs/performance.md), 30 layers of
 * SmolVLM-256M's grouped attention over a 3,701-position prefix take about
 * half the time as 2-D heads.
 */
function heldHeads(t: HeldTensor, keys: boolean): HeldTensor[] {
  const [, heads, positions, dim] = t.dims as [number, number, number, number];
  const size = positions * dim;
  return Array.from({ length: heads }, (_, h) => {
    const block = t.data.subarray(h * size, (h + 1) * size);
    if (!keys) return { dims: [positions, dim], data: block };
    const out = block instanceof Float32Array ? new Float32Array(size) : new Uint16Array(size);
    for (let p = 0; p < positions; p++) for (let d = 0; d < dim; d++) out[d * positions + p] = block[p * dim + d]!;
    return { dims: [dim, positions], data: out };
  });
}

/**
 * `x` [batch, heads, rows, ·] times each KV head's held matrix: the head's
 * slice of `x` (axis 1) by that head's matrix, the products concatenated
 * along axis 1 again as `out`. With one KV head the matrix is shared by
 * every query head (multi-query attention), so `x` is not cut.
 *
 * Axis 1 of `x` is the KV heads wherever the split applies: the graph's own
 * `MatMul(x, keysᵀ)` against [batch, KV heads, ·, ·] broadcasts only so,
 * short of a single query row shared by every KV head, which no attention
 * computes.
 */
function perHead(x: string, held: readonly string[], out: string): number[] {
  if (held.length === 1) return nodeBytes('MatMul', [x, held[0]!], out);
  const cut = held.map((_, h) => `${out}/${SPLIT}head${h}`);
  const products = held.map((_, h) => `${out}/${SPLIT}product${h}`);
  return [
    ...nodeBytes('Split', [x, headSplit(held.length)], cut, [intAttr('axis', 1n)]),
    ...held.flatMap((m, h) => nodeBytes('MatMul', [cut[h]!, m], products[h]!)),
    ...nodeBytes('Concat', products, out, [intAttr('axis', 1n)]),
  ];
}

type HeldTensor = { readonly dims: readonly number[]; readonly data: Float32Array | Uint16Array };

/** One row of `length` positions: [1, heads, length, dim], as many elements as its data. */
function prefixFits(t: HeldTensor, length: number): boolean {
  const [rows, heads, positions, dim] = t.dims;
  return t.dims.length === 4 && rows === 1 && positions === length && length > 0 && t.data.length === heads! * length * dim!;
}

const FLOAT = 1;
const FLOAT16 = 10;

/** A float32 (or float16) initializer holding `data`: its bytes are not copied here, only framed. */
function tensorInitializer(name: string, t: HeldTensor): Uint8Array[] {
  const raw = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const head = [
    ...t.dims.flatMap((d) => [...encodeVarint(TENSOR_DIMS * 8 + VARINT), ...encodeVarint(d)]),
    ...encodeVarint(TENSOR_DATA_TYPE * 8 + VARINT),
    t.data instanceof Float32Array ? FLOAT : FLOAT16,
    ...str(TENSOR_NAME, name),
    ...encodeVarint(TENSOR_RAW * 8 + LEN),
    ...encodeVarint(raw.length),
  ];
  return [Uint8Array.from([...encodeVarint(GRAPH_INITIALIZER * 8 + LEN), ...encodeVarint(head.length + raw.length), ...head]), raw];
}

/** A reader of a layer's keys: `Transpose(keys, [0,1,3,2])` read only by `MatMul(a, ·)`; each product becomes the scores of the two parts, concatenated. */
function splitKeys(r: GraphNode, { past, fresh, prefix, consumers, graphOutputs, replace }: SplitCache): boolean {
  if (r.op !== 'Transpose' || !sameInts(r.ints.get('perm'), TRANSPOSED) || r.outputs.length !== 1 || graphOutputs.has(r.outputs[0]!)) return false;
  const transposed = r.outputs[0]!;
  const products = consumers.get(transposed) ?? [];
  if (products.length === 0 || !products.every((m) => m.op === 'MatMul' && m.inputs[1] === transposed && m.inputs[0] !== transposed && m.outputs.length === 1)) return false;
  replace.set(r.field.start, new Uint8Array(0));
  const perm = [intsAttr('perm', TRANSPOSED)];
  for (const m of products) {
    const [a, o] = [m.inputs[0]!, m.outputs[0]!];
    const held = prefix ? perHead(a, prefix, `${o}/${SPLIT}prefix`) : [];
    replace.set(
      m.field.start,
      Uint8Array.from([
        ...held,
        ...nodeBytes('Transpose', [past], `${o}/${SPLIT}past_t`, perm),
        ...nodeBytes('Transpose', [fresh], `${o}/${SPLIT}new_t`, perm),
        ...nodeBytes('MatMul', [a, `${o}/${SPLIT}past_t`], `${o}/${SPLIT}past`),
        ...nodeBytes('MatMul', [a, `${o}/${SPLIT}new_t`], `${o}/${SPLIT}new`),
        ...nodeBytes('Concat', [...(prefix ? [`${o}/${SPLIT}prefix`] : []), `${o}/${SPLIT}past`, `${o}/${SPLIT}new`], o, [intAttr('axis', -1n)]),
      ]),
    );
  }
  return true;
}

/** A reader of a layer's values: `MatMul(p, values)`; it becomes the sum of each part's product with its share of `p` along the key axis. */
function splitValues(r: GraphNode, { present, past, fresh, prefix, replace }: SplitCache): boolean {
  if (r.op !== 'MatMul' || r.inputs[1] !== present || r.inputs[0] === present || r.outputs.length !== 1) return false;
  const [p, o] = [r.inputs[0]!, r.outputs[0]!];
  const name = (part: string) => `${o}/${SPLIT}${part}`;
  // Where the cache input's positions start and end along p's key axis (after a baked prefix, if any).
  const start = prefix ? HELD : ZERO;
  const held = prefix
    ? [
        ...nodeBytes('Slice', [p, ZERO, HELD, LAST], name('p_prefix')),
        ...perHead(name('p_prefix'), prefix, name('prefix')),
        ...nodeBytes('Add', [name('past_length'), HELD], name('length')),
      ]
    : [];
  replace.set(
    r.field.start,
    Uint8Array.from([
      ...nodeBytes('Shape', [past], name('shape')),
      ...nodeBytes('Gather', [name('shape'), TWO], prefix ? name('past_length') : name('length'), [intAttr('axis', 0n)]),
      ...held,
      ...nodeBytes('Slice', [p, start, name('length'), LAST], name('p_past')),
      ...nodeBytes('Slice', [p, name('length'), END, LAST], name('p_new')),
      ...nodeBytes('MatMul', [name('p_past'), past], name('past')),
      ...nodeBytes('MatMul', [name('p_new'), fresh], name('new')),
      ...(prefix
        ? [...nodeBytes('Add', [name('prefix'), name('past')], name('held_past')), ...nodeBytes('Add', [name('held_past'), name('new')], o)]
        : nodeBytes('Add', [name('past'), name('new')], o)),
    ]),
  );
  return true;
}
