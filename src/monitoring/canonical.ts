// A body's identity for idempotency. Validation rebuilds every object of the body in the schema's key order
// (and every group of the instant body is a fixed-shape object), so the JSON of a validated body is canonical:
// two clients that send the same request with keys in another order send the same body. A stored body read back
// from the log has the same JSON too (parsing and printing JSON keeps key order and every number).
import type { InstantRequest } from './request-schema.js';

export const sameBody = (stored: unknown, request: InstantRequest): boolean => JSON.stringify(stored) === JSON.stringify(request);
