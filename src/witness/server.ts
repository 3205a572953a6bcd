import { Hono } from 'hono';
import type { Witness } from './witness.js';

/** Request bodies above this are refused: a checkpoint with 16 signatures and 63 proof lines is under 8 KiB. */
const MAX_BODY = 64 * 1024;

/** The witness's HTTP interface (c2sp.org/tlog-witness): add-checkpoint, and the monitors' read of a log's checkpoint. */
export function witnessApp(witness: Witness): Hono {
  const app = new Hono();
  app.post('/add-checkpoint', async (c) => {
    const body = await c.req.text();
    if (body.length > MAX_BODY) return c.text(`the request body is over ${MAX_BODY} bytes\n`, 413);
    const result = await witness.addCheckpoint(body);
    if (result.status === 200) return c.text(result.cosignatures, 200);
    if (result.status === 409) return c.body(`${result.size}\n`, 409, { 'Content-Type': 'text/x.tlog.size' });
    return c.text(`${result.message}\n`, result.status);
  });
  app.get('/:originHash/checkpoint', (c) => {
    const note = witness.checkpoint(c.req.param('originHash'));
    return note === undefined ? c.text('this witness has cosigned no checkpoint of that log\n', 404) : c.text(note, 200);
  });
  app.get('/healthz', (c) => c.json({ status: 'ok', vkey: witness.vkey }));
  return app;
}
