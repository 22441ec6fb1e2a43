# lt_layer(NAME DIR DEPS...) — one layer folder as one shared library.
#
# The layer's headers are reachable only through a staged include root that
# holds a single link, <root>/<dir> -> the source folder, so `#include "ir/x.h"`
# works in ir and in layers that link ir, and fails everywhere else.
function(lt_layer name dir)
  cmake_parse_arguments(L "" "" "DEPS;PRIVATE_DEPS;SOURCES" ${ARGN})
  if(NOT L_SOURCES)
    file(GLOB L_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  endif()
  add_library(${name} SHARED ${L_SOURCES})
  lt_stage_include(${name} PUBLIC ${dir} ${CMAKE_CURRENT_SOURCE_DIR})
  target_include_directories(${name} PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/lazytensor>)
  target_link_libraries(${name} PUBLIC ${L_DEPS} PRIVATE ${L_PRIVATE_DEPS})
  set_target_properties(${name} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                                           INSTALL_RPATH "$ORIGIN")
  install(TARGETS ${name} EXPORT lazytensorTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  file(GLOB headers ${CMAKE_CURRENT_SOURCE_DIR}/*.h ${CMAKE_CURRENT_SOURCE_DIR}/*.def)  # ir/ops.h includes ir/ops.def
  install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lazytensor/${dir})
endfunction()

# lt_stage_include(TARGET SCOPE PREFIX SOURCE_DIR) — makes `#include "PREFIX/x.h"`
# find SOURCE_DIR/x.h for TARGET (and, with SCOPE PUBLIC, for what links it)
# and nothing else: the include root <build>/include_roots/TARGET holds the one
# link PREFIX -> SOURCE_DIR. Every target outside a layer that has headers of
# its own (the Python extension, the fuzzer) uses this instead of putting the
# repository root on the include path, which would let it include any header.
function(lt_stage_include target scope prefix source_dir)
  set(root ${CMAKE_BINARY_DIR}/include_roots/${target})
  get_filename_component(parent ${root}/${prefix} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${root}/${prefix})
    file(CREATE_LINK ${source_dir} ${root}/${prefix} SYMBOLIC)
  endif()
  target_include_directories(${target} ${scope} $<BUILD_INTERFACE:${root}>)
endfunction()

# Adds a folder that has a CMakeLists.txt and at least one source file.
macro(lt_optional_subdirectory dir)
  file(GLOB_RECURSE _lt_src CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cpp)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt AND _lt_src)
    add_subdirectory(${dir})
  endif()
endmacro()
