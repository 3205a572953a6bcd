import type { Kysely } from 'kysely';
import { keyActorId } from '../auth/index.js';
import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { ExpectedVersionConflictError, type EventMetadata, type EventStore } from '../store/index.js';
import type { BySubject, CddCustomersTable, CddCustomerTables } from './customer-projection.js';
import { customerStream, type CustomerEvent } from './events.js';
import type { CustomerRiskModel } from './risk/assess.js';
import type { CustomerInput, CustomerPatch } from './schema.js';
import type { Checks, Confirmations, CorporateDoc, CustomerDoc, CustomerRiskSummary } from './types.js';

export interface CddActor {
  businessId: string;
  userId?: string;
  /** The API key acting, and its name: the actor when the key is bound to no user. */
  apiKey?: string;
  keyName?: string;
  requestId?: string;
}

/** Who acted, as events record it: the user, else the key (`apikey:KEY`), else the library caller (`api`). */
export const actorIdOf = (actor: CddActor): string => actor.userId ?? (actor.apiKey ? keyActorId(actor.apiKey) : 'api');

export const metadataOf = (actor: CddActor): EventMetadata => ({
  businessId: actor.businessId,
  actor: actorIdOf(actor),
  requestId: actor.requestId,
});

/** A customer as the read model holds it: what was submitted, what was confirmed, what was checked, how risky. */
export interface CustomerView {
  doc: CustomerDoc;
  confirmations: BySubject<Confirmations>;
  checks: BySubject<Checks>;
  risk: CustomerRiskSummary | null;
  createdAt: string;
  updatedAt: string;
}

const toView = (r: CddCustomersTable): CustomerView => ({
  doc: JSON.parse(r.doc) as CustomerDoc,
  confirmations: JSON.parse(r.confirmations) as BySubject<Confirmations>,
  checks: JSON.parse(r.checks) as BySubject<Checks>,
  risk: r.risk === null ? null : (JSON.parse(r.risk) as CustomerRiskSummary),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const PERSON_GROUPS = ['directors', 'signatories', 'ultimateBeneficialOwners'] as const;

export class CustomerService {
  readonly #db: Kysely<CddCustomerTables>;
  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly risk: CustomerRiskModel,
  ) {
    this.#db = db;
  }

  async create(actor: CddActor, input: CustomerInput): Promise<CustomerView> {
    const doc = this.#withPersonIds(input);
    await this.#checkAccounts(actor.businessId, doc);
    const summary = this.risk.assess(doc, { customer: {}, persons: {} }, this.clock.now());
    const events: CustomerEvent[] = [
      { type: 'CddCustomerCreated', data: { customer: doc } },
      { type: 'CddCustomerRiskAssessed', data: { uniqueId: doc.uniqueId, summary } },
    ];
    try {
      await this.store.append(customerStream(actor.businessId, doc.uniqueId), events, {
        expectedVersion: 'no_stream',
        metadata: metadataOf(actor),
      });
    } catch (error) {
      if (error instanceof ExpectedVersionConflictError) throw new ConflictError(`a customer with uniqueId ${doc.uniqueId} already exists`);
      throw error;
    }
    return this.get(actor.businessId, doc.uniqueId);
  }

  /** Fields sent replace the stored ones (arrays wholesale); persons sent with their uniqueId keep it. */
  async update(actor: CddActor, uniqueId: string, patch: CustomerPatch): Promise<CustomerView> {
    const changed = Object.keys(patch);
    if (changed.length === 0) throw new ValidationError('the update changes no field', 'body');
    for (let attempt = 0; ; attempt++) {
      const stream = customerStream(actor.businessId, uniqueId);
      const version = await this.store.streamVersion(stream);
      const current = await this.find(actor.businessId, uniqueId, { byAccount: false });
      if (!current || version === 0) throw new NotFoundError('Customer not found');
      const doc = this.#withPersonIds({ ...current.doc, ...patch } as CustomerInput);
      await this.#checkAccounts(actor.businessId, doc);
      const summary = this.risk.assess(doc, current.confirmations, this.clock.now());
      const events: CustomerEvent[] = [
        { type: 'CddCustomerUpdated', data: { uniqueId, customer: doc, changed } },
        { type: 'CddCustomerRiskAssessed', data: { uniqueId, summary } },
      ];
      try {
        await this.store.append(stream, events, { expectedVersion: version, metadata: metadataOf(actor) });
        return this.get(actor.businessId, uniqueId);
      } catch (error) {
        if (attempt >= 3 || !(error instanceof ExpectedVersionConflictError)) throw error;
      }
    }
  }

  /** By uniqueId, else by any account number; another business's customer is not found. */
  async find(businessId: string, idOrAccount: string, options: { byAccount?: boolean } = {}): Promise<CustomerView | undefined> {
    const byId = await this.#row(businessId, idOrAccount);
    if (byId || options.byAccount === false) return byId && toView(byId);
    const account = await this.#db
      .selectFrom('cdd_customer_accounts')
      .select('unique_id')
      .where('business_id', '=', businessId)
      .where('account_number', '=', idOrAccount)
      .executeTakeFirst();
    const row = account && (await this.#row(businessId, account.unique_id));
    return row ? toView(row) : undefined;
  }

  async get(businessId: string, idOrAccount: string): Promise<CustomerView> {
    const view = await this.find(businessId, idOrAccount);
    if (!view) throw new NotFoundError('Customer not found');
    return view;
  }

  /** The assessment event for a customer in a given state: callers append it with the change that caused it. */
  assessment(doc: CustomerDoc, confirmations: BySubject<Confirmations>): CustomerEvent {
    return {
      type: 'CddCustomerRiskAssessed',
      data: { uniqueId: doc.uniqueId, summary: this.risk.assess(doc, confirmations, this.clock.now()) },
    };
  }

  #row(businessId: string, uniqueId: string) {
    return this.#db
      .selectFrom('cdd_customers')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('unique_id', '=', uniqueId)
      .executeTakeFirst();
  }

  #withPersonIds(input: CustomerInput): CustomerDoc {
    if (input.type !== 'corporate') return input;
    const seen = new Set<string>();
    const doc = { ...input } as CorporateDoc;
    for (const group of PERSON_GROUPS) {
      const people = input[group];
      if (!people) continue;
      (doc as Record<string, unknown>)[group] = people.map((p, i) => {
        const uniqueId = p.uniqueId ?? newId(this.clock.now());
        if (seen.has(uniqueId))
          throw new ValidationError(
            `${group}[${i}].uniqueId ${uniqueId} is used by another person of this customer`,
            `${group}[${i}].uniqueId`,
          );
        seen.add(uniqueId);
        return { ...p, uniqueId };
      });
    }
    return doc;
  }

  async #checkAccounts(businessId: string, doc: CustomerDoc): Promise<void> {
    const numbers = (doc.accounts ?? []).map((a) => a.accountNumber);
    if (numbers.length === 0) return;
    const taken = await this.#db
      .selectFrom('cdd_customer_accounts')
      .select(['account_number', 'unique_id'])
      .where('business_id', '=', businessId)
      .where('account_number', 'in', numbers)
      .where('unique_id', '!=', doc.uniqueId)
      .executeTakeFirst();
    if (taken) throw new ConflictError(`account number ${taken.account_number} already belongs to another customer`);
  }
}
