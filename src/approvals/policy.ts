import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { StoredEvent } from '../store/index.js';
import { APPROVAL_ACTIONS, type ApprovalAction, type ApprovalPolicyEvent, CASE_FOUR_EYES_ACTIONS } from './events.js';

export interface ApprovalPolicyTable {
  business_id: string;
  /** JSON array of the actions the business's policy events name. */
  actions: string;
  /**
   * The case settings' `fourEyes` as the log's events before the policy took it over last set it (1 or 0); a whole
   * policy set since clears it.
   */
  case_four_eyes: number;
}

export interface ApprovalPolicyTables {
  approval_policy: ApprovalPolicyTable;
}

/** The actions under four eyes: the policy's own, the old case setting's, and always the policy's change. */
export function effectivePolicy(row: Pick<ApprovalPolicyTable, 'actions' | 'case_four_eyes'> | undefined): ApprovalAction[] {
  const named = new Set<string>(row ? (JSON.parse(row.actions) as string[]) : []);
  if (row?.case_four_eyes) for (const a of CASE_FOUR_EYES_ACTIONS) named.add(a);
  named.add('policy.change');
  return APPROVAL_ACTIONS.filter((a) => named.has(a));
}

/** The old case-settings event as far as the policy reads it: events written before the policy took it over carry `fourEyes`. */
type CaseSettingsChanged = { type: 'CaseSettingsChanged'; data: { fourEyes?: boolean } };

async function upsert(db: Kysely<ApprovalPolicyTables>, business_id: string, set: Partial<Omit<ApprovalPolicyTable, 'business_id'>>) {
  await db
    .insertInto('approval_policy')
    .values({ business_id, actions: '[]', case_four_eyes: 0, ...set })
    .onConflict((oc) => oc.column('business_id').doUpdateSet(set))
    .execute();
}

/**
 * Each business's four-eyes policy, folded from its policy events and from the case settings' `fourEyes` of events
 * written before the policy took that setting over, so that a replayed old log keeps its meaning: four eyes on
 * closing cases (and approving reports) until a whole policy is set.
 */
export const approvalPolicyProjection = defineProjection<ApprovalPolicyTables>({
  name: 'approval-policy',
  handles: ['ApprovalPolicySet', 'CaseSettingsChanged'] satisfies (ApprovalPolicyEvent | CaseSettingsChanged)['type'][],
  tables: [{ name: 'approval_policy', key: ['business_id'] }],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('approval_policy')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.primaryKey())
      .addColumn('actions', 'text', (c) => c.notNull())
      .addColumn('case_four_eyes', 'integer', (c) => c.notNull())
      .execute();
  },
  async apply(db, stored: StoredEvent) {
    const event = { type: stored.type, data: stored.data } as ApprovalPolicyEvent | CaseSettingsChanged;
    const businessId = stored.metadata.businessId;
    if (event.type === 'ApprovalPolicySet') {
      const actions = JSON.stringify(event.data.actions);
      await upsert(db, businessId, event.data.supersedesCaseFourEyes ? { actions, case_four_eyes: 0 } : { actions });
    } else if (event.data.fourEyes !== undefined) {
      await upsert(db, businessId, { case_four_eyes: event.data.fourEyes ? 1 : 0 });
    }
  },
});
