import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Engine } from '../../engine.js';
import type { App } from '../env.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
/**
 * Served from the installed package, so that /docs works on a machine with no internet. A Map: the name comes
 * from the URL, and an object would answer `constructor` or `toString` with one of Object.prototype's members.
 */
const DOC_ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
]);
/** The page's own script, a file rather than inline, so that the CSP can forbid inline scripts. */
const DOCS_INIT = "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });\n";

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Compliance engine API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script></body></html>`;

/**
 * Scripts from this origin only, no framing, and requests to this origin only: a script injected into the page
 * could not run, nor send what it read anywhere. Swagger UI sets inline styles and draws data: images.
 */
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'";

/** The audit log's witnessing and signing key custody as /healthz shows them, and why it is degraded if it is. */
function auditHealth(engine: Engine): { reason?: string; body: Record<string, unknown> } {
  const custody = engine.audit.keyCustody();
  const witnessing = engine.audit.witnessStatus();
  const body = { signingKey: custody.source, ...(custody.warning ? { warning: custody.warning } : {}), witnessing: witnessing ?? null };
  if (!witnessing?.belowQuorum) return { body };
  return {
    body,
    reason: `the latest audit checkpoint (${witnessing.treeSize} events) has ${witnessing.cosignatures} of the ${witnessing.quorum} witness cosignatures it needs`,
  };
}

export function registerSystemRoutes(app: App, engine: Engine): void {
  /** Unhealthy (503) while writes fail for lack of space, saying so; a 200 means the service can record. */
  app.get('/healthz', async (c) => {
    const head = await engine.store.head();
    const problem = engine.storage.problem;
    if (problem) {
      return c.json(
        {
          status: 'unhealthy',
          reason: problem.reason,
          code: problem.code,
          since: problem.since.toISOString(),
          eventsHead: head,
          backend: engine.backend,
          node: engine.nodeId,
          rules: engine.monitoring.rulesStatus,
        },
        503,
      );
    }
    // 200 and 'degraded' while the latest audit checkpoint lacks its witness quorum: the service still records.
    const audit = auditHealth(engine);
    return c.json({
      status: audit.reason ? 'degraded' : 'ok',
      ...(audit.reason ? { reason: audit.reason } : {}),
      eventsHead: head,
      backend: engine.backend,
      node: engine.nodeId,
      rules: engine.monitoring.rulesStatus,
      audit: audit.body,
    });
  });
  app.get('/metrics', async (c) =>
    c.text(await engine.metrics.registry.metrics(), 200, { 'Content-Type': engine.metrics.registry.contentType }),
  );
  app.get('/docs', (c) => c.html(DOCS_HTML, 200, { 'Content-Security-Policy': DOCS_CSP, 'X-Frame-Options': 'DENY' }));
  const cache = new Map<string, string>();
  app.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    if (file === 'docs-init.js') return c.body(DOCS_INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
    const type = DOC_ASSETS.get(file);
    if (!type) return c.json({ error: 404, message: `No asset ${file}` }, 404);
    let body = cache.get(file);
    if (body === undefined) cache.set(file, (body = readFileSync(join(swaggerDir, file), 'utf8')));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
}
