import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { CLI_DEFAULT_PORT, CliUsageError, parseCli } from '../../sandbox/cli';

describe('parseCli', () => {
	it('defaults to port 8787, or SANDBOX_PORT', () => {
		expect(parseCli([], {})).toEqual({
			options: expect.objectContaining({ port: CLI_DEFAULT_PORT }),
			quiet: false,
		});
		expect(parseCli([], { SANDBOX_PORT: '9000' })).toMatchObject({ options: { port: 9000 } });
		expect(parseCli(['--port', '0'], { SANDBOX_PORT: '9000' })).toMatchObject({
			options: { port: 0 },
		});
	});

	it('maps every flag to its option', () => {
		const parsed = parseCli(
			[
				'--host',
				'0.0.0.0',
				'--envelope',
				'bare',
				'--active-flag',
				'status',
				'--errors-shape',
				'list',
				'--processing-delay-ms',
				'50',
				'--rate-limit',
				'7',
				'--retry-after',
				'--delivery-timeout-ms',
				'2000',
				'--allow-insecure-webhooks',
				'--api-key',
				'k1',
				'--api-key',
				'k2',
				'--quiet',
			],
			{},
		);
		expect(parsed).toEqual({
			quiet: true,
			options: {
				port: CLI_DEFAULT_PORT,
				host: '0.0.0.0',
				envelope: 'bare',
				activeFlag: 'status',
				errorsShape: 'list',
				processingDelayMs: 50,
				rateLimitPerHour: 7,
				retryAfter: true,
				deliveryTimeoutMs: 2000,
				allowInsecureWebhookUrls: true,
				extraApiKeys: ['k1', 'k2'],
			},
		});
	});

	it('reads SANDBOX_ALLOW_INSECURE_WEBHOOKS=1', () => {
		expect(parseCli([], { SANDBOX_ALLOW_INSECURE_WEBHOOKS: '1' })).toMatchObject({
			options: { allowInsecureWebhookUrls: true },
		});
		expect(parseCli([], { SANDBOX_ALLOW_INSECURE_WEBHOOKS: '0' })).toMatchObject({
			options: { allowInsecureWebhookUrls: undefined },
		});
	});

	it.each([
		[['--envelope', 'xml']],
		[['--port', 'abc']],
		[['--port', '70000']],
		[['--rate-limit', '-1']],
		[['--unknown']],
		[['--api-key', 'a', '--api-key', 'b', '--api-key', 'c', '--api-key', 'd', '--api-key', 'e']],
	])('refuses %j', (argv) => {
		expect(() => parseCli(argv, {})).toThrow(CliUsageError);
	});

	it('recognises --help', () => {
		expect(parseCli(['--help'], {})).toBe('help');
	});
});

describe('npm run sandbox (ts-node --transpile-only sandbox/cli.ts)', () => {
	let child: ChildProcess | undefined;
	afterAll(() => child?.kill('SIGKILL'));

	it('prints the base URL, keys and a curl line, serves the API and stops cleanly on SIGTERM', async () => {
		const root = path.resolve(__dirname, '../..');
		child = spawn(
			process.execPath,
			[
				require.resolve('ts-node/dist/bin.js'),
				'--transpile-only',
				'sandbox/cli.ts',
				'--port',
				'0',
				'--api-key',
				'sk_extra',
			],
			{
				cwd: root,
				env: { ...process.env, SANDBOX_PORT: '' },
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		let output = '';
		child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		const exited = new Promise<number | null>((resolve) =>
			child?.on('exit', (code) => resolve(code)),
		);

		const deadline = Date.now() + 15000;
		while (!/Press Ctrl\+C/.test(output) && Date.now() < deadline)
			await new Promise((r) => setTimeout(r, 25));
		const baseUrl = /Base URL:\s+(\S+)/.exec(output)?.[1];
		expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
		expect(output).toContain(
			`curl -H 'Authorization: Bearer sk_test_sandbox_key' ${baseUrl}/account`,
		);
		expect(output).toContain('sk_extra');

		const res = await fetch(`${baseUrl}/account`, {
			headers: { Authorization: 'Bearer sk_extra' },
		});
		expect(res.status).toBe(200);
		// The log line comes through the child's stdout, some time after the answer.
		const logged = /GET \/api\/v1\/account -> 200 \d+ms auth=bearer/;
		const logDeadline = Date.now() + 15000;
		while (!logged.test(output) && Date.now() < logDeadline)
			await new Promise((r) => setTimeout(r, 25));
		expect(output).toMatch(logged);

		child.kill('SIGTERM');
		expect(await exited).toBe(0);
		expect(output).toContain('SIGTERM received');
	}, 40000);
});
