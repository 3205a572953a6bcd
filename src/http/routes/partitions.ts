import type { PartitionLeases } from '../../partitions/index.js';
import type { App } from '../env.js';

/**
 * Where each partition is decided, for a load balancer that routes by `X-Routing-Key` to the owner and so saves the
 * hop a non-owner's forwarding costs: every business's partition count and each partition's live owner, as this
 * node last read the leases (within a renewal of the database's). Operational, like /metrics: on the nodes'
 * network, not the public one.
 */
export function registerPartitionRoutes(app: App, nodeId: string, leases: PartitionLeases): void {
  app.get('/partitions', (c) => c.json({ node: nodeId, businesses: leases.owners() }));
}
