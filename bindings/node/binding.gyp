{
  # node-gyp's build of the addon for users: libtocsin found by pkg-config
  # (libtocsin-dev, `make install`, or PKG_CONFIG_PATH=<tree>/out/debug/lib/pkgconfig).
  # Offline, point node-gyp at the installed headers: npm_config_nodedir=/usr
  # (it looks for /usr/include/node/common.gypi). The Makefile builds the
  # same sources with cc for the tests.
  "targets": [
    {
      "target_name": "tocsin",
      "sources": ["src/addon.c", "src/args.c", "src/engine.c", "src/host.c", "src/query.c", "src/timer.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=gnu11", "-Werror", "<!@(pkg-config --cflags tocsin)"],
      "libraries": ["<!@(pkg-config --libs tocsin)"],
      "ldflags": ["<!@(pkg-config --libs-only-L tocsin | sed 's/-L/-Wl,-rpath,/g')"]
    }
  ]
}
