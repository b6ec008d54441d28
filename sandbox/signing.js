'use strict';
// The service's delivery signature (API docs, "Webhook signatures"): HMAC-SHA256 of the raw
// body with the webhook's secret, hex, prefixed "sha256=". One helper for the sandbox, the tests
// and the e2e (the shipped node verifies with its own code: nodes/ has no dev dependencies).
const { createHmac } = require('node:crypto');

/**
 * @param {string} secret the webhook's signing secret
 * @param {string | Buffer} rawBody the exact bytes sent
 * @returns {string} the X-Signature header value, `sha256=<hex>`
 */
function signatureHeader(secret, rawBody) {
	return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

module.exports = { signatureHeader };
