// What differs between the n8n lines in queue mode (the rest of tools/e2e/queue/ is the same
// on both). n8nEnv() (tools/n8n/processes.mjs) gives the base environment; this adds or removes:
//
// 1.x  WEBHOOK_URL; binary data in `database` mode must be allowed and chosen
//      (N8N_AVAILABLE_BINARY_DATA_MODES, N8N_DEFAULT_BINARY_DATA_MODE); manual executions run on
//      main unless OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true; no task runners.
// 2.x  N8N_WEBHOOK_URL (2.x reads that name, not WEBHOOK_URL); binary data mode left at n8n's
//      default, which is `database` in queue mode; task runners always on (internal mode): every
//      process starts its own task broker, so each gets a broker port of its own
//      (N8N_RUNNERS_BROKER_PORT, set by processes.mjs); OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true
//      sends manual executions to the workers (and main then starts no runner of its own).
//      (De)activation finishes after the REST call has returned: callers poll for the effect.
//      2.x pings the database every 2 s (5 s timeout, DB_PING_*); after three failed pings a
//      process answers every request 503 "Database is not ready!" until one succeeds. On a
//      machine at load average 20+ with 30 deliveries in flight and a pool of 10, 71 of 300
//      signed deliveries got that 503 (1.x: 15 of 300 to one endpoint), so 2.x gets a pool of 20
//      (1.x keeps 10, the setting its recorded figures were measured with).

/** { env({ webhookUrl }), unset: names to drop from n8nEnv()'s environment, dbPool: default pool size }. */
export function lineSettings(line) {
	if (line.major >= 2) {
		return {
			env: ({ webhookUrl }) => ({
				N8N_WEBHOOK_URL: webhookUrl,
				N8N_RUNNERS_MODE: 'internal',
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			}),
			unset: ['WEBHOOK_URL', 'N8N_RUNNERS_ENABLED'],
			dbPool: '20',
		};
	}
	return {
		env: ({ webhookUrl }) => ({
			WEBHOOK_URL: webhookUrl,
			N8N_AVAILABLE_BINARY_DATA_MODES: 'filesystem,database',
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			// The queue e2e's 1.x figures were measured without task runners (npm start turns them on).
			N8N_RUNNERS_ENABLED: 'false',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		}),
		unset: [],
		dbPool: '10',
	};
}
