export * from './normalise.ts';
export * from './judge.ts';
export * from './chain.ts';
export * from './taxonomy.ts';
