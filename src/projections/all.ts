import { apiKeysProjection } from '../auth/index.js';
import { usersProjection } from '../users/index.js';
import type { Projection } from './types.js';

/** Every read model of the product. The engine applies them inline; replay --verify rebuilds them all. */
export function allProjections(): Projection[] {
  return [apiKeysProjection, usersProjection];
}
