# One place for warning flags. Targets opt in with benchd_set_warnings(<target>).
function(benchd_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wcast-align -Wconversion -Wsign-conversion
    -Wformat=2 -Wimplicit-fallthrough
    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual>)
  if(BENCHD_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Same for C sources (the ABI header test).
function(benchd_set_c_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wstrict-prototypes)
  if(BENCHD_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# A plugin is a MODULE library that exports only its entry symbol and never relies on
# symbols of the process that loads it: benchd_plugin_properties (the SDK's
# BenchdPluginHelpers.cmake, which out-of-tree plugins use too), built into <build>/plugins.
include(${PROJECT_SOURCE_DIR}/plugins/sdk/cmake/BenchdPluginHelpers.cmake)
function(benchd_configure_plugin target)
  benchd_plugin_properties(${target})
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/plugins)
  target_link_libraries(${target} PRIVATE benchd::plugin_sdk)
endfunction()

# An approach plugin: a configured plugin that also joins the list the conformance suite runs
# against (global property BENCHD_APPROACH_PLUGINS).
# It is installed into the built-in plugin folder, where `benchd run` finds it without flags.
function(benchd_add_approach_plugin target)
  benchd_configure_plugin(${target})
  set_property(GLOBAL APPEND PROPERTY BENCHD_APPROACH_PLUGINS ${target})
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/benchd/plugins)
endfunction()
