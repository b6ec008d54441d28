/** States in which a scan does not change any more. */
export const FINAL_STATUSES = new Set(['completed', 'validation_failed', 'failed']);
