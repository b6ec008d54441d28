/**
 * The text lines of a simple PDF: the text-showing operators (Tj, TJ, ', ") of its content streams,
 * uncompressed or FlateDecode (node:zlib), one line per line move (Td/TD with a vertical move, T*, Tm,
 * ', ", BT). Enough for the sample invoices `npm start` writes (tools/n8n/sample-invoices.mjs) and
 * other plain-text PDFs; anything else (scans, other filters, CID fonts) gives no lines.
 *
 * Never throws: hostile or broken input gives `undefined` or the lines it could read. Bounded: at most
 * MAX_STREAMS streams, MAX_INFLATED bytes inflated per stream and MAX_LINES lines.
 */
import { inflateSync } from 'node:zlib';

const MAX_STREAMS = 64;
const MAX_INFLATED = 1024 * 1024;
const MAX_LINES = 500;
const MAX_LINE_CHARS = 1000;

/** The text lines of the PDF in `data` (trimmed, empty lines dropped), or undefined when it shows none. */
export function pdfTextLines(data: Buffer): string[] | undefined {
	try {
		if (data.subarray(0, 5).toString('latin1') !== '%PDF-') return undefined;
		const lines: string[] = [];
		for (const content of contentStreams(data)) {
			for (const line of textLines(content)) {
				if (lines.length >= MAX_LINES) break;
				lines.push(line);
			}
		}
		return lines.length > 0 ? lines : undefined;
	} catch {
		return undefined;
	}
}

/** The decoded data of each stream (FlateDecode or unfiltered); others are skipped. */
function* contentStreams(data: Buffer): Generator<string> {
	const text = data.toString('latin1');
	const head = /stream\r?\n/g;
	let count = 0;
	let match: RegExpExecArray | null;
	while ((match = head.exec(text)) !== null && count < MAX_STREAMS) {
		// The stream's dictionary: what precedes `stream` back to its object's `obj` (at most 1000 characters).
		const before = text.slice(Math.max(0, match.index - 1000), match.index);
		if (!/>>\s*$/.test(before)) continue; // e.g. the `stream` in `endstream`
		count++;
		const objAt = before.lastIndexOf('obj');
		const dict = objAt >= 0 ? before.slice(objAt) : before;
		const start = match.index + match[0].length;
		const declared = /\/Length\s+(\d+)\b(?!\s+\d+\s+R)/.exec(dict);
		let end = declared ? start + Number(declared[1]) : -1;
		if (end < start || end > text.length || !/^\s*endstream/.test(text.slice(end, end + 20))) {
			end = text.indexOf('endstream', start);
			if (end < 0) return;
			// The end-of-line before `endstream` is not part of the data.
			if (text[end - 1] === '\n') end--;
			if (text[end - 1] === '\r') end--;
		}
		head.lastIndex = end;
		const raw = data.subarray(start, end);
		const filter = /\/Filter\s*(\[[^\]]*\]|\/\w+)/.exec(dict)?.[1].replace(/[[\]\s]/g, '');
		if (filter === undefined || filter === '') yield raw.toString('latin1');
		else if (filter === '/FlateDecode') {
			const inflated = inflate(raw);
			if (inflated !== undefined) yield inflated;
		}
	}
}

function inflate(raw: Buffer): string | undefined {
	try {
		return inflateSync(raw, { maxOutputLength: MAX_INFLATED }).toString('latin1');
	} catch {
		return undefined;
	}
}

type Token =
	| { kind: 'string'; value: string }
	| { kind: 'number'; value: number }
	| { kind: 'op'; value: string }
	| { kind: 'array'; value: Token[] };

/** Lines of the text objects (BT ... ET) of one content stream. */
function textLines(content: string): string[] {
	const lines: string[] = [];
	let current = '';
	let lastY: number | undefined;
	let inText = false;
	const flush = () => {
		const line = current.replace(/\s+/g, ' ').trim();
		if (line) lines.push(line.slice(0, MAX_LINE_CHARS));
		current = '';
	};
	const operands: Token[] = [];
	for (const token of tokens(content)) {
		if (token.kind !== 'op') {
			if (operands.length >= 16) operands.shift();
			operands.push(token);
			continue;
		}
		if (!inText && token.value !== 'BT') {
			operands.length = 0;
			continue;
		}
		const num = (i: number) => {
			const t = operands[operands.length - i];
			return t?.kind === 'number' ? t.value : 0;
		};
		switch (token.value) {
			case 'BT':
			case 'ET':
				flush();
				lastY = undefined;
				inText = token.value === 'BT';
				break;
			case 'Td':
			case 'TD':
				if (num(1) !== 0) flush();
				else current += ' ';
				break;
			case 'Tm':
				if (lastY !== undefined && num(1) !== lastY) flush();
				else current += ' ';
				lastY = num(1);
				break;
			case 'T*':
				flush();
				break;
			case 'Tj':
				current += show(operands[operands.length - 1]);
				break;
			case "'":
			case '"':
				flush();
				current += show(operands[operands.length - 1]);
				break;
			case 'TJ':
				current += show(operands[operands.length - 1]);
				break;
		}
		operands.length = 0;
	}
	flush();
	return lines;
}

/** The text a string or TJ array shows; a wide gap (kerning ≤ -200) in an array reads as a space. */
function show(token: Token | undefined): string {
	if (token?.kind === 'string') return token.value;
	if (token?.kind === 'array') {
		return token.value
			.map((t) =>
				t.kind === 'string' ? t.value : t.kind === 'number' && t.value <= -200 ? ' ' : '',
			)
			.join('');
	}
	return '';
}

const DELIMITERS = '()<>[]{}/%';
const isSpace = (c: string) =>
	c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\f' || c === '\0';

/** Content-stream tokens: strings, numbers, arrays and operators (names and dictionaries are skipped). */
function* tokens(s: string): Generator<Token> {
	const stack: Token[][] = [];
	const emit = function* (token: Token): Generator<Token> {
		if (stack.length > 0) stack[stack.length - 1].push(token);
		else yield token;
	};
	let i = 0;
	while (i < s.length) {
		const c = s[i];
		if (isSpace(c)) {
			i++;
		} else if (c === '%') {
			while (i < s.length && s[i] !== '\n' && s[i] !== '\r') i++;
		} else if (c === '(') {
			const [value, next] = literalString(s, i + 1);
			i = next;
			yield* emit({ kind: 'string', value });
		} else if (c === '<' && s[i + 1] === '<') {
			i += 2; // dictionary operands (e.g. of BDC) carry no text
		} else if (c === '>' && s[i + 1] === '>') {
			i += 2;
		} else if (c === '<') {
			const end = s.indexOf('>', i);
			const stop = end < 0 ? s.length : end;
			yield* emit({ kind: 'string', value: hexString(s.slice(i + 1, stop)) });
			i = stop + 1;
		} else if (c === '[') {
			if (stack.length < 8) stack.push([]);
			i++;
		} else if (c === ']') {
			i++;
			const items = stack.pop();
			if (items) yield* emit({ kind: 'array', value: items });
		} else if (c === '/') {
			i++;
			while (i < s.length && !isSpace(s[i]) && !DELIMITERS.includes(s[i])) i++;
		} else if (DELIMITERS.includes(c)) {
			i++;
		} else {
			const start = i;
			while (i < s.length && !isSpace(s[i]) && !DELIMITERS.includes(s[i])) i++;
			const word = s.slice(start, i);
			if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word))
				yield* emit({ kind: 'number', value: Number(word) });
			else if (stack.length === 0) yield { kind: 'op', value: word };
		}
	}
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

/** A literal string from just after its `(`: escapes, octal codes, balanced parentheses. */
function literalString(s: string, from: number): [string, number] {
	let out = '';
	let depth = 0;
	let i = from;
	while (i < s.length) {
		const c = s[i++];
		if (c === '\\') {
			const e = s[i++];
			if (e === undefined) break;
			if (ESCAPES[e]) out += ESCAPES[e];
			else if (/[0-7]/.test(e)) {
				let code = e;
				while (code.length < 3 && /[0-7]/.test(s[i] ?? '')) code += s[i++];
				out += String.fromCharCode(parseInt(code, 8) & 0xff);
			} else if (e === '\r') {
				if (s[i] === '\n') i++;
			} else if (e !== '\n') out += e;
		} else if (c === '(') {
			depth++;
			out += c;
		} else if (c === ')') {
			if (depth === 0) return [out, i];
			depth--;
			out += c;
		} else out += c;
	}
	return [out, i];
}

function hexString(hex: string): string {
	const digits = hex.replace(/[^0-9a-fA-F]/g, '');
	const even = digits.length % 2 === 0 ? digits : digits + '0';
	return Buffer.from(even, 'hex').toString('latin1');
}
