/** Unit test of the file-name comparison used to find an upload's scan (no requests). */
import { normalizedFileName, sameFileName } from '../../nodes/DocumentScanning/upload/fileNames';

describe('sameFileName: the name as the service may have stored it', () => {
	test.each([
		['inv.pdf', 'inv.pdf'],
		['inv.pdf', 'dir/inv.pdf'],
		['inv.pdf', 'C:\\scans\\inv.pdf'],
		['say %22hi%22.pdf', 'say "hi".pdf'],
		['Rechnung Müller.pdf', 'Rechnung Mu\u0308ller.pdf'],
		['Rechnung MÃ¼ller.pdf', 'Rechnung Müller.pdf'],
		['100%.pdf', '100%.pdf'],
		['  padded.pdf ', 'padded.pdf'],
	])('stored %j matches sent %j', (stored, sent) => {
		expect(sameFileName(stored, sent)).toBe(true);
	});

	test.each([
		['inv.pdf', 'Inv.pdf'],
		['inv2.pdf', 'inv.pdf'],
		['other/inv.pdf.pdf', 'inv.pdf'],
		['Rechnung Muller.pdf', 'Rechnung Müller.pdf'],
		['', 'inv.pdf'],
		[undefined, 'inv.pdf'],
		[42, '42'],
		['', ''],
		// Latin-1 text that is not UTF-8 read as Latin-1 is not "repaired" into U+FFFD.
		['é.pdf', '\ufffd.pdf'],
		// Characters beyond Latin-1 are never squeezed into bytes.
		['\u0141.pdf', 'A.pdf'],
	])('stored %j does not match sent %j', (stored, sent) => {
		expect(sameFileName(stored, sent)).toBe(false);
	});

	test('the comparable form drops the folder, undoes escapes and composes characters', () => {
		expect(normalizedFileName('a/b/c%20d.pdf')).toBe('c d.pdf');
		expect(normalizedFileName('Mu\u0308ller.pdf')).toBe('M\u00fcller.pdf');
	});
});
