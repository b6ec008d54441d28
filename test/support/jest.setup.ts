/**
 * n8n-core's SSH client manager (created by the engine for every execute context) keeps a
 * 60-second cleanup interval, which in a long-running n8n is harmless but would keep jest's
 * worker alive after a test file. Shut it down the way n8n does on exit.
 */
import { Container } from '@n8n/di';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';

afterAll(() => {
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
});
