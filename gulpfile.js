// Copies what tsc does not emit (node icons and codex files) into dist/, next to the
// compiled node files, keeping the folder structure n8n expects.
const path = require('path');
const { src, dest, task } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.resolve('dist')));
}

task('build:assets', copyAssets);

// `npm run build` calls this through tools/ci/build-assets.js rather than the gulp CLI, whose
// v8flags cache would be written into ~/.cache.
module.exports = { copyAssets };
