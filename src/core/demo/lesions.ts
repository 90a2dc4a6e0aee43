/**
 * Lesions are painted over the normal anatomy, in order, as simple shapes
 * that replace the tissue under them (optionally only some tissues: oedema
 * follows white matter, infarcts spare CSF). Recipes below build the paints
 * for each disease the demo shows.
 */
import { datan2, dcos, dsin, rad } from './det-math.ts';
import { type Rotation, rotation } from './geometry.ts';
import { fbm } from './noise.ts';
import { PARENCHYMA, Tissue as T, type Tissue } from './tissues.ts';

interface EllipseShape {
  readonly kind: 'ellipse';
  readonly cx: number;
  readonly cy: number;
  readonly rx: number;
  readonly ry: number;
  /** Degrees; positive turns the ellipse's upper end towards +x. */
  readonly angle?: number;
  /** Relative border irregularity (0 = smooth). */
  readonly wobble?: number;
  /** Spatial frequency of the irregularity around the border. */
  readonly wobbleFreq?: number;
  readonly seed?: number;
}

interface WedgeShape {
  readonly kind: 'wedge';
  /** Apex. */
  readonly ax: number;
  readonly ay: number;
  /** Direction of the wedge's axis in degrees (0 = +x, 90 = +y, i.e. down). */
  readonly dir: number;
  /** Half opening angle in degrees. */
  readonly half: number;
  readonly rMin: number;
  readonly rMax: number;
  /** Keep to one side of the midline: −1 (x < 0), +1 (x > 0). */
  readonly side?: -1 | 1;
}

type Shape = EllipseShape | WedgeShape;

interface Paint {
  readonly shape: Shape;
  readonly tissue: Tissue;
  /** Only replace these tissues (default: anything inside the skull). */
  readonly on?: readonly Tissue[];
}

/** Pushes surrounding anatomy away from a centre (midline shift, effacement). */
interface MassEffect {
  readonly cx: number;
  readonly cy: number;
  readonly r: number;
  /** 0 to about 0.6. */
  readonly strength: number;
}

export interface Pathology {
  readonly paints: readonly Paint[];
  readonly masses?: readonly MassEffect[];
}

/** A shape prepared for fast point tests. */
interface CompiledPaint {
  readonly tissue: Tissue;
  readonly on: ReadonlySet<number> | undefined;
  /** Bounding box, to skip pixels quickly. */
  readonly box: readonly [number, number, number, number];
  contains(x: number, y: number): boolean;
}

const INTRACRANIAL: ReadonlySet<number> = new Set<number>([
  T.Csf,
  T.Gm,
  T.Wm,
  T.DeepGm,
  T.Dura,
  T.Choroid,
  T.Pituitary,
  T.Edema,
  T.Tumor,
  T.TumorEnh,
  T.Rim,
  T.Necrosis,
  T.Infarct,
  T.Blood,
  T.Plaque,
  T.PlaqueActive,
  T.Cyst,
  T.Pus,
  T.Capsule,
  T.Inflamed,
  T.Ribbon,
]);

function compileEllipse(e: EllipseShape): (x: number, y: number) => boolean {
  const rot: Rotation = rotation(e.angle ?? 0);
  const wobble = e.wobble ?? 0;
  const freq = e.wobbleFreq ?? 1.6;
  const seed = e.seed ?? 1;
  return (x, y) => {
    const dx = x - e.cx;
    const dy = y - e.cy;
    const lx = (dx * rot.c + dy * rot.s) / e.rx;
    const ly = (-dx * rot.s + dy * rot.c) / e.ry;
    const r2 = lx * lx + ly * ly;
    const limit = 1 + wobble;
    if (r2 >= limit * limit) return false;
    if (wobble === 0) return r2 < 1;
    const r = Math.sqrt(r2);
    if (r < 1e-9) return true;
    const n = fbm((lx / r) * freq + 17, (ly / r) * freq + 29, seed, 2);
    return r < 1 + 2 * wobble * n;
  };
}

function compileWedge(w: WedgeShape): (x: number, y: number) => boolean {
  const dir = rad(w.dir);
  const half = rad(w.half);
  return (x, y) => {
    if (w.side !== undefined && x * w.side < 0) return false;
    const dx = x - w.ax;
    const dy = y - w.ay;
    const r2 = dx * dx + dy * dy;
    if (r2 < w.rMin * w.rMin || r2 > w.rMax * w.rMax) return false;
    let a = datan2(dy, dx) - dir;
    while (a > Math.PI) a -= 2 * Math.PI;
    while (a < -Math.PI) a += 2 * Math.PI;
    // Irregular borders: the edges of a vascular territory are never straight.
    const h = half * (1 + 0.5 * fbm(x * 3 + 7, y * 3 + 3, 57, 2));
    return a < h && a > -h;
  };
}

export function compilePaint(p: Paint): CompiledPaint {
  const s = p.shape;
  let box: [number, number, number, number];
  if (s.kind === 'ellipse') {
    const m = Math.max(s.rx, s.ry) * (1 + (s.wobble ?? 0));
    box = [s.cx - m, s.cy - m, s.cx + m, s.cy + m];
  } else {
    box = [s.ax - s.rMax, s.ay - s.rMax, s.ax + s.rMax, s.ay + s.rMax];
  }
  return {
    tissue: p.tissue,
    on: p.on ? new Set<number>(p.on) : INTRACRANIAL,
    box,
    contains: s.kind === 'ellipse' ? compileEllipse(s) : compileWedge(s),
  };
}

// ---------------------------------------------------------------- recipes

const WHITE_MATTER_LIKE: readonly Tissue[] = [T.Wm, T.DeepGm];

function ellipse(cx: number, cy: number, rx: number, ry: number, extra: Partial<EllipseShape> = {}): EllipseShape {
  return { kind: 'ellipse', cx, cy, rx, ry, ...extra };
}

/** Glioma. High grade: necrotic core, thick irregular enhancing rim, finger-like white-matter oedema. */
export function glioma(cx: number, cy: number, r: number, opts: { grade?: 'high' | 'low'; seed?: number; shift?: number } = {}): Pathology {
  const seed = opts.seed ?? 3;
  if (opts.grade === 'low') {
    return {
      paints: [
        { shape: ellipse(cx, cy, r * 1.25, r * 1.15, { wobble: 0.25, wobbleFreq: 2.5, seed: seed + 1 }), tissue: T.Edema, on: WHITE_MATTER_LIKE },
        { shape: ellipse(cx, cy, r, r * 0.9, { wobble: 0.18, seed }), tissue: T.Tumor, on: [...PARENCHYMA, T.Edema, T.Csf] },
      ],
      masses: [{ cx, cy, r, strength: opts.shift ?? 0.2 }],
    };
  }
  return {
    paints: [
      { shape: ellipse(cx, cy, r * 2.1, r * 1.9, { wobble: 0.3, wobbleFreq: 2.8, seed: seed + 1 }), tissue: T.Edema, on: WHITE_MATTER_LIKE },
      { shape: ellipse(cx, cy, r, r * 0.92, { wobble: 0.22, seed }), tissue: T.Rim },
      { shape: ellipse(cx, cy, r * 0.8, r * 0.72, { wobble: 0.22, seed }), tissue: T.Tumor },
      { shape: ellipse(cx + r * 0.05, cy - r * 0.05, r * 0.6, r * 0.52, { wobble: 0.25, seed }), tissue: T.Necrosis },
    ],
    masses: [{ cx, cy, r: r * 1.2, strength: opts.shift ?? 0.35 }],
  };
}

/** Extra-axial, dural-based, homogeneously enhancing mass (meningioma, schwannoma) with a rim of displaced CSF. */
export function extraAxialMass(cx: number, cy: number, r: number, opts: { edema?: boolean; shift?: number; tail?: { x: number; y: number; r: number } } = {}): Pathology {
  const paints: Paint[] = [];
  if (opts.edema) paints.push({ shape: ellipse(cx, cy, r * 1.7, r * 1.6, { wobble: 0.25, wobbleFreq: 2.6, seed: 9 }), tissue: T.Edema, on: WHITE_MATTER_LIKE });
  paints.push({ shape: ellipse(cx, cy, r * 1.1, r * 1.1), tissue: T.Csf, on: [T.Gm, T.Wm] });
  paints.push({ shape: ellipse(cx, cy, r, r * 0.95, { wobble: 0.05, seed: 4 }), tissue: T.TumorEnh });
  if (opts.tail) paints.push({ shape: ellipse(opts.tail.x, opts.tail.y, opts.tail.r, opts.tail.r), tissue: T.TumorEnh, on: [T.Csf, T.Bone, T.Air, T.Gm, T.Wm] });
  return { paints, masses: [{ cx, cy, r: r * 1.1, strength: opts.shift ?? 0.45 }] };
}

/** Pituitary macroadenoma on a midline sagittal slice: a "snowman" rising out of the sella. */
export function pituitaryMacroadenoma(): Pathology {
  return {
    paints: [
      { shape: ellipse(-0.17, 0.25, 0.075, 0.06), tissue: T.TumorEnh },
      { shape: ellipse(-0.15, 0.15, 0.06, 0.07, { wobble: 0.06, seed: 5 }), tissue: T.TumorEnh },
    ],
    masses: [{ cx: -0.15, cy: 0.15, r: 0.08, strength: 0.3 }],
  };
}

/** Intra-axial posterior-fossa tumour (medulloblastoma, ependymoma): a lobulated solid mass. */
export function solidMass(cx: number, cy: number, r: number, opts: { enhancing?: boolean; shift?: number } = {}): Pathology {
  return {
    paints: [
      { shape: ellipse(cx, cy, r, r * 0.9, { wobble: 0.15, seed: 12 }), tissue: opts.enhancing ? T.TumorEnh : T.Tumor },
      { shape: ellipse(cx + r * 0.3, cy - r * 0.2, r * 0.25, r * 0.2), tissue: T.Necrosis },
    ],
    masses: [{ cx, cy, r, strength: opts.shift ?? 0.3 }],
  };
}

/** Infarct of any shape (cerebellar, lacunar): an ellipse of cytotoxic oedema over grey and white matter. */
export function focalInfarct(cx: number, cy: number, rx: number, ry: number, angle = 0): Pathology {
  return { paints: [{ shape: ellipse(cx, cy, rx, ry, { angle, wobble: 0.15, seed: 31 }), tissue: T.Infarct, on: [T.Gm, T.Wm, T.DeepGm] }] };
}

/** Territorial acute ischaemic infarct on the axial ventricular slice. side: −1 = image left (patient right), +1 = image right (patient left). */
export function territorialInfarct(territory: 'MCA' | 'ACA' | 'PCA', side: -1 | 1, opts: { deep?: boolean } = {}): Pathology {
  const on: readonly Tissue[] = [T.Gm, T.Wm, T.DeepGm];
  let shape: WedgeShape;
  if (territory === 'MCA') shape = { kind: 'wedge', ax: side * 0.1, ay: -0.06, dir: side > 0 ? 3 : 177, half: 46, rMin: opts.deep ? 0.1 : 0.24, rMax: 1, side };
  else if (territory === 'ACA') shape = { kind: 'wedge', ax: side * 0.02, ay: -0.15, dir: side > 0 ? -80 : -100, half: 18, rMin: 0.22, rMax: 1, side };
  else shape = { kind: 'wedge', ax: side * 0.04, ay: 0.3, dir: side > 0 ? 80 : 100, half: 30, rMin: 0.14, rMax: 1, side };
  return { paints: [{ shape, tissue: T.Infarct, on }] };
}

/** Acute intraparenchymal haematoma with a thin oedema rim; optionally blood in the occipital horn. */
export function hematoma(cx: number, cy: number, r: number, opts: { intraventricular?: -1 | 1; shift?: number } = {}): Pathology {
  const paints: Paint[] = [
    { shape: ellipse(cx, cy, r * 1.35, r * 1.25, { wobble: 0.15, seed: 21 }), tissue: T.Edema, on: [...PARENCHYMA] },
    { shape: ellipse(cx, cy, r, r * 0.8, { angle: 15, wobble: 0.12, seed: 22 }), tissue: T.Blood },
  ];
  if (opts.intraventricular) {
    paints.push({ shape: ellipse(opts.intraventricular * 0.2, 0.44, 0.12, 0.07), tissue: T.Blood, on: [T.Csf, T.Choroid] });
  }
  return { paints, masses: [{ cx, cy, r, strength: opts.shift ?? 0.3 }] };
}

/** Subarachnoid blood in the Sylvian fissures and anterior interhemispheric fissure (axial ventricular slice). */
export function subarachnoidBlood(): Pathology {
  return {
    paints: [
      { shape: ellipse(-0.5, -0.1, 0.28, 0.3), tissue: T.Blood, on: [T.Csf] },
      { shape: ellipse(0.5, -0.1, 0.28, 0.3), tissue: T.Blood, on: [T.Csf] },
      { shape: ellipse(0, -0.62, 0.3, 0.3), tissue: T.Blood, on: [T.Csf] },
    ],
  };
}

interface PlaqueSpec {
  readonly x: number;
  readonly y: number;
  /** Long semi-axis. */
  readonly len: number;
  /** Degrees, as {@link EllipseShape.angle}. */
  readonly angle?: number;
  readonly active?: boolean;
}

/** Demyelinating plaques: small ovoid lesions, active ones enhancing (an open ring when large). */
export function plaques(list: readonly PlaqueSpec[]): Pathology {
  return {
    paints: list.map((p, i) => ({
      shape: ellipse(p.x, p.y, p.len * 0.55, p.len, { angle: p.angle ?? 0, wobble: 0.08, seed: 40 + i }),
      tissue: p.active ? T.PlaqueActive : T.Plaque,
      on: [T.Wm, T.DeepGm, T.Gm, T.Plaque],
    })),
  };
}

/** Periventricular ovoid plaques perpendicular to the lateral ventricles on the axial slice ("Dawson fingers"). */
export function periventricularPlaques(opts: { active?: number; extra?: readonly PlaqueSpec[] } = {}): Pathology {
  const base: PlaqueSpec[] = [
    { x: -0.2, y: -0.3, len: 0.045, angle: -50 },
    { x: 0.21, y: -0.27, len: 0.05, angle: 55 },
    { x: -0.24, y: 0.26, len: 0.04, angle: 35 },
    { x: 0.25, y: 0.3, len: 0.05, angle: -30 },
    { x: 0.13, y: -0.38, len: 0.035, angle: 20 },
    { x: -0.36, y: -0.05, len: 0.03, angle: 90 },
  ];
  const list = base.map((p, i) => (opts.active !== undefined && i === opts.active ? { ...p, active: true } : p));
  return plaques([...list, ...(opts.extra ?? [])]);
}

/** Callosal plaques perpendicular to the corpus callosum on the midline sagittal slice. */
export function callosalPlaques(opts: { active?: boolean } = {}): Pathology {
  return plaques([
    { x: -0.3, y: -0.14, len: 0.05, angle: -50 },
    { x: -0.12, y: -0.2, len: 0.055, angle: -15 },
    { x: 0.08, y: -0.2, len: 0.05, angle: 12, active: opts.active },
    { x: 0.26, y: -0.15, len: 0.05, angle: 45 },
    { x: 0.34, y: -0.02, len: 0.04, angle: 70 },
  ]);
}

/** Large demyelinating lesion with an incomplete ("open") enhancing ring and little mass effect. */
export function tumefactivePlaque(cx: number, cy: number, r: number, openTowards: number): Pathology {
  const o = rad(openTowards);
  // The gap: a plaque-coloured ellipse laid over one side of the ring.
  const gx = cx + r * 0.85 * dcos(o);
  const gy = cy + r * 0.85 * dsin(o);
  return {
    paints: [
      { shape: ellipse(cx, cy, r * 1.4, r * 1.3, { wobble: 0.2, seed: 61 }), tissue: T.Edema, on: WHITE_MATTER_LIKE },
      { shape: ellipse(cx, cy, r, r * 0.9, { wobble: 0.06, seed: 62 }), tissue: T.PlaqueActive },
      { shape: ellipse(cx, cy, r * 0.82, r * 0.72, { wobble: 0.06, seed: 62 }), tissue: T.Plaque },
      { shape: ellipse(gx, gy, r * 0.45, r * 0.45), tissue: T.Plaque, on: [T.PlaqueActive] },
    ],
    masses: [{ cx, cy, r, strength: 0.1 }],
  };
}

/** Pyogenic abscess: pus (restricted diffusion), a smooth thin enhancing capsule, surrounding oedema. */
export function abscess(cx: number, cy: number, r: number): Pathology {
  return {
    paints: [
      { shape: ellipse(cx, cy, r * 2.2, r * 2, { wobble: 0.3, wobbleFreq: 2.6, seed: 71 }), tissue: T.Edema, on: WHITE_MATTER_LIKE },
      { shape: ellipse(cx, cy, r, r * 0.9, { wobble: 0.04, seed: 72 }), tissue: T.Capsule },
      { shape: ellipse(cx, cy, r * 0.8, r * 0.7, { wobble: 0.04, seed: 72 }), tissue: T.Pus },
    ],
    masses: [{ cx, cy, r, strength: 0.3 }],
  };
}

/** Ring-enhancing necrotic tumour with the same outline as {@link abscess}, but a necrotic (not restricting) core and thicker rim. */
export function necroticRing(cx: number, cy: number, r: number): Pathology {
  return {
    paints: [
      { shape: ellipse(cx, cy, r * 2.2, r * 2, { wobble: 0.3, wobbleFreq: 2.6, seed: 71 }), tissue: T.Edema, on: WHITE_MATTER_LIKE },
      { shape: ellipse(cx, cy, r, r * 0.9, { wobble: 0.1, seed: 72 }), tissue: T.Rim },
      { shape: ellipse(cx, cy, r * 0.68, r * 0.58, { wobble: 0.18, seed: 73 }), tissue: T.Necrosis },
    ],
    masses: [{ cx, cy, r, strength: 0.3 }],
  };
}

/** Arachnoid cyst: extra-axial CSF-like collection that remodels the brain next to it. */
export function arachnoidCyst(cx: number, cy: number, rx: number, ry: number): Pathology {
  return {
    paints: [{ shape: ellipse(cx, cy, rx, ry, { wobble: 0.04, seed: 81 }), tissue: T.Cyst }],
    masses: [{ cx, cy, r: Math.max(rx, ry), strength: 0.35 }],
  };
}

/** Encephalitis: swollen, T2/FLAIR-bright grey and white matter in a region, sparing CSF. */
export function encephalitis(regions: readonly { x: number; y: number; rx: number; ry: number; angle?: number }[]): Pathology {
  return {
    paints: regions.map((r, i) => ({
      shape: ellipse(r.x, r.y, r.rx, r.ry, { angle: r.angle ?? 0, wobble: 0.15, seed: 90 + i }),
      tissue: T.Inflamed,
      on: [T.Gm, T.Wm, T.DeepGm],
    })),
  };
}

/** Prion disease: restricted diffusion in the cortical ribbon of a region and in the striatum. */
export function corticalRibbon(regions: readonly { x: number; y: number; rx: number; ry: number }[], striatum: boolean): Pathology {
  const paints: Paint[] = regions.map((r, i) => ({
    shape: ellipse(r.x, r.y, r.rx, r.ry, { wobble: 0.2, seed: 100 + i }),
    tissue: T.Ribbon,
    on: [T.Gm],
  }));
  if (striatum) {
    for (const s of [-1, 1]) {
      paints.push({ shape: ellipse(s * 0.2, -0.12, 0.16, 0.16), tissue: T.Ribbon, on: [T.DeepGm] });
    }
  }
  return { paints };
}

/** Merges several pathologies into one (painted in order). */
export function combine(...parts: readonly Pathology[]): Pathology {
  return { paints: parts.flatMap((p) => p.paints), masses: parts.flatMap((p) => p.masses ?? []) };
}
