/**
 * The file types an upload URL may be issued for, with the content type the stored object is served with.
 * Data exports (gz, zip, csv, json, jsonl, xml), documents (pdf, txt) and evidence images (png, jpg, jpeg): what
 * monitoring imports and investigators attach. Anything executable or scriptable by a browser (html, svg, js)
 * is left out, since files are served back from this host.
 */
export const FILE_TYPES: Readonly<Record<string, string>> = {
  gz: 'application/gzip',
  zip: 'application/zip',
  csv: 'text/csv',
  json: 'application/json',
  jsonl: 'application/x-ndjson',
  xml: 'application/xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
};

export const contentTypeOf = (fileType: string): string | undefined =>
  Object.hasOwn(FILE_TYPES, fileType) ? FILE_TYPES[fileType] : undefined;

/** Keys are generated, never chosen by a client: 24 hex characters and an allowed extension, so no path can hide in one. */
export const UPLOAD_KEY = /^[0-9a-f]{24}\.[a-z0-9]{1,5}$/;
