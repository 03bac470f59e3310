export * from './document.ts';
export * from './catalog.ts';
export * from './assumptions.ts';
export * from './validator.ts';
export * from './decimal.ts';
export * from './examples.ts';
