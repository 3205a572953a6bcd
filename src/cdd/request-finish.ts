// The one append that settles a step of a CDD request: its events, a confirmed or withdrawn match on the customer,
// the customer's fresh risk assessment, the request's completion with its risk level, and the case a confirmation
// opens. Match review (requests.ts) and the worker (worker.ts) both end through it.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ownSlot } from '../own-keys.js';
import type { EventMetadata, EventStore, StreamWrite } from '../store/index.js';
import type { CddActor, CustomerService } from './customers.js';
import { customerStream, requestStream, type CustomerEvent, type RequestEvent } from './events.js';
import { customerName } from './names.js';
import type { CasesPort } from './ports.js';
import type { CddRequestTables } from './request-projection.js';
import type { Confirmation, Confirmations, MatchKind, OverallRiskLevel, ScreeningMatch } from './types.js';

const CASE_PRIORITY = { sanctions: 'high', pep: 'high', adverseMedia: 'medium' } as const;
const KIND_LABEL = { sanctions: 'sanctions', pep: 'PEP', adverseMedia: 'adverse-media' } as const;

export interface Finish {
  metadata: EventMetadata;
  requestId: string;
  customerUniqueId: string;
  requestVersion: number;
  requestEvents: RequestEvent[];
  confirm?: { kind: MatchKind; subject: ScreeningMatch['subject']; confirmation: Confirmation };
  /** A correction of a `found` review: the confirmation it made is taken back. */
  withdraw?: { kind: MatchKind; subject: ScreeningMatch['subject']; confirmationId: string };
  /** Who acts: the case a confirmation opens is logged as theirs. */
  actor?: CddActor;
  complete: boolean;
}

export class RequestFinisher {
  readonly #db: Kysely<CddRequestTables>;
  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly customers: CustomerService,
    private readonly cases: CasesPort | undefined,
  ) {
    this.#db = db;
  }

  /**
   * Appends the request's events (at the version the caller read), optionally a confirmation, a fresh risk
   * assessment of the customer (at the version its view was read) and the request's completion, and the case a
   * confirmation opens: one atomic append, so a crash leaves either all of it or none.
   */
  async finish(input: Finish): Promise<void> {
    const businessId = input.metadata.businessId;
    const customerStreamId = customerStream(businessId, input.customerUniqueId);
    const customerVersion = await this.store.streamVersion(customerStreamId);
    const view = await this.customers.get(businessId, input.customerUniqueId);
    const customerEvents: CustomerEvent[] = [];
    const confirmations = structuredClone(view.confirmations);
    const writes: StreamWrite[] = [];
    if (input.confirm) {
      const { kind, subject, confirmation } = input.confirm;
      customerEvents.push({ type: 'CddScreeningConfirmed', data: { uniqueId: view.doc.uniqueId, kind, subject, confirmation } });
      (subject.role === 'customer' ? confirmations.customer : ownSlot<Confirmations>(confirmations.persons, subject.uniqueId, () => ({})))[
        kind
      ] = confirmation;
      if (this.cases) {
        const opening = await this.cases.openingWrites({
          businessId,
          module: 'cdd',
          record: { id: view.doc.uniqueId, type: 'customer', name: customerName(view.doc) },
          title: `Confirmed ${KIND_LABEL[kind]} match: ${subject.name}`,
          description: `A reviewer confirmed the ${KIND_LABEL[kind]} match ${confirmation.id} for ${subject.role} ${subject.name} (CDD request ${input.requestId}).`,
          priority: CASE_PRIORITY[kind],
          actor: input.actor && { userId: input.actor.userId, apiKey: input.actor.apiKey, keyName: input.actor.keyName },
        });
        writes.push(...opening.writes);
      }
    }
    if (input.withdraw) {
      const { kind, subject, confirmationId } = input.withdraw;
      const data = {
        uniqueId: view.doc.uniqueId,
        kind,
        subject,
        confirmationId,
        requestId: input.requestId,
        withdrawnAt: this.clock.now().toISOString(),
      };
      customerEvents.push({ type: 'CddScreeningWithdrawn', data });
      const target = subject.role === 'customer' ? confirmations.customer : confirmations.persons[subject.uniqueId];
      if (target?.[kind]?.id === confirmationId) delete target[kind];
    }
    const assessment = this.customers.assessment(view.doc, confirmations);
    customerEvents.push(assessment);
    const requestEvents = [...input.requestEvents];
    if (input.complete) {
      const summary = (assessment as Extract<CustomerEvent, { type: 'CddCustomerRiskAssessed' }>).data.summary;
      const level = await this.#riskLevel(businessId, view.doc.uniqueId, input.requestId, summary.overallScore, summary.computedAt);
      requestEvents.push({ type: 'CddRequestCompleted', data: { requestId: input.requestId, overallRiskLevel: level } });
    }
    writes.unshift(
      { streamId: requestStream(input.requestId), events: requestEvents, expectedVersion: input.requestVersion },
      { streamId: customerStreamId, events: customerEvents, expectedVersion: customerVersion },
    );
    await this.store.appendMany(writes, input.metadata);
  }

  /** This request's score after the scores of the customer's earlier completed requests. */
  async #riskLevel(
    businessId: string,
    customerUniqueId: string,
    requestId: string,
    riskScore: number,
    date: string,
  ): Promise<OverallRiskLevel> {
    const earlier = await this.#db
      .selectFrom('cdd_requests')
      .select('overall_risk_level')
      .where('business_id', '=', businessId)
      .where('customer_unique_id', '=', customerUniqueId)
      .where('status', '=', 'completed')
      .where('request_id', '!=', requestId)
      .orderBy('updated_at')
      .orderBy('request_id')
      .execute();
    const history = earlier.flatMap((r) => {
      const level = r.overall_risk_level ? (JSON.parse(r.overall_risk_level) as OverallRiskLevel) : undefined;
      return level ? [level.history[level.history.length - 1]!] : [];
    });
    return { history: [...history, { request: requestId, riskScore, date }], request: requestId, riskScore };
  }
}
