/**
 * Property-based tests (fast-check, fixed seeds) of the raw-JSON reader behind "Include Full
 * Scan": on any JSON text it finds what JSON.parse finds, on any other text it answers or
 * throws an Error (never overflows the stack), and scanIdFromDelivery never throws.
 */
import fc from 'fast-check';

import { runs } from '../support/property-runs';

import { rawLiteralAt } from '../../nodes/DocumentScanningTrigger/rawJson';
import { scanIdFromDelivery } from '../../nodes/DocumentScanningTrigger/scanId';

const RUNS = runs(170517, 400);

/** Few keys, so that paths often exist; the reader must tell them apart however they are escaped. */
const KEYS = ['data', 'scan_id', 'a', '__proto__', 'sc"an', 'ü', ''];
const key = fc.constantFrom(...KEYS);
const ws = fc.stringMatching(/^[ \t\n\r]{0,3}$/);

/** A string literal, each character written as itself or as a \uXXXX escape. */
function stringLiteral(value: string): fc.Arbitrary<string> {
	return fc
		.array(fc.boolean(), { minLength: value.length, maxLength: value.length })
		.map((escapes) => {
			let out = '"';
			[...value].forEach((char, index) => {
				const plain = JSON.stringify(char).slice(1, -1);
				out +=
					escapes[index] && char.length === 1
						? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
						: plain;
			});
			return `${out}"`;
		});
}

/** JSON text with random whitespace, escaped keys and repeated keys (JSON.parse keeps the last). */
const { text: jsonText } = fc.letrec<{
	text: string;
	scalar: string;
	object: string;
	array: string;
}>((tie) => ({
	text: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		tie('scalar'),
		tie('object'),
		tie('array'),
	),
	scalar: fc.oneof(
		fc.jsonValue({ maxDepth: 0 }).map((value) => JSON.stringify(value)),
		fc.constantFrom(
			'12345678901234567890',
			'-0',
			'1e400',
			'0.1e-2',
			'true',
			'null',
			'"\\u00fc\\"\\\\/"',
		),
		fc.string().chain(stringLiteral),
	),
	object: fc
		.array(fc.tuple(ws, key.chain(stringLiteral), ws, ws, tie('text'), ws), { maxLength: 5 })
		.chain((members) =>
			ws.map(
				(pad) =>
					`{${pad}${members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`,
			),
		),
	array: fc
		.array(fc.tuple(ws, tie('text'), ws), { maxLength: 4 })
		.map((values) => `[${values.map(([a, v, b]) => `${a}${v}${b}`).join(',')}]`),
}));

/** What JSON.parse finds at `path` (own properties of objects only). */
function parsedAt(value: unknown, path: string[]): { found: boolean; value?: unknown } {
	let current = value;
	for (const name of path) {
		if (typeof current !== 'object' || current === null || Array.isArray(current))
			return { found: false };
		if (!Object.prototype.hasOwnProperty.call(current, name)) return { found: false };
		current = (current as Record<string, unknown>)[name];
	}
	return { found: true, value: current };
}

describe('rawLiteralAt against JSON.parse', () => {
	it('on random JSON text: the literal at a path parses to what JSON.parse has there, or both find nothing', () => {
		fc.assert(
			fc.property(
				ws,
				jsonText,
				ws,
				fc.array(key, { maxLength: 3 }),
				(before, text, after, path) => {
					const raw = `${before}${text}${after}`;
					const expected = parsedAt(JSON.parse(raw), path);
					const literal = rawLiteralAt(raw, path);
					if (!expected.found) return literal === undefined || path.length === 0;
					expect(literal).toBeDefined();
					expect(JSON.parse(literal!)).toEqual(expected.value);
					return true;
				},
			),
			RUNS,
		);
	});

	it('nested up to 20,000 levels deep: the member after the nesting is found, without recursion', () => {
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom('[', '{"a":'), { minLength: 1, maxLength: 20 }),
				fc.integer({ min: 1, max: 20_000 }),
				(openers, depth) => {
					let open = '';
					let close = '';
					for (let i = 0; i < depth; i++) {
						const opener = openers[i % openers.length];
						open += opener;
						close = (opener === '[' ? ']' : '}') + close;
					}
					const raw = `{"data":{"x":${open}1${close},"scan_id":42}}`;
					expect(rawLiteralAt(raw, ['data', 'scan_id'])).toBe('42');
					expect(rawLiteralAt(raw, ['data', 'x'])).toBe(`${open}1${close}`);
				},
			),
			runs(RUNS.seed, 30),
		);
	});

	it('on hostile text (random, truncated or spliced JSON): an answer or an Error, never a stack overflow', () => {
		const hostile = fc.oneof(
			fc.string({
				unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', ' ', 'a', '1', 'n'),
			}),
			fc.string({ unit: 'binary' }),
			fc
				.tuple(jsonText, fc.nat(), fc.string())
				.map(([text, cut, insert]) => text.slice(0, cut % (text.length + 1)) + insert),
			fc.integer({ min: 1, max: 20_000 }).map((depth) => `{"data":{"x":${'['.repeat(depth)}`),
		);
		fc.assert(
			fc.property(hostile, fc.array(key, { maxLength: 3 }), (raw, path) => {
				try {
					const literal = rawLiteralAt(raw, path);
					expect(literal === undefined || typeof literal === 'string').toBe(true);
				} catch (error) {
					expect(error).toBeInstanceOf(Error);
					expect(error).not.toBeInstanceOf(RangeError);
				}
			}),
			runs(RUNS.seed, 200),
		);
	});
});

describe('scanIdFromDelivery', () => {
	it('never throws; an id is always a positive integer written in digits', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					jsonText,
					fc.string(),
					jsonText.map((text) => `{"data":{"scan_id":${text}}}`),
				),
				(raw) => {
					const result = scanIdFromDelivery(raw);
					if ('id' in result) expect(result.id).toMatch(/^[1-9][0-9]*$/);
					else expect(result.problem).toMatch(/scan_id/);
				},
			),
			RUNS,
		);
	});

	it('a positive integer (number or digit string, any escapes) is read exactly, beside any other members', () => {
		fc.assert(
			fc.property(
				fc.bigInt({ min: 1n, max: 10n ** 30n }),
				fc.boolean(),
				jsonText,
				(id, asString, other) => {
					const digits = id.toString();
					const raw = `{"data":{"other":${other},"scan_id":${asString ? `"${digits}"` : digits}}}`;
					expect(scanIdFromDelivery(raw)).toEqual({ id: digits });
				},
			),
			RUNS,
		);
	});

	it('unreadable text gives a problem naming data.scan_id, not an exception', () => {
		expect(scanIdFromDelivery('{"data":{"x":[1,2')).toEqual({
			problem: expect.stringMatching(/data\.scan_id .*could not be read/),
		});
	});
});
