import { createRoute, z } from '@hono/zod-openapi';
import { readableOf } from '../../audit/index.js';
import type { Engine } from '../../engine.js';
import type { App } from '../env.js';
import { errorResponses, jsonResponse, security } from '../schemas.js';

const tags = ['Audit'];

export const TreeHeadSchema = z
  .object({
    origin: z.string().openapi({ description: "The log's name: the origin line of its checkpoints (AUDIT_LOG_ORIGIN)" }),
    treeSize: z.number().int().openapi({ description: 'Events covered: log positions 1 to treeSize' }),
    rootHash: z.string().openapi({ description: 'Hex SHA-256 Merkle root (RFC 9162)' }),
    timestamp: z.string(),
    keyId: z.string(),
    publicKey: z.string().openapi({ description: 'Ed25519 public key, SPKI PEM' }),
    signature: z
      .string()
      .openapi({ description: 'Base64 Ed25519 signature over origin, treeSize, rootHash, timestamp and keyId, one a line' }),
    note: z.string().openapi({
      description:
        "The same head as a C2SP tlog-checkpoint in a C2SP signed note: signed by the log's key under its origin, then a cosignature/v1 line per witness that cosigned it",
    }),
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
    readable: z
      .object({
        data: z.unknown().openapi({ description: "The event's data; when stored with its keys numbered, decoded with keyTable" }),
        keyTable: z
          .object({
            id: z.string().openapi({
              description: 'base64url of the first 16 bytes of SHA-256 of JSON.stringify(keys): the first item of the stored data',
            }),
            keys: z.array(z.string()).openapi({ description: 'The keys by number' }),
          })
          .optional(),
      })
      .openapi({
        description:
          "The event's data for a person to read; examples/verify-proof.mjs checks that it is the stored data, or its decoding with a key table the stored data names by hash",
      }),
    previousHash: z
      .string()
      .openapi({ description: "The chain hash before the event; the event's hash is SHA-256 of it and the stored row" }),
    leafIndex: z.number().int(),
    auditPath: z.array(z.string()).openapi({ description: 'Hex sibling hashes from the leaf to the root (RFC 9162 2.1.3)' }),
    treeHead: TreeHeadSchema,
  })
  .openapi('InclusionProof');

const PUBLIC_KEY = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAYLnCGYUvZ3cB3fVhkxD/VIdWJ7ePylxs3d/vR6ToyEU=\n-----END PUBLIC KEY-----\n';
const NOTE_EXAMPLE = [
  'compliance.bank.example/audit-log',
  '24',
  'CDUN/wrQfXSx9oHRJKbJ5sYMaK5MC9nvYhtCWXi5BVQ=',
  '',
  '— compliance.bank.example/audit-log 6Fdrw4pRHmIU0N5kkDsEa5Z0IUsCr8YgXcBhdMpplrafaxlOB2g9E5hLTNK0XhJnzq5F+YQhBfD1B3AJDJE+9tn16Qw=',
  '— witness.auditor.example/w1 kvC+KAAAAABpJr/gR5TnLrzZmvvLhoSI4Hfj4uxs9UTUHZSxdM6WTd9kK+wTK3ThvRHHnIeMjeT6bVNuZGv7kyRG0OAb1/kA7BGYsA==',
  '',
].join('\n');
const treeHeadExample = {
  origin: 'compliance.bank.example/audit-log',
  treeSize: 24,
  rootHash: '08350dff0ad07d74b1f681d124a6c9e6c60c68ae4c0bd9ef621b425978b90554',
  timestamp: '2026-11-27T15:38:35.252Z',
  keyId: '880473505b203337',
  publicKey: PUBLIC_KEY,
  signature: '1L0z1r6srGaKZPOvq0ltWT9zUVM6T8mu4kZNmZN3zAN9280ToFREoZn9kUuXl+FZJm7pDi6qn/lGlvNbQY++Dg==',
  note: NOTE_EXAMPLE,
};

type ProvenEvent = Pick<z.input<typeof InclusionProofSchema>['event'], 'streamId' | 'type' | 'schemaVersion' | 'data'>;

/** The proof answer of a route whose record is `event` (the stored event's stream, type and data). */
export const proofResponse = (what: string, event: ProvenEvent) => ({
  200: jsonResponse(
    z.object({ message: z.string(), data: InclusionProofSchema }),
    `${what} with its inclusion proof against the latest signed tree head; check it with examples/verify-proof.mjs`,
    {
      message: 'Proof fetched',
      data: {
        event: {
          position: 24,
          eventId: '01a21da8-8d45-7335-a8f1-f992cf6a04f5',
          streamVersion: 1,
          ...event,
          metadata: { businessId: 'biz_6b09a3f760a92ed3bc904b74', actor: 'api', requestId: '70cfb8b6-a8b8-41cc-a15e-d2a7328873af' },
          recordedAt: '2026-11-27T15:38:35.205Z',
          hash: 'b2861a0d2f90b681684b5e16308cd108256e6ae8b06d1c358bbe12fb95dbc9d9',
        },
        readable: readableOf(event.data),
        previousHash: 'c96dae102a91fe8b0309077cbfee0ae510011282069633b37f02dbec649dc515',
        leafIndex: 23,
        auditPath: ['130a50ea460c78e3e5041bb8375365b94e94279bc9e75a34eb632ed7795dfc4d'],
        treeHead: treeHeadExample,
      },
    },
  ),
});

const checkpoint = createRoute({
  method: 'get',
  path: '/api/v1/audit/checkpoint',
  tags,
  summary:
    'The latest checkpoint of the whole log, signed and cosigned by the witnesses (in `note`), with its compact range: the value an auditor keeps outside the system',
  security,
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: CheckpointSchema }), 'The checkpoint', {
      message: 'Checkpoint signed',
      data: {
        ...treeHeadExample,
        treeSize: 48,
        rootHash: 'dd7842a9cbf9b4e1efa030ef14a46792b33b1fc3f269d4e889daf8349859795b',
        signature: 'E0WlKA6iNTqmrzN1gxP3yFF2DMWURSBw3DuUHA5C7CwhdRVcEk2ztDnmH2dOX3OUPmihjdLsBJ6FnFdOmg9pAQ==',
        compactRange: [
          '5f1460668bd37618303498e0665c2e69fa0fc5917ddd1f3ccf4b2b7d7bf75ec8',
          'c3a1f0e2d9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2',
        ],
      },
    }),
    ...errorResponses,
  },
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
          current: z.object({
            keyId: z.string(),
            publicKey: z.string(),
            origin: z.string(),
            vkey: z
              .string()
              .openapi({ description: "The log's verifier key (C2SP signed-note), for witnesses and examples/verify-proof.mjs" }),
          }),
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
      {
        message: 'Signing keys fetched',
        data: {
          current: {
            keyId: '880473505b203337',
            publicKey: PUBLIC_KEY,
            origin: 'compliance.bank.example/audit-log',
            vkey: 'compliance.bank.example/audit-log+e8576bc3+AWC5whmFL2d3Ad31YZMQ/1SHVie3j8pcbN3f70ek6MhF',
          },
          recorded: [
            {
              keyId: '880473505b203337',
              publicKey: PUBLIC_KEY,
              previousKeyId: null,
              reason: 'first use',
              activatedAt: '2026-11-27T15:38:32.681Z',
            },
          ],
        },
      },
    ),
    ...errorResponses,
  },
});

const consistency = createRoute({
  method: 'get',
  path: '/api/v1/audit/consistency',
  tags,
  summary:
    'An RFC 9162 consistency proof that the checkpoint of `to` events extends the tree of `from` events (a checkpoint kept from an earlier visit); check it with examples/verify-proof.mjs',
  security,
  request: {
    query: z.object({
      from: z.coerce.number().int().min(0).openapi({ description: 'The size of the checkpoint kept from before' }),
      to: z.coerce
        .number()
        .int()
        .min(0)
        .optional()
        .openapi({ description: 'The size of a checkpoint the log recorded (one an inclusion proof carried); default the latest' }),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.object({
          fromSize: z.number().int(),
          proof: z.array(z.string()).openapi({ description: 'Hex hashes of the consistency proof (RFC 9162 2.1.4)' }),
          checkpoint: TreeHeadSchema.openapi({ description: 'The signed, cosigned checkpoint of `to` events' }),
        }),
      }),
      'The consistency proof',
      {
        message: 'Consistency proof fetched',
        data: {
          fromSize: 16,
          proof: ['08350dff0ad07d74b1f681d124a6c9e6c60c68ae4c0bd9ef621b425978b90554'],
          checkpoint: treeHeadExample,
        },
      },
    ),
    ...errorResponses,
  },
});

export function registerAuditRoutes(app: App, engine: Engine): void {
  app.openapi(checkpoint, async (c) => c.json({ message: 'Checkpoint signed', data: await engine.audit.checkpoint() }, 200));
  app.openapi(consistency, async (c) => {
    const { from, to } = c.req.valid('query');
    return c.json({ message: 'Consistency proof fetched', data: await engine.audit.consistency(from, to) }, 200);
  });
  app.openapi(keys, async (c) =>
    c.json(
      { message: 'Signing keys fetched', data: { current: await engine.audit.publicKey(), recorded: await engine.audit.keys() } },
      200,
    ),
  );
}
