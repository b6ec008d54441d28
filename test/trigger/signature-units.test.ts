/** Unit tests of the signature check (no requests): each problem, the exact format, the wording. */
import { describeProblem, verifySignature } from '../../nodes/DocumentScanningTrigger/signature';
import { signatureHeader } from '../../sandbox/signing';

const SECRET = 'whsec_unit';
const BODY = Buffer.from('{"event":"scan.completed"}');
/** The hex digest alone (signatureHeader without its `sha256=` prefix), to build odd signatures from. */
const hex = (body: Buffer, secret = SECRET) =>
	signatureHeader(secret, body).slice('sha256='.length);

describe('verifySignature', () => {
	it('accepts sha256=<HMAC of the exact bytes>', () => {
		expect(verifySignature(BODY, `sha256=${hex(BODY)}`, SECRET)).toEqual({ valid: true });
	});

	it.each([
		['no secret', BODY, `sha256=${hex(BODY)}`, undefined, 'missingSecret'],
		['an empty secret', BODY, `sha256=${hex(BODY)}`, '', 'missingSecret'],
		['a secret that is not a string', BODY, `sha256=${hex(BODY)}`, 42, 'missingSecret'],
		['no body', undefined, `sha256=${hex(BODY)}`, SECRET, 'missingBody'],
		['a body that is a string', BODY.toString(), `sha256=${hex(BODY)}`, SECRET, 'missingBody'],
		['no header', BODY, undefined, SECRET, 'missingSignature'],
		['a null header', BODY, null, SECRET, 'missingSignature'],
		['an empty header', BODY, '', SECRET, 'missingSignature'],
		[
			'a repeated header',
			BODY,
			[`sha256=${hex(BODY)}`, `sha256=${hex(BODY)}`],
			SECRET,
			'malformedSignature',
		],
		['upper-case hex', BODY, `sha256=${hex(BODY).toUpperCase()}`, SECRET, 'malformedSignature'],
		['another prefix', BODY, `sha1=${hex(BODY)}`, SECRET, 'malformedSignature'],
		['a missing prefix', BODY, hex(BODY), SECRET, 'malformedSignature'],
		['one digit short', BODY, `sha256=${hex(BODY).slice(1)}`, SECRET, 'malformedSignature'],
		['one digit more', BODY, `sha256=${hex(BODY)}0`, SECRET, 'malformedSignature'],
		['text before', BODY, ` sha256=${hex(BODY)}`, SECRET, 'malformedSignature'],
		['text after', BODY, `sha256=${hex(BODY)}\n`, SECRET, 'malformedSignature'],
		['a number', BODY, 42, SECRET, 'malformedSignature'],
		['another secret', BODY, `sha256=${hex(BODY, 'whsec_other')}`, SECRET, 'mismatch'],
		['other bytes', BODY, `sha256=${hex(Buffer.from(`${BODY.toString()} `))}`, SECRET, 'mismatch'],
		['zeros', BODY, `sha256=${'0'.repeat(64)}`, SECRET, 'mismatch'],
	])('refuses %s', (_label, body, header, secret, problem) => {
		expect(verifySignature(body, header, secret)).toEqual({ valid: false, problem });
	});
});

describe('describeProblem', () => {
	it.each([
		['missingSecret', /holds no signing secret/],
		['missingBody', /raw request body is not available/],
		['missingSignature', /header is missing/],
		['malformedSignature', /not of the form sha256=<64 lowercase hex digits>/],
		['mismatch', /does not match the request body/],
		[undefined, /does not match the request body/],
	] as const)('%s', (problem, wording) => {
		expect(describeProblem(problem)).toMatch(wording);
		expect(describeProblem(problem)).not.toContain(SECRET);
	});
});
