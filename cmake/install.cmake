# `cmake --install` and the Debian package (CPack), README "Install".
#
# Layout under the prefix (/usr for the .deb, /usr/local by default):
#   bin/racelab, bin/racelab-bench
#   share/racelab/scenarios/*.yaml   the catalogue; racelab finds it relative to its own executable
#                                    (<prefix>/bin/../share/racelab/scenarios), no path is compiled in
#   share/racelab/schemas/           JSON Schemas of the report and of scenario files, the JUnit XSD
#   share/doc/racelab/               README.md and docs/*.md
#   share/man/man1/racelab.1         the man page
include(GNUInstallDirs)

install(TARGETS racelab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET racelab-bench)
  install(TARGETS racelab-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/racelab/scenarios
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.yml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${CMAKE_INSTALL_DATADIR}/racelab/schemas)
file(GLOB RACELAB_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${RACELAB_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/docs/racelab.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# CPack: `cpack -G DEB` in the build folder writes racelab_<version>_<arch>.deb, installable with
# `apt install ./racelab_*.deb` on Debian 12 (scripts/check-deb builds, installs and runs it).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME racelab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Reproduce, measure and explain concurrency races against real databases")
set(CPACK_PACKAGE_CONTACT "racelab maintainers <racelab@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Runtime libraries (libpq5, libyaml-cpp, libfmt, libboost-thread, libstdc++, …) from dpkg-shlibdeps;
# the PostgreSQL server for the embedded throwaway cluster (initdb, postgres).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "postgresql-15 | postgresql (>= 15)")
include(CPack)
