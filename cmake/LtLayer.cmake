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
  set(root ${CMAKE_BINARY_DIR}/include_roots/${name})
  get_filename_component(parent ${root}/${dir} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${root}/${dir})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${dir} SYMBOLIC)
  endif()
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${root}>
                                            $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/lazytensor>)
  target_link_libraries(${name} PUBLIC ${L_DEPS} PRIVATE ${L_PRIVATE_DEPS})
  set_target_properties(${name} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                                           INSTALL_RPATH "$ORIGIN")
  install(TARGETS ${name} EXPORT lazytensorTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  file(GLOB headers ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lazytensor/${dir})
endfunction()

# Adds a folder that has a CMakeLists.txt and at least one source file.
macro(lt_optional_subdirectory dir)
  file(GLOB_RECURSE _lt_src CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cpp)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt AND _lt_src)
    add_subdirectory(${dir})
  endif()
endmacro()
