/**
 * The one place that talks to the Document Scanning API (see request.ts): the request,
 * response envelopes, paging, error classification and error wording, each in its own module.
 */
export type { ApiContext, ApiRequest, ApiResponse } from './types';
export { CREDENTIAL_TYPE } from './types';
export { apiRequest, apiRequestFull, apiRequestList } from './request';
export type { ListPage } from './envelopes';
export { isPlainObject, unwrapList, unwrapRecord } from './envelopes';
export { serverTimeOf } from './serverClock';
export { endsListing, PAGE_SIZE } from './paging';
export { httpStatusOf, isOutcomeUnknown, isTransientNetworkError } from './errors';
export { fieldNames } from './errorWording';
