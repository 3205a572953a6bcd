/**
 * A fixed-rate HTTP load generator without coordinated omission. Request i is due at start + i/rate whether or not
 * earlier ones have answered, and its latency counts from that due time. autocannon's `overallRate` is closed-loop
 * instead: a connection sends its next request only after the previous answer, so a stalled server is offered
 * less and the stall never shows in the percentiles (it printed 705/s served at "2,000/s offered"). Requests go
 * over a pool of keep-alive connections without pipelining, as a payment switch sends them; a request due while
 * every connection is busy waits for one, and that wait is part of its latency.
 *
 * It speaks HTTP/1.1 over raw sockets, as autocannon does, rather than through node:http's client: the generator
 * shares the two cores with the server, and node:http's client cost ~130 µs of CPU per request against the ~40 µs
 * autocannon takes at saturation. The server under test answers with Content-Length or chunked bodies; both are
 * read here, and anything else counts as an error.
 */
import net from 'node:net';
import { percentile } from './stats.js';

export interface OpenLoopOptions {
  port: number;
  /** Several servers of one service (the nodes behind a load balancer): connections are opened to each in turn. */
  ports?: readonly number[];
  /** POST unless told otherwise; a GET is sent with an empty body. */
  method?: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body: () => string;
  rate: number;
  seconds: number;
  connections: number;
}

export interface OpenLoopResult {
  /** Answers per second over the run (below the offered rate when the server falls behind). */
  served: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  errors: number;
  non2xx: number;
  /** Requests with no answer 10 s after the last was due; they count in the percentiles with the time waited. */
  unanswered: number;
}

const GRACE_MS = 10_000;
const HEAD_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n');

/** The end of the first complete response in `data` and its status, or undefined while more bytes are due. */
function responseEnd(data: Buffer): { end: number; status: number } | undefined {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const head = data.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = headEnd + 4 + Number(length[1]);
    return data.length >= end ? { end, status } : undefined;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error(`response without a length: ${head.split('\r\n')[0]}`);
  const chunked = data.indexOf(CHUNKED_END, headEnd);
  return chunked < 0 ? undefined : { end: chunked + CHUNKED_END.length, status };
}

export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const total = Math.round(o.rate * o.seconds);
  const head = `${o.method ?? 'POST'} ${o.path} HTTP/1.1\r\nHost: 127.0.0.1:${o.port}\r\nConnection: keep-alive\r\n${Object.entries(
    o.headers,
  )
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Content-Length: `;
  const latencies: number[] = [];
  const pending = new Set<number>();
  let errors = 0;
  let non2xx = 0;
  let lastAnswer = 0;
  const start = performance.now();
  const dueAt = (i: number) => start + (i * 1000) / o.rate;

  interface Connection {
    socket: net.Socket;
    /** The request it waits on, -1 when idle. */
    request: number;
    received: Buffer;
  }
  const idle: Connection[] = [];
  /** Requests due while every connection was busy, in order. */
  const queued: number[] = [];
  const connections = new Set<Connection>();
  let finished = false;
  let onSettled = () => {};

  const settle = (i: number, failed: boolean, status = 0) => {
    if (finished || !pending.delete(i)) return;
    if (failed) errors++;
    else if (status < 200 || status >= 300) non2xx++;
    const now = performance.now();
    latencies.push(now - dueAt(i));
    lastAnswer = now;
    onSettled();
  };
  const send = (c: Connection, i: number) => {
    c.request = i;
    const body = o.body();
    c.socket.write(`${head}${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  const release = (c: Connection) => {
    c.request = -1;
    const next = queued.shift();
    if (next !== undefined) send(c, next);
    else idle.push(c);
  };
  const ports = o.ports ?? [o.port];
  let opened = 0;
  const open = (): Connection => {
    const c: Connection = {
      socket: net.connect({ host: '127.0.0.1', port: ports[opened++ % ports.length]!, noDelay: true }),
      request: -1,
      received: Buffer.alloc(0),
    };
    c.socket.on('data', (chunk: Buffer) => {
      c.received = c.received.length === 0 ? chunk : Buffer.concat([c.received, chunk]);
      let answer: ReturnType<typeof responseEnd>;
      try {
        answer = responseEnd(c.received);
      } catch {
        c.socket.destroy();
        return;
      }
      if (!answer) return;
      c.received = c.received.subarray(answer.end);
      const i = c.request;
      settle(i, false, answer.status);
      release(c);
    });
    // A connection that fails or closes fails its request; the next request due opens a fresh one.
    c.socket.on('error', () => undefined);
    c.socket.on('close', () => {
      connections.delete(c);
      const at = idle.indexOf(c);
      if (at >= 0) idle.splice(at, 1);
      if (c.request >= 0) settle(c.request, true);
      const waiting = finished ? undefined : queued.shift();
      if (waiting !== undefined) send(open(), waiting);
    });
    connections.add(c);
    return c;
  };
  const dispatch = (i: number) => {
    pending.add(i);
    const c = idle.pop() ?? (connections.size < o.connections ? open() : undefined);
    if (c) send(c, i);
    else queued.push(i);
  };

  await new Promise<void>((resolve) => {
    let next = 0;
    onSettled = () => {
      if (next === total && pending.size === 0) resolve();
    };
    // A 1 ms timer rather than a busy loop: the generator shares the two cores with the server. A request sent
    // late by the timer is still timed from its due time, so the lag counts against the server, never for it.
    const tick = () => {
      const now = performance.now();
      while (next < total && dueAt(next) <= now) dispatch(next++);
      if (next < total) setTimeout(tick, 1);
      else setTimeout(resolve, GRACE_MS).unref();
    };
    tick();
  });
  const unanswered = pending.size;
  const end = performance.now();
  for (const i of pending) latencies.push(end - dueAt(i));
  finished = true;
  for (const c of connections) c.socket.destroy();

  const sorted = latencies.sort((a, b) => a - b);
  return {
    served: (total - unanswered - errors) / (((lastAnswer || end) - start) / 1000),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted[sorted.length - 1] ?? NaN,
    errors,
    non2xx,
    unanswered,
  };
}
