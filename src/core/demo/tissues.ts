/**
 * Tissue classes of the phantom and how bright each one is in every
 * sequence. The values are rough, textbook relative signal intensities
 * (8-bit, before texture, blur and noise); CT values are Hounsfield units
 * shown in a brain window.
 */

export const Tissue = {
  Air: 0,
  Scalp: 1,
  Bone: 2,
  Marrow: 3,
  Csf: 4,
  Gm: 5,
  Wm: 6,
  DeepGm: 7,
  Dura: 8,
  Choroid: 9,
  /** Vasogenic oedema around a mass or an abscess. */
  Edema: 10,
  /** Non-enhancing solid tumour. */
  Tumor: 11,
  /** Homogeneously enhancing extra-axial or sellar tumour (meningioma, schwannoma, adenoma). */
  TumorEnh: 12,
  /** Thick irregular enhancing tumour rim. */
  Rim: 13,
  Necrosis: 14,
  /** Acute ischaemic infarct (cytotoxic oedema). */
  Infarct: 15,
  /** Acute blood clot. */
  Blood: 16,
  /** Demyelinating plaque. */
  Plaque: 17,
  /** Active (enhancing) demyelinating plaque. */
  PlaqueActive: 18,
  /** CSF-like cyst (arachnoid cyst). */
  Cyst: 19,
  /** Abscess cavity (pus: restricted diffusion). */
  Pus: 20,
  /** Abscess capsule: thin, smooth, enhancing, T2-dark. */
  Capsule: 21,
  /** Inflamed cortex/white matter (encephalitis): T2/FLAIR bright, no enhancement. */
  Inflamed: 22,
  /** Cortical or deep grey matter with restricted diffusion but near-normal T2 (prion disease). */
  Ribbon: 23,
  Calcification: 24,
  /** Normal pituitary gland: enhances avidly. */
  Pituitary: 25,
  /** Muscle and other soft tissue of the face and neck. */
  Muscle: 26,
} as const;
export type Tissue = (typeof Tissue)[keyof typeof Tissue];

/** Sequences (and CT) the phantom can render. */
export type DemoSequence = 'T1' | 'T1C+' | 'T2' | 'FLAIR' | 'DWI' | 'ADC' | 'CT';

// Order of every row: Air Scalp Bone Marrow Csf Gm Wm DeepGm Dura Choroid | Edema Tumor TumorEnh Rim Necrosis
// Infarct Blood Plaque PlaqueActive Cyst Pus Capsule Inflamed Ribbon Calcification Pituitary Muscle
const T1 = [0, 205, 14, 175, 30, 92, 158, 112, 50, 95, 78, 92, 104, 100, 45, 82, 112, 88, 92, 32, 55, 118, 85, 100, 60, 105, 72];
const T2 = [0, 150, 10, 125, 240, 138, 92, 120, 40, 150, 212, 172, 142, 135, 228, 178, 58, 208, 214, 240, 222, 62, 200, 150, 40, 130, 58];
const FLAIR = [0, 150, 10, 115, 22, 122, 92, 112, 40, 60, 210, 178, 140, 150, 110, 180, 120, 232, 236, 22, 160, 95, 208, 142, 40, 120, 68];
const DWI = [0, 28, 4, 22, 16, 100, 84, 94, 18, 55, 88, 108, 108, 102, 42, 238, 48, 104, 120, 16, 236, 80, 140, 214, 30, 95, 38];
const ADC = [0, 60, 4, 40, 235, 110, 92, 102, 40, 120, 170, 130, 110, 112, 210, 48, 70, 150, 140, 235, 45, 110, 150, 70, 40, 100, 80];
/** Hounsfield units. */
const CT_HU = [-1000, 35, 1200, 700, 6, 38, 28, 36, 55, 95, 18, 33, 44, 40, 15, 16, 68, 26, 26, 6, 20, 40, 26, 37, 250, 42, 50];

/** CT brain window: centre 40 HU, width 80 HU. */
const CT_WINDOW = { center: 40, width: 80 } as const;

function windowed(hu: readonly number[]): number[] {
  const lo = CT_WINDOW.center - CT_WINDOW.width / 2;
  return hu.map((v) => Math.max(0, Math.min(255, ((v - lo) * 255) / CT_WINDOW.width)));
}

const POST_CONTRAST = T1.slice();
POST_CONTRAST[Tissue.TumorEnh] = 228;
POST_CONTRAST[Tissue.Rim] = 232;
POST_CONTRAST[Tissue.PlaqueActive] = 205;
POST_CONTRAST[Tissue.Capsule] = 235;
POST_CONTRAST[Tissue.Choroid] = 200;
POST_CONTRAST[Tissue.Dura] = 120;
POST_CONTRAST[Tissue.Scalp] = 210;
POST_CONTRAST[Tissue.Pituitary] = 215;
POST_CONTRAST[Tissue.Muscle] = 95;

/** Base intensity (0–255) of each tissue in each sequence, indexed by {@link Tissue}. */
export const INTENSITY: Readonly<Record<DemoSequence, readonly number[]>> = {
  T1,
  'T1C+': POST_CONTRAST,
  T2,
  FLAIR,
  DWI,
  ADC,
  CT: windowed(CT_HU),
};

/** Tissues that carry lesion texture (heterogeneous), as opposed to normal anatomy. */
export function isLesion(t: number): boolean {
  return t >= Tissue.Edema && t <= Tissue.Ribbon;
}

/** Tissues that belong to the brain itself (what lesions may replace). */
export const PARENCHYMA: readonly Tissue[] = [Tissue.Gm, Tissue.Wm, Tissue.DeepGm];
