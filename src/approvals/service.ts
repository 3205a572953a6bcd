import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { handleCommand } from '../store/decider.js';
import type { EventStore } from '../store/index.js';
import { approvalDecider } from './decider.js';
import {
  APPROVAL_ACTIONS,
  type ApprovalAction,
  type ApprovalPolicyEvent,
  approvalStream,
  type Party,
  policyStream,
  type Subject,
} from './events.js';
import { type ApprovalPolicyTables, effectivePolicy } from './policy.js';
import type { ApprovalRequestsTable, ApprovalTables } from './projection.js';

export interface EffectContext {
  businessId: string;
  requestId: string;
  maker: Party;
  checker: Party;
}

/** What an approved request does: the action's own service call, made by the checker on the maker's arguments. */
export type Effect = (payload: Record<string, unknown>, context: EffectContext) => Promise<unknown>;

export interface NewRequest {
  action: ApprovalAction;
  subject: Subject;
  summary: string;
  payload: Record<string, unknown>;
  reason: string;
}

export type ApprovalRow = ApprovalRequestsTable;

/** Either the action was done at once, or it waits for a second person as this request. */
export type Gated<T> = { done: T; pending?: undefined } | { done?: undefined; pending: ApprovalRow };

export const isApprovalAction = (value: string): value is ApprovalAction => (APPROVAL_ACTIONS as readonly string[]).includes(value);

/**
 * Maker-checker as a policy: the business names the actions that take a second person; such an action, from the
 * console or the API alike, becomes a pending request that takes effect when someone other than its maker approves
 * it. The actions' effects are registered by the engine, so this domain knows none of the others.
 */
export class ApprovalService {
  readonly #db: Kysely<ApprovalTables & ApprovalPolicyTables>;
  readonly #effects = new Map<ApprovalAction, Effect>();

  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {
    this.#db = db;
    this.register('policy.change', async (payload, context) => {
      const actions = policyActions(payload.actions);
      const event: ApprovalPolicyEvent = {
        type: 'ApprovalPolicySet',
        data: { actions, requestId: context.requestId, supersedesCaseFourEyes: true },
      };
      await this.store.append(policyStream(context.businessId), [event], {
        metadata: { businessId: context.businessId, actor: context.checker.id },
      });
      return actions;
    });
  }

  register(action: ApprovalAction, effect: Effect): void {
    this.#effects.set(action, effect);
  }

  /** The actions under four eyes; changing the policy is always among them. */
  async policy(businessId: string): Promise<ApprovalAction[]> {
    return effectivePolicy(
      await this.#db.selectFrom('approval_policy').selectAll().where('business_id', '=', businessId).executeTakeFirst(),
    );
  }

  async needsApproval(businessId: string, action: ApprovalAction): Promise<boolean> {
    return (await this.policy(businessId)).includes(action);
  }

  /** Does `now` at once when the policy lets the action through; otherwise records the request and returns it. */
  async gate<T>(businessId: string, maker: Party, request: NewRequest, now: () => Promise<T>): Promise<Gated<T>> {
    if (!(await this.needsApproval(businessId, request.action))) return { done: await now() };
    return { pending: await this.request(businessId, maker, request) };
  }

  async request(businessId: string, maker: Party, input: NewRequest): Promise<ApprovalRow> {
    const requestId = newId(this.clock.now());
    await handleCommand(
      this.store,
      approvalStream(businessId, requestId),
      approvalDecider,
      { type: 'Request', data: { requestId, ...input, reason: input.reason.trim(), maker } },
      { businessId, actor: maker.id },
    );
    return this.get(businessId, requestId);
  }

  /**
   * A checker's answer. The approval is appended first (one approval wins however many race), then its effect
   * runs; an effect that fails is recorded and its error thrown to the checker.
   */
  async decide(
    businessId: string,
    checker: Party,
    requestId: string,
    approve: boolean,
    reason: string,
  ): Promise<{ row: ApprovalRow; result?: unknown }> {
    const row = await this.get(businessId, requestId);
    const stream = approvalStream(businessId, requestId);
    await handleCommand(
      this.store,
      stream,
      approvalDecider,
      { type: 'Decide', data: { requestId, checker, approve, reason } },
      {
        businessId,
        actor: checker.id,
      },
    );
    if (!approve) return { row: await this.get(businessId, requestId) };
    const effect = this.#effects.get(row.action as ApprovalAction);
    const maker: Party = { kind: row.maker_kind as Party['kind'], id: row.maker_id, name: row.maker_name };
    try {
      if (!effect) throw new Error(`no effect registered for ${row.action}`);
      const result = await effect(JSON.parse(row.payload), { businessId, requestId, maker, checker });
      return { row: await this.get(businessId, requestId), result };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await handleCommand(
        this.store,
        stream,
        approvalDecider,
        { type: 'RecordFailure', data: { requestId, error: message } },
        {
          businessId,
          actor: checker.id,
        },
      );
      throw error;
    }
  }

  async get(businessId: string, requestId: string): Promise<ApprovalRow> {
    const row = await this.#db
      .selectFrom('approval_requests')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Approval request not found');
    return row;
  }

  /** Requests newest first: the pending ones, the decided ones, or those about one subject. */
  async list(businessId: string, filter: { pending?: boolean; subject?: Subject; limit?: number } = {}): Promise<ApprovalRow[]> {
    let query = this.#db.selectFrom('approval_requests').selectAll().where('business_id', '=', businessId);
    if (filter.pending !== undefined) query = query.where('status', filter.pending ? '=' : '!=', 'pending');
    if (filter.subject) query = query.where('subject_kind', '=', filter.subject.kind).where('subject_id', '=', filter.subject.id);
    return query
      .orderBy('requested_at', 'desc')
      .orderBy('request_id', 'desc')
      .limit(filter.limit ?? 200)
      .execute();
  }

  async pendingCount(businessId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('approval_requests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', businessId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function policyActions(value: unknown): ApprovalAction[] {
  if (!Array.isArray(value)) throw new ValidationError('actions must be a list', 'actions');
  for (const a of value)
    if (typeof a !== 'string' || !isApprovalAction(a)) throw new ValidationError(`unknown action ${String(a)}`, 'actions');
  return APPROVAL_ACTIONS.filter((a) => value.includes(a));
}
