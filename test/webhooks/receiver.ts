import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventStore } from '../../src/store/index.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 that records what it gets and answers from a script (default 200); `hang`
 * makes it take requests and never answer (a receiver that is down behind a live socket). `port` 0: any free one.
 */
export async function startReceiver(port = 0, options: { hang?: boolean } = {}) {
  const received: Received[] = [];
  const script: { status: number; headers?: Record<string, string> }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (options.hang) return;
      const answer = script.shift() ?? { status: 200 };
      res.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/hook`,
    received,
    /** TCP connections accepted so far. */
    connections: () => connections,
    /** The next answers, in order. */
    answer(...answers: { status: number; headers?: Record<string, string> }[]) {
      script.push(...answers);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Headers as the standardwebhooks verifier wants them. */
export const webhookHeaders = (h: IncomingHttpHeaders): Record<string, string> => ({
  'webhook-id': String(h['webhook-id']),
  'webhook-timestamp': String(h['webhook-timestamp']),
  'webhook-signature': String(h['webhook-signature']),
});

/** A worker's claim of a delivery's first attempt, leased for 60 s, with no outcome: what a process leaves when it dies mid-attempt. */
export async function abandonedAttempt(store: EventStore, deliveryId: string, businessId: string, now: Date): Promise<void> {
  await store.append(
    `webhook-delivery-${deliveryId}`,
    [
      {
        type: 'WebhookAttemptStarted',
        data: { deliveryId, attempt: 1, startedAt: now.toISOString(), leaseUntil: new Date(now.getTime() + 60e3).toISOString() },
      },
    ],
    { metadata: { businessId, actor: 'webhook-worker' } },
  );
}
