/**
 * A stand-in for the ERP of the example "A person in the loop" (examples/scans-to-erp-with-review.json):
 * `POST /__sandbox/bookings` records the JSON it is sent, `GET` lists what was recorded (oldest
 * first), `DELETE` forgets it, as `POST /__sandbox/reset` does. Not part of the API; docs/sandbox.md.
 */
import { route, Route } from '../api/router';
import type { ApiResponse } from '../api/http';

type Body = Record<string, unknown>;
type Handler = (body: Body) => ApiResponse;

/** One recorded booking: what was sent, and when it arrived (ISO, real time). */
export interface Booking {
	at: string;
	body: Body;
}

/** The routes and the record they share (one per control handler); `clear` empties it. */
export function bookingRoutes(): { routes: Array<Route<Handler>>; clear: () => void } {
	const booked: Booking[] = [];
	const clear = (): void => {
		booked.length = 0;
	};
	return {
		clear,
		routes: [
			route<Handler>('POST', '/bookings', (body) => {
				booked.push({ at: new Date().toISOString(), body });
				return { status: 201, body: { booked: booked.length } };
			}),
			route<Handler>('GET', '/bookings', () => ({ status: 200, body: booked })),
			route<Handler>('DELETE', '/bookings', () => {
				clear();
				return { status: 200, body: { cleared: true } };
			}),
		],
	};
}
