/**
 * Reads the literal text of one value out of raw JSON bytes, without converting it.
 *
 * JSON.parse turns 12345678901234567890 into 12345678901234567000 (a double). To request
 * exactly the scan the signed delivery names, "Include Full Scan" takes the digits from the
 * signed bytes instead. Only well-formed JSON reaches this code (the caller parsed it
 * first), so this is a scanner that skips values, not a validating parser. Like JSON.parse,
 * a key that occurs twice counts with its last occurrence. Nothing recurses on the input's
 * depth, and on input that is not JSON it throws or answers, never loops.
 */

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

function skipWhitespace(text: string, index: number): number {
	let i = index;
	while (i < text.length && WHITESPACE.has(text[i])) i++;
	return i;
}

/** Index just past the string literal that starts at `index` (a double quote). */
function skipString(text: string, index: number): number {
	let i = index + 1;
	while (i < text.length) {
		const char = text[i];
		if (char === '\\') i += 2;
		else if (char === '"') return i + 1;
		else i++;
	}
	throw new Error('Unterminated string in JSON');
}

/** Index just past the number, true, false or null that starts at `index`: runs until a delimiter. */
function skipScalar(text: string, index: number): number {
	let i = index;
	while (
		i < text.length &&
		!WHITESPACE.has(text[i]) &&
		text[i] !== ',' &&
		text[i] !== '}' &&
		text[i] !== ']'
	)
		i++;
	return i;
}

/** Index of the member value after the key (a string literal) that starts at `index`. */
function skipMemberName(text: string, index: number): number {
	const i = skipWhitespace(text, skipString(text, index));
	return skipWhitespace(text, i + 1); // past ':'
}

/**
 * Index just past the value that starts at `index`. Iterative, with an explicit stack of the
 * open containers: a body nested 10,000 levels deep costs memory, never call-stack depth.
 * Every step moves forward, and running off the end throws, so it ends on any input.
 */
function skipValue(text: string, index: number): number {
	const open: string[] = []; // closing character of each open container, innermost last
	let i = index;
	for (;;) {
		const char = text[i];
		if (char === '{' || char === '[') {
			const close = char === '{' ? '}' : ']';
			i = skipWhitespace(text, i + 1);
			if (text[i] !== close) {
				open.push(close);
				if (close === '}') i = skipMemberName(text, i);
				continue; // the container's first value starts at i
			}
			i++; // an empty container
		} else if (char === '"') {
			i = skipString(text, i);
		} else {
			i = skipScalar(text, i);
		}
		// After a value: close the containers that end here, or move to the next value.
		for (;;) {
			if (open.length === 0) return i;
			i = skipWhitespace(text, i);
			if (i >= text.length) throw new Error('Unexpected end of JSON');
			const close = open[open.length - 1];
			if (text[i] === close) {
				open.pop();
				i++;
				continue;
			}
			i = skipWhitespace(text, i + 1); // past ','
			if (close === '}') i = skipMemberName(text, i);
			break;
		}
	}
}

/** The literal text of `key` in the object that starts at `index`, or undefined. */
function memberLiteral(
	text: string,
	index: number,
	key: string,
): { start: number; end: number } | undefined {
	if (text[index] !== '{') return undefined;
	let found: { start: number; end: number } | undefined;
	let i = skipWhitespace(text, index + 1);
	if (text[i] === '}') return undefined;
	for (;;) {
		const keyEnd = skipString(text, i);
		const name = JSON.parse(text.slice(i, keyEnd)) as string;
		i = skipMemberName(text, i);
		const valueEnd = skipValue(text, i);
		if (name === key) found = { start: i, end: valueEnd };
		i = skipWhitespace(text, valueEnd);
		if (text[i] === '}') return found;
		if (i >= text.length) throw new Error('Unexpected end of JSON');
		i = skipWhitespace(text, i + 1); // past ','
	}
}

/**
 * The literal JSON text at `path` (object keys only), e.g. `['data', 'scan_id']` gives
 * `12345678901234567890` or `"42"`; undefined when the path does not exist.
 */
export function rawLiteralAt(json: string, path: string[]): string | undefined {
	let span: { start: number; end: number } | undefined = {
		start: skipWhitespace(json, 0),
		end: json.length,
	};
	for (const key of path) {
		span = memberLiteral(json, span.start, key);
		if (span === undefined) return undefined;
	}
	return json.slice(span.start, span.end);
}
