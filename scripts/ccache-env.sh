# Sourced by the build scripts (test.sh, tsan.sh): ccache settings shared by every build tree.
# ccache and precompiled headers: let ccache reuse PCH-built objects.
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
# Paths under the checkout are hashed relative to it, and the working directory is left out of
# the hash (ccache adds it for -g builds by default), so a fresh clone elsewhere (as CI makes)
# reuses the objects an earlier clone compiled; its debug info then names the earlier clone's
# paths, which no CI step reads. Several build trees (ci, asan, tsan) need more than ccache's
# default 5 GB.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-16G}"
# The cache named once, for every build: debhelper runs the package build with HOME set to a
# folder of its own (debian/.debhelper/generated/_source/home), where ccache would look for a
# cache of its own that is empty every time (the package build's 1,600 s of compiling then
# never hit). Its -ffile-prefix-map path needs nothing more: ccache rewrites it under base_dir.
if command -v ccache >/dev/null; then
  export CCACHE_DIR="${CCACHE_DIR:-$(ccache -k cache_dir)}"
fi
