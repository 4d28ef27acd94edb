# The unit tests' TMPDIR (tests/CMakeLists.txt): cmake -DDIR=<folder> -DMODE=setup|check -P tmpdir_check.cmake
#   setup: DIR is made empty (what an earlier, interrupted ctest left is removed);
#   check: fails naming every file or folder the unit tests left in DIR, then removes DIR.
if(NOT DIR)
  message(FATAL_ERROR "tmpdir_check.cmake: -DDIR=<folder> is required")
endif()
if(MODE STREQUAL "setup")
  file(REMOVE_RECURSE "${DIR}")
  file(MAKE_DIRECTORY "${DIR}")
elseif(MODE STREQUAL "check")
  file(GLOB left LIST_DIRECTORIES true "${DIR}/*" "${DIR}/.*")
  file(REMOVE_RECURSE "${DIR}")
  if(left)
    list(JOIN left "\n  " names)
    message(FATAL_ERROR "unit tests left these in their TMPDIR (a test must remove what it writes: "
                        "tests/temp_dir.h):\n  ${names}")
  endif()
else()
  message(FATAL_ERROR "tmpdir_check.cmake: -DMODE=setup or -DMODE=check")
endif()
