export { ProjectionRegistry } from './registry.js';
export { defineProjection, type Projection, type ReadModelTable } from './types.js';
export { compareReadModels, formatVerifyReport, verifyReplay, type RowDiff, type VerifyReport } from './verify.js';
export { readPage, type PageRequest } from './paging.js';
export { readModelCurrent } from './current.js';
