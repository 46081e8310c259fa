// What the extraction benchmark scores with (e2e/src/bench/extraction.bench.ts): `@wap/extract/eval`.
export { type EvalCase, score } from './score.js';
export { describeStructure, type StructureCase, type StructureOutput, scoreStructure } from './structure-score.js';
