export * from './normalise.ts';
export * from './judge.ts';
export * from './taxonomy.ts';
