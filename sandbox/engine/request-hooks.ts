/**
 * Actions run when a chosen API request arrives, before it is handled: what other clients do
 * while a node works, scheduled against the node's own requests (control `atRequest`), e.g.
 * "another client fills the hour when the node's second upload arrives".
 */

export interface RequestMatch {
	/** HTTP method (any when omitted). */
	method?: string;
	/** Regex source matched against the path after /api/v1 (any when omitted). */
	path?: string;
}

interface Hook {
	method?: string;
	path?: RegExp;
	/** Matching requests still to let pass before the action runs. */
	skip: number;
	run: () => void;
}

export class RequestHooks {
	private hooks: Hook[] = [];

	/** Runs `run` when the matching request after the next `after` ones arrives. */
	add(after: number, match: RequestMatch, run: () => void): void {
		if (!Number.isInteger(after) || after < 0)
			throw new Error('after must be a non-negative integer');
		let path: RegExp | undefined;
		try {
			path = match.path === undefined ? undefined : new RegExp(match.path);
		} catch {
			throw new Error(`path is not a valid regular expression: ${match.path}`);
		}
		this.hooks.push({ method: match.method?.toUpperCase(), path, skip: after, run });
	}

	clear(): void {
		this.hooks = [];
	}

	/** Called for every API request when it arrives (before faults and handling). */
	arrived(method: string, path: string): void {
		const matching = this.hooks.filter(
			(hook) =>
				(hook.method === undefined || hook.method === method) &&
				(hook.path === undefined || hook.path.test(path)),
		);
		const due = matching.filter((hook) => hook.skip === 0);
		this.hooks = this.hooks.filter((hook) => !due.includes(hook));
		for (const hook of matching) if (hook.skip > 0) hook.skip -= 1;
		for (const hook of due) hook.run();
	}
}
