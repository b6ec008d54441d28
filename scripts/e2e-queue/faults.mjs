export async function runFaults() {}
