// Settings that keep the local n8n (npm start, npm run e2e) free of known offline noise, per line.
// Each was looked up in the source of the n8n version it applies to (docs/local-n8n.md, "Offline
// noise"; checked by test/tools/n8n-quiet.test.mjs and by reading `npm start`'s log).
//
// Both lines:
// - N8N_VERIFIED_PACKAGES_ENABLED=false: the editor asks n8n for the catalogue of verified community
//   nodes (api.n8n.io); offline each ask logs "getaddrinfo ENOTFOUND api.n8n.io" and "Error while
//   fetching community nodes", again after a retry interval of about 5 minutes. With it off n8n
//   fetches nothing (CommunityNodeTypesService.fetchNodeTypes). Installed packages, this one
//   included, load as before: it only hides the catalogue of installable verified nodes.
// - N8N_UNVERIFIED_PACKAGES_ENABLED=true: this package is an unverified one; 2.40 warns while unset.
// 1.x (DeprecationService of n8n 1.123):
// - N8N_RUNNERS_ENABLED=true: the scripts used to set false, which 1.123 reports as deprecated;
//   2.x runs task runners always. Code nodes now run in a task runner on both lines.
// - N8N_BLOCK_ENV_ACCESS_IN_NODE=true: warned about while unset; 2.x's default. No workflow here reads $env.
// 2.x (DeprecationService of n8n 2.40):
// - no N8N_RUNNERS_ENABLED ("safe to remove"), and N8N_WEBHOOK_URL instead of WEBHOOK_URL.
// - N8N_RUNNERS_TASK_TIMEOUT, N8N_COMPRESSION_NODE_MAX_*: warned about while unset; set to the
//   current timeout (300 s) and the announced future limits (256 MiB, 1000 entries).
// - N8N_DISABLED_MODULES=mcp-registry: no fetch of the MCP server catalogue (see below).
// Left, because n8n has no setting for them: 2.x's "Failed to start Python task runner" (the check
// runs whenever runners are internal) and its note that internal runner mode is deprecated.

/** The environment entries for the n8n line `line` (from n8nLine()). */
export function quietEnv(line) {
	const both = { N8N_VERIFIED_PACKAGES_ENABLED: 'false', N8N_UNVERIFIED_PACKAGES_ENABLED: 'true' };
	if (line.major < 2)
		return { ...both, N8N_RUNNERS_ENABLED: 'true', N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true' };
	return {
		...both,
		N8N_RUNNERS_TASK_TIMEOUT: '300',
		N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(256 * 1024 * 1024),
		N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '1000',
		// 2.x fetches n8n's catalogue of MCP servers (api.n8n.io/api/mcp-servers) at start and every
		// few hours; offline that is a stack trace and "A system task run failed". The module does
		// nothing else this repository uses. (1.123 has no such module: the name would stop it.)
		N8N_DISABLED_MODULES: [process.env.N8N_DISABLED_MODULES, 'mcp-registry']
			.filter(Boolean)
			.join(','),
	};
}

/**
 * The finished environment with the names the line reads without a deprecation line: on 2.x the
 * webhook base URL as N8N_WEBHOOK_URL (WEBHOOK_URL's value, whoever set it) and no
 * N8N_RUNNERS_ENABLED. Returns a new object.
 */
export function lineNames(env, line) {
	if (line.major < 2) return { ...env };
	const { WEBHOOK_URL, N8N_RUNNERS_ENABLED, ...rest } = env;
	void N8N_RUNNERS_ENABLED;
	// A caller that sets N8N_WEBHOOK_URL itself (queue mode's processes) keeps it.
	if (rest.N8N_WEBHOOK_URL !== undefined || WEBHOOK_URL === undefined) return rest;
	return { ...rest, N8N_WEBHOOK_URL: WEBHOOK_URL };
}
