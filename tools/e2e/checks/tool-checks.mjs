// What the e2e's AI checks (agent*.mjs, mcp.mjs) assert about a model's tools, as pure functions:
// each returns the problems it finds (an empty list: none). test/tools/tool-checks.test.mjs breaks
// each thing once (an empty list, a wrong schema, a description promising a field the answer
// lacks, a secret in an answer, an error reported as success) and shows the check finds it.

/** The statuses a description lists after "status (". */
export function listedStatuses(description) {
	return (/status \(([^)]*)\)/.exec(String(description))?.[1] ?? '').split(/, | or /).sort();
}

function keysOf(value, keys = new Set()) {
	if (Array.isArray(value)) value.forEach((entry) => keysOf(entry, keys));
	else if (value && typeof value === 'object')
		for (const [key, entry] of Object.entries(value)) keysOf(entry, keys.add(key));
	return keys;
}

/**
 * The fields a tool's description names (snake_case, but the statuses it lists and the note on
 * the answer's bound) that none of its answers carries.
 * @param {string} description
 * @param {unknown[]} answers parsed answers of the tool
 */
export function unkeptPromises(description, answers) {
	const keys = keysOf(answers);
	const statuses = listedStatuses(description);
	// The note every description ends with (the answer's bound) names not_shown for any answer.
	const named =
		String(description)
			.replace(/ Answers stop at .*$/s, '')
			.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [];
	return [...new Set(named)]
		.filter((field) => !statuses.includes(field) && !keys.has(field))
		.map((field) => `promises ${field}, which no answer has`);
}

/**
 * Why an answer is not the list it should be: not a list, fewer than `atLeast` entries, error
 * items, or entries `each` refuses (it returns a reason).
 * @param {unknown} answer
 * @param {{ atLeast?: number, each?: (entry: any) => string | undefined }} [options]
 */
export function listProblems(answer, { atLeast = 1, each } = {}) {
	if (!Array.isArray(answer)) return [`not a list: ${JSON.stringify(answer)?.slice(0, 120)}`];
	const problems =
		answer.length < atLeast ? [`${answer.length} entries, at least ${atLeast} expected`] : [];
	answer.forEach((entry, i) => {
		if (typeof entry?.error === 'string') problems.push(`entry ${i} is an error: ${entry.error}`);
		const reason = each?.(entry);
		if (reason) problems.push(`entry ${i}: ${reason}`);
	});
	return problems;
}

/**
 * What a strict schema check (OpenAI strict mode, Gemini) would refuse in a tool's parameters,
 * and any difference from the `expected` parameters ({ name: JSON type }).
 * @param {{ name: string, parameters?: any }} tool
 * @param {Record<string, string>} [expected]
 */
export function schemaProblems(tool, expected) {
	const schema = tool?.parameters ?? {};
	const properties = schema.properties ?? {};
	const required = new Set(schema.required ?? []);
	const problems = [
		...Object.keys(properties)
			.filter((p) => !required.has(p))
			.map((p) => `${tool.name}.${p} is optional`),
		...Object.keys(properties)
			.filter((p) => 'default' in (properties[p] ?? {}))
			.map((p) => `${tool.name}.${p} has a default`),
		...(schema.type === 'object' ? [] : [`${tool?.name}: schema type ${schema.type}`]),
	];
	if (expected) {
		const got = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v?.type]));
		if (
			JSON.stringify(got, Object.keys(got).sort()) !==
			JSON.stringify(expected, Object.keys(expected).sort())
		)
			problems.push(`${tool?.name} takes ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
	}
	return problems;
}

/**
 * Secrets in what a model received: a signing secret (`whsec_…`, or one of `secrets`), or a URL
 * with its query (a trigger's webhook URL may carry a sealed secret there).
 * @param {string} text
 * @param {string[]} [secrets]
 */
export function secretProblems(text, secrets = []) {
	const problems = [];
	if (/whsec_[0-9a-z]+/i.test(text)) problems.push('a signing secret (whsec_…)');
	for (const secret of secrets.filter(Boolean))
		if (text.includes(secret)) problems.push(`the secret ${secret.slice(0, 8)}…`);
	const url = /https?:\/\/[^\s"'\\]*\?[^\s"'\\]*/.exec(text);
	if (url) problems.push(`a URL with its query: ${url[0]}`);
	return problems;
}

/**
 * Why a failed call does not reach the client as the failure it is: an MCP result not flagged
 * `isError` (a failure reported as success), the wording it should carry, or an internal address
 * (the credential's Base URL) in it. `result` is an MCP CallToolResult, or for the AI Agent
 * `{ isError: true, content: [{ text }] }` built from the error item the model got.
 * @param {any} result an MCP CallToolResult, or what agentFailure makes
 * @param {RegExp} wording
 * @param {string[]} [internal] addresses the model must not see, e.g. the sandbox's origin
 */
export function failureProblems(result, wording, internal = []) {
	const text = (result?.content ?? []).map((part) => part?.text ?? '').join('');
	const problems = [];
	if (result?.isError !== true) problems.push('the failure is reported as success');
	if (!wording.test(text)) problems.push(`the text lacks ${wording}: ${text.slice(0, 160)}`);
	for (const address of internal)
		if (text.includes(address)) problems.push(`the text names ${address}`);
	if (/\(item \d+\)|^Item \d+:/m.test(text)) problems.push('the text names a batch item');
	return problems;
}

/**
 * The AI Agent's side of a failure: the tool message is `[{ error, description }]`, turned into
 * what failureProblems reads (n8n's agent has no isError: the error item is the failure).
 * @param {string | undefined} content the tool message the model got
 */
export function agentFailure(content) {
	let item;
	try {
		item = JSON.parse(content ?? '')?.[0];
	} catch {
		item = undefined;
	}
	const failed = typeof item?.error === 'string' && typeof item?.description === 'string';
	return {
		isError: failed,
		content: [{ text: failed ? `${item.error}\n\n${item.description}` : String(content) }],
	};
}

/**
 * Why a tool's answer is not bounded as the node promises: longer than `bound` characters, or a
 * cut that does not say what it left out (`not_shown`, or a text's "… (N more characters not shown)").
 * @param {string} text the answer the model or MCP client got
 * @param {number} [bound]
 */
export function boundProblems(text, bound = 20_000) {
	const problems = [];
	if (String(text).length > bound)
		problems.push(`${String(text).length} characters, above ${bound}`);
	if (!/not_shown|more characters not shown/.test(String(text)))
		problems.push(`nothing says what was left out: ${String(text).slice(0, 120)}`);
	return problems;
}

/** An oversized scan (issue 40) as the sandbox seeds it: a long text and a 10,000-row table inside an object. */
export const OVERSIZED_SCAN = {
	count: 1,
	template_id: 3,
	extracted_data: {
		status: 'paid', // the invoice's own: under extracted_fields
		page_text: 'Lorem ipsum dolor sit amet. '.repeat(7143),
		summary: { rows: Array.from({ length: 10_000 }, (_, i) => ({ position: i + 1 })) },
	},
};

/** A sandbox fault: GET /account answered 200 with a web app's page, five times (every retry). */
export const PAGE_FAULT = {
	method: 'GET',
	path: '^/account$',
	kind: 'status',
	status: 200,
	page: true,
	times: 5,
};
