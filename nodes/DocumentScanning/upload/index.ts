export { UploadSession } from './session';
export type { UploadOutcome } from './session';
export { SERVICE_HOURLY_LIMIT } from './budget/window';
