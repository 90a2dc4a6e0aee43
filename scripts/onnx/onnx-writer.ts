/**
 * Builds small ONNX models (ModelProto bytes) in plain TypeScript, for the
 * generated self-test models. Field numbers follow onnx/onnx.proto (IR v8).
 * Only what tiny test graphs need: dense initializers, typed graph inputs and
 * outputs with named (symbolic) dimensions, and nodes with attributes.
 */
import { ProtoWriter } from './protobuf.ts';

type ElemType = 'float32' | 'int64' | 'bool' | 'uint8' | 'int8';
/** A dimension: a fixed size, or a symbolic name such as `batch_size`. */
type Dim = number | string;

const ELEM_TYPE_CODE: Record<ElemType, number> = { float32: 1, int64: 7, bool: 9, uint8: 2, int8: 3 };

export interface TensorData {
  readonly type: ElemType;
  readonly dims: readonly number[];
  readonly data: Float32Array | BigInt64Array | Uint8Array | Int8Array;
}

/**
 * A tensor whose bytes live in an external data file beside the model
 * (`<model>.onnx_data`), as large exports keep them: the ModelProto then
 * holds only the location, offset and length.
 */
export interface ExternalTensor {
  readonly type: ElemType;
  readonly dims: readonly number[];
  readonly external: { readonly location: string; readonly offset: number; readonly length: number };
}

type Attribute =
  | { readonly int: number }
  | { readonly ints: readonly number[] }
  | { readonly float: number }
  | { readonly string: string }
  | { readonly tensor: TensorData };

interface ValueInfo {
  readonly name: string;
  readonly type: ElemType;
  readonly shape: readonly Dim[];
}

interface NodeSpec {
  readonly opType: string;
  /** Operator set domain, e.g. `com.microsoft`; absent = the default ONNX domain. */
  readonly domain?: string;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes: Readonly<Record<string, Attribute>>;
}

export function floatTensor(dims: readonly number[], values: ArrayLike<number>): TensorData {
  const data = Float32Array.from(values);
  checkSize(dims, data.length);
  return { type: 'float32', dims, data };
}

export function int64Tensor(dims: readonly number[], values: readonly number[]): TensorData {
  const data = BigInt64Array.from(values.map((v) => BigInt(v)));
  checkSize(dims, data.length);
  return { type: 'int64', dims, data };
}

function checkSize(dims: readonly number[], length: number): void {
  const size = dims.reduce((a, b) => a * b, 1);
  if (size !== length) throw new RangeError(`tensor dims [${dims.join(', ')}] need ${size} values, got ${length}`);
}

function rawBytes(t: TensorData): Uint8Array {
  // Typed arrays are little-endian on every platform JavaScript runs on today; ONNX raw_data is little-endian.
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

function tensorProto(name: string, t: TensorData | ExternalTensor): ProtoWriter {
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d);
  w.int(2, ELEM_TYPE_CODE[t.type]);
  w.string(8, name);
  if ('external' in t) {
    // TensorProto.external_data (13): StringStringEntryProto {key, value}; data_location (14) EXTERNAL = 1.
    const { location, offset, length } = t.external;
    for (const [key, value] of [['location', location], ['offset', String(offset)], ['length', String(length)]] as const) {
      w.message(13, new ProtoWriter().string(1, key).string(2, value));
    }
    w.int(14, 1);
  } else {
    w.bytes(9, rawBytes(t));
  }
  return w;
}

function valueInfoProto(v: ValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = new ProtoWriter();
    if (typeof d === 'number') dim.int(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().int(1, ELEM_TYPE_CODE[v.type]).message(2, shape);
  const type = new ProtoWriter().message(1, tensorType);
  return new ProtoWriter().string(1, v.name).message(2, type);
}

function attributeProto(name: string, a: Attribute): ProtoWriter {
  const w = new ProtoWriter().string(1, name);
  // AttributeProto.type enum: FLOAT=1, INT=2, STRING=3, TENSOR=4, INTS=7.
  if ('int' in a) w.int(3, a.int).int(20, 2);
  else if ('ints' in a) {
    for (const i of a.ints) w.int(8, i);
    w.int(20, 7);
  } else if ('float' in a) w.float(2, a.float).int(20, 1);
  else if ('string' in a) w.string(4, a.string).int(20, 3);
  else w.message(5, tensorProto('', a.tensor)).int(20, 4);
  return w;
}

/** Collects nodes, initializers, inputs and outputs, then serialises them as one ModelProto. */
export class GraphBuilder {
  private readonly nodes: NodeSpec[] = [];
  private readonly initializers: { name: string; tensor: TensorData | ExternalTensor }[] = [];
  private readonly inputs: ValueInfo[] = [];
  private readonly outputs: ValueInfo[] = [];
  private readonly names = new Set<string>();
  private counter = 0;

  constructor(private readonly graphName: string) {}

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`duplicate value name "${name}" in graph ${this.graphName}`);
    this.names.add(name);
    return name;
  }

  private fresh(prefix: string): string {
    let name: string;
    do name = `${prefix}_${this.counter++}`;
    while (this.names.has(name));
    return name;
  }

  input(name: string, type: ElemType, shape: readonly Dim[]): string {
    this.inputs.push({ name: this.claim(name), type, shape });
    return name;
  }

  /** Declares a graph output; `value` is produced by a node, under the same name. */
  output(name: string, type: ElemType, shape: readonly Dim[]): void {
    this.outputs.push({ name, type, shape });
  }

  /** A constant (stored as an initializer); returns its value name. */
  constant(tensor: TensorData | ExternalTensor, name?: string): string {
    const n = name === undefined ? this.fresh('const') : this.claim(name);
    this.initializers.push({ name: n, tensor });
    return n;
  }

  /** Adds a node with one output; returns the output's name (`out` names it explicitly). */
  op(opType: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}, out?: string): string {
    const output = out === undefined ? this.fresh(opType.toLowerCase()) : this.claim(out);
    this.nodes.push({ opType, name: `${opType}_node_${this.nodes.length}`, inputs, outputs: [output], attributes });
    return output;
  }

  /** Adds a node with several outputs (e.g. `DynamicQuantizeLinear`); returns their names in order. */
  opMulti(opType: string, inputs: readonly string[], outputs: number, attributes: Record<string, Attribute> = {}): string[] {
    const names = Array.from({ length: outputs }, () => this.fresh(opType.toLowerCase()));
    this.nodes.push({ opType, name: `${opType}_node_${this.nodes.length}`, inputs, outputs: names, attributes });
    return names;
  }

  /** A node of another operator set (e.g. `com.microsoft` `MatMulNBits`); list the domain in `toModel`'s `domains`. */
  domainOp(domain: string, opType: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}): string {
    const output = this.fresh(opType.toLowerCase());
    this.nodes.push({ opType, domain, name: `${opType}_node_${this.nodes.length}`, inputs, outputs: [output], attributes });
    return output;
  }

  /** Serialises the graph as an ONNX model (IR version 8, default domain at `opset`, plus `domains`). */
  toModel(options: { opset: number; producer: string; domains?: readonly { domain: string; version: number }[] }): Uint8Array {
    return this.toProto(options).finish();
  }

  /** The ModelProto as a writer, so a large model can be written out in pieces ({@link ProtoWriter.pieces}) without one copy of it all. */
  toProto({ opset, producer, domains = [] }: { opset: number; producer: string; domains?: readonly { domain: string; version: number }[] }): ProtoWriter {
    const graph = new ProtoWriter();
    for (const n of this.nodes) {
      const node = new ProtoWriter();
      for (const i of n.inputs) node.string(1, i);
      for (const o of n.outputs) node.string(2, o);
      node.string(3, n.name).string(4, n.opType);
      for (const [key, value] of Object.entries(n.attributes)) node.message(5, attributeProto(key, value));
      if (n.domain !== undefined) node.string(7, n.domain);
      graph.message(1, node);
    }
    graph.string(2, this.graphName);
    for (const { name, tensor } of this.initializers) graph.message(5, tensorProto(name, tensor));
    for (const v of this.inputs) graph.message(11, valueInfoProto(v));
    for (const v of this.outputs) graph.message(12, valueInfoProto(v));

    const model = new ProtoWriter().int(1, 8).string(2, producer).message(7, graph).message(8, new ProtoWriter().string(1, '').int(2, opset));
    for (const d of domains) model.message(8, new ProtoWriter().string(1, d.domain).int(2, d.version));
    return model;
  }
}
