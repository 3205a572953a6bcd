import type { Kysely } from 'kysely';
import { nodeHash, type Hash } from './merkle.js';
import { STORED_HEIGHT, type Subtrees } from './tree.js';

interface SubtreesTable {
  height: number;
  idx: number;
  /** Hex SHA-256 root of leaves [idx * 2^height, (idx + 1) * 2^height). */
  hash: string;
}

const TABLE = 'audit_subtrees';

/** Made with the log's tables. */
export async function migrateAuditSubtrees(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable(TABLE)
    .ifNotExists()
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${TABLE}_pk`, ['height', 'idx'])
    .execute();
}

/**
 * The roots of the tree's perfect subtrees of 2^STORED_HEIGHT leaves and more (n / 4096 rows), so that a restarted
 * engine proves old events without hashing the log again. Written after each recorded tree head; never trusted as
 * read: `check` authenticates them against the right edge recorded with that head, and a table that does not pass
 * (edited, or short of a head whose write a crash cut off) is rebuilt from the log, as any read model can be.
 */
export class StoredSubtrees {
  readonly #db: Kysely<{ audit_subtrees: SubtreesTable }>;

  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  /** The stored roots of the subtrees that lie within the first `size` leaves. */
  async read(size: number): Promise<Subtrees> {
    const rows = await this.#db.selectFrom(TABLE).select(['height', 'idx', 'hash']).where('height', '>=', STORED_HEIGHT).execute();
    const out: Subtrees = new Map();
    for (const row of rows) {
      const height = Number(row.height);
      const idx = Number(row.idx);
      if ((idx + 1) * 2 ** height > size) continue;
      let level = out.get(height);
      if (!level) out.set(height, (level = []));
      level[idx] = Buffer.from(row.hash, 'hex');
    }
    return out;
  }

  /** Puts `subtrees` in, replacing what another tree of the same positions (a log since rewritten) stored. */
  async write(subtrees: Subtrees): Promise<void> {
    const rows = [...subtrees].flatMap(([height, hashes]) =>
      hashes.flatMap((hash, idx) => (hash ? [{ height, idx, hash: hash.toString('hex') }] : [])),
    );
    for (let at = 0; at < rows.length; at += 500) {
      await this.#db
        .insertInto(TABLE)
        .values(rows.slice(at, at + 500))
        .onConflict((oc) => oc.columns(['height', 'idx']).doUpdateSet((eb) => ({ hash: eb.ref('excluded.hash') })))
        .execute();
    }
  }
}

/**
 * Why `subtrees` are not those of the tree of `size` leaves whose right edge is `frontier`, or undefined if they are:
 * every subtree of STORED_HEIGHT and up within the size must be there, each the hash of its two halves, and the
 * topmost ones the edge's own. The edge was checked against the log's chain and the signed root, so a stored root
 * changed (with its ancestors recomputed to match) shows where its branch meets the edge.
 */
export function checkSubtrees(subtrees: Subtrees, size: number, frontier: readonly (Hash | undefined)[]): string | undefined {
  for (let h = STORED_HEIGHT; 2 ** h <= size; h++) {
    const level = subtrees.get(h) ?? [];
    const below = subtrees.get(h - 1) ?? [];
    const count = Math.floor(size / 2 ** h);
    for (let i = 0; i < count; i++) {
      const hash = level[i];
      if (!hash) return `the subtree of height ${h} at ${i} is missing`;
      if (h > STORED_HEIGHT && !nodeHash(below[2 * i]!, below[2 * i + 1]!).equals(hash)) {
        return `the subtree of height ${h} at ${i} is not the hash of its halves`;
      }
    }
    if (count % 2 === 1 && !frontier[h]?.equals(level[count - 1]!))
      return `the subtree of height ${h} at ${count - 1} is not the recorded edge's`;
  }
  return undefined;
}
