import { amlProjection } from '../aml/index.js';
import { apiKeysProjection } from '../auth/index.js';
import { casesProjection } from '../cases/index.js';
import { cddCustomersProjection, cddRequestsProjection } from '../cdd/index.js';
import { monitoringProjection } from '../monitoring/index.js';
import { usersProjection } from '../users/index.js';
import { webhooksProjection } from '../webhooks/index.js';
import { uploadsProjection } from '../uploads/index.js';
import type { Projection } from './types.js';

/** Every read model of the product. The engine applies them inline; replay --verify rebuilds them all. */
export function allProjections(): Projection[] {
  return [apiKeysProjection, usersProjection, webhooksProjection, amlProjection, casesProjection, uploadsProjection, monitoringProjection, cddCustomersProjection, cddRequestsProjection];
}
