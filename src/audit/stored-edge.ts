import type { Kysely } from 'kysely';
import type { Frontier } from './log-tree.js';
import { verifySignature, type SigningKey } from './signing-key.js';

/**
 * The tree's right edge as the server stores it between tree heads (every few seconds and at a clean shutdown), so
 * that a start goes on from it even where no tree head was ever recorded (AUDIT_CHECKPOINT_INTERVAL=0). It is a cache
 * of the log: checked at start as the edge of a recorded head is (the chain hash of its last event, its last tile's
 * leaves, and a root signed by the log's key), and dropped for a rebuild from the log when any of it does not match.
 */
export interface SignedEdge {
  frontier: Frontier;
  /** Hex root the frontier folds to. */
  rootHash: string;
  keyId: string;
  /** Base64 Ed25519 signature of `edgeMessage`: a table edited by whoever lacks the key does not pass. */
  signature: string;
}

interface EdgeTable {
  name: string;
  edge: string;
}

const TABLE = 'audit_edge';
/** The one row: every node of a cluster stores the edge of the same log, and any of them is as good. */
const ROW = 'tree';

/** Made with the log's tables. */
export async function migrateAuditEdge(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable(TABLE)
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('edge', 'text', (c) => c.notNull())
    .execute();
}

/**
 * What the key signs: not a C2SP note, so that the signature cannot pass for a checkpoint that no witness saw and the
 * log does not record. Without the origin: the edge names the log by its last position and chain hash, and an origin
 * taken from PUBLIC_BASE_URL's default changes with the port.
 */
function edgeMessage(edge: Omit<SignedEdge, 'keyId' | 'signature'>): Buffer {
  const f = edge.frontier;
  return Buffer.from(`audit tree edge\n${f.size}\n${edge.rootHash}\n${f.lastPosition}\n${f.lastChainHash}\n`);
}

export function signEdge(key: SigningKey, frontier: Frontier, rootHash: string): SignedEdge {
  const signature = key.sign(edgeMessage({ frontier, rootHash })).toString('base64');
  return { frontier, rootHash, keyId: key.keyId, signature };
}

/** Whether `edge` was signed by `key` (the root it names is then checked against the log by the tree). */
export function edgeSignedBy(edge: SignedEdge, key: SigningKey): boolean {
  return edge.keyId === key.keyId && verifySignature(key.publicKey, edgeMessage(edge), Buffer.from(edge.signature, 'base64'));
}

export class StoredEdge {
  readonly #db: Kysely<{ audit_edge: EdgeTable }>;

  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  /** The stored edge; undefined when there is none, 'unreadable' when its row is not one (the tree is then rebuilt). */
  async read(): Promise<SignedEdge | 'unreadable' | undefined> {
    const row = await this.#db.selectFrom(TABLE).select('edge').where('name', '=', ROW).executeTakeFirst();
    if (!row) return undefined;
    try {
      const edge = JSON.parse(row.edge) as Partial<SignedEdge>;
      const f = edge.frontier;
      const ok =
        Number.isSafeInteger(f?.size) &&
        Number.isSafeInteger(f?.lastPosition) &&
        typeof f?.lastChainHash === 'string' &&
        Array.isArray(f.hashes) &&
        f.hashes.every((h) => typeof h === 'string') &&
        typeof edge.rootHash === 'string' &&
        typeof edge.keyId === 'string' &&
        typeof edge.signature === 'string';
      return ok ? (edge as SignedEdge) : 'unreadable';
    } catch {
      return 'unreadable';
    }
  }

  async write(edge: SignedEdge): Promise<void> {
    const text = JSON.stringify(edge);
    await this.#db
      .insertInto(TABLE)
      .values({ name: ROW, edge: text })
      .onConflict((oc) => oc.column('name').doUpdateSet({ edge: text }))
      .execute();
  }
}
