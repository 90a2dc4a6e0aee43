import { describe, expect, it } from 'vitest';
import { mirrorProblem } from '../../../../src/features/models/mirror.ts';

describe('mirrorProblem', () => {
  it('accepts an on-prem mirror and an empty field', () => {
    expect(mirrorProblem('https://models.hospital.local/hf/')).toBeNull();
    expect(mirrorProblem('')).toBeNull();
  });

  it('explains that the public host is not a mirror and where to download from it instead', () => {
    expect(mirrorProblem('https://huggingface.co/HuggingFaceTB/SmolVLM-256M-Instruct')).toMatch(/huggingface\.co is the models' public host, not an on-prem mirror.*From its host…/);
  });

  it('names what is wrong with an address that is not one', () => {
    expect(mirrorProblem('models.local')).toMatch(/"models\.local" is not a web address/);
    expect(mirrorProblem('file:///mnt/usb/models')).toMatch(/must be an http\(s\) address, not file:/);
  });
});
