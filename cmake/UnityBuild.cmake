# kopt_unity_build(TARGET): the target's sources compiled in batches of KOPT_UNITY_BATCH_SIZE
# (one translation unit per batch), so that the header-only libraries' templates (nlohmann/json,
# fmt, CLI11, GoogleTest) are parsed and instantiated once per batch, not once per file: on
# 2 cores a fresh build takes about half the time. An edit recompiles its whole batch, so
# KOPT_UNITY_BUILD=OFF suits a long edit-compile session (docs/development.md).
#
# A unity build puts several files' anonymous namespaces into one: two files of a folder may
# not define the same helper. That is the rule anyway (a helper two files need lives in a
# header once), and the build enforces it.
option(KOPT_UNITY_BUILD "Compile each target's sources in batches (a fresh build in about half the time)" ON)
set(KOPT_UNITY_BATCH_SIZE 8 CACHE STRING "Sources per batch of a unity build")

function(kopt_unity_build target)
  if(KOPT_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KOPT_UNITY_BATCH_SIZE})
  endif()
endfunction()
