export const UPLOAD_ACCESS = ['private', 'public'] as const;
export type UploadAccess = (typeof UPLOAD_ACCESS)[number];

/**
 * An upload is authorised when its signed URL is handed out (so the one-PUT rule and the business scope are in the
 * log, not in the URL alone), and completed once its bytes are durable on disk.
 */
export type UploadEvent =
  | {
      type: 'UploadAuthorized';
      data: { key: string; fileType: string; contentType: string; access: UploadAccess; maxBytes: number; expiresAt: string };
    }
  | { type: 'UploadCompleted'; data: { key: string; size: number; sha256: string; contentType: string } };

export const uploadStream = (key: string) => `upload-${key}`;
