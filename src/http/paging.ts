import { z } from '@hono/zod-openapi';

/** Page numbers start at 1; a page holds at most 100 items so that no listing can be made to scan everything. */
export const pagingQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).openapi({ description: 'Page number, from 1' }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Items per page (1-100)' }),
});

export type Paging = z.infer<typeof pagingQuery>;
