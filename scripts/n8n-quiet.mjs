// Settings that keep the local n8n (npm start, npm run e2e) free of known offline noise, per line.
// Each was looked up in the n8n version it applies to (see docs/local-n8n.md, "Offline noise").
//
// - N8N_VERIFIED_PACKAGES_ENABLED=false: the editor asks n8n for the catalogue of verified community
//   nodes (api.n8n.io); offline each ask logs "getaddrinfo ENOTFOUND api.n8n.io" and "Error while
//   fetching community nodes", again after a retry interval of about 5 minutes. With the setting off,
//   n8n fetches nothing (CommunityNodeTypesService.fetchNodeTypes). Installed packages, this one
//   included, load as before: the setting only hides the catalogue of installable verified nodes.
// - N8N_RUNNERS_ENABLED=true (1.x): n8n 1.123 warns at every start that running without task
//   runners is deprecated; 2.x runs them always. The local instance now runs Code nodes in a task
//   runner on both lines, with its broker on N8N_RUNNERS_BROKER_PORT.
// - N8N_BLOCK_ENV_ACCESS_IN_NODE=true (1.x): n8n 1.123 warns while it is unset that its default
//   becomes true; true is 2.x's default. No workflow here reads $env.

/** The environment entries for the n8n line `line` (from n8nLine()). */
export function quietEnv(line) {
	const both = { N8N_VERIFIED_PACKAGES_ENABLED: 'false' };
	if (line.major < 2) return { ...both, N8N_RUNNERS_ENABLED: 'true', N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true' };
	return { ...both };
}
