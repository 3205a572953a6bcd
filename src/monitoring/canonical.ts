// A body's identity for idempotency. Validation rebuilds every object of the body in the schema's key order
// (and every group of the instant body is a fixed-shape object), so the JSON of a validated body is canonical:
// two clients that send the same request with keys in another order get the same hash.
import { sha256Hex } from '../digest.js';
import type { InstantRequest } from './request-schema.js';

export const requestHash = (request: InstantRequest): string => sha256Hex(JSON.stringify(request));
