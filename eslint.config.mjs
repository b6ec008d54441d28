// The lint gate n8n applies before it verifies a community package: the exact flat config
// of @n8n/scan-community-package (community-nodes rules + eslint-plugin-n8n-nodes-base's
// community, credentials and nodes rule sets), over the files `n8n-node lint` covers.
import { buildScanConfig } from '@n8n/scan-community-package/scanner/scanner.mjs';

export default [
	{
		ignores: ['**/*', '!package.json', '!nodes/', '!nodes/**', '!credentials/', '!credentials/**'],
	},
	...(await buildScanConfig()),
];
