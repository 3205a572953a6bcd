import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../src/audit/signing-key.js';
import { loadConfig } from '../../src/config.js';
import { tempDir } from '../helpers.js';
import { logKey } from './witness-fixtures.js';

describe('AUDIT_SIGNING_KEY_FILE: the signing key apart from the data', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir('ce-keyfile-');
  });
  afterEach(() => dir.remove());

  const noSecrets = {
    get: () => Promise.reject(new Error('the key must come from the file')),
    rotate: () => Promise.reject(new Error('unused')),
  };

  it('is refused inside DATA_DIR, naming the variable', () => {
    const env = { DATA_DIR: join(dir.path, 'data'), AUDIT_SIGNING_KEY_FILE: join(dir.path, 'data', 'key.pem') };
    expect(() => loadConfig(env)).toThrow(/AUDIT_SIGNING_KEY_FILE must lie outside DATA_DIR/);
    expect(loadConfig({ ...env, AUDIT_SIGNING_KEY_FILE: join(dir.path, 'key.pem') }).auditSigningKeyFile).toBe(join(dir.path, 'key.pem'));
  });

  it('signs with the key in the file, and refuses a file others may read', async () => {
    const key = logKey();
    const file = join(dir.path, 'key.pem');
    writeFileSync(file, key.pem, { mode: 0o600 });
    const loaded = await loadSigningKey(noSecrets, undefined, file);
    expect(loaded.noteSigner('compliance.test/audit-log').verifier.vkey).toBe(key.vkey);
    chmodSync(file, 0o644);
    await expect(loadSigningKey(noSecrets, undefined, file)).rejects.toThrow(/may be read by others \(mode 644\)/);
    await expect(loadSigningKey(noSecrets, undefined, join(dir.path, 'missing.pem'))).rejects.toThrow(/openssl genpkey/);
  });
});
