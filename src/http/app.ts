import { OpenAPIHono } from '@hono/zod-openapi';
import { createConsole } from '../console/index.js';
import type { Engine } from '../engine.js';
import { DEFAULT_DECISION_CONCURRENCY } from '../rate-limits.js';
import type { AppEnv } from './env.js';
import { notFound, onError, respondError } from './errors.js';
import { requireApiKey } from './middleware/auth.js';
import { bodyLimit } from './middleware/body-limit.js';
import { requestContext } from './middleware/context.js';
import { decideAtOwner } from './middleware/owner.js';
import { errorStyle } from './middleware/error-style.js';
import { fairDecisions, rateLimits } from './middleware/rate-limit.js';
import { requestId } from './middleware/request-id.js';
import { registerApprovalRoutes } from './routes/approvals.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerMonitoringRoutes } from './routes/monitoring.js';
import { registerRulePerformanceRoutes } from './routes/rule-performance.js';
import { registerShadowRoutes } from './routes/shadow.js';
import { registerCaseRoutes } from './routes/cases.js';
import { registerCddRoutes } from './routes/cdd.js';
import { registerKycRoutes } from './routes/kyc.js';
import { registerReportRoutes } from './routes/reports.js';
import { registerSystemRoutes } from './routes/system.js';
import { registerUploadRoutes } from './routes/uploads.js';
import { registerScreeningRoutes } from './routes/screening.js';
import { registerUserRoutes } from './routes/users.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerWebhookEndpointRoutes } from './routes/webhook-endpoints.js';
import { registerWebhookPayloads } from './routes/webhook-payloads.js';
import { validationHook } from './validation.js';
import { PACKAGE_VERSION } from '../package-files.js';
import type { PartitionLeases } from '../partitions/index.js';
import { registerPartitionRoutes } from './routes/partitions.js';

export interface AppOptions {
  bodyLimitBytes?: number;
  publicBaseUrl?: string;
  /** This node's leases of partitions: instant decisions of partitions another node owns are sent on to it. */
  leases?: PartitionLeases;
}

/** The HTTP adapter: every route of the three hosts on one app. Routes translate; the engine decides. */
export function createApp(engine: Engine, options: AppOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const maxSize = options.bodyLimitBytes ?? 1024 * 1024;

  app.use('*', requestId(128));
  app.use('*', requestContext(engine.logger, engine.metrics));
  // Before anything that can answer an error, so that every error of these hosts has their shape.
  app.use('/api/v1/kyc/*', errorStyle('message'));
  app.use('/api/v1/case-management/*', errorStyle('message'));
  app.use('/api/*', bodyLimit({ maxSize, onError: (c) => respondError(c, 413, `request body is larger than ${maxSize} bytes`) }));
  app.use('/api/v1/*', requireApiKey(engine.auth));
  app.use('/api/v1/*', rateLimits(engine.options.rateLimits));
  app.use('/api/v1/*', fairDecisions(engine.options.decisionConcurrency ?? DEFAULT_DECISION_CONCURRENCY));
  app.use('/api/v1/transaction-monitoring/instant', decideAtOwner(engine.nodeId, engine.metrics, options.leases));

  registerSystemRoutes(app, engine);
  if (options.leases) registerPartitionRoutes(app, engine.nodeId, options.leases);
  registerUserRoutes(app, engine);
  registerCaseRoutes(app, engine);
  registerUploadRoutes(app, engine);
  registerScreeningRoutes(app, engine);
  registerWebhookRoutes(app, engine);
  registerWebhookEndpointRoutes(app, engine);
  registerWebhookPayloads(app);
  registerMonitoringRoutes(app, engine);
  registerRulePerformanceRoutes(app, engine);
  registerShadowRoutes(app, engine);
  registerCddRoutes(app, engine);
  registerKycRoutes(app, engine);
  registerAuditRoutes(app, engine);
  registerApprovalRoutes(app, engine);
  registerReportRoutes(app, engine);

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'apiKey' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiSecret', { type: 'apiKey', in: 'header', name: 'apiSecret' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Compliance engine',
      version: PACKAGE_VERSION,
      description: 'Customer due diligence, name screening, transaction monitoring and case management.',
    },
    servers: [{ url: options.publicBaseUrl ?? '/' }],
  });
  app.route('/console', createConsole(engine));
  // The front door: a browser gets the console (which links the docs UI); an API client, or curl (*/*), the API docs.
  app.get('/', (c) => c.redirect((c.req.header('accept') ?? '').includes('text/html') ? '/console' : '/docs', 302));
  app.notFound(notFound);
  app.onError(onError);
  return app;
}
