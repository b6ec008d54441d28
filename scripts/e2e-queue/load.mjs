export async function runLoad() {}
