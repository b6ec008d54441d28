/**
 * Unit tests of the rarer paths of the file-name comparison (upload/fileNames.ts):
 * escapes that do not decode, both slashes, escape case, Latin-1 repairs that must not happen.
 */
import {
	latin1Repaired,
	normalizedFileName,
	sameFileName,
} from '../../nodes/DocumentScanning/upload/fileNames';

test.each([
	// An invalid escape elsewhere: only the quote and line breaks are undone.
	['a%22b%zz.pdf', 'a"b%zz.pdf'],
	['a%0Db%0ac%0dd%0A%ZZ.pdf', 'a\rb\nc\rd\n%ZZ.pdf'],
	['a%22%E9.pdf', 'a"%E9.pdf'],
	// Escapes in either case.
	['x%2Ay.pdf', 'x*y.pdf'],
	['x%2ay.pdf', 'x*y.pdf'],
	['x%C3%A9.pdf', 'xé.pdf'],
	// No escape at all: left alone (also a lone %).
	['100%.pdf', '100%.pdf'],
	['a%2.pdf', 'a%2.pdf'],
	// Both kinds of folder separators, whichever comes last.
	['a\\b/c.pdf', 'c.pdf'],
	['a/b\\c.pdf', 'c.pdf'],
	['dir/', ''],
	// Composed before escapes are looked for: `%0` + e + U+0301 is no escape.
	['%0e\u0301.pdf', '%0\u00e9.pdf'],
	// Composed after decoding too, and trimmed on both sides.
	['  Mu%CC%88ller.pdf %20', 'M\u00fcller.pdf'],
])('normalizedFileName(%j) = %j', (name, normalized) => {
	expect(normalizedFileName(name)).toBe(normalized);
});

test.each([
	['MÃ¼ller.pdf', 'Müller.pdf'],
	['Ã©', 'é'],
	['plain.pdf', undefined],
	['é.pdf', undefined],
	['Ã¼\u0141.pdf', undefined],
	['\u00ff.pdf', undefined],
	['\u00c2\u0080', '\u0080'],
])('latin1Repaired(%j) = %j', (name, repaired) => {
	expect(latin1Repaired(name)).toBe(repaired);
});

test.each([
	['dir/MÃ¼ller%20A.pdf', 'Müller A.pdf', true],
	['MÃ¼ller.pdf', 'Muller.pdf', false],
	['Ã¼\u0141.pdf', 'ü\u0141.pdf', false],
	['a\\b/c.pdf', 'c.pdf', true],
	[' ', ' ', true],
])('sameFileName(%j, %j) = %s', (stored, sent, same) => {
	expect(sameFileName(stored, sent)).toBe(same);
});
