/**
 * Property-based tests (fast-check, fixed seeds) of the upload path's template listing
 * (templateScans.ts), over every page end the spec leaves open (an empty page, 404, 422, the
 * last page again, a server that ignores `page`), both envelopes, and scans added at the top
 * while the listing is read: a scan that exists is found, reading stops at the page it is on,
 * and what cannot be known is a clear error, never a silent "not there". A hand-made fake of
 * n8n's request helper (upload-fake.ts) plays the service.
 */
import fc from 'fast-check';

import { TemplateScans } from '../../nodes/DocumentScanning/upload/templateScans';
import { fingerprintOf, withFingerprint } from '../../nodes/DocumentScanning/upload/fingerprint';
import { fakeApi, type FakeOptions } from './upload-fake';
import { runs } from '../support/property-runs';

const TEMPLATE = 7;
const request = { templateId: TEMPLATE, itemIndex: 0, fileName: 'x.pdf' };
const sha = (n: number) => n.toString(16).padStart(64, '0');

const scenario = fc.record({
	count: fc.integer({ min: 0, max: 110 }),
	/** Where the wanted scan is, newest first; beyond `count`: absent. */
	at: fc.integer({ min: 0, max: 120 }),
	envelope: fc.constantFrom<'data' | 'bare'>('data', 'bare'),
	pageEnd: fc.constantFrom<NonNullable<FakeOptions['pageEnd']>>(
		'empty',
		404,
		422,
		'repeatLast',
		'ignorePage',
	),
	/** Scans another client adds at the top before each listing request after the first. */
	added: fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 6 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario) {
	let requests = 0;
	const api = fakeApi({
		envelope: s.envelope,
		pageEnd: s.pageEnd,
		beforeList: () => {
			const more = requests > 0 ? (s.added[requests - 1] ?? 0) : 0;
			requests++;
			for (let i = 0; i < more; i++)
				api.addScan({ filename: `added-${requests}-${i}.pdf`, template_id: TEMPLATE });
		},
	});
	// Oldest first, so that position 0 is the newest.
	for (let i = s.count - 1; i >= 0; i--) {
		const name = i === s.at ? withFingerprint('wanted.pdf', sha(1)) : `other-${i}.pdf`;
		api.addScan({ filename: name, template_id: TEMPLATE, status: 'completed' });
	}
	return { api, requests: () => requests };
}

describe('TemplateScans.find', () => {
	test('finds a scan that exists, reading only down to its page; an absent scan is proven absent or a clear error', async () => {
		await fc.assert(
			fc.asyncProperty(scenario, async (s) => {
				const { api, requests } = build(s);
				const index = new TemplateScans(TEMPLATE);
				const exists = s.at < s.count;
				// With page 2 served as page 1, nothing beyond the newest 25 can be known (with `meta`,
				// one full page says itself that it is the last).
				const blind =
					(s.pageEnd === 'ignorePage' && s.count > 25) ||
					((s.pageEnd === 'ignorePage' || s.pageEnd === 'repeatLast') &&
						s.count === 25 &&
						s.envelope === 'bare');
				const onFirstPage = s.at < 25;
				let found: unknown[] | undefined;
				let error: Error | undefined;
				try {
					found = await index.find(api.ctx, fingerprintOf(sha(1)), Date.now(), request);
				} catch (caught) {
					error = caught as Error;
				}
				if (exists && (onFirstPage || !(s.pageEnd === 'ignorePage'))) {
					expect(error).toBeUndefined();
					expect(found).toHaveLength(1);
				} else if (blind) {
					expect(found).toBeUndefined();
					expect(error?.message).toMatch(/answered page 2 .* with page 1 again/);
				} else {
					expect(error).toBeUndefined();
					expect(found).toEqual([]);
				}
				if (exists && s.pageEnd !== 'ignorePage') {
					const pushed = s.added.reduce((sum, n) => sum + n, 0);
					// Nothing added: exactly the pages down to the wanted scan's. Scans added at the top
					// push it down, and a page of scans already read costs a look at page 1.
					if (pushed === 0) expect(requests()).toBe(Math.floor(s.at / 25) + 1);
					else expect(requests()).toBeLessThanOrEqual(2 * (Math.floor((s.at + pushed) / 25) + 1));
				}
			}),
			runs(20261126, 300),
		);
	});

	test('a listing that never ends stops at the guard with an error that names the upload', async () => {
		let next = 0;
		const api = fakeApi({
			envelope: 'bare',
			beforeList: () => {
				// 25 new scans before every page: every page is full, and always new.
				for (let i = 0; i < 25; i++)
					api.addScan({ filename: `n-${next++}.pdf`, template_id: TEMPLATE });
			},
		});
		const index = new TemplateScans(TEMPLATE, 30);
		await expect(index.find(api.ctx, 'aaaaaaaaaaaa', Date.now(), request)).rejects.toThrow(
			/^Item 0: template 7 has more than 30 pages of scans \(750\); the node stopped looking for the scan of "x.pdf"$/,
		);
		expect(Math.max(...api.sent.map((r) => Number(r.qs.page)))).toBe(30);
	});
});

describe('TemplateScans.readSince (the scans made since a lost upload was sent)', () => {
	const since = fc.record({
		older: fc.integer({ min: 0, max: 40 }),
		recent: fc.integer({ min: 1, max: 70 }),
		/** Where the lost upload's scan is among the recent ones, newest first. */
		at: fc.nat(),
		envelope: fc.constantFrom<'data' | 'bare'>('data', 'bare'),
		pageEnd: fc.constantFrom<NonNullable<FakeOptions['pageEnd']>>(
			'empty',
			404,
			422,
			'repeatLast',
			'ignorePage',
		),
		/** Scans of the template added at the top before each listing request after the first. */
		added: fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 6 }),
	});

	test('a scan made since is always found, or the reader says it cannot know; a repeated page is never the end', async () => {
		await fc.assert(
			fc.asyncProperty(since, async (s) => {
				let requests = 0;
				const api = fakeApi({
					envelope: s.envelope,
					pageEnd: s.pageEnd,
					beforeList: () => {
						const more = requests > 0 ? (s.added[requests - 1] ?? 0) : 0;
						requests++;
						for (let i = 0; i < more; i++)
							api.addScan({ filename: `added-${requests}-${i}.pdf`, template_id: TEMPLATE });
					},
				});
				const hourAgo = api.iso(Date.now() - 60 * 60 * 1000);
				for (let i = 0; i < s.older; i++)
					api.addScan({ filename: `old-${i}.pdf`, template_id: TEMPLATE, created_at: hourAgo });
				const at = s.at % s.recent;
				let wanted = 0;
				for (let i = s.recent - 1; i >= 0; i--) {
					const scan = api.addScan({ filename: `recent-${i}.pdf`, template_id: TEMPLATE });
					if (i === at) wanted = scan.id;
				}
				const index = new TemplateScans(TEMPLATE);
				let found: Array<{ id?: unknown }> | undefined;
				let error: Error | undefined;
				try {
					found = await index.readSince(api.ctx, Date.now() - 60_000, request);
				} catch (caught) {
					error = caught as Error;
				}
				if (found) expect(found.map((scan) => scan.id)).toContain(wanted);
				else expect(error?.message).toMatch(/kept moving|with page 1 again/);
				// Only a server that ignores `page` with a full page of recent scans, or scans that
				// keep pushing (nearly) whole pages down, leave it unknown.
				const blind = s.pageEnd === 'ignorePage' && s.recent >= 25;
				if (!blind && s.added.every((n) => n < 20)) expect(error).toBeUndefined();
			}),
			runs(20261127, 300),
		);
	});
});
