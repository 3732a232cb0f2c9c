# kopt_precompile_headers(TARGET HEADER...): the target's sources parse HEADER... once, from a
# precompiled header, instead of once each (CLI11 or GoogleTest, with nlohmann/json and fmt:
# 15-25 % of a command's or a test file's compile at -O3). KOPT_PRECOMPILED_HEADERS=OFF turns
# it off.
#
# ccache caches a compile that uses a precompiled header only with its sloppiness
# pch_defines,time_macros (ccache manual, "Precompiled headers"; ccache 4.7 takes no settings
# on its command line), so such a target's ccache launcher runs with CCACHE_SLOPPINESS set:
# those two added to what ccache is already configured with, for this target's compiles alone.
option(KOPT_PRECOMPILED_HEADERS "Precompile the heavy header-only libraries' headers for the CLI and the tests" ON)

function(kopt_ccache_launcher_for_pch out_var)
  set(launcher "${CMAKE_CXX_COMPILER_LAUNCHER}")
  list(LENGTH launcher length)
  if(NOT length EQUAL 1 OR NOT launcher MATCHES "ccache$")
    set(${out_var} "${launcher}" PARENT_SCOPE)  # no launcher, or one kopt does not know
    return()
  endif()
  execute_process(COMMAND ${launcher} --get-config sloppiness OUTPUT_VARIABLE sloppiness
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REPLACE " " "" sloppiness "${sloppiness}")
  string(REPLACE "," ";" sloppiness "${sloppiness}")
  list(APPEND sloppiness pch_defines time_macros)
  list(REMOVE_DUPLICATES sloppiness)
  list(JOIN sloppiness "," sloppiness)
  set(${out_var} "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=${sloppiness};${launcher}" PARENT_SCOPE)
endfunction()

function(kopt_precompile_headers target)
  if(NOT KOPT_PRECOMPILED_HEADERS)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${ARGN})
  kopt_ccache_launcher_for_pch(launcher)
  set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
endfunction()
