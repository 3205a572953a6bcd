import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import type { App } from '../env.js';
import { errorResponses, jsonResponse, security } from '../schemas.js';

const tags = ['Audit'];

export const TreeHeadSchema = z
  .object({
    origin: z.string(),
    treeSize: z.number().int().openapi({ description: 'Events covered: log positions 1 to treeSize' }),
    rootHash: z.string().openapi({ description: 'Hex SHA-256 Merkle root (RFC 9162)' }),
    timestamp: z.string(),
    keyId: z.string(),
    publicKey: z.string().openapi({ description: 'Ed25519 public key, SPKI PEM' }),
    signature: z
      .string()
      .openapi({ description: 'Base64 Ed25519 signature over origin, treeSize, rootHash, timestamp and keyId, one a line' }),
  })
  .openapi('SignedTreeHead');

const CheckpointSchema = TreeHeadSchema.extend({
  compactRange: z.array(z.string()).openapi({ description: 'Hex roots of the perfect subtrees covering the log, largest first' }),
}).openapi('Checkpoint');

export const InclusionProofSchema = z
  .object({
    event: z
      .object({
        position: z.number().int(),
        eventId: z.string(),
        streamId: z.string(),
        streamVersion: z.number().int(),
        type: z.string(),
        schemaVersion: z.number().int(),
        data: z.unknown(),
        metadata: z.unknown(),
        recordedAt: z.string(),
        hash: z.string(),
      })
      .openapi({ description: 'The event exactly as stored (data at the schema version it was written with)' }),
    previousHash: z
      .string()
      .openapi({ description: "The chain hash before the event; the event's hash is SHA-256 of it and the stored row" }),
    leafIndex: z.number().int(),
    auditPath: z.array(z.string()).openapi({ description: 'Hex sibling hashes from the leaf to the root (RFC 9162 2.1.3)' }),
    treeHead: TreeHeadSchema,
  })
  .openapi('InclusionProof');

export const proofResponse = (what: string) => ({
  200: jsonResponse(
    z.object({ message: z.string(), data: InclusionProofSchema }),
    `${what} with its inclusion proof against the latest signed tree head; check it with examples/verify-proof.mjs`,
  ),
});

const checkpoint = createRoute({
  method: 'get',
  path: '/api/v1/audit/checkpoint',
  tags,
  summary: 'A signed tree head of the whole log now, with its compact range: the value an auditor keeps outside the system',
  security,
  responses: { 200: jsonResponse(z.object({ message: z.string(), data: CheckpointSchema }), 'The checkpoint'), ...errorResponses },
});

const keys = createRoute({
  method: 'get',
  path: '/api/v1/audit/keys',
  tags,
  summary: 'The public key signing tree heads now, and every signing key the log recorded',
  security,
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.object({
          current: z.object({ keyId: z.string(), publicKey: z.string() }),
          recorded: z.array(
            z.object({
              keyId: z.string(),
              publicKey: z.string(),
              previousKeyId: z.string().nullable(),
              reason: z.string(),
              activatedAt: z.string(),
            }),
          ),
        }),
      }),
      'Signing keys',
    ),
    ...errorResponses,
  },
});

export function registerAuditRoutes(app: App, engine: Engine): void {
  app.openapi(checkpoint, async (c) => c.json({ message: 'Checkpoint signed', data: await engine.audit.checkpoint() }, 200));
  app.openapi(keys, async (c) =>
    c.json(
      { message: 'Signing keys fetched', data: { current: await engine.audit.publicKey(), recorded: await engine.audit.keys() } },
      200,
    ),
  );
}
