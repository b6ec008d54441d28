export { sendUpload, UPLOAD_ATTEMPTS } from './sendUpload';
export type { UploadRequest } from './sendUpload';
export { normalizedFileName, sameFileName } from './fileNames';
