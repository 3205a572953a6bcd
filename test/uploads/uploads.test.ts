import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createEngine } from '../../src/engine.js';
import { verifyReplay } from '../../src/projections/index.js';
import { runCli, screeningCacheDir, silentLogger, tempDir, testApi, type TestApi } from '../helpers.js';
import { fetchBytes, put } from './helpers.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('signed uploads', () => {
  let t: TestApi;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    t = await testApi({ clock, publicBaseUrl: 'https://tm.example.com' });
  });
  afterEach(async () => t.close());

  const issue = (query = 'fileType=gz&access=private') => t.call('GET', `/api/v1/upload?${query}`);

  it('issues a key and a signed URL under the public base URL', async () => {
    const res = await issue();
    expect(res.status).toBe(200);
    expect(res.body.message).toBeTypeOf('string');
    expect(res.body.data.key).toMatch(/^[0-9a-f]{24}\.gz$/);
    const url = new URL(res.body.data.url);
    expect(url.origin + url.pathname).toBe(`https://tm.example.com/uploads/${res.body.data.key}`);
    expect(url.searchParams.get('expires')).toBe(String(Date.parse('2026-03-01T10:15:00.000Z') / 1000));
    expect(url.searchParams.get('sig')).toBeTruthy();
  });

  it('answers a file type outside the allow-list, a bad access or a missing type with {error: 400, message}', async () => {
    expect(await issue('fileType=exe&access=private')).toMatchObject({
      status: 400,
      body: { error: 400, message: expect.stringMatching(/^fileType must be one of: gz, zip/) },
    });
    expect(await issue('fileType=gz&access=world')).toMatchObject({
      status: 400,
      body: { error: 400, message: 'access must be one of: private, public' },
    });
    expect(await issue('access=private')).toMatchObject({ status: 400, body: { error: 400, message: 'fileType is required' } });
    expect(await t.call('GET', '/api/v1/upload?fileType=gz', { key: null })).toMatchObject({
      status: 401,
      body: { message: 'Invalid API credentials' },
    });
  });

  it('stores one PUT atomically, records size, sha256 and type, and refuses a second PUT', async () => {
    const { key, url } = (await issue('fileType=csv&access=private')).body.data;
    const first = await put(t, url, 'a,b\n1,2\n');
    expect(first).toMatchObject({ status: 201, body: { data: { key, size: 8, sha256: sha('a,b\n1,2\n'), contentType: 'text/csv' } } });
    expect(readFileSync(join(t.dir, 'uploads', key), 'utf8')).toBe('a,b\n1,2\n');
    expect(readdirSync(join(t.dir, 'uploads', '.incoming'))).toEqual([]);
    expect(await put(t, url, 'other')).toMatchObject({ status: 409, body: { error: 409 } });
    expect(readFileSync(join(t.dir, 'uploads', key), 'utf8')).toBe('a,b\n1,2\n');
    const events = await t.engine.store.readStream(`upload-${key}`);
    expect(events.map((e) => e.type)).toEqual(['UploadAuthorized', 'UploadCompleted']);
    expect(events[1]!.data).toEqual({ key, size: 8, sha256: sha('a,b\n1,2\n'), contentType: 'text/csv' });
  });

  it('rejects a tampered signature, key, expiry or size limit with 403 and writes nothing', async () => {
    const { key, url } = (await issue()).body.data;
    const u = new URL(url);
    const tamper = (param: string, value: string) => {
      const copy = new URL(u);
      copy.searchParams.set(param, value);
      return copy.toString();
    };
    const sig = u.searchParams.get('sig')!;
    for (const bad of [
      // base64url: a signature starts with 'A' once in 64 runs, so the first character is flipped, never just set.
      tamper('sig', (sig.startsWith('A') ? 'B' : 'A') + sig.slice(1)),
      tamper('expires', String(Number(u.searchParams.get('expires')) + 3600)),
      tamper('max', String(Number(u.searchParams.get('max')) * 2)),
      url.replace(
        key,
        key.replace(/^./, (ch: string) => (ch === 'a' ? 'b' : 'a')),
      ),
      `${u.origin}${u.pathname}`,
    ]) {
      expect(await put(t, bad, 'x')).toMatchObject({ status: 403, body: { error: 403 } });
    }
    expect(existsSync(join(t.dir, 'uploads', key))).toBe(false);
  });

  it('expires the URL after 15 minutes (ManualClock)', async () => {
    const { url } = (await issue()).body.data;
    clock.advance(15 * 60_000 + 1000);
    expect(await put(t, url, 'late')).toMatchObject({ status: 403, body: { message: 'upload URL has expired' } });
  });

  it('refuses a body over the limit with 413, declared or streamed, and keeps no partial file', async () => {
    const { key, url } = await t.engine.uploads.authorize(
      { businessId: t.tenantA.businessId },
      { fileType: 'txt', access: 'private', maxBytes: 10 },
    );
    expect(await put(t, url, '0123456789AB')).toMatchObject({ status: 413, body: { error: 413 } });
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('0123'));
        controller.close();
      },
    });
    const { pathname, search } = new URL(url);
    const res = await t.app.request(pathname + search, { method: 'PUT', body: chunks, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(existsSync(join(t.dir, 'uploads', key))).toBe(false);
    expect(readdirSync(join(t.dir, 'uploads', '.incoming'))).toEqual([]);
    expect(await put(t, url, '0123456789')).toMatchObject({ status: 201, body: { data: { size: 10 } } });
    await expect(
      t.engine.uploads.authorize({ businessId: 'b' }, { fileType: 'txt', access: 'private', maxBytes: t.engine.uploads.maxBytes + 1 }),
    ).rejects.toThrow(/maxBytes/);
  });

  it('never lets a key leave the storage directory', async () => {
    const { url } = (await issue()).body.data;
    const u = new URL(url);
    for (const key of ['..%2F..%2Fcompliance.db', '..%2Fupload-signing.key', '%2E%2E', '.incoming', 'x.gz%00', '..']) {
      const res = await t.app.request(`/uploads/${key}${u.search}`, { method: 'PUT', body: 'pwned' });
      expect([403, 404]).toContain(res.status);
    }
    expect(() => t.engine.uploads.storage.pathOf('../compliance.db')).toThrow(/outside/);
    expect(() => t.engine.uploads.storage.pathOf('.incoming/x')).toThrow(/outside/);
    expect(readFileSync(join(t.dir, 'upload-signing.key'), 'utf8')).not.toContain('pwned');
  });

  it('describes a private upload with a short-lived signed GET URL, and serves the bytes only with it', async () => {
    const { key, url } = (await issue('fileType=json&access=private')).body.data;
    expect(await t.call('GET', `/api/v1/upload/${key}`)).toMatchObject({ status: 404, body: { error: 404, message: 'Upload not found' } });
    await put(t, url, '{"a":1}');
    const described = await t.call('GET', `/api/v1/upload/${key}`);
    expect(described).toMatchObject({
      status: 200,
      body: { data: { key, size: 7, sha256: sha('{"a":1}'), contentType: 'application/json', expiresAt: '2026-03-01T10:05:00.000Z' } },
    });
    const got = await fetchBytes(t, described.body.data.url);
    expect(got).toMatchObject({ status: 200, text: '{"a":1}' });
    expect(got.headers.get('content-type')).toBe('application/json');
    expect((await fetchBytes(t, `/uploads/${key}`)).status).toBe(403);
    clock.advance(6 * 60_000);
    expect((await fetchBytes(t, described.body.data.url)).status).toBe(403);
    expect(await t.call('GET', `/api/v1/upload/${key}`, { key: t.tenantB })).toMatchObject({ status: 404 });
  });

  it('serves a public upload without a signature', async () => {
    const { key, url } = (await issue('fileType=txt&access=public')).body.data;
    await put(t, url, 'hello');
    const described = await t.call('GET', `/api/v1/upload/${key}`);
    expect(described.body.data).toMatchObject({ url: `https://tm.example.com/uploads/${key}`, expiresAt: null });
    expect(await fetchBytes(t, `/uploads/${key}`)).toMatchObject({ status: 200, text: 'hello' });
  });

  it('serves an XML upload holding a script as a sandboxed download, never as active content', async () => {
    const { key, url } = (await issue('fileType=xml&access=public')).body.data;
    const xhtml = '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(document.cookie)</script></html>';
    await put(t, url, xhtml);
    const res = await fetchBytes(t, `/uploads/${key}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(xhtml);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${key}"`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox\b/);
  });

  it('keeps its signing key across restarts (0600 file in DATA_DIR), or derives it from the configured secret', async () => {
    const { url } = (await issue()).body.data;
    const path = join(t.dir, 'upload-signing.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = await createEngine({
      dataDir: t.dir,
      screeningCacheDir,
      logger: silentLogger,
      tailIntervalMs: 0,
      workerIntervalMs: 0,
      clock,
    });
    try {
      const key = new URL(url).pathname.split('/').pop()!;
      await expect(again.uploads.receive(key, Object.fromEntries(new URL(url).searchParams), null)).resolves.toMatchObject({ size: 0 });
    } finally {
      await again.close();
    }
    const dir = tempDir();
    const a = await createEngine({
      dataDir: dir.path,
      screeningCacheDir,
      logger: silentLogger,
      tailIntervalMs: 0,
      workerIntervalMs: 0,
      uploadSigningSecret: 's3cret-of-at-least-thirty-two-chars',
    });
    try {
      expect(existsSync(join(dir.path, 'upload-signing.key'))).toBe(false);
    } finally {
      await a.close();
      dir.remove();
    }
  });

  it('rotates its key with `store rotate-upload-key`: the running server signs with the new one at once', async () => {
    const path = join(t.dir, 'upload-signing.key');
    const before = (await issue()).body.data.url as string;
    const old = readFileSync(path, 'utf8');
    const rotated = await runCli(t.dir, 'store', 'rotate-upload-key');
    expect(rotated).toMatchObject({ code: 0, stdout: expect.stringContaining('upload URL key rotated') });
    expect(readFileSync(path, 'utf8')).not.toBe(old);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // On SQLite the replaced key is not kept: a URL signed with it is refused, a new one works.
    expect((await put(t, before, 'x')).status).toBe(403);
    expect((await put(t, (await issue()).body.data.url, 'x')).status).toBe(201);
  }, 120_000);

  it('rebuilds the uploads read model from the log', async () => {
    const { url } = (await issue()).body.data;
    await put(t, url, 'bytes');
    await issue();
    const report = await verifyReplay(t.engine.db, t.engine.store, t.engine.projections);
    expect(report.diffs).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
