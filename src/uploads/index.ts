export { UPLOAD_ACCESS, uploadStream, type UploadAccess, type UploadEvent } from './events.js';
export { FILE_TYPES, UPLOAD_KEY } from './file-types.js';
export { uploadsProjection, type UploadTables } from './projection.js';
export { UploadService, type SignedQuery, type UploadActor, type UploadDescription, type UploadServiceOptions } from './service.js';
export { migrateUploadFiles } from './storage.js';
export { SIGNING_KEY_FILE } from './signing.js';
