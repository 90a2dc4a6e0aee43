import { describe, expect, it } from 'vitest';
import { readImageDimensions } from '../../../../src/core/imaging/dimensions.ts';
import { parseDicom } from '../../../../src/core/imaging/dicom/parse.ts';
import { decodeVolume, encodeVolume, volumeFromDicom, volumeFromNifti } from '../../../../src/core/imaging/dicom/serialize.ts';
import { parseNifti } from '../../../../src/core/imaging/nifti/parse.ts';
import { renderDicomFrame, renderNiftiSlice, renderVolumeSlice } from '../../../../src/core/imaging/render.ts';
import { sniffImageType } from '../../../../src/core/imaging/sniff.ts';
import { applyWindow } from '../../../../src/core/imaging/window.ts';
import { makeDicom, makeNifti } from '../../../support/fixtures-imaging/index.ts';
import { decodeOwnPng } from './png-helpers.ts';

/** A CT frame in HU: stored = HU + 1024, HU from −100 to 280 across the image. */
const ctPixel = (_f: number, r: number, c: number) => 1024 - 100 + (r * 5 + c) * 20;

describe('renderDicomFrame', () => {
  it('produces a valid grayscale PNG of the image size', () => {
    const r = renderDicomFrame(parseDicom(makeDicom({ rows: 6, columns: 9 })));
    expect(sniffImageType(r.png)).toBe('png');
    expect(readImageDimensions(r.png, 'png')).toEqual({ width: 9, height: 6 });
    expect([r.width, r.height]).toEqual([9, 6]);
    expect(decodeOwnPng(r.png).channels).toBe(1);
  });

  it('uses the file window first', () => {
    const parsed = parseDicom(makeDicom({ modality: 'CT', rescale: { slope: 1, intercept: -1024 }, window: { center: [35, 300], width: [90, 1500] }, pixel: ctPixel }));
    const r = renderDicomFrame(parsed);
    expect(r.window).toEqual({ center: 35, width: 90 });
    expect(Array.from(decodeOwnPng(r.png).pixels)).toEqual(Array.from(applyWindow(parsed.getFrame(0), 35, 90)));
  });

  it('falls back to the brain window for CT and auto for other modalities', () => {
    const ct = renderDicomFrame(parseDicom(makeDicom({ modality: 'CT', rescale: { slope: 1, intercept: -1024 }, pixel: ctPixel })));
    expect(ct.window).toEqual({ center: 40, width: 80, preset: 'brain' });
    const mr = renderDicomFrame(parseDicom(makeDicom({ modality: 'MR' })));
    expect(mr.window.preset).toBe('auto');
    const px = decodeOwnPng(mr.png).pixels;
    expect(Math.min(...px)).toBe(0);
    expect(Math.max(...px)).toBe(255);
  });

  it('applies presets and explicit windows in Hounsfield units', () => {
    const parsed = parseDicom(makeDicom({ modality: 'CT', rescale: { slope: 1, intercept: -1024 }, pixel: ctPixel }));
    const bone = renderDicomFrame(parsed, 0, 'bone');
    expect(bone.window).toEqual({ center: 500, width: 2000, preset: 'bone' });
    const custom = renderDicomFrame(parsed, 0, { center: 100, width: 400 });
    expect(custom.window).toEqual({ center: 100, width: 400 });
    const px = decodeOwnPng(custom.png).pixels;
    // First pixel is −100 HU: exactly the lower edge of C100/W400 → black.
    expect(px[0]).toBe(0);
    expect(px[19]).toBe(Array.from(applyWindow(Float32Array.from([280]), 100, 400))[0]);
  });

  it('inverts MONOCHROME1 images', () => {
    const window = { center: 20, width: 40 };
    const mono2 = decodeOwnPng(renderDicomFrame(parseDicom(makeDicom({ photometric: 'MONOCHROME2' })), 0, window).png).pixels;
    const mono1 = decodeOwnPng(renderDicomFrame(parseDicom(makeDicom({ photometric: 'MONOCHROME1' })), 0, window).png).pixels;
    expect(Array.from(mono1)).toEqual(Array.from(mono2, (v) => 255 - v));
  });

  it('renders each frame of a multi-frame image', () => {
    const parsed = parseDicom(makeDicom({ frames: 3 }));
    const window = { center: 75, width: 150 };
    const frames = [0, 1, 2].map((f) => decodeOwnPng(renderDicomFrame(parsed, f, window).png).pixels);
    expect(frames[0]).not.toEqual(frames[1]);
    expect(Array.from(frames[2]!)).toEqual(Array.from(applyWindow(parsed.getFrame(2), 75, 150)));
  });

  it('renders RGB as an RGB PNG, unchanged by the default window', () => {
    const parsed = parseDicom(makeDicom({ photometric: 'RGB', bitsAllocated: 8, planarConfiguration: 1 }));
    const r = renderDicomFrame(parsed);
    const png = decodeOwnPng(r.png);
    expect(png.channels).toBe(3);
    expect(Array.from(png.pixels)).toEqual(Array.from(parsed.getFrame(0)));
  });
});

describe('renderNiftiSlice', () => {
  it('produces a PNG of the slice size in each plane', () => {
    const parsed = parseNifti(makeNifti({ dims: [6, 5, 4] }));
    for (const [plane, w, h] of [['axial', 6, 5], ['coronal', 6, 4], ['sagittal', 5, 4]] as const) {
      const r = renderNiftiSlice(parsed, plane, 1);
      expect(readImageDimensions(r.png, 'png')).toEqual({ width: w, height: h });
      expect(r.window.preset).toBe('auto');
    }
  });

  it('uses cal_min/cal_max as the default window when set', () => {
    const r = renderNiftiSlice(parseNifti(makeNifti({ calMin: 0, calMax: 200 })), 'axial', 0);
    expect(r.window).toEqual({ center: 100, width: 200 });
  });
});

describe('renderVolumeSlice (re-windowing from the stored container)', () => {
  it('gives the same PNG as rendering the original DICOM', () => {
    const parsed = parseDicom(makeDicom({ frames: 2, modality: 'CT', signed: true, rescale: { slope: 1, intercept: -1024 }, pixel: ctPixel }));
    const stored = decodeVolume(encodeVolume(volumeFromDicom(parsed)));
    for (const window of ['stroke', 'subdural', { center: 0, width: 500 }] as const) {
      expect(renderVolumeSlice(stored, { frame: 1 }, window).png).toEqual(renderDicomFrame(parsed, 1, window).png);
    }
    expect(renderVolumeSlice(stored).window).toEqual({ center: 40, width: 80, preset: 'brain' });
  });

  it('gives the same PNG as rendering the original NIfTI slice', () => {
    const parsed = parseNifti(makeNifti({ dims: [6, 5, 4], sclSlope: 3, sform: [[-1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]] }));
    const stored = decodeVolume(encodeVolume(volumeFromNifti(parsed)));
    expect(renderVolumeSlice(stored, { plane: 'sagittal', index: 2 }, 'auto').png).toEqual(renderNiftiSlice(parsed, 'sagittal', 2, 'auto').png);
    // Default: middle axial slice.
    expect(renderVolumeSlice(stored).png).toEqual(renderNiftiSlice(parsed, 'axial', 2).png);
  });
});
