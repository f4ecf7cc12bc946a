/*
 * tensorplan/version.h — the version of the headers, as macros for compile-time
 * checks; tp_version() (core.h) returns the version of the library actually linked.
 *
 * This file is the one place the version is written: CMakeLists.txt reads it for
 * project(VERSION), the shared library's SONAME (libtensorplan.so.MAJOR), the
 * pkg-config file, the CMake package version and the Debian package.
 *
 * ABI note: before 1.0 every minor release may change the ABI; the SONAME carries the
 * major version and the CMake package accepts the same major (SameMajorVersion), so
 * compare TP_VERSION_MINOR too when you load a 0.x library at run time.
 */
#ifndef TENSORPLAN_VERSION_H
#define TENSORPLAN_VERSION_H

#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 1
#define TP_VERSION_PATCH 0

#define TP_VERSION_STR_(x) #x
#define TP_VERSION_STR(x) TP_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH", e.g. "0.1.0". */
#define TP_VERSION_STRING                                                                          \
    TP_VERSION_STR(TP_VERSION_MAJOR)                                                               \
    "." TP_VERSION_STR(TP_VERSION_MINOR) "." TP_VERSION_STR(TP_VERSION_PATCH)
/* One comparable number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define TP_VERSION_NUMBER (TP_VERSION_MAJOR * 10000 + TP_VERSION_MINOR * 100 + TP_VERSION_PATCH)

#endif
