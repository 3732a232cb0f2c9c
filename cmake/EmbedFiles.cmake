# Embeds data files into the binary, so a kopt binary carries its knowledge (dtype table,
# catalog, reference runner) wherever it is copied. The files under data/ and python/ stay
# the single source of truth: the generated source is rebuilt whenever one changes, and
# KOPT_DATA_DIR can point kopt at a live copy of the tree instead.
function(kopt_embed_files target)
  set(output "${CMAKE_CURRENT_BINARY_DIR}/embedded_files.cpp")
  # A list cannot cross the command line as is; "|" separates the paths instead.
  string(REPLACE ";" "|" file_list "${ARGN}")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DROOT=${PROJECT_SOURCE_DIR}
            "-DFILES=${file_list}" -P "${PROJECT_SOURCE_DIR}/cmake/embed_files_script.cmake"
    DEPENDS ${ARGN} "${PROJECT_SOURCE_DIR}/cmake/embed_files_script.cmake"
    COMMENT "Embedding data files"
    VERBATIM)
  target_sources(${target} PRIVATE "${output}")
endfunction()
