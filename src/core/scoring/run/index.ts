export * from './types.ts';
export * from './judge-service.ts';
export * from './similarity.ts';
export * from './score-item.ts';
export * from './summary.ts';
export * from './score-run.ts';
