# `cmake --install` and the Debian package (CPack), README "Install".
#
# Layout under the prefix (/usr for the .deb, /usr/local by default):
#   bin/racelab, bin/racelab-bench
#   share/racelab/scenarios/*.yaml   the catalogue; racelab finds it relative to its own executable
#                                    (<prefix>/bin/../share/racelab/scenarios), no path is compiled in
#   share/racelab/schemas/           JSON Schemas of the report and of scenario files, the JUnit XSD
#   share/doc/racelab/               README.md, docs/*.md and the images they show (docs/*.svg)
#   share/doc/racelab/ci/            the CI examples (docs/ci/*.yml), as docs/compare.md shows them
#   share/man/man1/racelab.1         the man page, written by racelab --help-man at build time
#
# Binaries are installed as built (RelWithDebInfo by default: ~120 MB with debug information);
# `cmake --install build --strip` strips them (racelab: 3.5 MB), as Debian's packaging tools do; the .deb is
# stripped (CPACK_STRIP_FILES). scripts/check-deb checks both.
include(GNUInstallDirs)

install(TARGETS racelab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET racelab-bench)
  install(TARGETS racelab-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/racelab/scenarios
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.yml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${CMAKE_INSTALL_DATADIR}/racelab/schemas)
file(GLOB RACELAB_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.svg)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${RACELAB_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB RACELAB_CI_EXAMPLES ${PROJECT_SOURCE_DIR}/docs/ci/*.yml)
install(FILES ${RACELAB_CI_EXAMPLES} DESTINATION ${CMAKE_INSTALL_DOCDIR}/ci)
install(FILES ${PROJECT_BINARY_DIR}/racelab.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

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
# The other engines' embedded servers and the shells to check a result by hand: racelab runs without
# them (PostgreSQL only), so they are recommended, not required. mariadb-server-core has mariadbd and
# mariadb-install-db, all the embedded MariaDB needs (mariadb-server would also start a system
# service); SQLite's library comes through shlibdeps, the sqlite3 shell is for checking by hand.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mariadb-server-core | mariadb-server, sqlite3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "mariadb-client")
set(CPACK_STRIP_FILES ON)
include(CPack)
