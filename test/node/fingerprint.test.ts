/**
 * Property-based tests (fast-check, fixed seeds) of what "Return Existing Scan" matches on:
 * the content fingerprint in the uploaded name, and the listing's indexes, over odd and
 * hostile names (no requests).
 */
import { createHash } from 'crypto';
import fc from 'fast-check';

import { normalizedFileName, sameFileName } from '../../nodes/DocumentScanning/upload/fileNames';
import { FINGERPRINT_LENGTH } from '../../nodes/shared/scans/fileName';
import {
	fingerprintIn,
	fingerprintOf,
	MAX_SENT_NAME_LENGTH,
	withFingerprint,
	withoutFingerprint,
} from '../../nodes/DocumentScanning/upload/fingerprint';
import { TemplateScans } from '../../nodes/DocumentScanning/upload/templateScans';

const RUNS = { seed: 20261124, numRuns: 500 };

const sha = fc
	.uint8Array({ minLength: 8, maxLength: 8 })
	.map((bytes) => createHash('sha256').update(bytes).digest('hex'));
const hex12 = fc.stringMatching(/^[0-9a-f]{12}$/);
/** Pieces real and hostile names are made of: markers, escapes, folders, odd Unicode. */
const piece = fc.oneof(
	fc.constantFrom(
		'.',
		'..',
		'.pdf',
		'.PDF',
		'.jpeg',
		'.ds-',
		'%',
		'%22',
		'%2e',
		'%2F',
		'%zz',
		'%25',
		'/',
		'\\',
		' ',
		'"',
		'\r\n',
	),
	fc.constantFrom('Müller', 'Mu\u0308ller', 'MÃ¼ller', '請求書', '😀', '\u0000', 'A'.repeat(40)),
	hex12.map((hex) => `.ds-${hex}`),
	hex12.map((hex) => `.DS-${hex.toUpperCase()}`),
	fc.string({ maxLength: 8 }),
	fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const oddName = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
/** How a service may store a sent name: folder dropped, `"` encoded, decomposed, read as Latin-1. */
const stored = (name: string) =>
	fc.constantFrom(
		name,
		`uploads/${name}`,
		name.replace(/"/g, '%22'),
		name.normalize('NFD'),
		Buffer.from(name, 'utf8').toString('latin1'),
	);

describe('the fingerprint in the uploaded name', () => {
	test('is read back from the sent name, and from every form a service may store it in', () => {
		fc.assert(
			fc.property(
				oddName.filter((name) => !/[/\\]/.test(name)),
				sha,
				(name, digest) => {
					const sent = withFingerprint(name, digest);
					expect(fingerprintIn(sent)).toBe(fingerprintOf(digest));
					expect(sent.length).toBeLessThanOrEqual(Math.max(MAX_SENT_NAME_LENGTH, name.length));
					// The user's name stays recognisable: its extension is kept at the end.
					const extension = /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0];
					if (extension)
						expect(sent.endsWith(`.ds-${fingerprintOf(digest)}${extension}`)).toBe(true);
				},
			),
			RUNS,
		);
		fc.assert(
			fc.property(
				fc.stringMatching(/^[\p{L}\p{N} _()-]{0,40}$/u),
				fc.constantFrom('.pdf', '.png', '.jpg', ''),
				sha,
				(stem, extension, digest) => {
					const sent = withFingerprint(`${stem}${extension}`, digest);
					fc.pre(sent.trim() === sent);
					return (
						fc.assert(
							fc.property(stored(sent), (kept) => fingerprintIn(kept) === fingerprintOf(digest)),
							{ seed: 1, numRuns: 5 },
						) === undefined
					);
				},
			),
			{ ...RUNS, numRuns: 200 },
		);
	});

	test('a name that carries this very fingerprint is sent unchanged; another fingerprint is kept and this one added', () => {
		fc.assert(
			fc.property(oddName, sha, (name, digest) => {
				const once = withFingerprint(name, digest);
				fc.pre(once.length <= MAX_SENT_NAME_LENGTH);
				expect(withFingerprint(once, digest)).toBe(once);
			}),
			RUNS,
		);
		const digest = 'ab'.repeat(32);
		expect(withFingerprint('Invoice.ds-0123456789ab.pdf', digest)).toBe(
			`Invoice.ds-0123456789ab.ds-${fingerprintOf(digest)}.pdf`,
		);
		expect(withFingerprint('Invoice-2024-03.pdf', digest)).toBe(
			'Invoice-2024-03.ds-abababababab.pdf',
		);
		expect(withFingerprint('no extension', digest)).toBe('no extension.ds-abababababab');
		expect(withFingerprint(`${'x'.repeat(300)}.pdf`, digest)).toHaveLength(MAX_SENT_NAME_LENGTH);
	});

	test('a parsed fingerprint is always 12 lower-case hex digits that the name really carries', () => {
		fc.assert(
			fc.property(oddName, (name) => {
				const found = fingerprintIn(name);
				if (found === undefined) return;
				expect(found).toMatch(new RegExp(`^[0-9a-f]{${FINGERPRINT_LENGTH}}$`));
				expect(
					name.toLowerCase().includes(`.ds-${found}`) ||
						decodeURIComponentSafe(name).toLowerCase().includes(`.ds-${found}`),
				).toBe(true);
			}),
			RUNS,
		);
		expect(fingerprintIn('scan.pdf')).toBeUndefined();
		expect(fingerprintIn('scan.ds-12345.pdf')).toBeUndefined();
		expect(fingerprintIn('scan.ds-0123456789abc.pdf')).toBeUndefined();
		expect(fingerprintIn('scan.ds-0123456789ab.x.pdf')).toBeUndefined();
		expect(fingerprintIn(42)).toBeUndefined();
	});
});

function decodeURIComponentSafe(name: string) {
	try {
		return decodeURIComponent(name);
	} catch {
		return name;
	}
}

describe("the listing's indexes", () => {
	const scanList = fc.array(
		fc.record({
			id: fc.integer({ min: 1, max: 60 }),
			filename: fc.oneof(
				oddName,
				fc.constant(undefined),
				fc.constant(42),
				sha.map((d) => withFingerprint('scan.pdf', d)),
			),
		}),
		{ maxLength: 40 },
	);

	test('by fingerprint: exactly the scans whose stored name carries it, each ID once, newest first', () => {
		fc.assert(
			fc.property(scanList, fc.array(scanList, { maxLength: 3 }), (first, later) => {
				const listing = new TemplateScans(1);
				listing.add(first, true);
				for (const page of later) listing.add(page, true);
				const seen = new Map<number, (typeof first)[number]>();
				for (const scan of [...first, ...later.flat()])
					if (!seen.has(scan.id)) seen.set(scan.id, scan);
				const expected = new Map<string, number[]>();
				for (const scan of seen.values()) {
					const fingerprint = fingerprintIn(scan.filename);
					if (fingerprint !== undefined)
						expected.set(fingerprint, [...(expected.get(fingerprint) ?? []), scan.id]);
				}
				for (const [fingerprint, ids] of expected) {
					expect(listing.proven(fingerprint).map((scan) => scan.id)).toEqual(
						ids.sort((a, b) => b - a),
					);
				}
				// Nothing else carries a fingerprint.
				for (const scan of seen.values())
					if (fingerprintIn(scan.filename) === undefined)
						expect(
							[...expected.keys()].some((fingerprint) =>
								listing.proven(fingerprint).includes(scan as never),
							),
						).toBe(false);
			}),
			RUNS,
		);
	});

	test("by name: every stored form the name comparison accepts is found under the user's name", () => {
		fc.assert(
			fc.property(oddName, sha, fc.integer({ min: 0, max: 4 }), (name, digest, form) => {
				fc.pre(normalizedFileName(name) !== '' && fingerprintIn(name) === undefined);
				const sent = name;
				const variants = [
					sent,
					`dir/${sent}`,
					sent.replace(/"/g, '%22'),
					sent.normalize('NFD'),
					Buffer.from(sent, 'utf8').toString('latin1'),
				];
				const storedName = variants[form];
				fc.pre(sameFileName(storedName, sent));
				fc.pre(fingerprintIn(storedName) === undefined);
				const listing = new TemplateScans(1);
				listing.add([{ id: 7, filename: storedName }], true);
				expect(listing.sameNameWithoutProof(name).map((scan) => scan.id)).toEqual([7]);
				expect(withoutFingerprint(withFingerprint(name, digest))).toBe(
					normalizedFileName(name).trim(),
				);
			}),
			RUNS,
		);
	});
});
