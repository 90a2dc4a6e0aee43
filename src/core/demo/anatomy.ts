/**
 * Normal anatomy of the phantom: which tissue lies at a point of a slice.
 * Four slices are drawn from simple shapes: axial at the level of the
 * lateral ventricles and basal ganglia, axial through the posterior fossa,
 * midline sagittal, and coronal through the thalami and hippocampi.
 *
 * Every function takes the point twice: (x, y) for the head and skull, which
 * never move, and (wx, wy), the same point after the mass-effect warp, for
 * everything inside the skull (so a tumour can push the midline over).
 */
import { datan2, dsin, smoothstep } from './det-math.ts';
import { ell, ellipseSd, piecewise, rell, rotation, segmentDistance, sideOfLine } from './geometry.ts';
import { fbm, valueNoise } from './noise.ts';
import { hash3 } from './prng.ts';
import { Tissue as T, type Tissue } from './tissues.ts';
import type { Plane } from '../model/geometry.ts';

export type AxialLevel = 'ventricles' | 'posterior-fossa';

export interface AnatomyOptions {
  /** Global atrophy, 0 (young adult) to 1 (severe): wider sulci, bigger ventricles, thinner hippocampi. */
  readonly atrophy?: number;
  /** Extra ventricular enlargement (hydrocephalus), 1 = normal. */
  readonly ventricles?: number;
  /** Hippocampal atrophy beyond the global one (coronal slices), 0 to 1. */
  readonly hippocampalAtrophy?: number;
}

/** Everything the anatomy functions need besides the point. */
interface AnatomyContext {
  readonly seed: number;
  readonly atrophy: number;
  /** Ventricle scale. */
  readonly vs: number;
  readonly hippo: number;
  /** Sulcal width (in units of the fold function). */
  readonly sulcW: number;
  /** Width of the CSF between skull and brain surface. */
  readonly saW: number;
}

export function anatomyContext(seed: number, options: AnatomyOptions = {}): AnatomyContext {
  const atrophy = options.atrophy ?? 0;
  return {
    seed,
    atrophy,
    vs: (1 + 0.9 * atrophy) * (options.ventricles ?? 1),
    hippo: Math.min(1, atrophy * 0.4 + (options.hippocampalAtrophy ?? 0)),
    sulcW: 0.05 + 0.35 * atrophy,
    saW: 0.012 + 0.03 * atrophy,
  };
}

type AnatomyFn = (x: number, y: number, wx: number, wy: number, ctx: AnatomyContext) => Tissue;

const GM_THICKNESS = 0.03;

/**
 * Skull (inner table, diploë, outer table), scalp, then air, by the
 * distance `s` (≥ 0) outwards from the inner table of the skull.
 */
function skullAndScalp(s: number, x: number, y: number, ctx: AnatomyContext): Tissue {
  const n = valueNoise(x * 3 + 11, y * 3 + 5, ctx.seed + 1);
  const inner = 0.014;
  const diploe = 0.016 + 0.016 * n;
  const outer = inner + diploe + 0.014;
  if (s < inner) return T.Bone;
  if (s < inner + diploe) return T.Marrow;
  if (s < outer) return T.Bone;
  if (s < outer + 0.04 + 0.02 * n) return T.Scalp;
  return T.Air;
}

/**
 * Gyral pattern: a phase that increases around the brain (n gyri per turn),
 * bent by noise so that sulci meander. Sulci lie where the phase is a
 * multiple of 2π; each sulcus gets its own depth.
 */
interface Fold {
  /** Distance (in slice units) from the nearest sulcus line, measured along the surface. */
  readonly arc: number;
  /** How deep this sulcus reaches below the surface. */
  readonly sulcDepth: number;
}

const TWO_PI = 6.283185307179586;

function foldFromPhase(phase: number, unit: number, ctx: AnatomyContext, salt: number): Fold {
  const k = Math.round(phase / TWO_PI);
  const delta = Math.abs(phase - k * TWO_PI);
  const r = hash3(k, salt, ctx.seed) / 4294967296;
  return { arc: delta * unit, sulcDepth: 0.04 + 0.12 * r + 0.03 * ctx.atrophy };
}

/** Deepest a sulcus can reach (see foldFromPhase). */
const MAX_SULCUS_DEPTH = 0.04 + 0.12 + 0.03;

function radialFold(x: number, y: number, cx: number, cy: number, n: number, ctx: AnatomyContext, depth = 0): Fold {
  const dx = x - cx;
  const dy = y - cy;
  const radius = Math.sqrt(dx * dx + dy * dy);
  const phase = n * datan2(dy, dx) + 13 * fbm(x * 1.7, y * 1.7, ctx.seed + 2, 3) + 60 * depth * (valueNoise(x * 5 + 9, y * 5 + 2, ctx.seed + 12) - 0.5);
  return foldFromPhase(phase, (radius + depth) / n, ctx, 1);
}

/** The medial surface along the falx: cortex without sulci. */
const SMOOTH: Fold = { arc: 1, sulcDepth: 0 };

/**
 * Cortex with sulci, by depth below the brain surface: a grey-matter ribbon
 * of constant thickness follows the surface and both banks of every sulcus.
 */
function cortex(depth: number, foldAt: Fold | (() => Fold), ctx: AnatomyContext): Tissue {
  // Deeper than any sulcus plus its grey-matter lining: white matter, no need to work out the fold.
  if (depth > MAX_SULCUS_DEPTH + 2 * GM_THICKNESS + 0.04) return T.Wm;
  const fold = typeof foldAt === 'function' ? foldAt() : foldAt;
  const sd = fold.sulcDepth;
  const csf = 0.0045 + 0.016 * ctx.atrophy;
  if (depth < sd && fold.arc < csf * (1.4 - depth / sd)) return T.Csf;
  if (depth < GM_THICKNESS) return T.Gm;
  const below = depth > sd ? depth - sd : 0;
  const dist = Math.sqrt(fold.arc * fold.arc + below * below);
  return dist < GM_THICKNESS + csf ? T.Gm : T.Wm;
}

// ---------------------------------------------------------------- axial, ventricles

const ROT_FRONTAL = [rotation(-28), rotation(28)] as const;
const ROT_ATRIUM = [rotation(-22), rotation(22)] as const;
const ROT_LENTIFORM = [rotation(12), rotation(-12)] as const;
const ROT_INSULA = [rotation(8), rotation(-8)] as const;

function axialDeep(x: number, y: number, ctx: AnatomyContext): Tissue | undefined {
  const vs = ctx.vs;
  const side = x < 0 ? 0 : 1;
  const s = x < 0 ? -1 : 1;
  const ax = x * s; // distance from the midline, both sides alike
  // Septum pellucidum and third ventricle.
  if (ax < 0.011 * vs && y > -0.02 && y < 0.2) return T.Csf;
  // Choroid plexus in the atrium, then the atrium / occipital horn.
  if (ell(ax, y, 0.16, 0.3, 0.028, 0.032) < 1) return T.Choroid;
  if (rell(x, y, s * (0.1 + 0.045 * vs), 0.34, 0.042 * vs, 0.085 + 0.05 * vs, ROT_ATRIUM[side]) < 1) return T.Csf;
  // Caudate head indents the frontal horn.
  const hornX = 0.016 + 0.05 * vs;
  if (ell(ax, y, hornX + 0.062, -0.2, 0.045, 0.08) < 1) return T.DeepGm;
  if (rell(x, y, s * hornX, -0.22, 0.048 * vs, 0.1 + 0.05 * vs, ROT_FRONTAL[side]) < 1) return ax < 0.006 ? T.Wm : T.Csf;
  // Thalamus and lentiform nucleus.
  if (ell(ax, y, 0.011 * vs + 0.075, 0.09, 0.07, 0.1) < 1) return T.DeepGm;
  if (rell(x, y, s * 0.27, -0.04, 0.055, 0.14, ROT_LENTIFORM[side]) < 1) return T.DeepGm;
  // Insular cortex with the Sylvian cistern lateral to it.
  const sylW = 0.012 + 0.035 * ctx.atrophy;
  if (rell(x, y, s * 0.47, -0.03, sylW, 0.15, ROT_INSULA[side]) < 1) return T.Csf;
  if (rell(x, y, s * 0.44, -0.03, 0.045, 0.17, ROT_INSULA[side]) < 1) return T.Gm;
  return undefined;
}

const AX_A = 0.7;
const AX_B = 0.84;

/** Axial slice through the lateral ventricles, basal ganglia and thalami. Anterior is up. */
const axialVentricles: AnatomyFn = (x, y, wx, wy, ctx) => {
  const skull = ellipseSd(x, y, 0, 0, AX_A, AX_B);
  if (skull >= 0) return skullAndScalp(skull, x, y, ctx);
  const depth = -ellipseSd(wx, wy, 0, 0, AX_A, AX_B) - ctx.saW;
  if (depth < 0) return T.Csf;
  // Sylvian fissure: a cleft from the lateral surface to the insula.
  const ax = wx < 0 ? -wx : wx;
  if (ax > 0.46 && Math.abs(wy + 0.05 - 0.12 * (ax - 0.46)) < 0.008 + 0.02 * ctx.atrophy) return T.Csf;
  let d = depth;
  let fold: Fold | undefined;
  // Interhemispheric fissure in front of the genu and behind the splenium.
  if (wy < -0.4 || wy > 0.52) {
    const fw = 0.007 + 0.02 * ctx.atrophy;
    const dm = ax - fw;
    if (dm < 0) return ax < 0.004 ? T.Dura : T.Csf;
    if (dm < depth) {
      d = dm;
      fold = SMOOTH;
    }
  }
  const deep = axialDeep(wx, wy, ctx);
  if (deep !== undefined) return deep;
  return cortex(d, fold ?? (() => radialFold(wx, wy, 0, 0, 42, ctx, d)), ctx);
};

// ---------------------------------------------------------------- axial, posterior fossa

const PF_A = 0.68;
const PF_B = 0.84;

/** Axial slice through the pons, fourth ventricle, cerebellum and temporal lobes. Anterior is up. */
const axialPosteriorFossa: AnatomyFn = (x, y, wx, wy, ctx) => {
  const skull = ellipseSd(x, y, 0, 0.02, PF_A, PF_B);
  if (skull >= 0) return skullAndScalp(skull, x, y, ctx);
  const ax = wx < 0 ? -wx : wx;
  const s = wx < 0 ? -1 : 1;
  // Skull base. Petrous bone: a wedge from the apex (near the clivus) out to the mastoid, with the inner ear canal.
  const pt = ((ax - 0.15) * 0.45 + (wy + 0.08) * 0.3) / (0.45 * 0.45 + 0.3 * 0.3);
  const petrous = segmentDistance(ax, wy, 0.15, -0.08, 0.6, 0.22);
  if (petrous < 0.02 + 0.05 * (pt < 0 ? 0 : pt > 1 ? 1 : pt)) return petrous < 0.012 && pt > 0.35 && pt < 0.55 ? T.Csf : T.Bone;
  if (ell(ax, wy, 0, -0.46, 0.14, 0.1) < 1) return T.Air;
  if (ell(ax, wy, 0, -0.44, 0.21, 0.17) < 1) return T.Bone;
  if (ell(ax, wy, 0, -0.25, 0.08, 0.07) < 1) return ell(ax, wy, 0, -0.25, 0.055, 0.045) < 1 ? T.Marrow : T.Bone;
  const cavityDepth = -ellipseSd(wx, wy, 0, 0.02, PF_A, PF_B) - ctx.saW;
  if (cavityDepth < 0) return T.Csf;
  const posterior = sideOfLine(ax, wy, 0.15, -0.08, 0.6, 0.22) > 0 && wy > -0.12;
  if (posterior) {
    // Pons (with the basilar artery in front), fourth ventricle, cerebellum.
    if (ell(ax, wy, 0, -0.145, 0.022, 0.02) < 1) return T.Csf;
    if (ell(ax, wy, 0, -0.04, 0.15, 0.12) < 1) return T.Wm;
    if (ell(ax, wy, 0, 0.115, 0.055 * ctx.vs, 0.03 * ctx.vs) < 1) return T.Csf;
    const cer = ell(ax, wy, 0.0, 0.42, 0.6, 0.38);
    if (cer < 1 && wy > 0.06) {
      if (ax < 0.012 && wy > 0.62) return T.Csf; // posterior notch (falx cerebelli)
      const edge = (1 - Math.sqrt(cer)) * 0.38;
      // Folia run roughly concentric to the fourth ventricle; thin fissures between them.
      const r = Math.sqrt(ax * ax + (wy - 0.12) * (wy - 0.12));
      const folia = dsin(100 * r + 16 * fbm(wx * 3, wy * 3, ctx.seed + 6, 3));
      if (folia > 0.9 - 0.3 * ctx.atrophy && edge < 0.12 + 0.1 * valueNoise(wx * 6, wy * 6, ctx.seed + 10)) return T.Csf;
      // White-matter core of each hemisphere, and thin white laminae inside the deeper folia.
      if (ell(ax, wy, 0.24, 0.32, 0.1, 0.065) < 1) return T.Wm;
      if (folia < -0.85 && edge > 0.05 && ell(ax, wy, 0.24, 0.32, 0.3, 0.2) < 1) return T.Wm;
      return T.Gm;
    }
    return T.Csf;
  }
  // Middle cranial fossa: temporal lobes; in front of the sphenoid wings, the inferior frontal lobes.
  const temporal = ell(ax, wy, 0.44, -0.16, 0.24, 0.34);
  if (temporal < 1) {
    if (ell(ax, wy, 0.36, -0.06, 0.02 * ctx.vs, 0.055) < 1) return T.Csf;
    // A small lobe: scale its depth so that sulci do not cut right through it.
    const depth = Math.min(cavityDepth, (1 - Math.sqrt(temporal)) * 0.24) * 1.8;
    return cortex(depth, () => radialFold(wx, wy, s * 0.3, -0.1, 30, ctx, depth), ctx);
  }
  if (segmentDistance(ax, wy, 0.2, -0.4, 0.62, -0.5) < 0.025) return T.Bone; // greater sphenoid wing
  if (wy < -0.3 && sideOfLine(ax, wy, 0.2, -0.4, 0.62, -0.5) < 0) {
    const dm = ax - 0.008;
    if (dm < 0) return T.Csf;
    const d = Math.min(cavityDepth, dm);
    return cortex(d, () => radialFold(wx, wy, 0, 0, 42, ctx, d), ctx);
  }
  return T.Csf;
};

// ---------------------------------------------------------------- sagittal

const SAG_CX = 0.02;
const SAG_CY = -0.12;
const SAG_A = 0.8;
const SAG_B = 0.7;
/** Floor of the anterior and middle cranial fossa, sella and clivus, along x (anterior is −x). */
const SAG_FLOOR: readonly (readonly [number, number])[] = [
  [-0.8, 0.0],
  [-0.34, 0.1],
  [-0.27, 0.2],
  [-0.24, 0.33],
  [-0.12, 0.34],
  [-0.09, 0.22],
  [-0.06, 0.27],
  [0.1, 0.6],
];
/** Face profile (x of the skin by y) and back of the neck. */
const SAG_FACE: readonly (readonly [number, number])[] = [
  [-0.1, -0.86],
  [0.12, -0.88],
  [0.22, -0.84],
  [0.36, -0.98],
  [0.46, -0.86],
  [0.56, -0.9],
  [0.68, -0.84],
  [0.82, -0.86],
  [0.92, -0.7],
  [1.0, -0.5],
];
const SAG_NECK: readonly (readonly [number, number])[] = [
  [-0.1, 0.86],
  [0.2, 0.8],
  [0.45, 0.64],
  [0.7, 0.52],
  [1.0, 0.5],
];

/** x of the spinal canal's centre line at height y. */
function sagCanal(y: number): number {
  return 0.18 + 0.12 * (y - 0.6);
}

/** Face, skull base and neck below the cranial cavity (midline sagittal). */
function sagittalLowerHead(x: number, y: number): Tissue {
  if (ell(x, y, -0.6, 0.33, 0.2, 0.1) < 1) return T.Air; // nasal cavity
  if (ell(x, y, -0.25, 0.43, 0.1, 0.07) < 1) return T.Air; // sphenoid sinus
  if (ell(x, y, -0.68, -0.12, 0.08, 0.06) < 1) return T.Air; // frontal sinus
  if (Math.abs(y - 0.48) < 0.015 && x < -0.35) return T.Bone; // hard palate
  if (ell(x, y, -0.55, 0.6, 0.22, 0.018) < 1) return T.Air; // oral cavity
  if (segmentDistance(x, y, -0.3, 0.45, -0.2, 1.0) < 0.035) return T.Air; // pharynx
  const ring = ell(x, y, -0.7, 0.86, 0.1, 0.1);
  if (ring < 1 && ring > 0.45) return T.Bone; // mandible
  if (segmentDistance(x, y, -0.04, 0.3, 0.08, 0.58) < 0.05) return segmentDistance(x, y, -0.04, 0.3, 0.08, 0.58) < 0.032 ? T.Marrow : T.Bone; // clivus
  // Cervical vertebral bodies in front of the canal, with discs.
  const vx = sagCanal(y) - 0.17;
  if (y > 0.7 && Math.abs(x - vx) < 0.075) {
    const level = (y - 0.7) / 0.12;
    const f = level - Math.floor(level);
    return f < 0.16 ? T.Gm : f < 0.22 || f > 0.94 ? T.Bone : T.Marrow;
  }
  return T.Muscle;
}

/** Midline sagittal slice: corpus callosum, brainstem, cerebellum, sella. Anterior is left. */
const sagittalMidline: AnatomyFn = (x, y, wx, wy, ctx) => {
  const cavitySd = (px: number, py: number): number => {
    let sd = Math.min(ellipseSd(px, py, SAG_CX, SAG_CY, SAG_A, SAG_B), ellipseSd(px, py, 0.36, 0.36, 0.36, 0.27));
    if (px < 0.1) sd = Math.max(sd, py - piecewise(SAG_FLOOR, px));
    if (py > 0.5) sd = Math.min(sd, Math.abs(px - sagCanal(py)) - 0.085);
    return sd;
  };
  const sd = cavitySd(x, y);
  if (sd >= 0) {
    const skin = y > -0.1 ? Math.min(x - piecewise(SAG_FACE, y), piecewise(SAG_NECK, y) - x) : -1;
    const vault = ellipseSd(x, y, SAG_CX, SAG_CY, SAG_A, SAG_B);
    if (skin <= 0 || y < 0.1) {
      // Skull vault and scalp; below the vault, the face and neck.
      const layer = skullAndScalp(sd, x, y, ctx);
      if (layer !== T.Air && layer !== T.Scalp) return layer;
      if (skin > 0 && y > -0.1 && vault > 0.05) return skin < 0.04 ? T.Scalp : sagittalLowerHead(x, y);
      return layer;
    }
    if (sd < 0.05 && y < 0.62) return sd < 0.015 ? T.Bone : T.Marrow;
    if (y > 0.5 && Math.abs(x - sagCanal(y)) < 0.1) return T.Dura;
    if (y > 0.62 && Math.abs(x - sagCanal(y) - 0.16) < 0.06) return T.Bone; // posterior arches
    return skin < 0.04 ? T.Scalp : sagittalLowerHead(x, y);
  }
  // Spinal canal below the foramen magnum: cord in CSF.
  if (y > 0.64) return Math.abs(wx - sagCanal(wy)) < 0.045 ? T.Wm : T.Csf;
  // Sella: pituitary; optic chiasm above it.
  if (ell(wx, wy, -0.18, 0.295, 0.055, 0.035) < 1) return T.Pituitary;
  if (ell(wx, wy, -0.2, 0.2, 0.035, 0.014) < 1) return T.Wm;
  // Brainstem: midbrain, pons, medulla; aqueduct; fourth ventricle.
  if (ell(wx, wy, 0.15, 0.41, 0.035 * ctx.vs, 0.06 * ctx.vs) < 1) return T.Csf;
  if (segmentDistance(wx, wy, 0.085, 0.15, 0.115, 0.33) < 0.008) return T.Csf;
  if (ell(wx, wy, 0.03, 0.42, 0.1, 0.11) < 1 || segmentDistance(wx, wy, 0.04, 0.12, 0.16, 0.66) < 0.065) return T.Wm;
  // Tentorium: cerebellum below it, cerebrum above.
  const tent = sideOfLine(wx, wy, 0.14, 0.17, 0.74, 0.3);
  if (tent > 0 && wx > 0.08) {
    const cer = ell(wx, wy, 0.41, 0.43, 0.3, 0.19);
    if (cer < 1) {
      const r = Math.sqrt((wx - 0.2) * (wx - 0.2) + (wy - 0.41) * (wy - 0.41));
      const folia = dsin(13 * datan2(wy - 0.41, wx - 0.2) + 2.5 * fbm(wx * 5, wy * 5, ctx.seed + 7, 2));
      const edge = (1 - Math.sqrt(cer)) * 0.2;
      if (folia < -0.75 + 0.2 * ctx.atrophy && edge < 0.05 * (1.6 + folia)) return T.Csf;
      if (r > 0.04 && edge > 0.016 && folia > 0.45 + 0.5 * (r / 0.3)) return T.Wm;
      return T.Gm;
    }
    return Math.abs(tent) < 0.004 ? T.Dura : T.Csf;
  }
  if (Math.abs(tent) < 0.004 && wx > 0.2) return T.Dura;
  const depth = -cavitySd(wx, wy) - ctx.saW;
  if (depth < 0 || wy > 0.24) return T.Csf;
  // Corpus callosum, cingulate gyrus and sulcus, lateral ventricle, fornix, thalamus.
  const ccR = Math.sqrt(ell(wx, wy, -0.02, 0.05, 0.4, 0.24));
  const thick = 0.15 + 0.13 * smoothstep(0.6, 0.95, Math.abs(wx + 0.02) / 0.4);
  if (wy < 0.08 || wx < -0.38) {
    if (ccR > 1 && ccR < 1 + thick) return T.Wm;
    const cing = 0.22 + 0.05 * fbm(wx * 6, wy * 6, ctx.seed + 8, 1);
    if (ccR > 1 + thick && ccR < 1 + thick + cing) return T.Gm;
    if (ccR > 1 + thick + cing && ccR < 1 + thick + cing + 0.04 + 0.06 * ctx.atrophy) return T.Csf;
    if (ccR <= 1 && ccR > 1 - 0.28 * ctx.vs && wy < 0.06) return T.Csf;
  }
  if (ccR <= 1) {
    if (ell(wx, wy, 0.0, 0.15, 0.16, 0.09) < 1) return T.DeepGm;
    if (ccR > 1 - 0.28 * ctx.vs - 0.07 && wy < 0.1) return T.Wm; // fornix
    return wy > 0.16 ? T.Csf : T.Wm;
  }
  return cortex(depth, () => radialFold(wx, wy, 0, 0.05, 40, ctx, depth), ctx);
};

// ---------------------------------------------------------------- coronal

const COR_A = 0.74;
const COR_B = 0.72;
const COR_CY = -0.12;
const ROT_VENT = [rotation(-45), rotation(45)] as const;
/** Floor of the cavity by distance from the midline: middle fossae laterally, posterior fossa in the middle. */
const COR_FLOOR: readonly (readonly [number, number])[] = [
  [0, 0.74],
  [0.13, 0.72],
  [0.2, 0.5],
  [0.25, 0.44],
  [0.33, 0.54],
  [0.6, 0.52],
  [0.76, 0.38],
];
const COR_NECK: readonly (readonly [number, number])[] = [
  [0, 0.86],
  [0.4, 0.82],
  [0.6, 0.74],
  [0.78, 0.56],
  [1.0, 0.5],
];

function coronalLowerHead(ax: number, y: number): Tissue {
  const mastoid = ell(ax, y, 0.6, 0.6, 0.08, 0.07);
  if (mastoid < 1) return mastoid < 0.7 && valueNoise(ax * 40, y * 40, 3) > 0.45 ? T.Air : T.Bone;
  if (y > 0.78 && ax > 0.1 && ax < 0.24) return ax < 0.12 || ax > 0.22 ? T.Bone : T.Marrow; // lateral masses of C1/C2
  return T.Muscle;
}

/** Coronal slice through the thalami, temporal lobes and hippocampi. Patient's right is image left. */
const coronalHippocampal: AnatomyFn = (x, y, wx, wy, ctx) => {
  const cavitySd = (px: number, py: number): number => {
    const a = px < 0 ? -px : px;
    let sd = Math.max(ellipseSd(px, py, 0, COR_CY, COR_A, COR_B), py - piecewise(COR_FLOOR, a));
    if (py > 0.6) sd = Math.min(sd, a - 0.08);
    return sd;
  };
  const ax0 = x < 0 ? -x : x;
  const sd = cavitySd(x, y);
  if (sd >= 0) {
    const skin = y > 0 ? piecewise(COR_NECK, y) - ax0 : -1;
    if (skin <= 0 || y < 0.2) {
      const layer = skullAndScalp(sd, x, y, ctx);
      if (layer === T.Air && skin > 0) return skin < 0.04 ? T.Scalp : coronalLowerHead(ax0, y);
      return layer;
    }
    if (y > 0.6 && ax0 < 0.1) return T.Dura;
    if (sd < 0.07) return sd < 0.02 || sd > 0.05 ? T.Bone : T.Marrow;
    return skin < 0.04 ? T.Scalp : coronalLowerHead(ax0, y);
  }
  const ax = wx < 0 ? -wx : wx;
  const s = wx < 0 ? -1 : 1;
  const side = wx < 0 ? 0 : 1;
  // Brainstem and cord in the posterior fossa and canal; a little cerebellum beside the pons.
  if (wy > 0.64) return ax < 0.05 ? T.Wm : T.Csf;
  if (ell(ax, wy, 0, 0.48, 0.12, 0.2) < 1) return T.Wm;
  if (ell(ax, wy, 0, 0.48, 0.15, 0.23) < 1) return T.Csf;
  if (wy > 0.44 && ax < 0.26) {
    return dsin(wy * 80 + 4 * fbm(wx * 4, wy * 4, ctx.seed + 6, 2)) > 0.8 ? T.Csf : T.Gm;
  }
  const depth = -cavitySd(wx, wy) - ctx.saW;
  if (depth < 0) return T.Csf;
  // Interhemispheric fissure above the corpus callosum, with the falx.
  let d = depth;
  let fold: Fold | undefined;
  if (wy < -0.24) {
    const dm = ax - (0.007 + 0.02 * ctx.atrophy);
    if (dm < 0) return ax < 0.004 ? T.Dura : T.Csf;
    if (dm < d) {
      d = dm;
      fold = SMOOTH;
    }
  }
  // Lateral ventricles, septum, third ventricle.
  if (ax < 0.011 * ctx.vs && wy > 0.0 && wy < 0.22) return T.Csf;
  if (rell(wx, wy, s * (0.02 + 0.05 * ctx.vs), -0.12, 0.03 * ctx.vs, 0.075 + 0.02 * ctx.vs, ROT_VENT[side]) < 1) return ax < 0.005 ? T.Wm : T.Csf;
  if (ell(ax, wy, 0.07 + 0.06 * ctx.vs, -0.08, 0.035, 0.03) < 1) return T.DeepGm; // caudate body
  if (ell(ax, wy, 0.011 * ctx.vs + 0.085, 0.09, 0.08, 0.1) < 1) return T.DeepGm; // thalamus
  if (ell(ax, wy, 0.29, 0.02, 0.05, 0.11) < 1) return T.DeepGm; // putamen
  // Sylvian fissure and insula.
  const sylW = 0.012 + 0.035 * ctx.atrophy;
  if (ax > 0.43 && Math.abs(wy - 0.1 - 0.3 * (ax - 0.43)) < sylW * 0.8) return T.Csf;
  if (ell(ax, wy, 0.45, 0.0, sylW, 0.13) < 1) return T.Csf;
  if (ell(ax, wy, 0.415, 0.0, 0.04, 0.15) < 1) return T.Gm;
  // Medial temporal lobe: temporal horn over the hippocampus, ambient cistern medially.
  const h = 1 - 0.55 * ctx.hippo;
  if (ell(ax, wy, 0.3, 0.255, 0.05 + 0.05 * ctx.hippo, 0.016 + 0.035 * ctx.hippo) < 1) return T.Csf;
  if (ell(ax, wy, 0.28, 0.33 + 0.03 * ctx.hippo, 0.085 * h, 0.055 * h) < 1) return T.Gm;
  if (ell(ax, wy, 0, 0.3, 0.09, 0.14) < 1) return T.Wm; // cerebral peduncles
  if (ell(ax, wy, 0, 0.36, 0.2 + 0.05 * ctx.hippo, 0.15) < 1) return T.Csf; // ambient cistern
  return cortex(d, fold ?? (() => radialFold(wx, wy, 0, 0.05, 40, ctx, d)), ctx);
};

export function anatomyFor(plane: Plane, level: AxialLevel = 'ventricles'): AnatomyFn {
  if (plane === 'sagittal') return sagittalMidline;
  if (plane === 'coronal') return coronalHippocampal;
  return level === 'posterior-fossa' ? axialPosteriorFossa : axialVentricles;
}
