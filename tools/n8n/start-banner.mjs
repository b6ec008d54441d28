// The banner `npm start` prints once n8n answers (tools/n8n/start.mjs); test/tools/start-banner.test.mjs.
import path from 'node:path';

/**
 * The banner's lines. `workflows` are the imported examples' names (all inactive: import makes them
 * so), `invoices` the sample PDFs' file names.
 */
export function startBanner({
	version,
	otherVersion,
	readySeconds,
	n8nUrl,
	owner,
	workflows,
	credential,
	sandboxBaseUrl,
	apiKey,
	invoices,
	invoicesDir,
	root,
}) {
	const ownerLine = owner.skipped
		? '  Owner:     first open asks you to create the owner account'
		: `  Log in:    ${owner.email} / ${owner.password}  (${owner.created ? 'owner account created now' : 'the owner account npm start created on the first run'}; local only)`;
	return [
		'',
		'==================================================================',
		` n8n ${version} is running with n8n-nodes-document-scanning loaded (ready in ${readySeconds} s)`,
		`  Open:      ${n8nUrl}`,
		ownerLine,
		`  Workflows: the examples, all inactive and reset to examples/ at every start:`,
		...workflows.map((name) => `             - ${name}`),
		`  Credential "${credential.name}" (id ${credential.id}) -> ${sandboxBaseUrl}`,
		`  Files:     ${invoices.length} sample invoices in ${path.relative(root, invoicesDir)}/ (read by "Invoices → line items → ERP")`,
		`  n8n ${otherVersion.split('.')[0]}.x:   the nodes work on n8n ${version.split('.')[0]}.x and ${otherVersion.split('.')[0]}.x; to try ${otherVersion.split('.')[0]}.x instead: npm start -- --n8n ${otherVersion}`,
		` Document Scanning API sandbox`,
		`  Base URL:  ${sandboxBaseUrl}`,
		`  API key:   ${apiKey}`,
		'  Data:      a PDF with plain text, like the sample invoices, gives what it says;',
		'             any other file gives invented data',
		' Ctrl+C stops both.',
		'==================================================================',
		'',
	];
}
