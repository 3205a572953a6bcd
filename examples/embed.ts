/**
 * A payment switch embedding the compliance engine in-process: one engine for the life of the process, asked for
 * a decision before each transfer is authorised, closed on shutdown. The switch passes its own pino logger, so the
 * engine's lines land in the switch's log stream with the switch's fields (here: stderr, so that stdout carries
 * only the switch's outcomes, one JSON line per transfer).
 *
 * In a project of your own: npm install compliance-engine pino, then run this file with tsx (or compile it).
 * Environment: COMPLIANCE_DATA_DIR (default ./compliance-data; ':memory:' keeps nothing).
 */
import { createEngine, type Decision, type InstantRequest } from 'compliance-engine';
import { pino } from 'pino';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', base: { service: 'payment-switch' } }, pino.destination(2));

/** A transfer as the switch sees it, before authorisation. */
interface Transfer {
  reference: string;
  /** When the customer sent it: part of the request, so a retry sends the very same body. */
  initiatedAt: string;
  amountKobo: number;
  fromAccount: string;
  toAccount: string;
  customerId: string;
  senderName: string;
  receiverName: string;
  deviceId: string;
  ipAddress: string;
}

type Outcome = 'pay' | 'hold for review' | 'decline';

/** The switch's mapping of the engine's three results; a review holds the funds while an analyst works the case. */
const OUTCOMES: Record<string, Outcome> = { approved: 'pay', review: 'hold for review', rejected: 'decline' };

function instantRequest(t: Transfer): InstantRequest {
  return {
    transactionData: {
      reference: t.reference,
      amount: t.amountKobo / 100,
      currency: 'NGN',
      type: 'debit',
      channel: 'mobile app',
      transactionDate: t.initiatedAt,
      senderAccount: t.fromAccount,
      receiverAccount: t.toAccount,
      isExternalPayment: true,
    },
    anonymizedUserData: { uniqueId: t.customerId, country: 'NG' },
    device: { deviceId: t.deviceId },
    screeningData: { senderName: t.senderName, receiverName: t.receiverName },
    ipAddress: t.ipAddress,
  };
}

const engine = await createEngine({
  dataDir: process.env.COMPLIANCE_DATA_DIR ?? './compliance-data',
  // The engine logs through the switch's logger; a child names the component in every line it writes.
  logger: logger.child({ component: 'compliance' }),
});
process.once('SIGTERM', () => void engine.close().then(() => process.exit(0)));

/** Called by the switch before it moves any money. The same reference always gets the same decision back. */
async function authorise(transfer: Transfer): Promise<{ outcome: Outcome; decision: Decision }> {
  const decision = await engine.decide(instantRequest(transfer), { businessId: 'switch_ng' });
  const outcome = OUTCOMES[decision.action.result] ?? 'hold for review';
  logger.info({ reference: transfer.reference, transactionId: decision.transactionId, outcome }, 'transfer screened');
  return { outcome, decision };
}

// Operations put an account on the decline list (as POST /blacklist/account does over HTTP).
await engine.monitoring.addToBlacklist({ businessId: 'switch_ng', userId: 'ops-desk' }, 'accounts', '0999999999');

const run = Date.now().toString(36);
const initiatedAt = new Date().toISOString();
const transfers: Transfer[] = [
  {
    reference: `NIP-${run}-1`,
    initiatedAt,
    amountKobo: 1_500_000,
    fromAccount: '0123456789',
    toAccount: '9876543210',
    customerId: 'cust-ada',
    senderName: 'Ada Obi',
    receiverName: 'Chinedu Okeke',
    deviceId: 'dev-ada-1',
    ipAddress: '102.89.1.10',
  },
  {
    reference: `NIP-${run}-2`,
    initiatedAt,
    amountKobo: 250_000,
    fromAccount: '0123456789',
    toAccount: '0999999999',
    customerId: 'cust-ada',
    senderName: 'Ada Obi',
    receiverName: 'Emeka Eze',
    deviceId: 'dev-ada-1',
    ipAddress: '102.89.1.10',
  },
];

for (const transfer of transfers) {
  const { outcome, decision } = await authorise(transfer);
  const fired = decision.ruleResult?.map((r) => r.id) ?? [];
  process.stdout.write(`${JSON.stringify({ reference: transfer.reference, outcome, riskScore: decision.riskScore, fired })}\n`);
}
// A retry of the first transfer (a switch times out and sends it again) is answered with the stored decision.
const retried = await authorise(transfers[0]!);
process.stdout.write(`${JSON.stringify({ reference: transfers[0]!.reference, outcome: retried.outcome, retry: true })}\n`);

await engine.close();
