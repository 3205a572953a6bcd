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

/** A JSON response with the example the docs UI and the OpenAPI document show (type-checked against the schema). */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string, example: z.input<T>) => ({
  content: { 'application/json': { schema, example } },
  description,
});

/** An error answered as `{message}` (the interface's error shape on the hosts that use it). */
export const messageResponse = (description: string, message: string) => jsonResponse(MessageResponse, description, { message });

/** An error answered as `{error, message}`. */
export const errorResponse = (status: number, description: string, message: string) =>
  jsonResponse(ErrorResponse, description, { error: status, message });

export const security = [{ apiKey: [], apiSecret: [] }];

export const errorResponses = {
  400: errorResponse(400, 'Invalid input; the message names the field', 'transactionData.amount: Expected number, received string'),
  401: messageResponse('Invalid API credentials', 'Invalid API credentials'),
} as const;
