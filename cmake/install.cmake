# What `cmake --install` puts under the prefix, for programs built apart from zmote:
#   lib/libzmote.a
#   include/zenoh-pico.h, zenoh-pico/, zmote.h, zmote/, the port's headers (zmote_platform.h...)
#     and the build's zmote_config.h if it has one: one include folder, every extra name zmote_*
#   lib/cmake/zmote/   find_package(zmote CONFIG) gives zmote::zmote, with the definitions and the
#                      threads the library was built with
#   lib/pkgconfig/zmote.pc
# Included from the top-level CMakeLists once the zmote target is complete.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ZM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zmote)

install(TARGETS zmote EXPORT zmoteTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# zmote/port.h includes the port's zmote_platform.h; a bare-metal board implements zmote_board.h.
file(GLOB ZM_PORT_HEADERS ${PROJECT_SOURCE_DIR}/port/${ZM_PORT}/*.h)
install(FILES ${ZM_PORT_HEADERS} ${ZM_CONFIG_HEADER} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT zmoteTargets NAMESPACE zmote:: DESTINATION ${ZM_CMAKE_DIR})
if(ZM_PORT STREQUAL "baremetal" OR ZM_PORT STREQUAL "freertos")
  set(ZM_NEEDS_THREADS OFF)
  set(ZM_PC_LIBS_PRIVATE "")
else()
  set(ZM_NEEDS_THREADS ON)
  set(ZM_PC_LIBS_PRIVATE "-pthread")
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/zmoteConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/zmoteConfig.cmake INSTALL_DESTINATION ${ZM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zmoteConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zmoteConfig.cmake ${PROJECT_BINARY_DIR}/zmoteConfigVersion.cmake
        DESTINATION ${ZM_CMAKE_DIR})

# zmote.pc names the prefix the files are installed to, which `cmake --install --prefix` may
# change after configure: the file is completed by the install step, where CMAKE_INSTALL_PREFIX
# is the real one. Folders given as absolute paths stay as given.
set(ZM_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(ZM_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(ZM_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
set(ZM_PC_CFLAGS "-I\${includedir}")
foreach(d ${ZM_PUBLIC_DEFINITIONS})
  string(APPEND ZM_PC_CFLAGS " -D${d}")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/zmote.pc.in ${PROJECT_BINARY_DIR}/zmote.pc.in @ONLY)
install(CODE "configure_file(\"${PROJECT_BINARY_DIR}/zmote.pc.in\" \"${PROJECT_BINARY_DIR}/zmote.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/zmote.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
