/**
 * Review of issues 32 §1 and 34 §5 where they meet: as a tool, a network error no longer tells the
 * model where the service is ("No internal address appears", test/node/tool.test.ts). A redirect
 * answer is refused by the transport's redirect rule with an error naming where it pointed
 * (origin and path), which is right for the workflow's builder, but as a tool that text goes to
 * the model: the address the service moved to, or the Base URL's own origin when a redirect on
 * the same origin is refused (more than 5 in a row, or a 301/302 of a POST or DELETE).
 */
import { callTool, type ToolPath } from '../support/tool-call';
import { runNode } from '../support/run-node';
import { useSandbox } from '../node/helpers';

const sb = useSandbox();
const PATHS: ToolPath[] = ['mcp', 'agent'];
const account = { resource: 'account', operation: 'get' };
const hostOf = (url: string) => new URL(url).host;

describe.each(PATHS)('%s', (path) => {
	test('a redirect to another origin: the model is told it failed, not where the service points', async () => {
		sb.get().control.addFault({ path: '^/account$', kind: 'redirect', status: 302, to: 'other' });
		const result = await callTool({ path, parameters: account, args: {}, env: sb.env() });
		expect(result.text).toMatch(/redirect/i);
		expect(result.text).not.toContain(hostOf(sb.get().otherOrigin));
	});

	test('more than 5 redirects on the Base URL’s origin: the Base URL’s host is not told to the model', async () => {
		sb.get().control.addFault({ path: '^/account$', kind: 'redirect', status: 307, times: 10 });
		const result = await callTool({ path, parameters: account, args: {}, env: sb.env() });
		expect(result.text).toMatch(/redirect/i);
		expect(result.text).not.toContain(hostOf(sb.get().baseUrl));
	});
});

test('the plain node names where the redirect pointed, for the builder', async () => {
	sb.get().control.addFault({ path: '^/account$', kind: 'redirect', status: 302, to: 'other' });
	const result = await runNode({ parameters: account, env: sb.env() });
	expect(result.error?.message).toContain(hostOf(sb.get().otherOrigin));
});
