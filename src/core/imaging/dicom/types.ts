/**
 * Shapes shared by the DICOM parser, the pixel decoder, the volume container
 * and the renderer.
 */
import type { DicomAttributes } from './attributes.ts';
import type { DroppedTag } from './deidentify.ts';

export type PhotometricInterpretation = 'MONOCHROME1' | 'MONOCHROME2' | 'RGB';

/** Stored pixel samples, one typed array for all frames (samples interleaved for RGB). */
export type DicomPixelArray = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array;

/**
 * The kept (rendering) tags of a DICOM image, as typed values. Nothing here
 * can identify a patient: see `KEPT_TAGS` in deidentify.ts.
 */
export interface DicomImageHeader {
  readonly transferSyntaxUID: string;
  readonly modality?: string;
  readonly rows: number;
  readonly columns: number;
  /** 1 (grayscale) or 3 (RGB). */
  readonly samplesPerPixel: 1 | 3;
  readonly photometricInterpretation: PhotometricInterpretation;
  /** As written in the file; decoded pixels are always interleaved (0) whatever this says. */
  readonly planarConfiguration: 0 | 1;
  readonly bitsAllocated: 8 | 16 | 32;
  readonly bitsStored: number;
  readonly highBit: number;
  /** 0 unsigned, 1 two's-complement signed. */
  readonly pixelRepresentation: 0 | 1;
  readonly numberOfFrames: number;
  /** Modality value = stored value × slope + intercept (Hounsfield units for CT). 1 when absent. */
  readonly rescaleSlope: number;
  /** 0 when absent. */
  readonly rescaleIntercept: number;
  /** First value of WindowCenter, in modality units. */
  readonly windowCenter?: number;
  /** First value of WindowWidth; only kept when ≥ 1, as PS3.3 requires. */
  readonly windowWidth?: number;
  /** Row spacing then column spacing, in mm. */
  readonly pixelSpacing?: readonly [number, number];
  readonly sliceThickness?: number;
  readonly spacingBetweenSlices?: number;
  /** Row direction cosines then column direction cosines (6 values). */
  readonly imageOrientationPatient?: readonly number[];
  /** Position of the first pixel in mm (3 values). */
  readonly imagePositionPatient?: readonly number[];
  readonly instanceNumber?: number;
}

/** A parsed, de-identified DICOM image. */
export interface ParsedDicom {
  readonly kept: DicomImageHeader;
  /** Number of frames (1 for single-frame images). */
  readonly frames: number;
  /** Stored values of all frames, after masking to BitsStored and sign extension; RGB interleaved. */
  readonly pixel: DicomPixelArray;
  /** Tags that were present in the file and left behind, by name only. */
  readonly dropped: readonly DroppedTag[];
  /** BurnedInAnnotation (0028,0301) said YES: text such as the patient's name may be in the pixels. */
  readonly burnedInAnnotation?: true;
  /** Identity, type and technical tags read for the import's decisions and keys (attributes.ts); never stored as read. */
  readonly attributes?: DicomAttributes;
  /**
   * Modality values (after RescaleSlope/Intercept) of one frame, row-major;
   * for RGB, three interleaved samples per pixel and no rescale.
   */
  getFrame(index: number): Float32Array;
}
