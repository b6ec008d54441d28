// The build's asset step (gulpfile.js, copyAssets) run through gulp's API instead of its CLI:
// the CLI keeps a v8flags cache in ~/.cache, and the build must write nothing into the home folder.
const { finished } = require('node:stream/promises');
const { copyAssets } = require('../../gulpfile.js');

finished(copyAssets()).catch((error) => {
	console.error(error);
	process.exit(1);
});
