/**
 * Unit tests of what a delivery key is made of (deliveryKey.ts), as the reference states it. The
 * properties over every body shape are in delivery-key.property.test.ts.
 */
import { deliveryKey } from '../../nodes/DocumentScanningTrigger/deliveryKey';
import { keyOf, resultDigest } from './helpers';

describe('the delivery key', () => {
	const data = {
		scan_id: 42,
		filename: 'a.pdf',
		status: 'completed',
		extracted_data: { total: 1 },
	};

	it('is the event, the scan ID and a digest of the result (as the reference states it)', () => {
		const body = { event: 'scan.completed', timestamp: '2026-01-01T00:00:00+00:00', data };
		expect(deliveryKey('scan.completed', body, '42')).toBe(keyOf(body, '42'));
		expect(keyOf(body, '42')).toBe(`scan.completed:42:${resultDigest(data, true)}`);
		expect(resultDigest(data)).toMatch(/^[0-9a-f]{16}$/);
	});

	it('a new result of the same scan (processed again, completed after validation_failed) gets a new key', () => {
		const first = { event: 'scan.completed', data: { ...data, status: 'validation_failed' } };
		const again = { event: 'scan.completed', data };
		expect(deliveryKey('scan.completed', first, '42')).not.toBe(
			deliveryKey('scan.completed', again, '42'),
		);
	});

	it('a body without a scan ID: the digest of the body without its timestamp', () => {
		const sample = { event: 'scan.completed', timestamp: 'x', data: { ...data, scan_id: 0 } };
		expect(deliveryKey('scan.completed', sample, undefined)).toBe(keyOf(sample));
		expect(deliveryKey('scan.completed', { ...sample, timestamp: 'y' }, undefined)).toBe(
			keyOf(sample),
		);
		expect(keyOf(sample)).toMatch(/^sha256:[0-9a-f]{16}$/);
	});
});
