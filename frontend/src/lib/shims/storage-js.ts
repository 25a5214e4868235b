// Build-time stand-in for @supabase/storage-js (vite.config.ts aliases it for the web app
// bundle only): Casus stores no files, and supabase-js constructs a StorageClient eagerly,
// which put 7 kB (gzip) of unused code on every page's first load. Any use fails loudly.
const unused = () => {
  throw new Error('Supabase Storage nu este folosit de Casus');
};
export class StorageApiError extends Error {}
export class StorageClient {
  constructor(..._args: unknown[]) {}
  from = unused;
  listBuckets = unused;
  getBucket = unused;
  createBucket = unused;
}
