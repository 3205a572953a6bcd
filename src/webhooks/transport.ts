import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
 * One POST of a webhook. The whole exchange (connect, send, response headers) must finish within the timeout.
 * No connection pooling: receivers are many and each call is short-lived.
 */
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
        agent: false,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'compliance-engine-webhooks/1',
        },
        ...(options.allowInsecure ? {} : { lookup: guardedLookup }),
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
