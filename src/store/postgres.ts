import {
  type CreateTableNode,
  type DataTypeNode,
  Kysely,
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresDialect,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';

/**
 * The read models are declared once, in SQLite's terms (the embedded default). On PostgreSQL:
 * - `integer` becomes `bigint`: SQLite's integers are 64-bit, and log positions and counts must not stop at 2^31;
 * - `blob` becomes `bytea`;
 * - `text` compares and sorts byte by byte (collation "C"), as SQLite's BINARY does, so listings order alike on
 *   both backends whatever the database's locale;
 * - SQLite's physical hints (`without rowid`) are dropped: PostgreSQL has no rowid to do without.
 */
class PortableDdl extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    if (node.dataType === 'integer') return { ...node, dataType: 'bigint' };
    if (node.dataType === 'blob') return { ...node, dataType: 'bytea' };
    if (node.dataType === 'text') return { ...node, dataType: 'text collate "C"' as DataTypeNode['dataType'] };
    return node;
  }

  protected override transformCreateTable(node: CreateTableNode): CreateTableNode {
    const created = super.transformCreateTable(node);
    const endModifiers = created.endModifiers?.filter((m) => !isWithoutRowid(m));
    return { ...created, endModifiers: endModifiers?.length ? endModifiers : undefined };
  }
}

const isWithoutRowid = (node: { kind: string }): boolean =>
  node.kind === 'RawNode' &&
  (node as unknown as { sqlFragments: readonly string[] }).sqlFragments.join('').trim().toLowerCase() === 'without rowid';

const portablePlugin: KyselyPlugin = {
  transformQuery: (args: PluginTransformQueryArgs): RootOperationNode =>
    args.node.kind === 'CreateTableNode' ? new PortableDdl().transformNode(args.node) : args.node,
  transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
};

// bigint (int8) and numeric arrive as numbers, as SQLite's integers do. Positions and counts stay far below 2^53.
// No table has a numeric column (amounts are text); numeric is what sum() over bigint answers, such as quota totals.
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC
      ? (text: string) => Number(text)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresDatabase {
  db: Kysely<any>;
  pool: pg.Pool;
}

/** How a node names itself to the server (pg_stat_activity's application_name). */
export interface PostgresOptions {
  max?: number;
  applicationName?: string;
}

/**
 * A pool over `pg`. Every connection commits synchronously (synchronous_commit=on, whatever the server's
 * default), so a commit that returned is on disk, and on the synchronous standbys when the operator has any.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): PostgresDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types,
    application_name: options.applicationName ?? 'compliance-engine',
    options: '-c synchronous_commit=on -c default_transaction_isolation=read\\ committed',
  });
  // An idle connection the server dropped (a restart, a failover) is discarded by the pool; without a listener
  // its error would end the process.
  pool.on('error', () => undefined);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), plugins: [portablePlugin] });
  return { db, pool };
}

/** A connection of its own, outside the pool: LISTEN and claims hold its session. `options` are server settings. */
export function postgresClient(url: string, applicationName: string, options?: string): pg.Client {
  return new pg.Client({ connectionString: url, types, application_name: applicationName, keepAlive: true, options });
}
