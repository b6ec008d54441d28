/**
 * Every reading of the API documentation the sandbox plays where the documentation leaves
 * things open, in one list: its name, its values (the first is the default), what it plays,
 * and the option or control that sets it. docs/sandbox.md shows this list as a table
 * (test/sandbox/readings.test.ts keeps the two in step), and the invariant generator
 * (test/invariants/) draws its worlds from these settings.
 */

export interface Reading {
	name: string;
	values: readonly string[];
	plays: string;
	setBy: string;
}

export const READINGS: readonly Reading[] = [
	{
		name: 'listedScans',
		values: ['full', 'brief'],
		plays:
			'GET /scans lists every field of a scan, or only id, status, filename, template_id and the times',
		setBy: 'option `listedScans`',
	},
	{
		name: 'envelope',
		values: ['data', 'bare'],
		plays: 'Laravel envelopes (`{data, meta, links}`, `{data: {...}}`) or bare arrays and objects',
		setBy: 'option `envelope`',
	},
	{
		name: 'pageEnd',
		values: ['empty', '404', '422', 'last'],
		plays: 'a page past the end: empty, an error, or the last page again',
		setBy: '`setListing({pageEnd})`',
	},
	{
		name: 'ignorePage',
		values: ['false', 'true'],
		plays: 'a server that ignores `page` (every page is page 1)',
		setBy: '`setListing({ignorePage})`',
	},
	{
		name: 'metaPages',
		values: ['real', 'any count'],
		plays:
			'`meta` reporting any page count (e.g. 20,000 pages on page 1: a very large account read at its top)',
		setBy: '`setListing({metaPages})`',
	},
	{
		name: 'pageWaits',
		values: ['none', '{page, for}'],
		plays: 'pages read side by side answered out of order',
		setBy: '`setListing({pageWaits})`',
	},
	{
		name: 'visibility',
		values: ['in order', 'late'],
		plays: 'IDs visible in order, or a scan visible after a newer one (parallel uploads)',
		setBy: '`hideScans`, `revealScans`, `duringListing({reveal})`',
	},
	{
		name: 'duplicateCheck',
		values: ['afterLimits', 'beforeLimits'],
		plays: '429/402 before or after 409 for a file the account already has',
		setBy: 'option `duplicateCheck`',
	},
	{
		name: 'retryAfter',
		values: ['false', 'true'],
		plays: 'a 429 with or without `Retry-After`',
		setBy: 'option `retryAfter`; `addFault({kind: "status", status: 429, headers})`',
	},
	{
		name: 'redirect',
		values: ['301', '302', '303', '307', '308'],
		plays:
			'an answer that redirects, to the same origin or to another (the sandbox’s other origin records every request and its key)',
		setBy: '`addFault({kind: "redirect", status, to: "same" | "other"})`',
	},
	{
		name: 'reprocess',
		values: ['never', 'once', 'more'],
		plays: 'a finished scan processed again: status and data change, its event is sent again',
		setBy: '`reprocessScan(id, outcome)`, `atRequest(…, {reprocess})`',
	},
	{
		name: 'failedBody',
		values: ['scan_id', 'id', 'topLevel', 'noMessage', 'extra'],
		plays: 'the body of `scan.failed` (not shown in the documentation)',
		setBy: 'option `failedBody`',
	},
	{
		name: 'webhookUrlQuery',
		values: ['kept', 'dropped'],
		plays:
			'a webhook url stored and listed as given, or without its query (the webhook record is not shown)',
		setBy: 'option `webhookUrlQuery`',
	},
	{
		name: 'redelivery',
		values: ['none', 'identical', 'restamp', 'copies'],
		plays:
			'a delivery sent again: the same bytes, signed anew with a new timestamp, or copies at once',
		setBy: '`repeatDelivery({restamp, copies})`',
	},
	{
		name: 'deliveryLateMs',
		values: ['0', 'any ms'],
		plays: 'a genuine delivery that left the queue late (its timestamp is the event’s time)',
		setBy: 'option `deliveryLateMs`',
	},
	{
		name: 'lostAnswer',
		values: ['none', 'drop', 'dropAfterCommit'],
		plays: 'an answer lost before the service handled the request, or after it stored the upload',
		setBy: '`addFault({kind: "drop" | "dropAfterCommit"})`',
	},
	{
		name: 'statusFault',
		values: ['none', '5xx', '429', '402', 'any'],
		plays: 'an error answer at any request',
		setBy: '`addFault({kind: "status" | "status500"})`',
	},
	{
		name: 'latency',
		values: ['0', 'any ms', 'held'],
		plays: 'slow answers, and an answer held until the test releases it',
		setBy: 'option `latencyMs`; `addFault({kind: "latency" | "hold"})`, `releaseHeld()`',
	},
	{
		name: 'otherClients',
		values: ['none', 'uploads', 'finishing', 'fillHour', 'credits', 'scans'],
		plays:
			'other clients of the account uploading, finishing and filling the hour while the node works',
		setBy:
			'`seedUploads`, `takeAfterUploads`, `atRequest`, `otherClients`, `createScansDuringListing`, `duringListing`',
	},
	{
		name: 'unlistedStatus',
		values: ['none', 'any text'],
		plays: 'a status the API does not list (e.g. `cancelled`)',
		setBy: '`setScanStatus(id, status)`',
	},
	{
		name: 'errorsShape',
		values: ['map', 'list'],
		plays: 'the shape of `errors` in a 422',
		setBy: 'option `errorsShape`',
	},
	{
		name: 'activeFlag',
		values: ['is_active', 'active', 'status'],
		plays: 'how a webhook record shows that it is active',
		setBy: 'option `activeFlag`',
	},
	{
		name: 'storedFilename',
		values: ['basename', 'asSent'],
		plays: 'the name the service stores: without its folder part, or as sent',
		setBy: 'option `storedFilename`',
	},
];
