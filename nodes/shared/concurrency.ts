/**
 * The one concurrency helper. Runs `task` for every index 0..count-1 with at most `concurrency` running at once and
 * returns the results in index order.
 *
 * When a task fails and `stopOnError` is set, no further task is started; the ones already
 * running are awaited (their requests may have spent credit and must not be abandoned
 * half-way), then the failure of the lowest index is thrown.
 */
export async function mapWithConcurrency<T>(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<T>,
	stopOnError = true,
): Promise<T[]> {
	const results = new Array<T>(count);
	const failures: Array<{ index: number; error: unknown }> = [];
	let next = 0;
	const worker = async () => {
		while (next < count && !(stopOnError && failures.length > 0)) {
			const index = next++;
			try {
				results[index] = await task(index);
			} catch (error) {
				failures.push({ index, error });
			}
		}
	};
	const width = Math.max(1, Math.min(Math.floor(concurrency) || 1, count));
	await Promise.all(Array.from({ length: width }, worker));
	if (failures.length > 0) {
		failures.sort((a, b) => a.index - b.index);
		throw failures[0].error;
	}
	return results;
}
