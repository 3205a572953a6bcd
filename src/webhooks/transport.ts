import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { checkLiteralHost, guardedLookup, UrlPolicyError } from './address-policy.js';

export interface PostResult {
  status: number;
  retryAfter: string | null;
}

export interface PostOptions {
  timeoutMs: number;
  allowInsecure: boolean;
}

/**
 * Connections are kept alive between deliveries: a subscriber of every decision gets thousands a second, and a
 * new TCP and TLS handshake for each cost more than the POST. A kept connection is to an address the policy
 * allowed when it was made (the agent connects through the request's guarded lookup); an idle one is closed
 * after a few seconds, before the usual server keep-alive of 5 s, so a reused socket is rarely one the receiver
 * is closing. Guarded and insecure (ALLOW_INSECURE_WEBHOOKS) requests have agents of their own, so they never share a socket.
 */
const IDLE_MS = 4_000;
const guarded = { keepAlive: true, timeout: IDLE_MS, lookup: guardedLookup };
const insecure = { keepAlive: true, timeout: IDLE_MS };
const AGENTS = {
  guarded: { 'http:': new HttpAgent(guarded), 'https:': new HttpsAgent(guarded) },
  insecure: { 'http:': new HttpAgent(insecure), 'https:': new HttpsAgent(insecure) },
};

/** One POST of a webhook. The whole exchange (connect, send, response headers) must finish within the timeout. */
export function postWebhook(url: URL, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    if (!options.allowInsecure) {
      if (url.protocol !== 'https:') return reject(new UrlPolicyError('webhook URLs must use https'));
      try {
        checkLiteralHost(url);
      } catch (error) {
        return reject(error);
      }
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        agent: AGENTS[options.allowInsecure ? 'insecure' : 'guarded'][url.protocol === 'https:' ? 'https:' : 'http:'],
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'compliance-engine-webhooks/1',
        },
      },
      (res) => {
        clearTimeout(timer);
        res.resume();
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}
