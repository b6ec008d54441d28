// e2e check of n8n's editor in a real browser (issue #9, "The editor, in a real browser").
//
// Drives the running n8n's editor with playwright-core and Debian's Chromium (headless):
// - logs in as the owner through the sign-in form;
// - opens every example workflow (examples/*.json) and, in each, the package's nodes;
// - the node icons render: the light SVG in a light browser, the dark SVG in a dark one
//   (prefers-color-scheme), each loaded with a natural size > 0;
// - the Resource and Operation lists hold every option of the node's description (dist/);
// - the Template list (resource locator, "From list") shows the sandbox's templates;
// - the trigger's notice about the public address shows, and the poll trigger's notice;
// - no node issue indicator on the canvas and no parameter issue in the node view, on any
//   example; a control workflow with a missing required parameter proves the detector sees one;
// - screenshots into a temp folder, docs/images/ with --screenshots (or $E2E_SCREENSHOTS_DIR): workflow-canvas.png,
//   upload-operation.png, trigger.png, review-workflow.png.
// Every wait is on an element or an event (Playwright's auto-waiting), never a fixed sleep.
//
// Usage: await checkEditor({ n8nUrl, owner, sandboxBaseUrl, apiKey, executablePath, check, log })
//   check(name, ok, detail) records one PASS/FAIL line (the e2e runner's function);
//   executablePath: the Chromium binary (findChromium() gives `which chromium`).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../../constants.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ACTION = `${PACKAGE_NAME}.documentScanning`;
const TRIGGER = `${PACKAGE_NAME}.documentScanningTrigger`;
const POLL_TRIGGER = `${PACKAGE_NAME}.documentScanningPollTrigger`;
const VIEWPORT = { width: 1280, height: 800 };
const TIMEOUT_MS = 30_000;
/** Options n8n itself adds to a node's Resource/Operation lists (not in the description). */
const N8N_ADDED_OPTIONS = new Set(['Custom API Call']);

/** The Chromium binary `which chromium` finds, or undefined. */
export function findChromium() {
	const r = spawnSync('which', ['chromium'], { encoding: 'utf8' });
	const found = r.status === 0 ? r.stdout.trim() : '';
	return found || undefined;
}

/** The package's node descriptions as built in dist/, by full node type. */
function packageDescriptions() {
	const require = createRequire(path.join(ROOT, 'package.json'));
	const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const byType = new Map();
	for (const file of pkg.n8n.nodes) {
		for (const NodeClass of Object.values(require(path.join(ROOT, file)))) {
			if (typeof NodeClass !== 'function') continue;
			const { description } = new NodeClass();
			if (description?.name) byType.set(`${PACKAGE_NAME}.${description.name}`, description);
		}
	}
	return byType;
}

function examples() {
	const dir = path.join(ROOT, 'examples');
	return readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => {
			const workflow = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
			// Sticky notes are drawn on the canvas, but not as canvas nodes.
			const nodes = workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
			return { file, ...workflow, nodes };
		});
}

const iconFile = (icon) =>
	String(icon)
		.replace(/^file:/, '')
		.split('/')
		.pop();
const firstLine = (text) => text.split('\n')[0].trim();
const sameSet = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** Compares a list shown by n8n with the description's: all there, nothing extra but n8n's own. */
function compareOptions(shown, expected) {
	const missing = expected.filter((name) => !shown.includes(name));
	const extra = shown.filter((name) => !expected.includes(name));
	const unexpected = extra.filter((name) => !N8N_ADDED_OPTIONS.has(name));
	const ok = missing.length === 0 && unexpected.length === 0;
	const detail = [
		shown.join(', '),
		missing.length ? `missing: ${missing.join(', ')}` : '',
		unexpected.length ? `unexpected: ${unexpected.join(', ')}` : '',
	]
		.filter(Boolean)
		.join('; ');
	return { ok, detail };
}

// ---- page helpers -------------------------------------------------------------------------

/** @param {any} page @param {{ type?: string, name?: string }} which */
const canvasNode = (page, { type, name }) =>
	page.locator(
		`[data-test-id="canvas-node"]${type ? `[data-node-type="${type}"]` : ''}${name ? `[data-node-name="${name}"]` : ''}`,
	);

/** n8n's REST API from inside the logged-in page (its cookie is bound to the browser id). */
async function browserRest(page, method, pathname, body) {
	return await page.evaluate(
		async ({ method, pathname, body }) => {
			const res = await fetch(`/rest/${pathname}`, {
				method,
				headers: {
					'content-type': 'application/json',
					'browser-id': globalThis.localStorage.getItem('n8n-browserId') ?? '',
				},
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			const text = await res.text();
			let json;
			try {
				json = JSON.parse(text);
			} catch {
				json = text;
			}
			return { status: res.status, ok: res.ok, body: json };
		},
		{ method, pathname, body },
	);
}

async function signIn(page, n8nUrl, owner) {
	await page.goto(new URL('signin', n8nUrl).href);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(owner.email);
	await page.getByTestId('password').locator('input').fill(owner.password);
	await page.getByTestId('form-submit-button').click();
	const failed = page.locator('.el-notification').first();
	const outcome = await Promise.race([
		page.waitForURL((url) => !url.pathname.endsWith('/signin')).then(() => 'in'),
		failed.waitFor().then(() => 'toast'),
	]);
	if (outcome === 'toast')
		throw new Error(`sign-in refused: ${(await failed.innerText()).replace(/\s+/g, ' ')}`);
}

/** Opens a workflow and waits until every one of its nodes is on the canvas. */
async function openWorkflow(page, n8nUrl, id, nodeCount) {
	await page.goto(new URL(`workflow/${id}`, n8nUrl).href);
	await page.getByTestId('canvas-node').first().waitFor();
	await page.waitForFunction(
		(n) => globalThis.document.querySelectorAll('[data-test-id="canvas-node"]').length >= n,
		nodeCount,
		{
			timeout: TIMEOUT_MS,
		},
	);
}

/** The node's icon image once it has loaded (or failed to): its file and natural size. */
async function iconOf(nodeLocator) {
	const img = nodeLocator.locator('img').first();
	await img.waitFor();
	return await img.evaluate(
		(el) =>
			new Promise((resolve) => {
				const done = () =>
					resolve({
						src: el.getAttribute('src') ?? '',
						width: el.naturalWidth,
						height: el.naturalHeight,
					});
				if (el.complete) done();
				else {
					el.addEventListener('load', done, { once: true });
					el.addEventListener('error', done, { once: true });
				}
			}),
	);
}

async function openNodeView(page, nodeLocator) {
	await nodeLocator.dblclick();
	const ndv = page.getByTestId('ndv');
	await ndv.waitFor();
	await ndv.getByTestId('node-parameters').waitFor();
	return ndv;
}

async function closeNodeView(page) {
	const back = page.getByTestId('back-to-canvas');
	if (await back.isVisible()) await back.click();
	else await page.keyboard.press('Escape');
	await page.getByTestId('ndv').waitFor({ state: 'hidden' });
}

/** The options of a dropdown parameter (first line of each: the name, not the description). */
async function dropdownOptions(page, parameterName) {
	await page.getByTestId(`parameter-input-${parameterName}`).click();
	const options = page.getByRole('option');
	await options.first().waitFor();
	const names = (await options.allInnerTexts()).map(firstLine);
	await page.keyboard.press('Escape');
	await options.first().waitFor({ state: 'hidden' });
	return names;
}

async function chooseOption(page, parameterName, optionName) {
	await page.getByTestId(`parameter-input-${parameterName}`).click();
	await page
		.getByRole('option')
		.filter({ has: page.getByText(optionName, { exact: true }) })
		.first()
		.click();
	await page.getByRole('option').first().waitFor({ state: 'hidden' });
}

/** A screenshot for the README: animations finished, no tooltip from where the mouse was. */
async function screenshot(page, file) {
	await page.mouse.move(VIEWPORT.width - 2, 2);
	await page.screenshot({ path: file, animations: 'disabled' });
}

// ---- the checks ---------------------------------------------------------------------------

export async function checkEditor({
	n8nUrl,
	owner,
	sandboxBaseUrl,
	apiKey,
	executablePath,
	check,
	log = console.log,
}) {
	const started = Date.now();
	// docs/images/ only when asked (E2E_SCREENSHOTS_DIR=docs/images, or --screenshots): the bytes differ on
	// every run, and a test run must not leave the work tree changed.
	const imagesDir = process.env.E2E_SCREENSHOTS_DIR
		? path.resolve(process.env.E2E_SCREENSHOTS_DIR)
		: process.argv.includes('--screenshots')
			? path.join(ROOT, 'docs', 'images')
			: path.join(tmpdir(), 'n8n-nodes-document-scanning-screenshots');
	mkdirSync(imagesDir, { recursive: true });
	const descriptions = packageDescriptions();
	const workflows = examples();

	let playwright;
	try {
		playwright = await import('playwright-core');
	} catch (err) {
		check('editor: playwright-core loads', false, err.message);
		return;
	}
	playwright.selectors.setTestIdAttribute('data-test-id');

	let browser;
	let browserHome;
	try {
		// Chromium keeps config, caches and an NSS database under HOME / XDG folders: point them at a
		// temp folder so the e2e writes nothing into the user's home.
		browserHome = mkdtempSync(path.join(tmpdir(), 'docscan-chromium-'));
		browser = await playwright.chromium.launch({
			executablePath,
			headless: true,
			args: ['--no-sandbox'],
			env: {
				...process.env,
				HOME: browserHome,
				XDG_CONFIG_HOME: path.join(browserHome, 'config'),
				XDG_CACHE_HOME: path.join(browserHome, 'cache'),
				XDG_DATA_HOME: path.join(browserHome, 'data'),
			},
		});
	} catch (err) {
		check('editor: Chromium starts (headless)', false, err.message.split('\n')[0]);
		return;
	}
	try {
		const light = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
		light.setDefaultTimeout(TIMEOUT_MS);
		const page = await light.newPage();
		try {
			await signIn(page, n8nUrl, owner);
			check(
				'editor: the owner logs in through the sign-in form',
				true,
				`${executablePath}, ${new URL(page.url()).pathname}`,
			);
		} catch (err) {
			check(
				'editor: the owner logs in through the sign-in form',
				false,
				err.message.split('\n')[0],
			);
			return;
		}

		const listed = await browserRest(page, 'GET', 'workflows');
		const idByName = new Map((listed.body?.data ?? []).map((w) => [w.name, w.id]));
		const templates = await sandboxTemplates(sandboxBaseUrl, apiKey);
		const ctx = { page, n8nUrl, descriptions, templates, imagesDir, check, log };

		for (const workflow of workflows) {
			const id = idByName.get(workflow.name);
			if (
				!check(
					`editor: example "${workflow.name}" is in n8n`,
					Boolean(id),
					id ?? `not among ${[...idByName.keys()].join(', ')}`,
				)
			)
				continue;
			try {
				await checkWorkflow(ctx, workflow, id);
			} catch (err) {
				const shot = path.join(
					tmpdir(),
					`n8n-editor-failure-${workflow.file.replace(/\.json$/, '')}.png`,
				);
				await page.screenshot({ path: shot }).catch(() => {});
				check(
					`editor: example "${workflow.name}" could be checked`,
					false,
					`${err.message.split('\n')[0]} (screenshot: ${shot})`,
				);
			}
		}
		await checkIssueDetector(ctx).catch((err) =>
			check(
				'editor: control: a node with a missing required parameter shows the issue indicators',
				false,
				err.message.split('\n')[0],
			),
		);
		await page.close();

		// Dark theme: n8n follows the browser's colour scheme; the session carries over.
		const dark = await browser.newContext({
			viewport: VIEWPORT,
			colorScheme: 'dark',
			storageState: await light.storageState(),
		});
		dark.setDefaultTimeout(TIMEOUT_MS);
		try {
			await checkDarkIcons({ ...ctx, page: await dark.newPage() }, workflows, idByName);
		} catch (err) {
			check('editor: the dark icons render in a dark browser', false, err.message.split('\n')[0]);
		}
	} finally {
		await browser.close();
		rmSync(browserHome, { recursive: true, force: true });
		log(`editor checks: ${((Date.now() - started) / 1000).toFixed(1)} s`);
	}
}

async function sandboxTemplates(sandboxBaseUrl, apiKey) {
	const res = await fetch(`${sandboxBaseUrl}/templates?per_page=100`, {
		headers: { authorization: `Bearer ${apiKey}` },
	});
	const body = await res.json();
	const list = body && typeof body === 'object' && 'data' in body ? body.data : body;
	return (Array.isArray(list) ? list : []).map(
		(t) => `${t.name}${t.extraction_mode ? ` (${t.extraction_mode})` : ''}`,
	);
}

/** One example: canvas, icons, the package's nodes in the node view, no issues; screenshots. */
async function checkWorkflow(ctx, workflow, id) {
	const { page, n8nUrl, descriptions, check } = ctx;
	const label = `"${workflow.name}"`;
	await openWorkflow(page, n8nUrl, id, workflow.nodes.length);
	const shown = await page
		.getByTestId('canvas-node')
		.evaluateAll((els) => els.map((e) => e.getAttribute('data-node-name')));
	check(
		`editor: ${label} shows all its nodes on the canvas`,
		sameSet(
			shown,
			workflow.nodes.map((n) => n.name),
		),
		shown.join(', '),
	);

	const ours = workflow.nodes.filter((n) => descriptions.has(n.type));
	const upload = ours.find((n) => n.type === ACTION && n.parameters.operation === 'upload');
	for (const node of ours) {
		const icon = await iconOf(canvasNode(page, { name: node.name }));
		const want = iconFile(descriptions.get(node.type).icon.light);
		check(
			`editor: ${label}: the light icon of "${node.name}" renders`,
			icon.src.endsWith(`/${want}`) && icon.width > 0 && icon.height > 0,
			`${icon.src} ${icon.width}x${icon.height}`,
		);
	}
	// The canvas as opened (icons loaded, nothing selected yet): the README's first workflow.
	if (workflow.file === 'first-scan.json')
		await screenshot(page, path.join(ctx.imagesDir, 'workflow-canvas.png'));
	// The README's "A person in the loop".
	if (workflow.file === 'scans-to-erp-with-review.json')
		await screenshot(page, path.join(ctx.imagesDir, 'review-workflow.png'));

	for (const node of ours) {
		const ndv = await openNodeView(page, canvasNode(page, { name: node.name }));
		const issues = await ndv.getByTestId('parameter-issues').count();
		check(
			`editor: ${label}: "${node.name}" shows no parameter issues`,
			issues === 0,
			`${issues} parameter issue indicator(s)`,
		);
		if (node.type === TRIGGER || node.type === POLL_TRIGGER)
			await checkNotice(ctx, label, node, ndv);
		if (node.type === TRIGGER) await screenshot(page, path.join(ctx.imagesDir, 'trigger.png'));
		await closeNodeView(page);
	}

	// A credential named "(replace me)" is the example's placeholder for the user's own (e.g. the
	// chat model of ask-about-your-scans.json): its node rightly shows the missing credential.
	const placeholders = workflow.nodes
		.filter((n) =>
			Object.values(n.credentials ?? {}).some((c) => /\(replace me\)/.test(c?.name ?? '')),
		)
		.map((n) => n.name);
	const nodeIssues = await page
		.getByTestId('canvas-node')
		.evaluateAll(
			(els, skip) =>
				els.filter(
					(e) =>
						!skip.includes(e.getAttribute('data-node-name')) &&
						e.querySelector('[data-test-id="node-issues"]'),
				).length,
			placeholders,
		);
	check(
		`editor: ${label}: no node on the canvas shows an issue indicator${placeholders.length ? ` (placeholder credentials aside: ${placeholders.join(', ')})` : ''}`,
		nodeIssues === 0,
		`${nodeIssues} node issue indicator(s)`,
	);

	if (upload) {
		// These change the node in the editor (never saved): the template list, then every resource.
		const ndv = await openNodeView(page, canvasNode(page, { name: upload.name }));
		await checkTemplateList(ctx, label, ndv);
		await checkResourcesAndOperations(ctx, label, upload);
	}
}

async function checkNotice(ctx, label, node, ndv) {
	const { check } = ctx;
	const description = ctx.descriptions.get(node.type);
	const notices = description.properties.filter((p) => p.type === 'notice');
	for (const notice of notices) {
		const shown = ndv.getByTestId('node-parameters').getByText(notice.displayName.slice(0, 60));
		const visible = await shown.waitFor().then(
			() => true,
			() => false,
		);
		check(
			`editor: ${label}: "${node.name}" shows its notice "${notice.name}"`,
			visible,
			notice.displayName.slice(0, 70) + '…',
		);
	}
}

async function checkTemplateList(ctx, label, ndv) {
	const { page, check, templates } = ctx;
	const rlc = ndv.getByTestId('parameter-input-templateId');
	await rlc.getByTestId('rlc-mode-selector').click();
	await page.getByRole('option', { name: 'From list' }).click();
	await rlc.getByTestId('rlc-input').click();
	// 1.x teleports the list into "resource-locator-dropdown", 2.x keeps it in the parameter: only
	// the open list's items are visible.
	const items = page.getByTestId('rlc-item').filter({ visible: true });
	await items.first().waitFor();
	const names = (await items.allInnerTexts()).map(firstLine);
	await screenshot(page, path.join(ctx.imagesDir, 'upload-operation.png'));
	check(
		`editor: ${label}: the Template list ("From list") shows the sandbox's templates`,
		templates.length > 0 && sameSet(names, templates),
		`${names.join(', ')}${sameSet(names, templates) ? '' : ` (sandbox: ${templates.join(', ')})`}`,
	);
	// Choosing a template closes the list, as a user would.
	await items.first().click();
	await items.first().waitFor({ state: 'hidden' });
}

async function checkResourcesAndOperations(ctx, label, node) {
	const { page, check, descriptions } = ctx;
	const description = descriptions.get(node.type);
	const resource = description.properties.find((p) => p.name === 'resource');
	const expectedResources = resource.options.map((o) => o.name);
	const shownResources = await dropdownOptions(page, 'resource');
	const r = compareOptions(shownResources, expectedResources);
	check(
		`editor: ${label}: the Resource list holds every resource of the description`,
		r.ok,
		r.detail,
	);

	for (const option of resource.options) {
		const operation = description.properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(option.value),
		);
		await chooseOption(page, 'resource', option.name);
		const shown = await dropdownOptions(page, 'operation');
		const o = compareOptions(
			shown,
			operation.options.map((x) => x.name),
		);
		check(
			`editor: ${label}: the Operation list of ${option.name} holds every operation of the description`,
			o.ok,
			o.detail,
		);
	}
}

/** A control: the indicators the checks look for do show for a node with a missing required parameter. */
async function checkIssueDetector(ctx) {
	const { page, n8nUrl, check } = ctx;
	const workflow = {
		name: 'e2e editor control: missing template',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {},
		nodes: [
			{
				id: 'e2e0ed17-0000-4000-8000-000000000001',
				name: 'Upload without template',
				type: ACTION,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					resource: 'scan',
					operation: 'upload',
					templateId: { __rl: true, mode: 'id', value: '' },
				},
			},
		],
	};
	const created = await browserRest(page, 'POST', 'workflows', workflow);
	const id = created.body?.data?.id;
	if (!id) throw new Error(`could not create the control workflow: HTTP ${created.status}`);
	await openWorkflow(page, n8nUrl, id, 1);
	const node = canvasNode(page, { type: ACTION });
	const indicator = node.getByTestId('node-issues');
	const onCanvas = await indicator.waitFor().then(
		() => true,
		() => false,
	);
	const ndv = await openNodeView(page, node);
	const inView = await ndv
		.getByTestId('parameter-issues')
		.first()
		.waitFor()
		.then(
			() => true,
			() => false,
		);
	check(
		'editor: control: a node with a missing required parameter shows the issue indicators',
		onCanvas && inView,
		`canvas node-issues ${onCanvas ? 'shown' : 'NOT shown'}, node view parameter-issues ${inView ? 'shown' : 'NOT shown'}`,
	);
	await closeNodeView(page);
	await browserRest(page, 'POST', `workflows/${id}/archive`, {});
}

async function checkDarkIcons(ctx, workflows, idByName) {
	const { page, n8nUrl, descriptions, check } = ctx;
	const seen = new Set();
	for (const workflow of workflows) {
		const fresh = workflow.nodes.filter((n) => descriptions.has(n.type) && !seen.has(n.type));
		if (fresh.length === 0 || !idByName.has(workflow.name)) continue;
		await openWorkflow(page, n8nUrl, idByName.get(workflow.name), workflow.nodes.length);
		for (const node of fresh) {
			seen.add(node.type);
			const icon = await iconOf(canvasNode(page, { name: node.name }));
			const want = iconFile(descriptions.get(node.type).icon.dark);
			check(
				`editor: the dark icon of ${node.type.split('.').pop()} renders in a dark browser`,
				icon.src.endsWith(`/${want}`) && icon.width > 0 && icon.height > 0,
				`${icon.src} ${icon.width}x${icon.height}`,
			);
		}
	}
}
