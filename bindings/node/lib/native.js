'use strict';
// Loads the compiled addon (src/*.c): the raw layer, one function per C
// call on (engine, handle). Where from, in order: TOCSIN_NODE_ADDON (a
// path; `make test-node` sets it), then node-gyp's build/Release and
// build/Debug. The error lists every place tried and how to build it.
const path = require('node:path');

function load() {
  const tried = [];
  const places = [];
  if (process.env.TOCSIN_NODE_ADDON) places.push(process.env.TOCSIN_NODE_ADDON);
  const root = path.join(__dirname, '..');
  places.push(path.join(root, 'build', 'Release', 'tocsin.node'),
    path.join(root, 'build', 'Debug', 'tocsin.node'));
  for (const place of places) {
    try {
      return require(place);
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND') throw error; // found, but it does not load: say why
      tried.push(place);
    }
  }
  const error = new Error(`tocsin: the addon is not built; tried ${tried.join(', ')}. ` +
    'Build it with `npx node-gyp rebuild` in bindings/node (libtocsin.so and its header installed; ' +
    'offline, set npm_config_nodedir=/usr), or set TOCSIN_NODE_ADDON to a built tocsin.node.');
  error.code = 'TOCSIN_EUNAVAILABLE';
  throw error;
}

module.exports = load();
