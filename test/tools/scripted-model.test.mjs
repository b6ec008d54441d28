// node --test test/tools/ : the scripted model of the e2e's AI checks (tools/e2e/scripted-model.mjs)
// answers like an OpenAI-compatible chat model, streaming or not, and records what it received.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
	nextStep,
	parseScript,
	schemaRefusal,
	startScriptedModel,
	toolMessages,
	toolsOffered,
} from '../../tools/e2e/scripted-model.mjs';

const tool = (name) => ({
	type: 'function',
	function: { name, description: `${name} tool`, parameters: { type: 'object', properties: {} } },
});
/** Tools as the model reads them from a request (toolsOffered). */
const offered = (...names) => names.map((name) => tool(name).function);

test('parseScript: call lines form the first turn, then-call lines the next ones', () => {
	assert.deepEqual(
		parseScript('Hello\ncall A {}\ncall B {"id": 3}\nthen call C {"x": "y"}\nthen call D'),
		[
			[
				{ name: 'A', args: {} },
				{ name: 'B', args: { id: 3 } },
			],
			[{ name: 'C', args: { x: 'y' } }],
			[{ name: 'D', args: {} }],
		],
	);
	assert.deepEqual(parseScript('no script here'), []);
	assert.throws(() => parseScript('call A [1]'), /not a JSON object/);
});

test('nextStep: calls turn by turn, whether n8n returns a turn as one message or one per call', () => {
	const user = { role: 'user', content: 'call A {}\ncall B {}\nthen call C {}' };
	assert.deepEqual(nextStep([user], offered('A', 'B', 'C')), {
		calls: [
			{ name: 'A', args: {} },
			{ name: 'B', args: {} },
		],
	});
	const call = (id, name) => ({ id, type: 'function', function: { name, arguments: '{}' } });
	// One assistant message per call (n8n's AI Agent 3 rebuilds its steps that way).
	const split = [
		user,
		{ role: 'assistant', content: '', tool_calls: [call('1', 'A')] },
		{ role: 'tool', tool_call_id: '1', content: '"a"' },
		{ role: 'assistant', content: '', tool_calls: [call('2', 'B')] },
		{ role: 'tool', tool_call_id: '2', content: '"b"' },
	];
	assert.deepEqual(nextStep(split, offered('A', 'B', 'C')), { calls: [{ name: 'C', args: {} }] });
	const done = [
		...split,
		{ role: 'assistant', content: '', tool_calls: [call('3', 'C')] },
		{ role: 'tool', tool_call_id: '3', content: '[{"error":"x"}]' },
	];
	assert.deepEqual(nextStep(done, offered('A', 'B', 'C')), {
		text: 'Scripted answer.\nA: "a"\nB: "b"\nC: [{"error":"x"}]',
	});
	assert.match(nextStep([user], offered('A')).text, /Not offered: B\. Offered tools: A\./);
	assert.equal(
		nextStep([{ role: 'user', content: 'hi' }], []).text,
		'Scripted answer. No call in the message.',
	);
});

test('nextStep: the model finds a tool by what its description says', () => {
	const tools = [
		{ name: 'Read_scan', description: 'Reads one scan by its ID. Uses no scan credit.' },
		{ name: 'Balance', description: 'Reads the scan credit balance. Uses no scan credit.' },
	];
	const ask = (content) => nextStep([{ role: 'user', content }], tools);
	assert.deepEqual(ask('call "one scan by its id" {}'), {
		calls: [{ name: 'Read_scan', args: {} }],
	});
	assert.match(
		ask('call "webhook" {}').text,
		/No tool's description mentions "webhook"\. Offered tools: Read_scan, Balance\./,
	);
	assert.match(
		ask('call "no scan credit" {}').text,
		/Several tools' descriptions mention "no scan credit": Read_scan, Balance/,
	);
});

test('nextStep: the model calls a tool only with arguments its schema accepts', () => {
	const readScan = {
		name: 'Read_scan',
		description: 'Reads one scan',
		parameters: {
			type: 'object',
			properties: { scanId: { type: 'number' } },
			required: ['scanId'],
			additionalProperties: false,
		},
	};
	const ask = (content) => nextStep([{ role: 'user', content }], [readScan]);
	assert.deepEqual(ask('call Read_scan {"scanId": 7}'), {
		calls: [{ name: 'Read_scan', args: { scanId: 7 } }],
	});
	assert.match(ask('call Read_scan {"scanId": "7"}').text, /scanId must be number, not string/);
	assert.match(ask('call Read_scan {}').text, /scanId is missing/);
	assert.match(ask('call Read_scan {"scanId": 7, "id": 1}').text, /id is not a parameter/);
	assert.equal(
		schemaRefusal({ name: 'T', parameters: { properties: { n: { type: 'integer' } } } }, { n: 3 }),
		undefined,
	);
});

test('the server answers tool calls and the final text, as one object or as a stream, and records requests', async () => {
	const model = await startScriptedModel();
	try {
		const ask = (body) =>
			fetch(`${model.baseUrl}/chat/completions`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
				body: JSON.stringify(body),
			});
		const messages = [{ role: 'user', content: 'call Balance {}' }];
		const first = await (await ask({ model: 'm', messages, tools: [tool('Balance')] })).json();
		assert.equal(first.choices[0].finish_reason, 'tool_calls');
		const [toolCall] = first.choices[0].message.tool_calls;
		assert.deepEqual(toolCall.function, { name: 'Balance', arguments: '{}' });

		const followUp = [
			...messages,
			{ role: 'assistant', content: null, tool_calls: [toolCall] },
			{ role: 'tool', tool_call_id: toolCall.id, content: '[{"remaining_scans":7}]' },
		];
		const streamed = await (
			await ask({
				model: 'm',
				messages: followUp,
				tools: [tool('Balance')],
				stream: true,
				stream_options: { include_usage: true },
			})
		).text();
		const chunks = streamed
			.split('\n\n')
			.filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
			.map((l) => JSON.parse(l.slice(6)));
		assert.equal(
			chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''),
			'Scripted answer.\nBalance: [{"remaining_scans":7}]',
		);
		assert.ok(chunks.some((c) => c.usage));
		assert.ok(streamed.trimEnd().endsWith('data: [DONE]'));

		assert.equal(model.requests.length, 2);
		assert.deepEqual(
			model.requests.map((r) => [r.stream, r.authorization]),
			[
				[false, 'Bearer sk-test'],
				[true, 'Bearer sk-test'],
			],
		);
		assert.deepEqual(toolsOffered(model.requests[0])[0].name, 'Balance');
		assert.deepEqual(toolMessages(model.requests[1]), [
			{ name: 'Balance', content: '[{"remaining_scans":7}]' },
		]);
		const models = await (await fetch(`${model.baseUrl}/models`)).json();
		assert.equal(models.data[0].id, 'scripted-model');
	} finally {
		await model.close();
	}
});
