/**
 * Property-based tests (fast-check, fixed seed) of the file-name comparison that finds an
 * upload's scan: every way the service may have changed a name still matches, and a name
 * that differs in its base name never does.
 */
import fc from 'fast-check';

import { runs } from '../support/property-runs';

import { sameFileName } from '../../nodes/DocumentScanning/upload/fileNames';

const RUNS = runs(170507, 500);

/** Base names (no folder part) from characters that stress each step: escapes, quotes, line breaks, accents. */
const baseName = fc
	.string({
		unit: fc.constantFrom(
			'a',
			'B',
			'1',
			'.',
			' ',
			'%',
			'2',
			'0',
			'D',
			'e',
			'"',
			'\r',
			'\n',
			'ü',
			'u\u0308',
			'é',
			'Ã',
			'¼',
			'€',
			'😀',
			'_',
		),
		minLength: 1,
		maxLength: 12,
	})
	.filter((name) => name.trim() !== '');
const folder = fc.string({
	unit: fc.constantFrom('a', '/', '\\', 'C:', ' ', 'ü', '%'),
	maxLength: 8,
});

/** How multipart senders encode a file name: only the quote and the line breaks. */
const multipartEncoded = (name: string) =>
	name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** UTF-8 bytes read as Latin-1. */
const readAsLatin1 = (name: string) => Buffer.from(name, 'utf8').toString('latin1');

describe('sameFileName', () => {
	it('a name matches itself', () => {
		fc.assert(
			fc.property(baseName, (name) => sameFileName(name, name)),
			RUNS,
		);
	});

	it('matches whatever folder part either side carries', () => {
		fc.assert(
			fc.property(folder, folder, baseName, (storedDir, sentDir, name) => {
				expect(sameFileName(`${storedDir}/${name}`, `${sentDir}\\${name}`)).toBe(true);
			}),
			RUNS,
		);
	});

	it('matches the multipart-encoded, decomposed (NFD) and Latin-1-misread copies, alone or together', () => {
		fc.assert(
			fc.property(
				baseName,
				fc.boolean(),
				fc.boolean(),
				fc.boolean(),
				(name, encode, decompose, latin1) => {
					let stored = name;
					if (decompose) stored = stored.normalize('NFD');
					if (encode) stored = multipartEncoded(stored);
					if (latin1) stored = readAsLatin1(stored);
					expect(sameFileName(stored, name)).toBe(true);
				},
			),
			RUNS,
		);
	});

	it('a different base name never matches, whatever it is wrapped in', () => {
		fc.assert(
			fc.property(
				baseName,
				fc.constantFrom('x', 'X.pdf', '-copy', 'ß'),
				folder,
				fc.boolean(),
				(name, extra, dir, encode) => {
					const other = `${name}${extra}`;
					const stored = `${dir}/${encode ? multipartEncoded(other) : other}`;
					expect(sameFileName(stored, name)).toBe(false);
					expect(sameFileName(name, other)).toBe(false);
				},
			),
			RUNS,
		);
	});

	it('case matters, and a stored name that is not a non-empty string never matches', () => {
		fc.assert(
			fc.property(
				baseName.filter((name) => name.toUpperCase() !== name),
				fc.oneof(fc.constant(''), fc.integer(), fc.constant(null), fc.constant(undefined)),
				(name, notAName) => {
					expect(sameFileName(name.toUpperCase(), name)).toBe(false);
					expect(sameFileName(notAName, name)).toBe(false);
				},
			),
			RUNS,
		);
	});
});
