// node --test test/tools/ : the e2e's checks of a model's tools (tools/e2e/checks/tool-checks.mjs)
// fail when the thing each is named for breaks (#34 §6): each is given a good answer, then the
// same answer broken once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
	agentFailure,
	boundProblems,
	failureProblems,
	listedStatuses,
	listProblems,
	schemaProblems,
	secretProblems,
	unkeptPromises,
} from '../../tools/e2e/checks/tool-checks.mjs';

const scans = [
	{ scan_id: 2, status: 'completed', original_filename: 'b.pdf', supplier_name: 'Atlas' },
	{ scan_id: 1, status: 'failed', original_filename: 'a.pdf', error_message: 'unreadable' },
];

test('listProblems: an empty list, an error item or a wrong entry is no answer', () => {
	assert.deepEqual(
		listProblems(scans, { each: (s) => (s.scan_id ? undefined : 'no scan_id') }),
		[],
	);
	assert.deepEqual(listProblems([]), ['0 entries, at least 1 expected']);
	assert.match(listProblems([{ error: 'Not found' }])[0], /entry 0 is an error: Not found/);
	assert.deepEqual(listProblems([{}], { each: (s) => (s.scan_id ? undefined : 'no scan_id') }), [
		'entry 0: no scan_id',
	]);
	assert.match(listProblems({ error: 'x' })[0], /not a list/);
});

test('schemaProblems: a wrong, optional or defaulted parameter', () => {
	const tool = {
		name: 'Read_scan',
		parameters: {
			type: 'object',
			properties: { scanId: { type: 'number' } },
			required: ['scanId'],
		},
	};
	assert.deepEqual(schemaProblems(tool, { scanId: 'number' }), []);
	const wrongType = structuredClone(tool);
	wrongType.parameters.properties.scanId.type = 'string';
	assert.deepEqual(schemaProblems(wrongType, { scanId: 'number' }), [
		'Read_scan takes {"scanId":"string"}, not {"scanId":"number"}',
	]);
	const optional = { ...tool, parameters: { ...tool.parameters, required: [] } };
	assert.deepEqual(schemaProblems(optional), ['Read_scan.scanId is optional']);
	const defaulted = structuredClone(tool);
	defaulted.parameters.properties.scanId.default = 1;
	assert.deepEqual(schemaProblems(defaulted), ['Read_scan.scanId has a default']);
	assert.match(
		schemaProblems(tool, { scanId: 'number', limit: 'number' })[0],
		/not \{"scanId":"number","limit":"number"\}/,
	);
});

test('unkeptPromises: a description promising a field the answer lacks', () => {
	const description =
		'Lists scans: scan_id, status (uploaded, processing, completed, validation_failed or failed), original_filename, and error_message if it failed.';
	assert.deepEqual(unkeptPromises(description, [scans]), []);
	assert.deepEqual(listedStatuses(description), [
		'completed',
		'failed',
		'processing',
		'uploaded',
		'validation_failed',
	]);
	assert.deepEqual(unkeptPromises(`${description} Also due_date.`, [scans]), [
		'promises due_date, which no answer has',
	]);
	assert.deepEqual(unkeptPromises(description, [[scans[0]]]), [
		'promises error_message, which no answer has',
	]);
});

test('secretProblems: a signing secret or a URL query in an answer', () => {
	const webhook = { id: 1, name: 'Hook', url: 'https://hooks.example.com/h', withheld: ['secret'] };
	assert.deepEqual(secretProblems(JSON.stringify([webhook])), []);
	assert.deepEqual(secretProblems(JSON.stringify([{ ...webhook, secret: 'whsec_0a1b2c' }])), [
		'a signing secret (whsec_…)',
	]);
	assert.deepEqual(secretProblems('{"secret":"s3cr3t-value"}', ['s3cr3t-value']), [
		'the secret s3cr3t-v…',
	]);
	assert.deepEqual(
		secretProblems(JSON.stringify([{ ...webhook, url: 'https://n8n.example/webhook/x?seal=abc' }])),
		['a URL with its query: https://n8n.example/webhook/x?seal=abc'],
	);
});

test('failureProblems: an error reported as success, without its wording, or naming the service', () => {
	const failed = {
		isError: true,
		content: [
			{ type: 'text', text: 'Error: Not found: Scan 9 not found.\n\nDetails: Check the ID.' },
		],
	};
	assert.deepEqual(
		failureProblems(failed, /Not found.*Check the ID/s, ['http://127.0.0.1:4010']),
		[],
	);
	assert.deepEqual(failureProblems({ ...failed, isError: false }, /Not found/), [
		'the failure is reported as success',
	]);
	const answered = {
		content: [
			{
				type: 'text',
				text: '[{"error":"Not found: Scan 9 not found.","description":"Check the ID."}]',
			},
		],
	};
	assert.deepEqual(failureProblems(answered, /Not found/), ['the failure is reported as success']);
	const leaky = {
		isError: true,
		content: [
			{ text: 'Could not reach the Document Scanning API at http://127.0.0.1:4010 (item 0)' },
		],
	};
	assert.deepEqual(failureProblems(leaky, /Could not reach/, ['http://127.0.0.1:4010']), [
		'the text names http://127.0.0.1:4010',
		'the text names a batch item',
	]);
	assert.deepEqual(
		failureProblems(agentFailure(answered.content[0].text), /Not found.*Check the ID/s),
		[],
	);
	assert.deepEqual(failureProblems(agentFailure('[{"scan_id":9}]'), /Not found/), [
		'the failure is reported as success',
		'the text lacks /Not found/: [{"scan_id":9}]',
	]);
});

test('boundProblems: an answer above the bound, or a cut that does not say what it left out', () => {
	const cut = JSON.stringify([{ ...scans[0], note: 'Lorem… (9000 more characters not shown)' }]);
	assert.deepEqual(boundProblems(cut), []);
	assert.deepEqual(boundProblems(JSON.stringify([{ not_shown: { results: 3 } }])), []);
	assert.match(boundProblems('x'.repeat(20_001))[0], /20001 characters, above 20000/);
	assert.match(boundProblems(JSON.stringify(scans))[0], /nothing says what was left out/);
});

test('unkeptPromises: the note on the answer’s bound promises nothing of its own', () => {
	const note =
		' Answers stop at 20,000 characters: texts, lists, results cut, not_shown says what.';
	assert.deepEqual(unkeptPromises(`Returns scan_id.${note}`, [scans]), []);
});
