import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { sha256Hex } from '../../src/digest.js';
import {
  compactDecided,
  decodeDecided,
  encodeDecided,
  KNOWN_NAMES,
  KNOWN_REASONS,
  type StoredDecided,
} from '../../src/monitoring/compact-decision.js';
import { DECISION_KEYS } from '../../src/monitoring/compact-keys.js';
import { transactionStream, type TransactionDecidedData } from '../../src/monitoring/events.js';
import { verifyReplay } from '../../src/projections/index.js';
import { NO_RULE_FIRED } from '../../src/rules/index.js';
import { decodeNumbered, EventStore, Upcasters } from '../../src/store/index.js';
import { testEngine } from '../helpers.js';
import { BACKENDS, skipBackend } from '../postgres.js';

const name = fc.oneof(fc.constantFrom(...KNOWN_NAMES), fc.string());
const reason = fc.oneof(
  fc.constant({ ...NO_RULE_FIRED }),
  fc.record({ code: fc.string(), message: fc.string(), severity: fc.constantFrom('low', 'medium', 'high', 'critical') }),
);
const fired = fc.record({
  id: fc.string(),
  title: fc.string(),
  score: fc.string(),
  reason,
  forced: fc.option(fc.string()),
  observed: fc.array(fc.record({ test: fc.string(), holds: fc.boolean(), values: fc.dictionary(fc.string(), fc.string()) }), {
    maxLength: 2,
  }),
});

const decided = fc
  .record({
    transactionId: fc.string(),
    reference: fc.string(),
    request: fc.dictionary(
      fc.string(),
      fc.json().map((text) => JSON.parse(text) as unknown),
    ),
    decidedAt: fc.string(),
    rulesetVersion: fc.string(),
    velocity: fc.array(fc.tuple(name, fc.option(fc.string())), { maxLength: 12 }),
    lists: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom('blacklist.users:', 'knownDevices:', 'blacklist.accounts'), fc.string()),
        fc.string(),
        fc.boolean(),
      ),
      {
        maxLength: 5,
      },
    ),
    firstSeen: fc.dictionary(fc.string(), fc.option(fc.boolean())),
    lastSeen: fc.dictionary(fc.string(), fc.option(fc.string())),
    hits: fc.array(fc.record({ list: fc.constantFrom('users' as const, 'devices' as const), field: fc.string(), value: fc.string() }), {
      maxLength: 2,
    }),
    screening: fc.option(fc.dictionary(fc.string(), fc.string())),
    riskScore: fc.string(),
    ruleResult: fc.option(fc.array(fired, { minLength: 1, maxLength: 3 })),
    ownReason: reason,
    reasonOfFired: fc.boolean(),
    missing: fc.option(fc.array(name, { minLength: 1 }), { nil: undefined }),
    caseId: fc.option(fc.string()),
  })
  .map((r): TransactionDecidedData => {
    const velocity: Record<string, string | null> = {};
    for (const [id, value] of r.velocity) velocity[id] = value;
    const decisionReason = r.reasonOfFired && r.ruleResult ? { ...r.ruleResult[0]!.reason } : r.ownReason;
    const lists: Record<string, boolean> = {};
    for (const [list, value, hit] of r.lists) lists[list + value] = hit;
    return {
      transactionId: r.transactionId,
      reference: r.reference,
      request: { ...r.request, transactionData: { reference: r.reference } },
      decidedAt: r.decidedAt,
      rulesetVersion: r.rulesetVersion,
      features: {
        velocity,
        lists,
        firstSeen: r.firstSeen,
        lastSeen: r.lastSeen,
        screening: r.screening,
        ipCountries: null,
        blacklistHits: r.hits,
      },
      decision: {
        transactionId: r.transactionId,
        riskScore: r.riskScore,
        action: { result: 'review', code: 2 },
        ruleResult: r.ruleResult,
        reason: decisionReason,
        ...(r.missing === undefined ? {} : { missingFeatures: r.missing }),
      },
      caseId: r.caseId,
    };
  });

it('reads a stored decision back as it was decided (decode ∘ encode is the identity, through the stored text)', () => {
  fc.assert(
    fc.property(decided, (data) => {
      const text = JSON.stringify(encodeDecided(data, data.caseId));
      const read = decodeDecided(JSON.parse(text));
      expect(read).toEqual(data);
      // Field order too: an idempotent replay answers with the stored decision, serialised as it was first answered.
      expect(JSON.stringify(read)).toBe(JSON.stringify(data));
      // Version 3's compact form, keys as text, reads the same.
      const v3 = decodeDecided(JSON.parse(JSON.stringify(compactDecided(data, data.caseId))));
      expect(JSON.stringify(v3)).toBe(JSON.stringify(data));
    }),
    { numRuns: 300 },
  );
});

it("knows the rules compiler's reason when no rule fired, so that an approved decision stores it as a number", () => {
  expect(KNOWN_REASONS[0]).toEqual(NO_RULE_FIRED);
});

it('stores the velocity names and missing fields the bundled rules use as numbers', () => {
  const data = fc.sample(decided, { numRuns: 1, seed: 7 })[0]!;
  data.features.velocity = { [KNOWN_NAMES[0]!]: '10', 'count(by user over 2 days)': '1' };
  data.decision.missingFeatures = ['transactionData.vasReceiver'];
  const numbered = encodeDecided(data, null);
  expect(numbered[0]).toBe(DECISION_KEYS.id);
  expect(numbered[1]).toBe(DECISION_KEYS.keys.indexOf('transactionId'));
  const stored = decodeNumbered(numbered) as unknown as StoredDecided;
  expect(stored.features.velocity).toEqual([0, '10', 'count(by user over 2 days)', '1']);
  expect(stored.decision.missing).toEqual([KNOWN_NAMES.indexOf('transactionData.vasReceiver')]);
  expect(stored.decision).not.toHaveProperty('transactionId');
});

const transfer = (reference: string) => ({
  transactionData: { reference, amount: 15_000, currency: 'NGN', senderAccount: '0011223344', receiverAccount: '5566778899' },
  screeningData: { senderName: 'Chinedu Okafor', receiverName: 'Chinwe Adebayo' },
});

for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`a log of decisions stored at version 2, then compact, then numbered (${backend})`, () => {
    it('reads all three in one shape, replays to the same read models, and proves and verifies each', async () => {
      const t = await testEngine({ backend });
      try {
        const { engine } = t;
        const first = await engine.decide(transfer('mixed-1'));
        const [current] = await engine.store.readStream(transactionStream('default', first.transactionId));
        expect(current!.schemaVersion).toBe(4);
        const template = current!.data as TransactionDecidedData;
        const decidedAs = (reference: string): TransactionDecidedData => {
          const id = sha256Hex(['tm-tx', 'default', reference].join('\u0000')).slice(0, 24);
          const request = { ...transfer(reference), ipAddress: '10.0.0.9' };
          return { ...template, transactionId: id, reference, request, decision: { ...template.decision, transactionId: id } };
        };
        const metadata = { businessId: 'default', actor: 'api' };

        // The version-2 code appends decisions in the shape readers see, uncompressed, its read models with them.
        const v2 = new EventStore(engine.db, new ManualClock(), { upcasters: new Upcasters().register('TransactionDecided', 1, (d) => d) });
        v2.setProjector(engine.projections);
        await v2.init();
        const old = decidedAs('mixed-0');
        await v2.append(transactionStream('default', old.transactionId), [{ type: 'TransactionDecided', data: old }], {
          expectedVersion: 'no_stream',
          metadata,
        });
        // The version-3 code appends them compact, keys as text.
        const v3Store = new EventStore(engine.db, new ManualClock(), {
          upcasters: new Upcasters().register('TransactionDecided', 1, (d) => d).registerDecoder('TransactionDecided', 3, decodeDecided),
        });
        v3Store.setProjector(engine.projections);
        await v3Store.init();
        const v3 = decidedAs('mixed-v3');
        await v3Store.append(
          transactionStream('default', v3.transactionId),
          [{ type: 'TransactionDecided', data: compactDecided(v3, null) }],
          { expectedVersion: 'no_stream', metadata },
        );
        await engine.store.catchUp();

        const later = await engine.decide(transfer('mixed-2'));
        expect(later.missingFeatures).toEqual(first.missingFeatures);
        expect(await engine.decide(transfer('mixed-2'))).toEqual(later);

        for (const earlier of [old, v3]) {
          const read = await engine.monitoring.getTransaction('default', earlier.transactionId);
          expect(read).toMatchObject({ reference: earlier.reference, request: earlier.request });
          expect(read.features.velocity).toEqual(template.features.velocity);
        }
        const [v3Read] = await engine.store.readStream(transactionStream('default', v3.transactionId));
        expect(v3Read!.schemaVersion).toBe(4);
        expect(JSON.stringify(v3Read!.data)).toBe(JSON.stringify(v3));
        const fresh = await engine.monitoring.getTransaction('default', later.transactionId);
        expect(Object.keys(fresh.features.velocity).length).toBeGreaterThan(0);
        expect(Object.keys(fresh.features.velocity)).toEqual(Object.keys(template.features.velocity));

        await engine.store.settleDeferred();
        const replay = await verifyReplay(engine.db, engine.store, engine.projections);
        expect(replay.diffs).toEqual([]);
        expect(replay.ok).toBe(true);
        expect((await engine.store.verifyChain()).ok).toBe(true);

        // Each proof is checked against the chain hash and the signed tree before it is handed out.
        const proofOf = async (id: string) => engine.audit.prove(await engine.monitoring.decisionPosition('default', id));
        const oldProof = await proofOf(old.transactionId);
        const v3Proof = await proofOf(v3.transactionId);
        const newProof = await proofOf(later.transactionId);
        expect(oldProof.event.schemaVersion).toBe(2);
        expect(v3Proof.event.schemaVersion).toBe(3);
        expect(newProof.event.schemaVersion).toBe(4);
        // A proof holds the event as stored, whose text the chain hash covers, and beside it the data for a person.
        for (const earlier of [oldProof, v3Proof]) expect(earlier.readable).toEqual({ data: earlier.event.data });
        expect((v3Proof.readable.data as StoredDecided).request).toEqual(v3.request);
        const stored = newProof.event.data as unknown[];
        expect(stored[0]).toBe(DECISION_KEYS.id);
        expect(newProof.readable.keyTable).toEqual({ id: DECISION_KEYS.id, keys: DECISION_KEYS.keys });
        const readable = newProof.readable.data as StoredDecided;
        expect(readable.transactionId).toBe(later.transactionId);
        expect(readable.request).toEqual(transfer('mixed-2'));
        expect(readable.decision.action).toEqual(later.action);
        expect((await engine.audit.verify([])).ok).toBe(true);
      } finally {
        await t.close();
      }
    }, 120_000);
  });
