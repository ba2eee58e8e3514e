# How a benchd plugin is built, in one place: the in-tree approach plugins
# (cmake/BenchdCompilerFlags.cmake) and out-of-tree plugins (the BenchdPluginSdk package) both
# call benchd_plugin_properties(), so a plugin built outside the repository is built as the
# in-tree ones are.
include_guard(GLOBAL)
include(GNUInstallDirs)

# The properties every plugin needs, whatever builds it:
#  - a MODULE library without the "lib" prefix: the file name is the plugin's name
#    (`callbacks-asio.so`), which `benchd plugins` shows and `--plugin-dir` folders hold;
#  - hidden visibility: only the entry symbol (BENCHD_PLUGIN_EXPORT) is exported, so two
#    plugins that carry different versions of the same library never clash;
#  - --no-undefined: a plugin never relies on symbols of the process that loads it, so a
#    missing library is a link error for the author, not a dlopen error for the user.
function(benchd_plugin_properties target)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
endfunction()

# benchd_add_plugin(<target> [OUTPUT_NAME <name>] SOURCES <file>...)
#
# A plugin of an out-of-tree project: a MODULE library with benchd_plugin_properties(), built
# into the project's binary folder (so `benchd plugins --plugin-dir build/` lists it) and
# installed into <libdir>/benchd/plugins (`cmake --install build` with the default prefix puts
# it in /usr/local/lib/benchd/plugins, the folder an installed benchd searches for local
# plugins). A project that enables C++ gets the C++ SDK (benchd::plugin_sdk, C++20); a C-only
# project gets the C headers (benchd::plugin_abi).
function(benchd_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_NAME" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "benchd_add_plugin(${target}): unexpected arguments "
                        "'${arg_UNPARSED_ARGUMENTS}'; expected [OUTPUT_NAME <name>] SOURCES <file>...")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "benchd_add_plugin(${target}): no SOURCES given")
  endif()
  add_library(${target} MODULE ${arg_SOURCES})
  benchd_plugin_properties(${target})
  if(arg_OUTPUT_NAME)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${arg_OUTPUT_NAME})
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CXX" IN_LIST languages)
    target_link_libraries(${target} PRIVATE benchd::plugin_sdk)
  else()
    target_link_libraries(${target} PRIVATE benchd::plugin_abi)
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/benchd/plugins)
endfunction()
