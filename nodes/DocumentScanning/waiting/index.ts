export { ScanPoller, LIST_THRESHOLD } from './ScanPoller';
export type { WaitRequest } from './ScanPoller';
export * from './pollSettings';
