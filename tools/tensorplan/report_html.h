/* The self-contained HTML page of `tensorplan report --html`: the memory-map
 * SVG inline, the report's tables, and per-buffer details on hover. */
#ifndef TP_CLI_REPORT_HTML_H
#define TP_CLI_REPORT_HTML_H

#include <stdio.h>

/* Write the page (tp_report_html_page). title is escaped; svg and tables_html are trusted fragments
 * produced by tensorplan itself (names inside them are already escaped).
 * Returns 0, or -1 on a write error or
 * when out of memory. */
int tp_cli_write_html(FILE *f, const char *title, const char *svg, const char *tables_html);

/* Append s to f with HTML escaping. */
void tp_cli_html_escape(FILE *f, const char *s);

#endif
