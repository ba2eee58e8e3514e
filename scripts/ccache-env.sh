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
