/** The rule "the url must be a publicly reachable HTTPS address", with an escape hatch for local work. */
import { isIP } from 'node:net';

function ipv4Private(ip: string): boolean {
	const [a, b] = ip.split('.').map(Number);
	return (
		a === 0 || // "this" network
		a === 10 ||
		a === 127 ||
		(a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
		(a === 169 && b === 254) || // link-local
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168)
	);
}

function ipv6Private(ip: string): boolean {
	const lower = ip.toLowerCase();
	const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
	if (mapped) return ipv4Private(mapped[1]);
	if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(lower)) return true; // mapped IPv4 in hex form: refuse
	return (
		lower === '::' ||
		lower === '::1' ||
		/^f[cd][0-9a-f]{2}:/.test(lower) || // fc00::/7 unique local
		/^fe[89ab][0-9a-f]:/.test(lower) // fe80::/10 link-local
	);
}

/** Why the host is not public, or undefined when it is. */
function nonPublicHost(hostname: string): string | undefined {
	const host = hostname
		.replace(/^\[|\]$/g, '')
		.replace(/\.$/, '')
		.toLowerCase();
	const ipVersion = isIP(host);
	if (ipVersion === 4) return ipv4Private(host) ? 'a loopback or private IP address' : undefined;
	if (ipVersion === 6) return ipv6Private(host) ? 'a loopback or private IP address' : undefined;
	if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost';
	if (host.endsWith('.local') || host.endsWith('.internal')) return 'a local network name';
	if (!host.includes('.')) return 'a host name without a domain';
	return undefined;
}

/** Error message for the `url` field, or undefined when the url is acceptable. */
export function webhookUrlProblem(raw: string, allowInsecure: boolean): string | undefined {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return 'The url must be a valid absolute URL.';
	}
	if (allowInsecure) {
		return url.protocol === 'https:' || url.protocol === 'http:'
			? undefined
			: 'The url must use http or https.';
	}
	if (url.protocol !== 'https:') return 'The url must use https.';
	const reason = nonPublicHost(url.hostname);
	return reason ? `The url must be publicly reachable; its host is ${reason}.` : undefined;
}
