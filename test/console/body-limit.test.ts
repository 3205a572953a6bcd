import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { type TestEngine, testEngine } from '../helpers.js';

const FIFTY_MB = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

let t: TestEngine;
let server: ServerType;
let port: number;
beforeAll(async () => {
  t = await testEngine({ rulesDir: 'rules', watchRules: false });
  const app = createApp(t.engine);
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

/**
 * Streams up to 50 MB of form body to `path` (with a Content-Length, or chunked), as fast as the socket takes it,
 * until the server answers; resolves with the status and the largest RSS growth of this process meanwhile.
 */
function flood(path: string, chunked: boolean): Promise<{ status: number; sent: number; growth: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (!chunked) headers['content-length'] = String(FIFTY_MB);
    let sent = 0;
    let answered = false;
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      answered = true;
      res.resume();
      res.on('end', () => {
        clearInterval(sampler);
        peak = Math.max(peak, process.memoryUsage().rss);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, sent, growth: peak - start });
      });
    });
    // The server may close the socket on a body it refused: that ends the upload, not the test.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < FIFTY_MB) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    req.write('email=a%40b.example&password=');
    pump();
  });
}

describe('console request bodies', () => {
  it.each([
    ['a declared Content-Length', false],
    ['a chunked body', true],
  ])('refuses a 50 MB sign-in with %s by 413 before reading it', async (_, chunked) => {
    const { status, growth } = await flood('/console/sign-in', chunked);
    expect(status).toBe(413);
    expect(growth).toBeLessThan(8 * 1024 * 1024);
  });

  it('refuses a 50 MB form to a page behind the session by 413 too', async () => {
    const { status, growth } = await flood('/console/cases/x/comments', true);
    expect(status).toBe(413);
    expect(growth).toBeLessThan(8 * 1024 * 1024);
  });

  it('still answers a sign-in form of ordinary size', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/console/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.example&password=x',
      redirect: 'manual',
    });
    // No pre-session cookie and no CSRF token: refused by the CSRF check, which had to read the body to decide.
    expect(res.status).toBe(403);
  });
});
