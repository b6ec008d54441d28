/** Small Markdown helpers for the documentation tests. */

/** Lines outside fenced code blocks, with their line numbers (from 1). */
export function proseLines(markdown: string): Array<{ line: string; number: number }> {
	const out: Array<{ line: string; number: number }> = [];
	let fence: string | null = null;
	markdown.split('\n').forEach((line, index) => {
		const fenceMatch = /^\s*(```|~~~)/.exec(line);
		if (fenceMatch) {
			if (fence === null) fence = fenceMatch[1];
			else if (fence === fenceMatch[1]) fence = null;
			return;
		}
		if (fence === null) out.push({ line, number: index + 1 });
	});
	return out;
}

/** The headings' texts, in order. */
export function headings(markdown: string): string[] {
	return proseLines(markdown)
		.map(({ line }) => /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1])
		.filter((text): text is string => text !== undefined);
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats. */
export function githubAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const text of headings(markdown)) {
		const base = text
			.replace(/<[^>]*>/g, '')
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

/** Targets of Markdown links and images outside code: `[text](target)`. */
export function linkTargets(markdown: string): string[] {
	const targets: string[] = [];
	for (const { line } of proseLines(markdown)) {
		for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g))
			targets.push(match[1]);
	}
	return targets;
}
