import { z } from '@hono/zod-openapi';

/** Response and error schemas shared by the OpenAPI document of every host. */
export const ErrorResponse = z.object({ error: z.number().int(), message: z.string() }).openapi('Error');
export const MessageResponse = z.object({ message: z.string() }).openapi('Message');

/** A JSON request body with the example the docs UI and the OpenAPI document show (type-checked against the schema). */
export const jsonBody = <T extends z.ZodType>(schema: T, example: z.input<T>, description?: string) => ({
  content: { 'application/json': { schema, example } },
  required: true,
  ...(description ? { description } : {}),
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

export const security = [{ apiKey: [], apiSecret: [] }];

export const errorResponses = {
  400: jsonResponse(ErrorResponse, 'Invalid input; the message names the field'),
  401: jsonResponse(MessageResponse, 'Invalid API credentials'),
} as const;
