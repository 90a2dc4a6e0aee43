/** Uncertainty and agreement statistics: pure functions, no DOM, run in workers and Node. */
export * from './bootstrap.ts';
export * from './correlation.ts';
export * from './kappa.ts';
export * from './krippendorff.ts';
export * from './mcnemar.ts';
export * from './normal.ts';
export * from './wilson.ts';
