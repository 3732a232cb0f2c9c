# `cmake --install build [--prefix DIR]`: kopt on PATH (DIR/bin), the agent skill, the README,
# the examples and a lab model beside it, and in a -DKOPT_TRITON_WORKER=ON build libkopt_worker.so in DIR/lib/kopt. Everything kopt reads at run time (data/, the Python runner, the shim) is
# embedded in the binary, so nothing else needs to travel.
# `cpack --config build/CPackConfig.cmake`: the same as a .deb.
include(GNUInstallDirs)
install(TARGETS kopt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The Triton kernels' worker, where kopt looks from its bin folder (src/kopt/CMakeLists.txt).
if(KOPT_TRITON_WORKER)
  install(TARGETS kopt_worker LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/kopt)
endif()
install(FILES skill/SKILL.md DESTINATION ${CMAKE_INSTALL_DATADIR}/kopt/skill)
# The skill's rehearsal model beside it (kopt skill rehearsal writes the same from the binary).
install(DIRECTORY skill/rehearsal DESTINATION ${CMAKE_INSTALL_DATADIR}/kopt/skill)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The examples and the lab model of the README's first command, so that the tour runs from an
# install (tests/cli/installed_tour.sh): DIR/share/kopt/examples/<name>/, each folder standing
# alone (its reference inside it), and DIR/share/kopt/models/sgemm_tiled_model.json with the
# evidence it names at the same relative place (../evidence/h200_sgemm_naive). What kopt
# writes beside a kernel is left out.
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kopt/examples
        PATTERN "check.json" EXCLUDE PATTERN "bench.json" EXCLUDE PATTERN "sass.json" EXCLUDE
        PATTERN "profile" EXCLUDE PATTERN "__pycache__" EXCLUDE PATTERN "run_*" EXCLUDE)
install(FILES tests/fixtures/loop/sgemm_tiled_model.json DESTINATION ${CMAKE_INSTALL_DATADIR}/kopt/models)
install(DIRECTORY tests/fixtures/evidence/h200_sgemm_naive DESTINATION ${CMAKE_INSTALL_DATADIR}/kopt/evidence)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kopt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "kopt developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Checks, times, profiles and optimizes CUDA kernels")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The binary links only glibc dynamically; dpkg-shlibdeps states that dependency. The CUDA
# toolkit is not a dependency: NVIDIA's installers, not Debian's package, usually provide it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-numpy")
include(CPack)
