/**
 * Command line entry: `npm run sandbox -- [flags]` (ts-node --transpile-only sandbox/cli.ts).
 * Run with --help for the flags.
 */
import { parseArgs } from 'node:util';
import { describeOptions, mergeOptions, DEFAULT_OPTIONS } from './engine/options';
import {
	DEFAULT_API_KEY,
	NO_BUSINESS_API_KEY,
	Sandbox,
	SandboxOptions,
	startSandbox,
} from './server';

export const CLI_DEFAULT_PORT = 8787;

export const USAGE = `Document Scanning API sandbox

Usage: npm run sandbox -- [options]

  --port <n>                  port (default: $SANDBOX_PORT or ${CLI_DEFAULT_PORT}; 0 picks a free port)
  --host <host>               interface to bind (default 127.0.0.1)
  --envelope <data|bare>      list/record envelope (default data)
  --active-flag <is_active|active|status>
                              how webhook records show activity (default is_active)
  --errors-shape <map|list>   shape of 422 "errors" (default map)
  --stored-filename <asSent|basename>
                              how uploaded file names are stored (default basename)
  --processing-delay-ms <n>   delay per processing step (default 1000)
  --latency-ms <n>            delay before every API request is handled (default 0)
  --rate-limit <n>            accepted uploads per rolling hour (default 200)
  --retry-after               send Retry-After with 429
  --delivery-timeout-ms <n>   webhook reply wait (default 10000)
  --allow-insecure-webhooks   allow http:// and local webhook URLs (also SANDBOX_ALLOW_INSECURE_WEBHOOKS=1)
  --api-key <key>             extra key for the default account (repeatable, at most 4)
  --quiet                     no request log
  --help                      this text
`;

export class CliUsageError extends Error {}

function intFlag(name: string, raw: string | undefined): number | undefined {
	if (raw === undefined) return undefined;
	if (!/^\d+$/.test(raw))
		throw new CliUsageError(`--${name} needs a non-negative integer, got "${raw}"`);
	return Number(raw);
}

/** Flags and environment to sandbox options. Throws CliUsageError on bad input; returns 'help' for --help. */
export function parseCli(
	argv: string[],
	env: NodeJS.ProcessEnv,
): { options: SandboxOptions; quiet: boolean } | 'help' {
	let values;
	try {
		({ values } = parseArgs({
			args: argv,
			strict: true,
			allowPositionals: false,
			options: {
				port: { type: 'string' },
				host: { type: 'string' },
				envelope: { type: 'string' },
				'active-flag': { type: 'string' },
				'errors-shape': { type: 'string' },
				'stored-filename': { type: 'string' },
				'processing-delay-ms': { type: 'string' },
				'latency-ms': { type: 'string' },
				'rate-limit': { type: 'string' },
				'retry-after': { type: 'boolean' },
				'delivery-timeout-ms': { type: 'string' },
				'allow-insecure-webhooks': { type: 'boolean' },
				'api-key': { type: 'string', multiple: true },
				quiet: { type: 'boolean' },
				help: { type: 'boolean' },
			},
		}));
	} catch (err) {
		throw new CliUsageError((err as Error).message);
	}
	if (values.help) return 'help';

	const insecureEnv = ['1', 'true', 'yes'].includes(
		(env.SANDBOX_ALLOW_INSECURE_WEBHOOKS ?? '').toLowerCase(),
	);
	const options: SandboxOptions = {
		port: intFlag('port', values.port ?? (env.SANDBOX_PORT || undefined)) ?? CLI_DEFAULT_PORT,
		host: values.host,
		envelope: values.envelope as SandboxOptions['envelope'],
		activeFlag: values['active-flag'] as SandboxOptions['activeFlag'],
		errorsShape: values['errors-shape'] as SandboxOptions['errorsShape'],
		storedFilename: values['stored-filename'] as SandboxOptions['storedFilename'],
		processingDelayMs: intFlag('processing-delay-ms', values['processing-delay-ms']),
		latencyMs: intFlag('latency-ms', values['latency-ms']),
		rateLimitPerHour: intFlag('rate-limit', values['rate-limit']),
		retryAfter: values['retry-after'],
		deliveryTimeoutMs: intFlag('delivery-timeout-ms', values['delivery-timeout-ms']),
		allowInsecureWebhookUrls: values['allow-insecure-webhooks'] || insecureEnv || undefined,
		extraApiKeys: values['api-key'],
	};
	if ((options.port ?? 0) > 65535) throw new CliUsageError('--port must be at most 65535');
	if ((options.extraApiKeys?.length ?? 0) > 4)
		throw new CliUsageError('--api-key: at most 4 extra keys (5 per account)');
	try {
		mergeOptions(DEFAULT_OPTIONS, options); // validates enum values early, with the option's name
	} catch (err) {
		throw new CliUsageError((err as Error).message);
	}
	return { options, quiet: values.quiet ?? false };
}

/** Start-up text: base URL, keys, settings and a ready-to-paste curl. */
export function banner(sandbox: Sandbox, options: SandboxOptions): string {
	const settings = describeOptions(
		mergeOptions(DEFAULT_OPTIONS, { ...options, port: sandbox.port }),
	);
	const keys = [DEFAULT_API_KEY, ...(options.extraApiKeys ?? [])];
	return [
		'Document Scanning API sandbox is running',
		`  Base URL:       ${sandbox.baseUrl}`,
		`  API keys:       ${keys.join(', ')}  (Business account, 2000 credits)`,
		`  No-Business key: ${NO_BUSINESS_API_KEY}  (answers 403)`,
		`  Control:        ${sandbox.origin}/__sandbox/...`,
		`  Settings:       ${JSON.stringify(settings)}`,
		'',
		`  curl -H 'Authorization: Bearer ${DEFAULT_API_KEY}' ${sandbox.baseUrl}/account`,
		'',
		'Press Ctrl+C to stop.',
	].join('\n');
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<void> {
	let parsed: ReturnType<typeof parseCli>;
	try {
		parsed = parseCli(argv, env);
	} catch (err) {
		process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
		process.exitCode = 2;
		return;
	}
	if (parsed === 'help') {
		process.stdout.write(USAGE);
		return;
	}
	const { options, quiet } = parsed;
	const log = quiet
		? undefined
		: (line: string): void => void process.stdout.write(`${new Date().toISOString()} ${line}\n`);
	const sandbox = await startSandbox({ ...options, log });
	process.stdout.write(`${banner(sandbox, options)}\n`);

	let stopping = false;
	const stop = (signal: NodeJS.Signals): void => {
		if (stopping) process.exit(1); // second signal: do not wait
		stopping = true;
		process.stdout.write(`\n${signal} received, stopping sandbox\n`);
		void sandbox.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

if (require.main === module) {
	main().catch((err: Error) => {
		process.stderr.write(`Sandbox failed to start: ${err.message}\n`);
		process.exit(1);
	});
}
