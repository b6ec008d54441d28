// n8n loads the nodes and credentials listed under "n8n" in package.json; this file
// only gives the package a harmless main entry.
module.exports = {};
