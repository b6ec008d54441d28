/**
 * The one concurrency helper: runs `task` for every index 0..count-1, at most `concurrency` at
 * once, results in index order. When a task fails and `stopOnError` is set, no further task
 * starts; the running ones are awaited (their requests may have spent credit), then the failure
 * of the lowest index is thrown.
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
