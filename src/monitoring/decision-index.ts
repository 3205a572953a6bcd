// The decisions read model: one row per decision (time, action, score, fired rules, case, and the parties it names:
// the user, the sender and receiver accounts, the device), so a person's recent decisions and a business's last day
// are index ranges rather than scans of the log. Deferred: applied after the commits, a pass of many decisions in one
// transaction, since inside each commit its five indexes' random pages cost the instant path a third of its throughput.
// Its readers settle it first, so a node reads its own decisions.
import type { Kysely } from 'kysely';
import { storedPartition } from '../partitions/index.js';
import { defineProjection } from '../projections/index.js';
import { backendOf, insertRows, type StoredEvent } from '../store/index.js';
import { transactionIdOf, type MonitoringEvent, type TransactionDecidedData } from './events.js';

export interface DecisionsTable {
  business_id: string;
  /** The decision's partition (its metadata's): with the business, the distribution column (docs/postgres.md). */
  partition: number;
  transaction_id: string;
  reference: string;
  /**
   * Milliseconds since 1970: 6 bytes where the ISO text took 24, in the row and in five indexes. PostgreSQL's
   * driver returns a bigint as a string.
   */
  decided_at: number | string;
  action: string;
  risk_score: string;
  case_id: string | null;
  /** The fired rules' ids, comma-separated in the order they fired; '' when none fired. */
  fired: string;
  user_id: string | null;
  sender_account: string | null;
  receiver_account: string | null;
  device_id: string | null;
}

export interface DecisionIndexTables {
  tm_decisions: DecisionsTable;
}

export const PARTY_KINDS = ['user', 'account', 'device'] as const;
export type PartyKind = (typeof PARTY_KINDS)[number];

interface RequestParties {
  transactionData?: { senderAccount?: string | null; receiverAccount?: string | null };
  anonymizedUserData?: { uniqueId?: string | null } | null;
  device?: { deviceId?: string | null } | null;
}

export interface Party {
  kind: PartyKind;
  value: string;
}

/** The parties a request names, each once (a transfer between one's own accounts names the account once). */
export function partiesOf(request: unknown): Party[] {
  const r = request as RequestParties;
  const parties = new Map<string, Party>();
  const add = (kind: PartyKind, value: string | null | undefined) => {
    if (value) parties.set(`${kind}:${value}`, { kind, value });
  };
  add('user', r.anonymizedUserData?.uniqueId);
  add('account', r.transactionData?.senderAccount);
  add('account', r.transactionData?.receiverAccount);
  add('device', r.device?.deviceId);
  return [...parties.values()];
}

/** The columns a party kind is found in. */
const PARTY_COLUMNS = {
  user: ['user_id'],
  account: ['sender_account', 'receiver_account'],
  device: ['device_id'],
} as const satisfies Record<PartyKind, readonly (keyof DecisionsTable)[]>;

export const decisionIndexProjection = defineProjection<DecisionIndexTables>({
  name: 'transaction-monitoring-decisions',
  handles: ['TransactionDecided'] satisfies MonitoringEvent['type'][],
  tables: [{ name: 'tm_decisions', key: ['business_id', 'partition', 'transaction_id'] }],
  deferred: true,
  async migrate(db: Kysely<any>) {
    await dropOlderLayout(db);
    await db.schema
      .createTable('tm_decisions')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('partition', 'integer', (c) => c.notNull())
      .addColumn('transaction_id', 'text', (c) => c.notNull())
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'bigint', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('risk_score', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text')
      .addColumn('fired', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('sender_account', 'text')
      .addColumn('receiver_account', 'text')
      .addColumn('device_id', 'text')
      // Led by the distribution column; the time and party indexes below stay by business, as their ranges (a
      // business's last hours, a receiving account, a device) span partitions and are read merged by time.
      .addPrimaryKeyConstraint('tm_decisions_pk', ['business_id', 'partition', 'transaction_id'])
      .execute();
    await db.schema.createIndex('tm_decisions_time').ifNotExists().on('tm_decisions').columns(['business_id', 'decided_at']).execute();
    for (const column of Object.values(PARTY_COLUMNS).flat())
      await db.schema
        .createIndex(`tm_decisions_${column}`)
        .ifNotExists()
        .on('tm_decisions')
        .columns(['business_id', column, 'decided_at'])
        .execute();
  },
  apply: (db, stored) => insertDecisions(db, [stored]),
  applyMany: insertDecisions,
});

/**
 * A table of an older layout (times as ISO text, or no partition) is dropped with its checkpoint, so that the deferred
 * passes rebuild it from the log, placing each decision stored before its metadata carried a partition by its
 * request (storedPartition). Its readers settle it first, so they wait for the rebuild rather than read it half built.
 */
async function dropOlderLayout(db: Kysely<any>): Promise<void> {
  const table = (await db.introspection.getTables()).find((t) => t.name === 'tm_decisions');
  if (!table) return;
  const textTimes = table.columns.find((c) => c.name === 'decided_at')?.dataType.toLowerCase() === 'text';
  if (!textTimes && table.columns.some((c) => c.name === 'partition')) return;
  await db.schema.dropTable('tm_decisions').execute();
  await db.deleteFrom('projection_checkpoints').where('name', '=', decisionIndexProjection.name).execute();
}

const DECISION_COLUMNS = [
  'business_id',
  'partition',
  'transaction_id',
  'reference',
  'decided_at',
  'action',
  'risk_score',
  'case_id',
  'fired',
  'user_id',
  'sender_account',
  'receiver_account',
  'device_id',
] as const satisfies readonly (keyof DecisionsTable)[];

/** One multi-row insert for a pass's decisions. */
async function insertDecisions(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
  const rows = events.map((stored) => {
    const data = stored.data as TransactionDecidedData;
    const { decision } = data;
    const r = data.request as RequestParties;
    return [
      stored.metadata.businessId,
      storedPartition(stored.metadata, data.request),
      transactionIdOf(stored.streamId),
      data.reference,
      Date.parse(data.decidedAt),
      decision.action.result,
      decision.riskScore,
      data.caseId,
      decision.ruleResult?.map((rule) => rule.id).join(',') ?? '',
      r.anonymizedUserData?.uniqueId || null,
      r.transactionData?.senderAccount || null,
      r.transactionData?.receiverAccount || null,
      r.device?.deviceId || null,
    ];
  });
  for (const insert of insertRows(backendOf(db), 'tm_decisions', DECISION_COLUMNS, rows)) await db.executeQuery(insert);
}

/** A decision as a list shows it. */
export interface DecisionSummary {
  transactionId: string;
  reference: string;
  decidedAt: string;
  action: string;
  riskScore: string;
  caseId: string | null;
  fired: string[];
}

const toSummary = (r: DecisionsTable): DecisionSummary => ({
  transactionId: r.transaction_id,
  reference: r.reference,
  decidedAt: new Date(Number(r.decided_at)).toISOString(),
  action: r.action,
  riskScore: r.risk_score,
  caseId: r.case_id,
  fired: r.fired ? r.fired.split(',') : [],
});

/** A party's decisions, newest first. */
export async function decisionsOfParty(
  db: Kysely<DecisionIndexTables>,
  businessId: string,
  party: Party,
  limit: number,
): Promise<DecisionSummary[]> {
  // One index range per column the party is found in (an account sends and receives), merged newest first.
  const ranges = await Promise.all(
    PARTY_COLUMNS[party.kind].map((column) =>
      db
        .selectFrom('tm_decisions')
        .selectAll()
        .where('business_id', '=', businessId)
        .where(column, '=', party.value)
        .orderBy('decided_at', 'desc')
        .orderBy('transaction_id', 'desc')
        .limit(limit)
        .execute(),
    ),
  );
  const newestFirst = (a: DecisionsTable, b: DecisionsTable) =>
    Number(a.decided_at) === Number(b.decided_at)
      ? a.transaction_id < b.transaction_id
        ? 1
        : -1
      : Number(a.decided_at) < Number(b.decided_at)
        ? 1
        : -1;
  const unique = new Map(ranges.flat().map((row) => [row.transaction_id, row]));
  return [...unique.values()].sort(newestFirst).slice(0, limit).map(toSummary);
}

export interface DecisionStats {
  since: string;
  decisions: number;
  /** Decisions per action result. */
  byAction: Record<string, number>;
  /** Decisions each rule fired in. */
  ruleHits: Record<string, number>;
}

/** A business's decisions since a time, counted per action and per fired rule (grouped in SQL by action and rule set). */
export async function decisionStats(db: Kysely<DecisionIndexTables>, businessId: string, since: string): Promise<DecisionStats> {
  const rows = await db
    .selectFrom('tm_decisions')
    .select(['action', 'fired', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('business_id', '=', businessId)
    .where('decided_at', '>=', Date.parse(since))
    .groupBy(['action', 'fired'])
    .execute();
  // Prototype-free: a rule may be called `constructor`.
  const stats: DecisionStats = { since, decisions: 0, byAction: Object.create(null), ruleHits: Object.create(null) };
  for (const row of rows) {
    const n = Number(row.n);
    stats.decisions += n;
    stats.byAction[row.action] = (stats.byAction[row.action] ?? 0) + n;
    if (row.fired) for (const id of row.fired.split(',')) stats.ruleHits[id] = (stats.ruleHits[id] ?? 0) + n;
  }
  return stats;
}
