/*
 * tensorplan/export.h — TP_API marks the functions and data that libtensorplan exports.
 *
 * The library is compiled with hidden visibility by default (-fvisibility=hidden), so
 * only declarations carrying TP_API are visible outside the shared library; internal
 * helpers stay private to it. Users never define anything: the same headers serve the
 * shared library, the static library and the single-file amalgamation.
 */
#ifndef TENSORPLAN_EXPORT_H
#define TENSORPLAN_EXPORT_H

#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(TP_BUILDING_DLL)
#define TP_API __declspec(dllexport)
#elif defined(TP_USING_DLL)
#define TP_API __declspec(dllimport)
#else
#define TP_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define TP_API __attribute__((visibility("default")))
#else
#define TP_API
#endif

#endif
