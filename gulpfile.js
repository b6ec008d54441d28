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
