// Ports of the queue-mode e2e. By default each is picked free by the system (a free loopback
// port); QUEUE_E2E_PORTS=<from>-<to> keeps every port the run opens (PostgreSQL, Redis, each n8n
// process and each process's task broker) inside that block, for machines where several runs
// share one host and each has a block of its own.
import { freePort, portIsFree } from '../../n8n/local.mjs';

/** The block from QUEUE_E2E_PORTS, or undefined. Throws on a malformed value. */
export function portBlock(value = process.env.QUEUE_E2E_PORTS) {
	if (!value) return undefined;
	const m = /^(\d+)-(\d+)$/.exec(value.trim());
	const from = Number(m?.[1]);
	const to = Number(m?.[2]);
	if (!m || from < 1024 || to > 65535 || from > to)
		throw new Error(`QUEUE_E2E_PORTS="${value}": expected <from>-<to>, e.g. 26000-26999`);
	return { from, to };
}

/**
 * A port allocator for one run: never hands out the same port twice, and checks each one can be
 * bound now. With no block it asks the system for a free port.
 */
export function portAllocator(block = portBlock()) {
	const given = new Set();
	let next = block?.from;
	return async function nextPort() {
		if (!block) {
			for (;;) {
				const port = await freePort();
				if (!given.has(port)) {
					given.add(port);
					return port;
				}
			}
		}
		for (; next <= block.to; next++) {
			const port = next;
			if (given.has(port) || !(await portIsFree(port))) continue;
			given.add(port);
			next++;
			return port;
		}
		throw new Error(`no free port left in QUEUE_E2E_PORTS ${block.from}-${block.to}`);
	};
}
