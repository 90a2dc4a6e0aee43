/**
 * What people read for a protocol id: one name per protocol, used by the
 * protocol itself (`label`) and by every page, report and export header that
 * names one. A module of its own so pages can name protocols without loading
 * their prompt builders and parsers.
 */
import type { ProtocolId } from './types.ts';

export const PROTOCOL_NAMES: Readonly<Record<ProtocolId, string>> = {
  'neurovlm-structured': 'NeuroVLM-Bench structured JSON',
  'nmb-differential': 'Neural-MedBench differential diagnosis (ranked, up to 5)',
  'nmb-lesion': 'Neural-MedBench lesion recognition',
  'nmb-rationale': 'Neural-MedBench rationale (free text)',
  'nmb-multi-round': 'Neural-MedBench multi-round dialogue',
  'structured-review': 'Structured review checklist',
  mcq: 'Multiple choice (VLMEvalKit style)',
  rubric: 'Rubric-scored answer (LiveMedBench style)',
  'open-question': 'Open question (free text)',
  'short-answer': 'Short answer (VQA: a word or phrase)',
  numeric: 'Number, date or duration (MedCalc-Bench rules)',
  box: 'Bounding box (grounding)',
};

/** A run's protocol in words: a protocol's name, "each case's own protocol" for `auto`, or the id itself when this version does not know it. */
export function protocolName(id: string): string {
  if (id === 'auto') return "Each case's own protocol (by task family)";
  return Object.hasOwn(PROTOCOL_NAMES, id) ? PROTOCOL_NAMES[id as ProtocolId] : id;
}
