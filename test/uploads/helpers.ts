import type { TestApi } from '../helpers.js';

/** Sends raw bytes to a URL the engine handed out (only its path and query reach the in-process app). */
export async function put(t: TestApi, url: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const { pathname, search } = new URL(url);
  const res = await t.app.request(pathname + search, { method: 'PUT', body, headers });
  return { status: res.status, body: (await res.json()) as any };
}

export async function fetchBytes(t: TestApi, url: string) {
  const { pathname, search } = new URL(url, 'http://localhost');
  const res = await t.app.request(pathname + search);
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Asks for an upload URL, PUTs the content, and returns the key. */
export async function uploadFile(t: TestApi, content = 'evidence', fileType = 'txt', key = t.tenantA): Promise<string> {
  const issued = await t.call('GET', `/api/v1/upload?fileType=${fileType}&access=private`, { key });
  const stored = await put(t, issued.body.data.url, content);
  if (stored.status !== 201) throw new Error(`upload failed: ${JSON.stringify(stored.body)}`);
  return issued.body.data.key as string;
}
