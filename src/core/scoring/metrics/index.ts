/** Per-item and per-run scoring metrics: pure functions, no DOM, run in workers and Node. */
export * from './bertscore.ts';
export * from './calibration.ts';
export * from './calibration-shift.ts';
export * from './classification.ts';
export * from './mcq.ts';
export * from './passk.ts';
export * from './porter.ts';
export * from './rouge.ts';
export * from './rubric.ts';
export * from './squad.ts';
export * from './lesion.ts';
